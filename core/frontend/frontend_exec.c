/* frontend_exec.c - statements: compile-time execution of Python, and inside
 * a T.Kernel frame the translation of assignments, stores, `if` and `for`
 * into IR statements. */
#include "frontend.h"

#include <string.h>

static bool in_block(fe *F)
{
	return F->kernel && F->kernel->block;
}

void fe_emit(fe *F, tlc_stmt *s)
{
	if (!in_block(F)) {
		tlc_error(F->ctx, s->loc, "kernel statement outside 'with T.Kernel(...)'");
		return;
	}
	tlc_seq_append(F->m, F->kernel->block, s);
}

static fe_flow run_block(fe *F, fe_env *env, void *arg)
{
	return fe_exec_block(F, env, *(fe_block *)arg);
}

tlc_stmt *fe_build_block(fe *F, fe_env *env, fe_block b, tlc_loc loc, fe_flow *flow)
{
	return fe_build_with(F, env, run_block, &b, loc, flow);
}

tlc_stmt *fe_build_with(fe *F, fe_env *env, fe_flow (*run)(fe *, fe_env *, void *), void *arg,
			tlc_loc loc, fe_flow *flow)
{
	/* the IR nests as deep as this (the printer indents each level, passes
	 * recurse): past the limit the printed IR could not be read again */
	if (F->block_depth >= FE_MAX_BLOCK_NESTING) {
		tlc_error(F->ctx, loc, "kernel statements nest too deeply: more than %d levels of if, "
		          "for and with (each elif of a condition known only at run time nests one "
		          "more)", FE_MAX_BLOCK_NESTING);
		*flow = FL_ERROR;
		return NULL;
	}
	tlc_stmt *saved = F->kernel->block;
	tlc_stmt *seq = tlc_seq_new(F->m, loc);
	F->kernel->block = seq;
	F->block_depth++;
	*flow = run(F, env, arg);
	F->block_depth--;
	F->kernel->block = saved;
	*flow = fe_block_flow(F, *flow, loc);
	return *flow == FL_ERROR ? NULL : seq;
}

/* Read a small block left unread, once.  A def body is kept for every call
 * (in the arena); the other small blocks left unread are those of the
 * module statement running now: they go with it (in the tree pool). */
static bool read_block(fe *F, fe_block b)
{
	bool is_def = b.owner->kind == PY_DEF;
	bool closures;
	py_pool *pool = is_def ? NULL : F->tree_pool;
	if (!py_read_block(&F->src, F->arena, pool, b.lazy, b.body, b.n, &closures))
		return false;
	F->tree_kept |= !is_def && closures;
	return true;
}

/* Read and run a big block one statement at a time; the tree of each is
 * given back once it ran, unless it (or a block it ran) made a def or a
 * lambda, whose value keeps it. */
static fe_flow stream_block(fe *F, fe_env *env, const py_lazy *lazy)
{
	py_reader *r = py_reader_block(&F->src, F->arena, lazy);
	bool kept_outside = F->tree_kept;
	fe_flow fl = FL_NORMAL;
	while (fl == FL_NORMAL) {
		py_pool_mark m = py_pool_mark_now(F->tree_pool);
		py_node **stmts;
		bool closures;
		int n = py_reader_next(r, F->tree_pool, &stmts, &closures);
		if (n <= 0) {
			fl = n == 0 ? FL_NORMAL : FL_ERROR;
			break;
		}
		F->tree_kept = closures;
		fl = fe_exec_body(F, env, n, stmts);
		if (F->tree_kept)
			kept_outside = true;
		else
			py_pool_release(F->tree_pool, m);
	}
	F->tree_kept = kept_outside;
	py_reader_free(r);
	return fl;
}

fe_flow fe_exec_block(fe *F, fe_env *env, fe_block b)
{
	if (b.lazy->line && b.lazy->big)
		return stream_block(F, env, b.lazy);
	if (b.lazy->line && !read_block(F, b))
		return FL_ERROR;
	return fe_exec_body(F, env, *b.n, *b.body);
}

fe_val *fe_make_function(fe *F, fe_env *env, py_node *def)
{
	fe_val *fn = fe_new(F, FV_FUNC);
	fn->u.fn.def = def;
	fn->u.fn.env = env;
	fn->u.fn.defaults = fe_alloc(F, sizeof(fe_val *) * (size_t)(def->nparams + 1));
	for (int i = 0; i < def->nparams; i++)
		if (def->params[i].def) {
			fn->u.fn.defaults[i] = fe_eval(F, env, def->params[i].def);
			if (!fn->u.fn.defaults[i])
				return NULL;
		}
	return fn;
}

