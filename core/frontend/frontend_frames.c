/* frontend_frames.c - the frame forms of `with`: several items in one
 * statement (`with A, B:` is `with A:` around `with B:`), TVM's frame-style
 * conditional that TileLang programs use (`with T.If(c):` holding
 * `with T.Then():` and `with T.Else():`, or `with T.If(c), T.Then():`) and
 * T.PersistentKernel.
 *
 * A T.If frame's own block holds only its Then and Else frames: each builds
 * its branch into the frame, and the If emits one IR if when it closes (the
 * branch alone when the condition is known now, as a Python if picks one).
 *
 * T.PersistentKernel(grid..., threads=, order=, panel_size=) is TileLang's
 * T.Kernel with a schedule attribute: it launches fewer blocks that walk the
 * tiles of the grid.  Every tile is computed once either way, so here it is
 * T.Kernel over the same grid (one block per tile); the persistent schedule
 * is not applied (doc/language.md). */
#include "frontend.h"

#include <string.h>

struct fe_ifframe {
	fe_ifframe *outer;
	const tlc_expr *cond; /* NULL: decided now (known) */
	bool known;
	tlc_stmt *block; /* the frame's own block: Then and Else only */
	tlc_stmt *then_s, *else_s;
	bool has_then, has_else;
};

/* ---- several items ---- */

fe_flow fe_with_rest(fe *F, fe_env *env, py_node *s, int k)
{
	if (k >= s->n)
		return fe_exec_block(F, env, FE_BODY_OF(s));
	return fe_with_item(F, env, s, k);
}

typedef struct rest_arg {
	py_node *s;
	int k;
} rest_arg;

static fe_flow run_rest(fe *F, fe_env *env, void *arg)
{
	rest_arg *r = arg;
	return fe_with_rest(F, env, r->s, r->k);
}

tlc_stmt *fe_build_rest(fe *F, fe_env *env, py_node *s, int k, fe_flow *flow)
{
	rest_arg r = {s, k};
	return fe_build_with(F, env, run_rest, &r, s->loc, flow);
}

/* ---- T.If / T.Then / T.Else ---- */

typedef struct if_arg {
	rest_arg rest;
	fe_ifframe *fr;
} if_arg;

/* The frame's own block is the one fe_build_with made current. */
static fe_flow run_if(fe *F, fe_env *env, void *arg)
{
	if_arg *a = arg;
	a->fr->block = F->kernel->block;
	return run_rest(F, env, &a->rest);
}

static fe_flow with_if(fe *F, fe_env *env, py_node *s, int k, fe_val *v)
{
	fe_ifframe fr = {F->ifs, NULL, false, NULL, NULL, NULL, false, false};
	int64_t c;
	if (tlc_expr_as_int(v->u.scope.attr_value, &c))
		fr.known = c != 0;
	else
		fr.cond = v->u.scope.attr_value;
	tlc_loc loc = s->list[k]->loc;
	if_arg r = {{s, k + 1}, &fr};
	fe_flow fl;
	F->ifs = &fr;
	tlc_stmt *blk = fe_build_with(F, env, run_if, &r, loc, &fl);
	F->ifs = fr.outer;
	if (!blk)
		return FL_ERROR;
	if (blk->u.seq.n) {
		tlc_error(F->ctx, blk->u.seq.items[0]->loc,
			  "only 'with T.Then()' and 'with T.Else()' may be directly inside "
			  "'with T.If(...)'; put this statement in one of them");
		return FL_ERROR;
	}
	if (!fr.has_then) {
		tlc_error(F->ctx, loc, "'with T.If(...)' needs a 'with T.Then()' inside it");
		return FL_ERROR;
	}
	if (!fr.cond) {
		tlc_stmt *pick = fr.known ? fr.then_s : fr.else_s;
		for (int i = 0; pick && i < pick->u.seq.n; i++)
			fe_emit(F, pick->u.seq.items[i]);
		return FL_NORMAL;
	}
	fe_emit(F, tlc_if_new(F->m, loc, fr.cond, fr.then_s, fr.else_s));
	return FL_NORMAL;
}

