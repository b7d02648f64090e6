/* frontend_script.c - the host script around the kernel.  Kernel files are
 * often scripts: at module level, outside any `if __name__ == "__main__":`,
 * they build the kernel, call it on torch tensors, compare and time it
 * (`kernel = matmul(1024, 1024, 1024)`, `out = kernel(a, b)`,
 * `print(profiler.do_bench())`).  tlc needs none of that to build the
 * kernel, so a top-level statement that fails because it runs host code is
 * skipped instead of failing the compilation (doc/language.md,
 * "Compile-time Python"):
 *
 * - the statement failed while it used a host value (a name bound to one:
 *   an opaque module such as torch, or a value made from one) or used a
 *   kernel as a host object (called it, took an attribute of it);
 * - and the failure is not the program's own check (an `assert` that is
 *   false, a `raise`), nor a budget of frontend_limits.c.
 *
 * Its diagnostics are taken back; the names it binds are bound to a marker
 * (an opaque host value), so that host code after it goes on, and a kernel
 * that uses one is an error naming the skipped statement's line and why it
 * failed.  When the compilation fails later, notes list the skipped
 * statements. */
#include "frontend.h"

#include <string.h>

/* The message of the first error in held diagnostics ("path:l:c: error:
 * MESSAGE\n..."). */
const char *fe_first_error(fe *F, const tlc_buf *held)
{
	const char *s = tlc_buf_str(held);
	const char *e = strstr(s, "error: ");
	if (!e)
		return "";
	e += 7;
	const char *nl = strchr(e, '\n');
	size_t n = nl ? (size_t)(nl - e) : strlen(e);
	return fe_strndup(F, e, n > 200 ? 200 : n);
}

static void mark_name(fe *F, fe_env *env, const char *name, int idx)
{
	fe_val *v = fe_new(F, FV_HOST);
	v->u.s = name;
	v->mod = idx + 1; /* FV_HOST with mod > 0: a name a skipped statement binds */
	fe_env_set(F, env, name, v);
}

static void mark_target(fe *F, fe_env *env, py_node *t, int idx, int depth)
{
	if (!t || depth > 50)
		return;
	switch (t->kind) {
	case PY_NAME:
		mark_name(F, env, t->str, idx);
		break;
	case PY_STARRED:
		mark_target(F, env, t->a, idx, depth + 1);
		break;
	case PY_TUPLE:
	case PY_LIST:
		for (int i = 0; i < t->n; i++)
			mark_target(F, env, t->list[i], idx, depth + 1);
		break;
	default:
		break; /* a.x = ..., a[i] = ...: no name is bound */
	}
}

/* The names statement s binds, in the blocks of it that were read (a
 * block left unread never ran). */
static void mark_stmt(fe *F, fe_env *env, py_node *s, int idx, int depth)
{
	if (!s || depth > 50)
		return;
	switch (s->kind) {
	case PY_ASSIGN:
		for (int i = 0; i < s->n; i++)
			mark_target(F, env, s->list[i], idx, depth + 1);
		return;
	case PY_AUGASSIGN:
	case PY_ANNASSIGN:
		mark_target(F, env, s->a, idx, depth + 1);
		return;
	case PY_DEF:
	case PY_CLASS:
		mark_name(F, env, s->str, idx);
		return;
	case PY_IMPORT:
	case PY_IMPORT_FROM:
		for (int i = 0; i < s->nnames; i++) {
			const char *n = s->asnames[i] ? s->asnames[i] : s->names[i];
			if (strcmp(n, "*") != 0 && !strchr(n, '.'))
				mark_name(F, env, n, idx);
		}
		return;
	case PY_FOR:
		mark_target(F, env, s->a, idx, depth + 1);
		break;
	case PY_WITH:
		for (int i = 0; i < s->ntargets; i++)
			mark_target(F, env, s->targets[i], idx, depth + 1);
		break;
	case PY_IF:
	case PY_WHILE:
	case PY_TRY:
		break;
	default:
		return;
	}
	for (int i = 0; i < s->nbody && s->body; i++)
		mark_stmt(F, env, s->body[i], idx, depth + 1);
	for (int i = 0; i < s->norelse && s->orelse; i++)
		mark_stmt(F, env, s->orelse[i], idx, depth + 1);
	if (s->kind == PY_TRY)
		for (int i = 0; i < s->nfinal && s->finalbody; i++)
			mark_stmt(F, env, s->finalbody[i], idx, depth + 1);
}

static const char *source_name(fe *F, uint32_t file)
{
	return file > 0 && (int)file < F->ctx->nsources ? F->ctx->sources[file].name : "<input>";
}

static void add_skip(fe *F, tlc_loc loc, const char *why, bool import)
{
	if (F->nskips == F->cap_skips) {
		int cap = F->cap_skips ? 2 * F->cap_skips : 8;
		fe_skip *n = fe_alloc(F, sizeof(fe_skip) * (size_t)cap);
		if (F->nskips)
			memcpy(n, F->skips, sizeof(fe_skip) * (size_t)F->nskips);
		F->skips = n;
		F->cap_skips = cap;
	}
	F->skips[F->nskips++] = (fe_skip){loc, why, import};
}