static const char *fn_name(fe_val *fn)
{
	return fn->u.fn.def->kind == PY_LAMBDA ? "<lambda>" : fn->u.fn.def->str;
}

/* Bind arguments to the parameters of fn in a new environment. */
static fe_env *bind_params(fe *F, fe_val *fn, int nargs, fe_val **args, int nkw,
                           const char **kw_names, fe_val **kw_vals, tlc_loc loc)
{
	py_node *def = fn->u.fn.def;
	bool missing_ok = F->entry_missing_ok;
	F->entry_missing_ok = false;
	fe_env *env = fe_env_new(F, fn->u.fn.env);
	int np = def->nparams, pos = 0;
	fe_val **vals = fe_alloc(F, sizeof(fe_val *) * (size_t)(np + 1));
	fe_val *star = NULL, *kwstar = NULL;
	for (int i = 0; i < np; i++) {
		py_param *p = &def->params[i];
		if (p->star == 1) {
			star = fe_seq(F, FV_TUPLE, 0);
			while (pos < nargs)
				fe_seq_push(F, star, args[pos++]);
			vals[i] = star;
		} else if (p->star == 2) {
			kwstar = vals[i] = fe_dict(F);
		} else if (!p->kwonly && pos < nargs) {
			vals[i] = args[pos++];
		}
	}
	/* each keyword is looked for among the parameters: quadratic in a call
	 * of a def with thousands of them, so it counts as work */
	if (!fe_work(F, (int64_t)nargs + (int64_t)nkw * np, loc))
		return NULL;
	if (pos < nargs) {
		tlc_error(F->ctx, loc, "%s() takes %d positional argument%s but %d were given",
		          fn_name(fn), pos, pos == 1 ? "" : "s", nargs);
		return NULL;
	}
	for (int k = 0; k < nkw; k++) {
		int i;
		for (i = 0; i < np; i++)
			if (def->params[i].star == 0 && strcmp(def->params[i].name, kw_names[k]) == 0)
				break;
		if (i == np) {
			if (kwstar) {
				fe_dict_set(F, kwstar, fe_str(F, kw_names[k]), kw_vals[k]);
				continue;
			}
			tlc_error(F->ctx, loc, "%s() got an unexpected keyword argument '%s'", fn_name(fn),
			          kw_names[k]);
			return NULL;
		}
		if (vals[i]) {
			tlc_error(F->ctx, loc, "%s() got multiple values for argument '%s'", fn_name(fn),
			          kw_names[k]);
			return NULL;
		}
		vals[i] = kw_vals[k];
	}
	for (int i = 0; i < np; i++) {
		if (!vals[i])
			vals[i] = fn->u.fn.defaults[i];
		if (!vals[i]) {
			if (!missing_ok) {
				tlc_error(F->ctx, loc, "%s() missing required argument '%s'", fn_name(fn),
				          def->params[i].name);
				return NULL;
			}
			vals[i] = fe_new(F, FV_MISSING);
			vals[i]->u.s = def->params[i].name;
		}
		fe_env_set(F, env, def->params[i].name, vals[i]);
	}
	return env;
}

fe_val *fe_call_function(fe *F, fe_val *fn, int nargs, fe_val **args, int nkw,
                         const char **kw_names, fe_val **kw_vals, tlc_loc loc)
{
	if (!fe_enter(F, loc))
		return NULL;
	F->name_hint = NULL;
	fe_val *result = NULL;
	fe_env *env = bind_params(F, fn, nargs, args, nkw, kw_names, kw_vals, loc);
	if (!env)
		goto out;
	py_node *def = fn->u.fn.def;
	if (def->kind == PY_LAMBDA) {
		result = fe_eval(F, env, def->a);
		goto out;
	}
	fe_frame frame = {.caller = F->frame, .name = def->str,
	                  .kernel_mode = (fn->u.fn.flags & (FF_MACRO | FF_JIT)) != 0};
	F->frame = &frame;
	int outer_loop = F->loop_kind; /* a break in a function leaves no loop of its caller */
	F->loop_kind = FE_LOOP_NONE;
	fe_flow fl = fe_exec_block(F, env, FE_BODY_OF(def));
	F->loop_kind = outer_loop;
	F->frame = frame.caller;
	if (fl == FL_RETURN)
		result = frame.retval;
	else if (fl == FL_NORMAL)
		result = F->none;
	else if (fl != FL_ERROR)
		tlc_error(F->ctx, loc, "'break' or 'continue' outside a loop in %s()", fn_name(fn));
out:
	fe_leave(F);
	return result;
}

/* The values of v for the targets of tuple/list target t, one per target:
 * `a, *b, c = v` gives b the items between a and c as a list.  NULL
 * (reported) when the counts do not fit. */
