/* frontend_async.c - asynchronous copies written by hand, as TileLang
 * spells them: the commit/wait group calls (T.ptx_commit_group,
 * T.ptx_wait_group), the mbarrier arrival that waits for a thread's
 * cp.async copies (T.cp_async_barrier_noinc), and T.attr's TileLang forms
 * `T.attr(node, key, value)` / `T.attr({key: value, ...})` with the keys
 * TileLang programs use.  The copies themselves become cp.async in
 * lower-tile-ops, inside the "async_copy" scope these forms open. */
#include "frontend.h"

#include <stdio.h>
#include <string.h>

static const char *const async_names[] = {
	"ptx_commit_group",
	"ptx_wait_group",
	"cp_async_barrier_noinc",
};

bool fe_async_has(const char *name)
{
	for (size_t i = 0; i < TLC_ARRAY_LEN(async_names); i++)
		if (strcmp(async_names[i], name) == 0)
			return true;
	return false;
}

fe_val *fe_call_async(fe *F, const char *n, int nargs, fe_val **args, int nkw, const char **kwn,
                      fe_val **kwv, tlc_loc loc)
{
	char fname[64];
	snprintf(fname, sizeof fname, "T.%s", n);
	if (!strcmp(n, "ptx_commit_group")) {
		if (!fe_bind_args(F, fname, NULL, 0, 0, nargs, args, nkw, kwn, kwv, NULL, loc))
			return NULL;
		return fe_call_op(F, TLC_OP_CP_ASYNC_COMMIT, n, 0, NULL, 0, NULL, NULL, loc);
	}
	if (!strcmp(n, "ptx_wait_group")) {
		/* cp.async.wait_group takes its count as an immediate */
		static const char *const names[] = {"num"};
		fe_val *a[1] = {0};
		int64_t k;
		if (!fe_bind_args(F, fname, names, 1, 1, nargs, args, nkw, kwn, kwv, a, loc) ||
		    !fe_const_int(F, a[0], "T.ptx_wait_group's count (cp.async groups left in flight)", loc,
		                  &k))
			return NULL;
		if (k < 0 || k > 255) {
			tlc_error(F->ctx, loc, "%s(%lld): the number of cp.async groups left in flight is 0 to "
			          "255", fname, (long long)k);
			return NULL;
		}
		a[0] = fe_int(F, k);
		return fe_call_op(F, TLC_OP_CP_ASYNC_WAIT, n, 1, a, 0, NULL, NULL, loc);
	}
	/* cp_async_barrier_noinc(barrier): the thread's arrival on the barrier,
	 * made when its cp.async copies issued so far have landed */
	return fe_call_op(F, TLC_OP_CP_ASYNC_ARRIVE_NOINC, n, nargs, args, nkw, kwn, kwv, loc);
}

/* One key of T.attr's TileLang forms.  async_scope: stores of the body that
 * copy global memory to shared may be cp.async (TileLang's
 * InjectPTXAsyncCopy); they complete at a later T.ptx_wait_group or
 * T.cp_async_barrier_noinc, as the program says.  async_commit_queue_scope:
 * the body's copies form one group, committed at its end. */
static bool attr_key(fe *F, fe_val *key, fe_val *value, unsigned *flags, tlc_loc loc)
{
	if (key->kind != FV_STR) {
		tlc_error(F->ctx, loc, "T.attr: the key must be a string, got '%s'", fe_show(F, key));
		return false;
	}
	bool async = strcmp(key->u.s, "async_scope") == 0;
	if (!async && strcmp(key->u.s, "async_commit_queue_scope") != 0) {
		tlc_error(F->ctx, loc, "T.attr key \"%s\" is not supported: tlc knows \"async_scope\" and "
		          "\"async_commit_queue_scope\" (asynchronous copies); tlc's own scopes are "
		          "T.attr(\"key\", value)", key->u.s);
		return false;
	}
	int64_t v;
	if (!fe_const_int(F, value, async ? "async_scope's value" : "the queue index", loc, &v))
		return false;
	if (!async && v != 0) {
		tlc_error(F->ctx, loc, "T.attr: async_commit_queue_scope %lld; cp.async has one commit "
		          "queue, 0", (long long)v);
		return false;
	}
	*flags |= async ? (v ? FE_ATTR_ASYNC : 0) : FE_ATTR_COMMIT;
	return true;
}

fe_val *fe_t_attr_scope(fe *F, int nargs, fe_val **args, int nkw, const char **kwn, fe_val **kwv,
                        tlc_loc loc)
{
	fe_val *v = fe_new(F, FV_SCOPEOP);
	if (nargs == 2 && nkw == 0 && args[0]->kind == FV_STR) {
		/* tlc's own form: T.attr("key", value) */
		v->u.scope.attr_key = args[0]->u.s;
		v->u.scope.attr_value = fe_to_expr(F, args[1], loc);
		return v->u.scope.attr_value ? v : NULL;
	}
	static const char *const names[] = {"node_or_dict", "attr_key", "value"};
	fe_val *a[3] = {0};
	if (!fe_bind_args(F, "T.attr", names, 3, 1, nargs, args, nkw, kwn, kwv, a, loc))
		return NULL;
	unsigned flags = FE_ATTR_SCOPE;
	if (a[0]->kind == FV_DICT && !a[1] && !a[2]) {
		for (int i = 0; i < a[0]->u.dict.n; i++)
			if (!attr_key(F, a[0]->u.dict.keys[i], a[0]->u.dict.vals[i], &flags, loc))
				return NULL;
	} else if (!a[1] || !a[2]) {
		tlc_error(F->ctx, loc, "T.attr(node, attr_key, value) needs all three arguments (or one "
		          "dict {key: value})");
		return NULL;
	} else if (!attr_key(F, a[1], a[2], &flags, loc)) {
		return NULL;
	}
	/* the node (0, "default", a buffer) names what TVM annotates: the keys
	 * above mean the same whatever it is */
	v->u.scope.attr_flags = flags;
	return v;
}

tlc_stmt *fe_attr_body(fe *F, const fe_val *v, tlc_stmt *body, tlc_loc loc)
{
	unsigned flags = v->u.scope.attr_flags;
	if (v->u.scope.attr_key)
		return tlc_attr_new(F->m, loc, tlc_intern(F->m, v->u.scope.attr_key), v->u.scope.attr_value,
		                    body);
	if (flags & FE_ATTR_ASYNC)
		body = tlc_attr_new(F->m, loc, tlc_intern(F->m, "async_copy"), tlc_i32(F->m, 1), body);
	if (flags & FE_ATTR_COMMIT) {
		tlc_stmt *seq = tlc_seq_new(F->m, loc);
		tlc_seq_append(F->m, seq, body);
		tlc_seq_append(F->m, seq, tlc_eval_new(F->m, loc, tlc_call(F->m, TLC_OP_CP_ASYNC_COMMIT,
		                                                           TLC_DT_VOID, 0, NULL, 0, NULL,
		                                                           NULL)));
		body = seq;
	}
	return body;
}