static fe_flow with_branch(fe *F, fe_env *env, py_node *s, int k, fe_val *v)
{
	bool is_then = v->u.scope.frame == FS_THEN;
	const char *what = is_then ? "T.Then()" : "T.Else()";
	tlc_loc loc = s->list[k]->loc;
	fe_ifframe *fr = F->ifs;
	if (!fr || fr->block != F->kernel->block) {
		tlc_error(F->ctx, loc, "'with %s' must be directly inside 'with T.If(...)'", what);
		return FL_ERROR;
	}
	if (is_then ? fr->has_then || fr->has_else : !fr->has_then || fr->has_else) {
		tlc_error(F->ctx, loc,
			  is_then        ? "a second 'with T.Then()' in one 'with T.If(...)'"
			  : fr->has_else ? "a second 'with T.Else()' in one 'with T.If(...)'"
					 : "'with T.Else()' must follow 'with T.Then()'");
		return FL_ERROR;
	}
	fe_flow fl;
	F->ifs = fr->outer; /* an If inside the branch is a new frame */
	tlc_stmt *b = fe_build_rest(F, env, s, k + 1, &fl);
	F->ifs = fr;
	if (!b)
		return FL_ERROR;
	if (is_then) {
		fr->then_s = b;
		fr->has_then = true;
	} else {
		fr->else_s = b;
		fr->has_else = true;
	}
	return FL_NORMAL;
}

fe_flow fe_with_frame(fe *F, fe_env *env, py_node *s, int k, fe_val *v, py_node *target)
{
	static const char *const names[] = {"", "T.If", "T.Then", "T.Else"};
	if (target) {
		tlc_error(F->ctx, target->loc, "'with %s' binds no name", names[v->u.scope.frame]);
		return FL_ERROR;
	}
	if (!fe_need_kernel(F, names[v->u.scope.frame], true, s->list[k]->loc))
		return FL_ERROR;
	if (v->u.scope.frame == FS_IF)
		return with_if(F, env, s, k, v);
	return with_branch(F, env, s, k, v);
}

/* ---- the T.* functions ---- */

bool fe_frame_builtin(const char *name)
{
	return !strcmp(name, "If") || !strcmp(name, "Then") || !strcmp(name, "Else") ||
	       !strcmp(name, "PersistentKernel");
}

static fe_val *persistent_kernel(fe *F, int nargs, fe_val **args, int nkw, const char **kwn,
				 fe_val **kwv, tlc_loc loc)
{
	const char **kn = fe_alloc(F, sizeof(char *) * (size_t)(nkw + 1));
	fe_val **kv = fe_alloc(F, sizeof(fe_val *) * (size_t)(nkw + 1));
	fe_val *order = NULL, *panel = NULL;
	int n = 0;
	for (int i = 0; i < nkw; i++) {
		if (!strcmp(kwn[i], "order"))
			order = kwv[i];
		else if (!strcmp(kwn[i], "panel_size"))
			panel = kwv[i];
		else if (strcmp(kwn[i], "attrs") !=
			 0) { /* attributes of TileLang's schedule: none here */
			kn[n] = kwn[i];
			kv[n++] = kwv[i];
		}
	}
	bool has_order = order && order->kind != FV_NONE,
	     has_panel = panel && panel->kind != FV_NONE;
	if (has_order != has_panel) {
		tlc_error(F->ctx, loc, "T.PersistentKernel takes order= and panel_size= together");
		return NULL;
	}
	if (has_order && (order->kind != FV_STR ||
			  (strcmp(order->u.s, "row") && strcmp(order->u.s, "column")))) {
		tlc_error(F->ctx, loc,
			  "T.PersistentKernel order must be 'row' or 'column', got '%s'",
			  fe_show(F, order));
		return NULL;
	}
	if (has_panel && (panel->kind != FV_INT || panel->u.i <= 0)) {
		tlc_error(F->ctx, loc,
			  "T.PersistentKernel panel_size must be a positive integer, got %s",
			  fe_show(F, panel));
		return NULL;
	}
	return fe_kernel_frame(F, nargs, args, n, kn, kv, loc);
}

fe_val *fe_call_frame(fe *F, const char *name, int nargs, fe_val **args, int nkw, const char **kwn,
		      fe_val **kwv, tlc_loc loc)
{
	if (!strcmp(name, "PersistentKernel"))
		return persistent_kernel(F, nargs, args, nkw, kwn, kwv, loc);
	bool is_if = !strcmp(name, "If");
	if (nkw || nargs != (is_if ? 1 : 0)) {
		tlc_error(F->ctx, loc,
			  is_if ? "T.If takes one condition" : "T.%s takes no arguments", name);
		return NULL;
	}
	fe_val *v = fe_new(F, FV_SCOPEOP);
	v->u.scope.frame = is_if ? FS_IF : !strcmp(name, "Then") ? FS_THEN : FS_ELSE;
	if (is_if) {
		/* as the condition of a Python if in a kernel */
		if (!(v->u.scope.attr_value = fe_to_scalar(F, args[0], loc)))
			return NULL;
	}
	return v;
}