static fe_val **unpack(fe *F, py_node *t, fe_val *v)
{
	fe_val *it = fe_iterate(F, v, t->loc);
	if (!it)
		return NULL;
	int star = -1;
	for (int i = 0; i < t->n; i++)
		if (t->list[i]->kind == PY_STARRED) {
			if (star >= 0) {
				tlc_error(F->ctx, t->list[i]->loc, "multiple starred expressions in assignment");
				return NULL;
			}
			star = i;
		}
	int fixed = star >= 0 ? t->n - 1 : t->n;
	if (star < 0 ? it->u.seq.n != t->n : it->u.seq.n < fixed) {
		tlc_error(F->ctx, t->loc, "cannot unpack %d values into %s%d targets", it->u.seq.n,
		          star < 0 ? "" : "at least ", fixed);
		return NULL;
	}
	int extra = it->u.seq.n - fixed;
	fe_val **out = fe_alloc(F, sizeof(fe_val *) * (size_t)(t->n + 1));
	for (int i = 0, j = 0; i < t->n; i++) {
		if (i != star) {
			out[i] = it->u.seq.items[j++];
			continue;
		}
		out[i] = fe_seq(F, FV_LIST, extra);
		for (int k = 0; k < extra; k++)
			out[i]->u.seq.items[k] = it->u.seq.items[j + k];
		j += extra;
	}
	return out;
}

bool fe_bind_target(fe *F, fe_env *env, py_node *t, fe_val *v)
{
	if (t->kind == PY_NAME) {
		fe_env_set(F, env, t->str, v);
		return true;
	}
	if (t->kind == PY_TUPLE || t->kind == PY_LIST) {
		fe_val **items = unpack(F, t, v);
		if (!items)
			return false;
		for (int i = 0; i < t->n; i++)
			if (!fe_bind_target(F, env, t->list[i]->kind == PY_STARRED ? t->list[i]->a : t->list[i], items[i]))
				return false;
		return true;
	}
	tlc_error(F->ctx, t->loc, "unsupported loop target");
	return false;
}

/* Does an IR value deserve a LET (a scalar computed in the kernel)? */
static bool is_scalar_expr(const tlc_expr *e)
{
	return e->dtype != TLC_DT_VOID && e->kind != TLC_EXPR_VAR && e->kind != TLC_EXPR_REGION && e->kind != TLC_EXPR_TUPLE &&
	       e->kind != TLC_EXPR_LAMBDA && e->kind != TLC_EXPR_SYM && e->kind != TLC_EXPR_STR;
}

static bool store(fe *F, fe_env *env, py_node *sub, fe_val *v, py_op aug, tlc_loc loc);

static bool assign_name(fe *F, fe_env *env, const char *name, fe_val *v, tlc_loc loc)
{
	if (in_block(F) && v->kind == FV_LOOP && !(v = fe_thread_binding_value(F, v, loc)))
		return false;
	if (in_block(F) && v->kind != FV_BUF) {
		fe_val *cur = fe_env_get(env, name);
		if (cur && cur->kind == FV_BUF && cur->u.buf->scope == TLC_SCOPE_VAR) {
			/* acc = expr on a T.alloc_var buffer stores acc[0] */
			const tlc_expr *e = fe_scalar_as(F, v, cur->u.buf->dtype, loc), *zero = tlc_i32(F->m, 0);
			if (!e)
				return false;
			fe_emit(F, tlc_store_new(F->m, loc, cur->u.buf, 1, &zero, e));
			return true;
		}
		if (F->frame->kernel_mode && v->kind == FV_EXPR && is_scalar_expr(v->u.e)) {
			tlc_var *var = tlc_var_new(F->m, name, v->u.e->dtype);
			fe_emit(F, tlc_let_new(F->m, loc, var, v->u.e));
			fe_note_let(F, var, v->u.e);
			v = fe_expr(F, tlc_var_ref(F->m, var));
		}
	}
	fe_env_set(F, env, name, v);
	return true;
}

static bool assign_target(fe *F, fe_env *env, py_node *t, fe_val *v, tlc_loc loc)
{
	switch (t->kind) {
	case PY_NAME:
		return assign_name(F, env, t->str, v, loc);
	case PY_TUPLE:
	case PY_LIST: {
		fe_val **items = unpack(F, t, v);
		if (!items)
			return false;
		for (int i = 0; i < t->n; i++)
			if (!assign_target(F, env, t->list[i]->kind == PY_STARRED ? t->list[i]->a : t->list[i], items[i], loc))
				return false;
		return true;
	}
	case PY_SUBSCRIPT:
		return store(F, env, t, v, PY_OP_NONE, loc);
	case PY_ATTR: {
		fe_val *obj = fe_eval(F, env, t->a);
		if (obj && obj->kind == FV_HOST)
			return true;
		if (obj)
			tlc_error(F->ctx, t->loc, "assignment to attribute '%s' is not supported", t->str);
		return false;
	}
	default:
		tlc_error(F->ctx, t->loc, "unsupported assignment target");
		return false;
	}
}