fe_flow fe_exec_toplevel(fe *F, fe_env *env, py_node *s)
{
	tlc_diag_held held;
	tlc_diag_hold(F->ctx, &held);
	int errors0 = tlc_error_count(F->ctx);
	int64_t uses0 = F->host_uses;
	bool raised0 = F->user_raised;
	F->user_raised = false;
	fe_flow fl = fe_exec_body(F, env, 1, &s);
	bool skip = fl == FL_ERROR && F->host_uses != uses0 && !F->user_raised && !F->budget_hit &&
		    !F->too_many_errors && tlc_error_count(F->ctx) > errors0;
	F->user_raised |= raised0;
	if (!skip) {
		tlc_diag_release(F->ctx, &held, true);
		return fl;
	}
	const char *why = fe_first_error(F, &held.held);
	tlc_diag_release(F->ctx, &held, false);
	add_skip(F, s->loc, why, false);
	mark_stmt(F, env, s, F->nskips - 1, 0);
	return FL_NORMAL;
}

void fe_skip_import(fe *F, fe_env *env, const char *name, tlc_loc loc, const char *why)
{
	add_skip(F, loc, why, true);
	mark_name(F, env, name, F->nskips - 1);
}

fe_val *fe_eval_decorator(fe *F, fe_env *env, py_node *d)
{
	if (d->kind != PY_CALL || d->a->kind == PY_CALL)
		return fe_eval(F, env, d);
	fe_val *callee = fe_eval(F, env, d->a);
	if (!callee)
		return NULL;
	if (callee->kind != FV_BUILTIN || strcmp(callee->u.s, "tilelang.autotune") != 0)
		return fe_eval(F, env, d);
	/* @autotune(configs=...): the configs serve the search, which is not
	 * tlc's; when they need host code (a tuning-space class, a device
	 * query tlc cannot answer) the decorator is kept without them */
	tlc_diag_held held;
	tlc_diag_hold(F->ctx, &held);
	int errors0 = tlc_error_count(F->ctx);
	int64_t uses0 = F->host_uses;
	bool raised0 = F->user_raised;
	F->user_raised = false;
	fe_val *dec = fe_eval(F, env, d);
	bool host = !dec && F->host_uses != uses0 && !F->user_raised && !F->budget_hit &&
		    !F->too_many_errors && tlc_error_count(F->ctx) > errors0;
	F->user_raised |= raised0;
	if (!host) {
		tlc_diag_release(F->ctx, &held, true);
		return dec;
	}
	fe_val *marker = fe_new(F, FV_HOST);
	marker->u.s = fe_first_error(F, &held.held);
	tlc_diag_release(F->ctx, &held, false);
	const char *kn[1] = {"configs"};
	return fe_call(F, callee, 0, NULL, 1, kn, &marker, d->loc);
}

bool fe_refused_import(fe *F, const fe_val *v, tlc_loc loc)
{
	return v->kind == FV_HOST && v->mod > 0 && v->mod <= F->nskips && F->skips[v->mod - 1].import &&
	       fe_skipped_value(F, v, loc);
}

bool fe_skipped_value(fe *F, const fe_val *v, tlc_loc loc)
{
	if (v->kind != FV_HOST || v->mod <= 0 || v->mod > F->nskips)
		return false;
	const fe_skip *k = &F->skips[v->mod - 1];
	if (k->import) {
		tlc_error(F->ctx, loc, "'%s' cannot be used: %s (imported at %s:%u)", v->u.s, k->why,
			  source_name(F, k->loc.file), k->loc.line);
		return true;
	}
	tlc_error(F->ctx, loc,
		  "'%s' has no value at compile time: the top-level statement at %s:%u that "
		  "sets it was skipped, since it runs host code (%s)",
		  v->u.s, source_name(F, k->loc.file), k->loc.line, k->why);
	return true;
}

#define FE_MAX_NOTES_SCAN 4

/* One note a skipped statement of host code (an unsupported import's name
 * is not host code: its use says what it is), at most four; past that,
 * the fourth note (at its statement, like every note) counts the rest. */
void fe_skip_notes(fe *F)
{
	int host[FE_MAX_NOTES_SCAN], n = 0, total = 0;
	for (int i = 0; i < F->nskips; i++) {
		if (F->skips[i].import)
			continue;
		if (n < FE_MAX_NOTES_SCAN)
			host[n++] = i;
		total++;
	}
	int shown = total <= 4 ? total : 3;
	for (int k = 0; k < shown; k++)
		tlc_note(F->ctx, F->skips[host[k]].loc,
			 "this top-level statement was skipped, since it runs host code "
			 "(%s)",
			 F->skips[host[k]].why);
	if (total > shown)
		tlc_note(F->ctx, F->skips[host[shown]].loc,
			 "this and %d more top-level statements after it were skipped, since they "
			 "run host code", total - shown - 1);
}