/* buf[idx] = v (aug: buf[idx] op= v), list[i] = v, dict[k] = v. */
static bool store(fe *F, fe_env *env, py_node *sub, fe_val *v, py_op aug, tlc_loc loc)
{
	fe_val *c = fe_eval(F, env, sub->a);
	if (!c)
		return false;
	if (c->kind == FV_BUF) {
		tlc_buffer *b = c->u.buf;
		py_node *idx = sub->b;
		int n = idx->kind == PY_TUPLE ? idx->n : 1;
		py_node **items = idx->kind == PY_TUPLE ? idx->list : &idx;
		if (n != b->ndim) {
			tlc_error(F->ctx, sub->loc, "buffer '%s' has %d dimension%s, indexed with %d",
			          b->name, b->ndim, b->ndim == 1 ? "" : "s", n);
			return false;
		}
		const tlc_expr *ix_here[8]; /* tlc_store_new copies the indices */
		const tlc_expr **ix = n <= 8 ? ix_here : fe_alloc(F, sizeof(tlc_expr *) * (size_t)n);
		for (int d = 0; d < n; d++) {
			if (items[d]->kind == PY_SLICE) {
				tlc_error(F->ctx, items[d]->loc,
				          "assignment to a slice of '%s' is not supported: use T.copy or T.fill",
				          b->name);
				return false;
			}
			fe_val *x = fe_eval(F, env, items[d]);
			if (!x || !(ix[d] = fe_to_scalar(F, x, items[d]->loc)))
				return false;
		}
		if (fe_is_reducer(F, b)) {
			if (aug == PY_OP_ADD)
				return fe_reducer_add(F, b, n, ix, v, loc);
			tlc_error(F->ctx, loc, "'%s' is a T.alloc_reducer(op=\"sum\") buffer: update it with %s[...] += v",
			          b->name, b->name);
			return false;
		}
		if (aug != PY_OP_NONE) {
			v = fe_binop(F, aug, fe_expr(F, tlc_load(F->m, b, n, ix)), v, loc);
			if (!v)
				return false;
		}
		/* a store converts the value to the buffer's type */
		const tlc_expr *e = fe_scalar_as(F, v, b->dtype, loc);
		if (!e)
			return false;
		fe_emit(F, tlc_store_new(F->m, loc, b, n, ix, e));
		return true;
	}
	fe_val *k = fe_eval(F, env, sub->b);
	if (!k)
		return false;
	if (aug != PY_OP_NONE) {
		fe_val *old = fe_subscript(F, c, k, loc);
		if (!old || !(v = fe_binop(F, aug, old, v, loc)))
			return false;
	}
	if (c->kind == FV_LIST) {
		int64_t i;
		if (!fe_as_int(k, &i) || (i < 0 && (i += c->u.seq.n) < 0) || i >= c->u.seq.n) {
			tlc_error(F->ctx, sub->loc, "list index out of range");
			return false;
		}
		c->u.seq.items[i] = v;
		return true;
	}
	if (c->kind == FV_DICT) {
		fe_dict_set(F, c, k, v);
		return true;
	}
	if (c->kind == FV_HOST)
		return true;
	tlc_error(F->ctx, sub->loc, "a %s does not support item assignment", fe_kind_name(c));
	return false;
}

static fe_flow exec_augassign(fe *F, fe_env *env, py_node *s)
{
	fe_val *v = fe_eval(F, env, s->b);
	if (!v)
		return FL_ERROR;
	if (s->a->kind == PY_SUBSCRIPT)
		return store(F, env, s->a, v, s->op, s->loc) ? FL_NORMAL : FL_ERROR;
	if (s->a->kind != PY_NAME) {
		tlc_error(F->ctx, s->a->loc, "unsupported augmented assignment target");
		return FL_ERROR;
	}
	fe_val *cur = fe_eval(F, env, s->a);
	if (!cur)
		return FL_ERROR;
	if (cur->kind == FV_LIST && s->op == PY_OP_ADD) { /* in place, like Python */
		fe_val *it = fe_iterate(F, v, s->loc);
		if (!it || !fe_check_items(F, (int64_t)cur->u.seq.n + it->u.seq.n, "list", s->loc))
			return FL_ERROR;
		for (int i = 0, n = it->u.seq.n; i < n; i++) /* n first: x.extend(x) */
			fe_seq_push(F, cur, it->u.seq.items[i]);
		return FL_NORMAL;
	}
	fe_val *r = fe_binop(F, s->op, cur, v, s->loc);
	return r && assign_name(F, env, s->a->str, r, s->loc) ? FL_NORMAL : FL_ERROR;
}

static fe_flow exec_annassign(fe *F, fe_env *env, py_node *s)
{
	if (s->a->kind == PY_NAME) {
		fe_val *cur = fe_env_get_local(env, s->a->str);
		if (cur && cur->kind == FV_MISSING && !s->c) {
			/* eager style: `A: T.Tensor((M, K), dtype)` declares a tensor parameter */
			fe_val *tt = fe_eval(F, env, s->b);
			if (!tt)
				return FL_ERROR;
			if (tt->kind != FV_TENSORTYPE) {
				tlc_error(F->ctx, s->b->loc, "parameter '%s' needs a T.Tensor annotation",
				          s->a->str);
				return FL_ERROR;
			}
			tlc_buffer *b = fe_make_tensor(F, s->a->str, tt, s->loc);
			if (!b)
				return FL_ERROR;
			fe_kernel_add_param(F, (tlc_param){.kind = TLC_PARAM_TENSOR, .buf = b});
			fe_env_set(F, env, s->a->str, fe_buf(F, b));
			return FL_NORMAL;
		}
	}
	if (!s->c)
		return FL_NORMAL;
	F->name_hint = s->a->kind == PY_NAME ? s->a->str : NULL;
	fe_val *v = fe_eval(F, env, s->c);
	F->name_hint = NULL;
	return v && assign_target(F, env, s->a, v, s->loc) ? FL_NORMAL : FL_ERROR;
}

/* A branch of an if/elif chain whose condition is only known at run time:
 * it becomes an IR if, nested in the else of the branch before it. */
typedef struct ir_branch {
	const tlc_expr *cond;
	tlc_stmt *then_s;
	tlc_loc loc;
} ir_branch;

/* Build the block that ends an if/elif chain (maybe empty) into the IR
 * branches before it, innermost first, and emit the outermost; with no IR
 * branch, run it here. */
static fe_flow end_if_chain(fe *F, fe_env *env, ir_branch *br, int nbr, fe_block b)
{
	if (!nbr)
		return fe_exec_block(F, env, b);
	tlc_stmt *else_s = NULL;
	if (*b.n || b.lazy->line) {
		fe_flow fl;
		F->block_depth += nbr - 1; /* it nests in every branch's else */
		else_s = fe_build_block(F, env, b, br[nbr - 1].loc, &fl);
		F->block_depth -= nbr - 1;
		if (!else_s)
			return FL_ERROR;
	}
	for (int i = nbr - 1; i >= 0; i--) {
		tlc_stmt *st = tlc_if_new(F->m, br[i].loc, br[i].cond, br[i].then_s, else_s);
		if (!i) {
			fe_emit(F, st);
			break;
		}
		else_s = tlc_seq_new(F->m, br[i - 1].loc);
		tlc_seq_append(F->m, else_s, st);
	}
	return FL_NORMAL;
}

/* if/elif/else.  An elif is the one statement of the orelse of the branch
 * before it: the chain is walked in a loop, so that 100,000 branches take
 * neither stack nor more than linear time.  Compile-time conditions pick a
 * branch; conditions known only at run time (in a kernel) become IR ifs. */
static fe_flow exec_if(fe *F, fe_env *env, py_node *s)
{
	ir_branch *br = NULL;
	int nbr = 0, cap = 0;
	for (;;) {
		fe_val *c = fe_eval(F, env, s->a);
		if (!c)
			return FL_ERROR;
		const tlc_expr *cond = NULL;
		int64_t k;
		if (fe_is_symbolic(c) && in_block(F)) {
			if (!(cond = fe_to_scalar(F, c, s->a->loc)))
				return FL_ERROR;
			if (tlc_expr_as_int(cond, &k))
				cond = NULL; /* a constant: decided now */
		}
		if (cond) {
			if (nbr == cap) {
				cap = cap ? 2 * cap : 8;
				ir_branch *grown = fe_alloc(F, sizeof(ir_branch) * (size_t)cap);
				if (nbr)
					memcpy(grown, br, sizeof(ir_branch) * (size_t)nbr);
				br = grown;
			}
			fe_flow fl;
			F->block_depth += nbr; /* branch i nests in the else of the i before it */
			tlc_stmt *then_s = fe_build_block(F, env, FE_BODY_OF(s), s->loc, &fl);
			F->block_depth -= nbr;
			if (!then_s)
				return FL_ERROR;
			br[nbr++] = (ir_branch){cond, then_s, s->loc};
		} else {
			bool t;
			if (!fe_truthy(F, c, s->a->loc, &t))
				return FL_ERROR;
			if (t)
				return end_if_chain(F, env, br, nbr, FE_BODY_OF(s));
		}
		/* an elif is never left unread: the parser chains it in orelse */
		if (s->lazy_orelse.line || s->norelse != 1 || s->orelse[0]->kind != PY_IF)
			return end_if_chain(F, env, br, nbr, FE_ORELSE_OF(s));
		s = s->orelse[0];
		if (!fe_step(F, s->loc))
			return FL_ERROR;
	}
}

static fe_flow exec_for(fe *F, fe_env *env, py_node *s)
{
	fe_val *it = fe_eval(F, env, s->b);
	if (!it)
		return FL_ERROR;
	if (it->kind == FV_LOOP)
		return fe_exec_kernel_for(F, env, s, it);
	if (!(it = fe_iterate(F, it, s->b->loc)))
		return FL_ERROR;
	int outer = F->loop_kind;
	for (int i = 0; i < it->u.seq.n; i++) {
		if (!fe_bind_target(F, env, s->a, it->u.seq.items[i]))
			return FL_ERROR;
		F->loop_kind = FE_LOOP_PYTHON;
		fe_flow fl = fe_exec_block(F, env, FE_BODY_OF(s));
		F->loop_kind = outer;
		if (fl == FL_BREAK)
			return FL_NORMAL;
		if (fl == FL_RETURN || fl == FL_ERROR)
			return fl;
	}
	return fe_exec_block(F, env, FE_ORELSE_OF(s));
}

/* One iteration of a kernel `while`: leave the loop unless the condition
 * holds (read again each time round), then the body. */
static fe_flow run_while_body(fe *F, fe_env *env, void *arg)
{
	py_node *s = arg;
	fe_val *c = fe_eval(F, env, s->a);
	if (!c)
		return FL_ERROR;
	bool t;
	if (c->kind == FV_EXPR) {
		const tlc_expr *cond = fe_to_scalar(F, c, s->a->loc);
		if (!cond)
			return FL_ERROR;
		const tlc_expr *leave = tlc_call(F->m, TLC_OP_LOOP_BREAK, TLC_DT_VOID, 0, NULL, 0, NULL, NULL);
		fe_emit(F, tlc_if_new(F->m, s->loc, tlc_unary(F->m, TLC_EXPR_NOT, cond),
		                      tlc_eval_new(F->m, s->loc, leave), NULL));
	} else if (!fe_truthy(F, c, s->a->loc, &t)) {
		return FL_ERROR;
	} else if (!t) {
		return fe_loop_exit(F, true, s->loc);
	}
	return run_block(F, env, &FE_BODY_OF(s));
}

/* `while cond:` in a kernel is TileLang's while loop: a serial loop of
 * (practically) unbounded trip count that each thread leaves by itself
 * when cond fails, `for _ in T.serial(2**31 - 1): if not cond: break`,
 * with break's rules (a loop holding a barrier may be left only where
 * every thread takes the same way). */
static fe_flow exec_kernel_while(fe *F, fe_env *env, py_node *s)
{
	if (s->norelse || s->lazy_orelse.line) {
		tlc_error(F->ctx, s->loc, "unsupported Python construct in kernel: the 'else' block of a "
		                          "while loop (it runs when the loop ends without break): move its "
		                          "statements after the loop");
		return FL_ERROR;
	}
	int outer_loop = F->loop_kind;
	const char *outer_why = F->loop_why;
	F->loop_kind = FE_LOOP_KERNEL;
	F->loop_why = NULL;
	fe_flow fl;
	tlc_stmt *body = fe_build_with(F, env, run_while_body, s, s->loc, &fl);
	F->loop_kind = outer_loop;
	F->loop_why = outer_why;
	if (!body)
		return FL_ERROR;
	tlc_var *k = tlc_var_new(F->m, fe_hint(F, "w"), TLC_DT_INT32);
	fe_emit(F, tlc_for_new(F->m, s->loc, k, tlc_i32(F->m, 0), tlc_i32(F->m, INT32_MAX), TLC_FOR_SERIAL, body));
	return FL_NORMAL;
}

static fe_flow exec_while(fe *F, fe_env *env, py_node *s)
{
	if (in_block(F))
		return exec_kernel_while(F, env, s);
	for (;;) {
		fe_val *c = fe_eval(F, env, s->a);
		bool t;
		if (!c || !fe_truthy(F, c, s->a->loc, &t))
			return FL_ERROR;
		if (!t)
			break;
		if (!fe_step(F, s->loc))
			return FL_ERROR;
		int outer = F->loop_kind;
		F->loop_kind = FE_LOOP_PYTHON;
		fe_flow fl = fe_exec_block(F, env, FE_BODY_OF(s));
		F->loop_kind = outer;
		if (fl == FL_BREAK)
			return FL_NORMAL;
		if (fl == FL_RETURN || fl == FL_ERROR)
			return fl;
	}
	return fe_exec_block(F, env, FE_ORELSE_OF(s));
}

static fe_flow exec_def(fe *F, fe_env *env, py_node *s)
{
	fe_val *fn = fe_make_function(F, env, s);
	for (int i = s->n - 1; fn && i >= 0; i--) {
		fe_val *dec = fe_eval_decorator(F, env, s->list[i]);
		fn = dec ? fe_call(F, dec, 1, &fn, 0, NULL, NULL, s->list[i]->loc) : NULL;
	}
	if (!fn)
		return FL_ERROR;
	fe_env_set(F, env, s->str, fn);
	return FL_NORMAL;
}

static fe_flow exec_raise(fe *F, fe_env *env, py_node *s)
{
	const char *msg = "exception";
	if (s->a && s->a->kind == PY_CALL && s->a->n >= 1 && s->a->list[0]->kind == PY_STR) {
		msg = s->a->list[0]->str;
	} else if (s->a && s->a->kind == PY_CALL && s->a->n >= 1 && s->a->list[0]->kind == PY_BINOP) {
		/* a message put together ("size " + str(n)): its text if a str */
		tlc_diag_held held;
		tlc_diag_hold(F->ctx, &held);
		fe_val *m = fe_eval(F, env, s->a->list[0]);
		tlc_diag_release(F->ctx, &held, false);
		msg = m && m->kind == FV_STR ? m->u.s : s->a->a->kind == PY_NAME ? s->a->a->str : msg;
	} else if (s->a && s->a->kind == PY_CALL && s->a->a->kind == PY_NAME)
		msg = s->a->a->str;
	tlc_error(F->ctx, s->loc, "raise at compile time: %s", msg);
	F->user_raised = true;
	return FL_ERROR;
}

static fe_flow exec_expr_stmt(fe *F, fe_env *env, py_node *s)
{
	py_node *e = s->a;
	if (e->kind == PY_STR || e->kind == PY_ELLIPSIS || e->kind == PY_NONE)
		return FL_NORMAL; /* docstrings and `...` */
	fe_val *v = fe_eval(F, env, e);
	if (!v)
		return FL_ERROR;
	if (v->kind == FV_EXPR && v->u.e->kind == TLC_EXPR_CALL) {
		if (!in_block(F)) {
			tlc_error(F->ctx, s->loc, "'T.%s' must be inside 'with T.Kernel(...)'",
			          tlc_op_get(F->ctx, v->u.e->u.call.op)->name);
			return FL_ERROR;
		}
		fe_emit(F, tlc_eval_new(F->m, s->loc, v->u.e));
	} else if (v->kind == FV_SCOPEOP || v->kind == FV_KERNEL) {
		tlc_error(F->ctx, s->loc, "%s must be used in a 'with' statement",
		          v->kind == FV_KERNEL ? "T.Kernel" : "this scope");
		return FL_ERROR;
	} else if (v->kind == FV_HOST && e->kind == PY_CALL && in_block(F)) {
		/* dropping it would change the kernel: the call was meant to emit code */
		tlc_error(F->ctx, s->loc,
			  "host function '%s' called in a kernel: tlc cannot run "
			  "it on the device (only T.* functions, T.macro and Python functions of "
			  "this program emit kernel code)",
			  v->u.s);
		return FL_ERROR;
	}
	return FL_NORMAL;
}

static fe_flow exec_stmt(fe *F, fe_env *env, py_node *s)
{
	F->at = s->loc;
	if (!fe_step(F, s->loc))
		return FL_ERROR;
	switch (s->kind) {
	case PY_EXPR_STMT:
		return exec_expr_stmt(F, env, s);
	case PY_ASSIGN: {
		F->name_hint = s->n == 1 && s->list[0]->kind == PY_NAME ? s->list[0]->str : NULL;
		fe_val *v = fe_eval(F, env, s->a);
		F->name_hint = NULL;
		if (!v)
			return FL_ERROR;
		for (int i = 0; i < s->n; i++)
			if (!assign_target(F, env, s->list[i], v, s->loc))
				return FL_ERROR;
		return FL_NORMAL;
	}
	case PY_AUGASSIGN: return exec_augassign(F, env, s);
	case PY_ANNASSIGN: return exec_annassign(F, env, s);
	case PY_IF: return exec_if(F, env, s);
	case PY_FOR: return exec_for(F, env, s);
	case PY_WHILE: return exec_while(F, env, s);
	case PY_WITH: return fe_exec_with(F, env, s);
	case PY_DEF: return exec_def(F, env, s);
	case PY_CLASS: {
		fe_val *v = fe_new(F, FV_HOST);
		v->u.s = s->str;
		fe_env_set(F, env, s->str, v);
		return FL_NORMAL;
	}
	case PY_RETURN:
		if (!F->frame->caller && !F->frame->name) {
			tlc_error(F->ctx, s->loc, "'return' outside a function");
			return FL_ERROR;
		}
		F->frame->retval = s->a ? fe_eval(F, env, s->a) : F->none;
		return F->frame->retval ? FL_RETURN : FL_ERROR;
	case PY_PASS:
	case PY_GLOBAL:
	case PY_DEL:
		return FL_NORMAL;
	case PY_BREAK:
	case PY_CONTINUE: return fe_loop_exit(F, s->kind == PY_BREAK, s->loc);
	case PY_IMPORT:
	case PY_IMPORT_FROM: return fe_exec_import(F, env, s);
	case PY_ASSERT: {
		fe_val *c = fe_eval(F, env, s->a);
		if (!c)
			return FL_ERROR;
		if (fe_is_symbolic(c) || c->kind == FV_HOST)
			return FL_NORMAL; /* a runtime check: not evaluated */
		bool t;
		if (!fe_truthy(F, c, s->a->loc, &t))
			return FL_ERROR;
		if (!t) {
			fe_val *m = s->b ? fe_eval(F, env, s->b) : NULL;
			tlc_error(F->ctx, s->loc, "assertion failed%s%s", m ? ": " : "", m ? fe_show(F, m) : "");
			F->user_raised = true; /* the program's own check: never skipped */
			return FL_ERROR;
		}
		return FL_NORMAL;
	}
	case PY_RAISE: return exec_raise(F, env, s);
	case PY_TRY: {
		fe_flow fl = fe_exec_block(F, env, FE_BODY_OF(s));
		if (fl == FL_NORMAL)
			fl = fe_exec_block(F, env, FE_ORELSE_OF(s));
		if (fl != FL_ERROR) {
			fe_flow f2 = fe_exec_block(F, env, FE_FINAL_OF(s));
			if (f2 != FL_NORMAL)
				fl = f2;
		}
		return fl;
	}
	default:
		tlc_error(F->ctx, s->loc, "unsupported Python statement");
		return FL_ERROR;
	}
}

/* After an error in a statement of a kernel body, go on with the next one
 * (up to FE_MAX_ERRORS errors), as a C compiler does: the kernel's other
 * mistakes are reported in the same run.  Host code stops at its first
 * error, as Python does.  The names a failed assignment would have bound
 * are remembered, so that their uses add no "undefined name" errors. */
static bool keep_going(fe *F, py_node *s)
{
	if (!in_block(F) || F->budget_hit || tlc_had_internal_error(F->ctx))
		return false;
	if (tlc_error_count(F->ctx) - F->errors0 >= FE_MAX_ERRORS) {
		if (!F->too_many_errors)
			tlc_note(F->ctx, s->loc, "stopping after %d errors", FE_MAX_ERRORS);
		F->too_many_errors = true;
		return false;
	}
	py_node *const *targets = s->kind == PY_ASSIGN ? s->list : &s->a;
	int ntargets = s->kind == PY_ASSIGN ? s->n : (s->kind == PY_AUGASSIGN || s->kind == PY_ANNASSIGN);
	for (int t = 0; t < ntargets; t++) {
		py_node *x = targets[t];
		int nnames = x && x->kind == PY_TUPLE ? x->n : 1;
		for (int k = 0; k < nnames; k++) {
			py_node *nm = x && x->kind == PY_TUPLE ? x->list[k] : x;
			if (nm && nm->kind == PY_NAME && F->npoisoned < (int)TLC_ARRAY_LEN(F->poisoned))
				F->poisoned[F->npoisoned++] = nm->str;
		}
	}
	return true;
}

fe_flow fe_exec_body(fe *F, fe_env *env, int n, py_node **body)
{
	for (int i = 0; i < n; i++) {
		fe_flow fl = exec_stmt(F, env, body[i]);
		if (fl == FL_ERROR && keep_going(F, body[i]))
			continue;
		if (fl != FL_NORMAL)
			return fl;
	}
	return FL_NORMAL;
}
