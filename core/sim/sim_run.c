/* sim_run.c - tlc_sim_run: a kernel's inputs, its grid of blocks, its
 * outputs.
 *
 * Tensor parameters get random values from the seed (float types N(0, 1)
 * rounded to the dtype, integers uniform in [0, 4), bool in {0, 1}; each
 * parameter its own stream) unless an input names a .npy file for them;
 * scalar parameters need a value.  The blocks run one after the other in
 * blockIdx order (x fastest), sharing the global tensors; with a sample
 * (o->blocks), only that many, spread evenly from the first block to the
 * last, and the other blocks' parts of the outputs keep their initial
 * values.  Every tensor
 * parameter is written to the output directory afterwards, inputs
 * included, so that the same inputs can be fed to the GPU.
 *
 * A kernel with thread-block clusters ("tlc.cluster_dims") runs cluster by
 * cluster (in blockIdx order of the clusters, x fastest), a sample taking
 * whole clusters; at the thread level the blocks of a cluster run
 * concurrently (sim_task.c), each with a state of its own that shares the
 * global tensors and the scalar parameters with the first. */
#include "sim_internal.h"

#include <tlc/bounds.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *input_of(const tlc_sim_options *o, const char *name, bool *used)
{
	for (int i = 0; i < o->ninputs; i++)
		if (!strcmp(o->input_names[i], name)) {
			used[i] = true;
			return o->input_values[i];
		}
	return NULL;
}

static bool parse_scalar(tlc_dtype t, const char *text, sim_val *v)
{
	char *end;
	errno = 0;
	if (tlc_dtype_is_float(t)) {
		double x = strtod(text, &end);
		v->f = tlc_sim_round(t, x);
	} else {
		long long x = strtoll(text, &end, 0);
		int64_t lo, hi;
		if (!tlc_dtype_int_range(t, &lo, &hi) || x < lo || x > hi)
			return false;
		v->i = x;
	}
	return *text && !*end && !errno;
}

static void random_fill(sim_array *a, uint64_t seed)
{
	uint64_t state = seed;
	for (int64_t e = 0; e < a->numel; e++) {
		sim_val v = {0, 0};
		if (tlc_dtype_is_float(a->dtype))
			v.f = tlc_sim_round(a->dtype, sim_random_normal(&state));
		else
			v.i = (int64_t)(sim_random_u64(&state) % (a->dtype == TLC_DT_BOOL ? 2 : 4));
		sim_array_set(a, e, v);
	}
}

/* The parameters: scalars bound, tensors allocated and filled (with the
 * values `prev`, the kernel before this one in its launch group, left in
 * them, when there is one). */
static bool bind_params(sim *s, const tlc_sim_options *o, bool *used, const sim *prev)
{
	const tlc_func *f = s->f;
	for (int i = 0; i < f->nparams && !s->stop; i++) {
		const tlc_param *p = &f->params[i];
		if (p->kind != TLC_PARAM_SCALAR)
			continue;
		const char *text = input_of(o, p->var->name, used);
		sim_val v = {0, 0};
		if (!text)
			sim_fail(s, f->loc, "scalar parameter '%s' of kernel '%s' needs a value (--input=%s=VALUE)", p->var->name,
			         f->name, p->var->name);
		else if (!parse_scalar(p->var->dtype, text, &v))
			sim_fail(s, f->loc, "'%s' is not a value of type %s for parameter '%s'", text, tlc_dtype_name(p->var->dtype),
			         p->var->name);
		else
			sim_bind_all(s, p->var, v);
	}
	for (int i = 0; i < f->nparams && !s->stop; i++) {
		const tlc_param *p = &f->params[i];
		if (p->kind != TLC_PARAM_TENSOR)
			continue;
		const tlc_buffer *b = p->buf;
		int64_t shape[TLC_SIM_MAX_DIMS];
		if (b->ndim > TLC_SIM_MAX_DIMS) {
			sim_fail(s, b->loc, "'%s' has more than %d dimensions", b->name, TLC_SIM_MAX_DIMS);
			break;
		}
		for (int d = 0; d < b->ndim; d++)
			shape[d] = sim_eval_int(s, b->shape[d], b->loc);
		sim_array *a = tlc_xmalloc(sizeof(*a));
		if (s->stop || !sim_array_init(a, b->dtype, b->ndim, shape)) {
			free(a);
			if (!s->stop)
				sim_fail(s, b->loc, "cannot allocate tensor '%s'", b->name);
			break;
		}
		sim_set_array(s, b, a);
		if (prev) {
			const tlc_param *q = i < prev->f->nparams ? &prev->f->params[i] : NULL;
			const sim_array *pa = q && q->kind == TLC_PARAM_TENSOR ? prev->arrays[q->buf->id] : NULL;
			if (!pa || pa->numel != a->numel || pa->dtype != a->dtype) {
				sim_fail(s, b->loc, "'%s' of kernel '%s' is not the tensor of the kernel before it in its "
				         "launch group", b->name, f->name);
				break;
			}
			for (int64_t e = 0; e < a->numel; e++)
				sim_array_set(a, e, sim_array_get(pa, e));
			continue;
		}
		const char *path = input_of(o, b->name, used);
		char why[512];
		if (path && !sim_npy_read(path, a, why, sizeof why))
			sim_fail(s, b->loc, "input '%s': %s", b->name, why);
		else if (!path)
			random_fill(a, o->seed * UINT64_C(0x100000001B3) + (uint64_t)i);
	}
	return !s->stop;
}

/* The tensors of s's kernel into the output directory, as NAME.npy or,
 * when `prefix` is not NULL, PREFIX.NAME.npy. */
static bool write_outputs(sim *s, const tlc_sim_options *o, const char *prefix)
{
	if (!o->out_dir)
		return true;
	if (mkdir(o->out_dir, 0777) != 0 && errno != EEXIST) {
		tlc_error(s->ctx, s->f->loc, "tlc-sim: cannot create directory '%s': %s", o->out_dir, strerror(errno));
		return false;
	}
	for (int i = 0; i < s->f->nparams; i++) {
		const tlc_param *p = &s->f->params[i];
		if (p->kind != TLC_PARAM_TENSOR)
			continue;
		size_t n = strlen(o->out_dir) + (prefix ? strlen(prefix) : 0) + strlen(p->buf->name) + 8;
		char *path = tlc_xmalloc(n), why[512];
		snprintf(path, n, "%s/%s%s%s.npy", o->out_dir, prefix ? prefix : "", prefix ? "." : "", p->buf->name);
		bool ok = sim_npy_write(path, s->arrays[p->buf->id], why, sizeof why);
		free(path);
		if (!ok) {
			tlc_error(s->ctx, s->f->loc, "tlc-sim: %s", why);
			return false;
		}
	}
	return true;
}

static void free_sim(sim *s);

/* Block r of a cluster besides the first (s): its own state for what a
 * block holds, s's global tensors and parameter values. */
static sim *peer_new(sim *s, int64_t r)
{
	sim *p = tlc_xmalloc(sizeof(*p));
	*p = (sim){.m = s->m, .ctx = s->ctx, .f = s->f, .threaded = s->threaded, .nthreads = s->nthreads,
	           .block_threads = s->block_threads, .warp_size = s->warp_size, .warpgroup = s->warpgroup,
	           .after_pass = s->after_pass, .cluster = s->cluster, .rank = r};
	size_t vals = (size_t)s->nvars * (size_t)(s->nthreads > 0 ? s->nthreads : 1);
	p->nvars = s->nvars;
	p->vals = tlc_xmalloc(vals * sizeof(*p->vals) + 1);
	p->bound = tlc_xmalloc(vals * sizeof(*p->bound) + 1);
	/* s->vals is NULL while nothing is bound (no scalar parameters) */
	if (vals) {
		memcpy(p->vals, s->vals, vals * sizeof(*p->vals));
		memcpy(p->bound, s->bound, vals * sizeof(*p->bound));
	}
	p->nbufs = s->nbufs;
	p->arrays = tlc_xcalloc((size_t)(s->nbufs ? s->nbufs : 1), sizeof(*p->arrays));
	for (int i = 0; i < s->f->nparams; i++)
		if (s->f->params[i].kind == TLC_PARAM_TENSOR)
			p->arrays[s->f->params[i].buf->id] = s->arrays[s->f->params[i].buf->id];
	return p;
}

/* The cluster of s: blocks[0] is s, the others are s's to free. */
static void cluster_free(sim *s)
{
	sim_cluster *c = s->cluster;
	if (!c)
		return;
	for (int64_t r = 1; r < c->n; r++) {
		sim *p = c->blocks[r];
		if (!p)
			continue;
		for (int i = 0; i < s->f->nparams; i++)
			if (s->f->params[i].kind == TLC_PARAM_TENSOR)
				p->arrays[s->f->params[i].buf->id] = NULL; /* s's */
		p->vc = p->fv = NULL; /* the cluster's, held by s */
		p->cluster = NULL;
		free_sim(p);
		free(p);
	}
	free(c->blocks);
	free(c->vc);
	free(c->fv);
	free(c->done_vc);
	free(c->done_fv);
	free(c);
	s->cluster = NULL;
}

static void free_sim(sim *s)
{
	cluster_free(s);
	sim_tasks_free(s);
	sim_matrix_free(s);
	free(s->vc);
	free(s->fv);
	free(s->layouts);
	free(s->safe);
	free(s->copies);
	free(s->commits);
	free(s->rng);
	free(s->remote);
	free(s->remote_loc);
	if (s->arena) {
		sim_array_free(s->arena);
		free(s->arena);
	}
	for (uint32_t i = 0; i < s->nbufs; i++)
		if (s->arrays[i]) {
			sim_array_free(s->arrays[i]);
			free(s->arrays[i]);
		}
	free(s->arrays);
	free(s->vals);
	free(s->bound);
}

typedef struct lowered_scan {
	const tlc_context *ctx;
	const tlc_expr *call;
	tlc_loc loc;
	tlc_loc at;
} lowered_scan;

static tlc_walk_action note_stmt(void *p, const tlc_stmt *st)
{
	lowered_scan *c = p;
	c->at = st->loc;
	return TLC_WALK_CONTINUE;
}

static tlc_walk_action find_lowered(void *p, const tlc_expr *e)
{
	lowered_scan *c = p;
	if (e->kind == TLC_EXPR_CALL && (tlc_op_get(c->ctx, e->u.call.op)->flags & TLC_OPF_LOWERED)) {
		c->call = e;
		c->loc = c->at;
		return TLC_WALK_STOP;
	}
	return TLC_WALK_CONTINUE;
}

typedef struct tile_scan {
	const tlc_context *ctx;
	bool found;
} tile_scan;

static tlc_walk_action tile_stmt(void *p, const tlc_stmt *st)
{
	tile_scan *c = p;
	c->found |= st->kind == TLC_STMT_FOR && st->u.loop.kind == TLC_FOR_PARALLEL;
	return c->found ? TLC_WALK_STOP : TLC_WALK_CONTINUE;
}

static tlc_walk_action tile_call(void *p, const tlc_expr *e)
{
	tile_scan *c = p;
	/* an element T.atomic_add is one thread's statement, not a tile op */
	bool element = e->kind == TLC_EXPR_CALL && e->u.call.op == TLC_OP_ATOMIC_ADD && e->u.call.nargs == 2 &&
	               e->u.call.args[0]->kind == TLC_EXPR_LOAD;
	c->found |= e->kind == TLC_EXPR_CALL && !element && (tlc_op_get(c->ctx, e->u.call.op)->flags & TLC_OPF_TILE);
	return c->found ? TLC_WALK_STOP : TLC_WALK_CONTINUE;
}

bool sim_is_thread_level(const tlc_func *f, const tlc_context *ctx)
{
	lowered_scan c = {ctx, NULL, {0}, {0}};
	tlc_walk_stmt(&(tlc_visitor){.ctx = &c, .stmt_pre = note_stmt, .expr_pre = find_lowered}, f->body);
	if (c.call)
		return true;
	/* T.get_thread_binding variables have a value per thread only: a kernel
	 * that uses them and has no tile op (nothing for the tile level to
	 * spread over threads) runs at the thread level */
	bool bound = false;
	for (int d = 0; d < f->thread_ndim && d < 3; d++)
		bound |= f->thread_vars[d] != NULL;
	if (!bound)
		return false;
	tile_scan t = {ctx, false};
	tlc_walk_stmt(&(tlc_visitor){.ctx = &t, .stmt_pre = tile_stmt, .expr_pre = tile_call}, f->body);
	return !t.found;
}

/* The threads of the block, for the thread level. */
static bool count_threads(sim *s)
{
	const tlc_target_info *t = tlc_module_target_info(s->m);
	if (!t || t->lanes < 1) {
		sim_fail(s, s->f->loc, "the thread-level simulator needs the module's target (its warp size)");
		return false;
	}
	s->warp_size = t->lanes;
	s->warpgroup = t->warpgroup;
	s->nthreads = 1;
	for (int d = 0; d < s->f->thread_ndim; d++) {
		int64_t n;
		if (!tlc_expr_as_int(s->f->threads[d], &n) || n < 1 || n > t->max_threads || s->nthreads * n > t->max_threads) {
			sim_fail(s, s->f->loc, "the thread-level simulator needs a constant block size of at most %d threads (target's limit)",
			         t->max_threads);
			return false;
		}
		s->nthreads *= n;
	}
	return true;
}

/* The tile level: global tensors laid out by T.annotate_layout hold their
 * elements where the layout puts them, as the lowered code does (the
 * output bytes then compare with the GPU's). */
typedef struct layout_scan {
	sim *s;
} layout_scan;

static tlc_walk_action note_layout(void *p, const tlc_stmt *st)
{
	sim *s = ((layout_scan *)p)->s;
	if (st->kind != TLC_STMT_EVAL || st->u.eval.call->kind != TLC_EXPR_CALL ||
	    st->u.eval.call->u.call.op != TLC_OP_ANNOTATE_LAYOUT)
		return TLC_WALK_CONTINUE;
	const tlc_expr *d = st->u.eval.call->u.call.args[0];
	if (d->kind != TLC_EXPR_TUPLE || !d->u.tuple.is_dict)
		return TLC_WALK_CONTINUE;
	for (int i = 0; i < d->u.tuple.n && !s->stop; i++) {
		const tlc_expr *pair = d->u.tuple.items[i];
		const tlc_expr *key = pair->u.tuple.items[0], *val = pair->u.tuple.items[1];
		if (key->kind != TLC_EXPR_BUF || key->u.buf->scope != TLC_SCOPE_GLOBAL)
			continue;
		const char *why = NULL;
		const tlc_layout *l = tlc_layout_from_expr(s->m, val, &why);
		if (!l || l->kind == TLC_LAYOUT_FRAGMENT) {
			sim_fail(s, st->loc, "the layout of '%s' cannot be evaluated%s%s", key->u.buf->name, why ? ": " : "",
			         why ? why : "");
			break;
		}
		uint32_t id = key->u.buf->id;
		if (id >= s->nlayouts) {
			s->layouts = tlc_xrealloc(s->layouts, (id + 1) * sizeof(*s->layouts));
			for (uint32_t k = s->nlayouts; k <= id; k++)
				s->layouts[k] = NULL;
			s->nlayouts = id + 1;
		}
		s->layouts[id] = l;
	}
	return TLC_WALK_CONTINUE;
}

/* Has legalize-bounds made f's guards explicit? */
static bool bounds_legalized(const tlc_func *f)
{
	for (int i = 0; i < f->nattrs; i++)
		if (!strcmp(f->attr_keys[i], "tlc.bounds_legalized"))
			return true;
	return false;
}

/* The bounds semantics at the tile level: what each global tensor's
 * masked loads read (its T.annotate_safe_value, or 0). */
static void read_safe_values(sim *s)
{
	for (int i = 0; i < s->f->nparams && !s->stop; i++) {
		const tlc_param *p = &s->f->params[i];
		if (p->kind != TLC_PARAM_TENSOR)
			continue;
		const tlc_buffer *b = p->buf;
		if (b->id >= s->nsafe) {
			s->safe = tlc_xrealloc(s->safe, (b->id + 1) * sizeof(*s->safe));
			memset(s->safe + s->nsafe, 0, (b->id + 1 - s->nsafe) * sizeof(*s->safe));
			s->nsafe = b->id + 1;
		}
		const tlc_expr *v = tlc_safe_value(s->m, s->f, b);
		s->safe[b->id] = sim_convert(sim_eval(s, v, b->loc), v->dtype, b->dtype);
	}
}

/* The clusters of s's kernel: the grid must be a multiple of them, and at
 * the thread level the cluster's states (the blocks besides s) are made.
 * False after reporting. */
static bool cluster_setup(sim *s, const int64_t grid[3], const int64_t cdims[3], int64_t csize, bool whole_grid)
{
	if (grid[0] % cdims[0] || grid[1] % cdims[1] || grid[2] % cdims[2]) {
		sim_fail(s, s->f->loc,
		         "the grid (%lld, %lld, %lld) is not a multiple of the thread-block clusters (%lld, %lld, %lld) of "
		         "\"tlc.cluster_dims\"",
		         (long long)grid[0], (long long)grid[1], (long long)grid[2], (long long)cdims[0], (long long)cdims[1],
		         (long long)cdims[2]);
		return false;
	}
	if (!s->threaded)
		return true;
	const tlc_target_info *t = tlc_module_target_info(s->m);
	if (csize > 1 && !whole_grid && (!t || csize > t->max_cluster)) {
		sim_fail(s, s->f->loc, "clusters of %lld blocks: the target allows at most %d", (long long)csize,
		         t ? t->max_cluster : 1);
		return false;
	}
	sim_cluster *c = tlc_xcalloc(1, sizeof(*c));
	memcpy(c->dims, cdims, sizeof(c->dims));
	c->n = csize;
	c->grid = whole_grid;
	c->blocks = tlc_xcalloc((size_t)csize, sizeof(*c->blocks));
	c->blocks[0] = s;
	s->cluster = c;
	for (int64_t r = 1; r < csize; r++)
		c->blocks[r] = peer_new(s, r);
	return true;
}

/* Run kernel f; its simulator state (the tensors) stays in *s for the caller
 * to compare and free.  The clusters are those of kernel `clusters` (f's
 * own, or for the tile level of --compare the lowered kernel's, which a
 * pass may have given them: both levels then run and sample the same
 * blocks).  0 on a clean run. */
/* The first T.call_extern of a kernel and the statement holding it. */
typedef struct extern_scan {
	const tlc_stmt *at;
	const tlc_expr *call;
} extern_scan;

static tlc_walk_action extern_stmt(void *p, const tlc_stmt *s)
{
	((extern_scan *)p)->at = s;
	return TLC_WALK_CONTINUE;
}

static tlc_walk_action extern_expr(void *p, const tlc_expr *e)
{
	if (e->kind != TLC_EXPR_CALL || e->u.call.op != TLC_OP_CALL_EXTERN)
		return TLC_WALK_CONTINUE;
	((extern_scan *)p)->call = e;
	return TLC_WALK_STOP;
}

/* The first T.sync_grid of a kernel. */
static tlc_walk_action find_sync_grid(void *p, const tlc_stmt *s)
{
	if (!tlc_stmt_is_call(s, TLC_OP_SYNC_GRID))
		return TLC_WALK_CONTINUE;
	*(const tlc_stmt **)p = s;
	return TLC_WALK_STOP;
}

/* The threads tlc-sim runs at once for T.sync_grid: every agent's vector
 * clock has an entry per agent of the grid. */
#define SIM_GRID_MAX_THREADS 8192

/* A kernel with T.sync_grid: its blocks wait for each other, so the thread
 * level runs the whole grid at once, as one cluster (*cdims the grid);
 * false after saying why it cannot. */
static bool grid_sync_setup(sim *s, const tlc_stmt *at, const int64_t grid[3], int64_t cdims[3], int64_t *csize,
                            const tlc_sim_options *o)
{
	int64_t blocks = grid[0] * grid[1] * grid[2];
	if (!s->threaded) {
		sim_fail(s, at->loc, "T.sync_grid at the tile level: its blocks run one after the other, so none can "
		         "wait for the others; run the thread level (a target's pipeline, without --compare or --passes=)");
		return false;
	}
	if (*csize > 1) {
		sim_fail(s, at->loc, "T.sync_grid in a kernel with thread-block clusters is not modelled");
		return false;
	}
	if (o->blocks > 0 && o->blocks < blocks) {
		sim_fail(s, at->loc, "--blocks=%lld: in a kernel with T.sync_grid every block waits for all the others, "
		         "so the whole grid (%lld blocks) runs; drop --blocks or make the grid smaller",
		         (long long)o->blocks, (long long)blocks);
		return false;
	}
	if (blocks * s->block_threads > SIM_GRID_MAX_THREADS) {
		sim_fail(s, at->loc, "T.sync_grid: tlc-sim runs the grid's %lld blocks of %lld threads at once and "
		         "models at most %d threads so; make the grid smaller (a persistent kernel's block count: -D)",
		         (long long)blocks, (long long)s->block_threads, SIM_GRID_MAX_THREADS);
		return false;
	}
	memcpy(cdims, grid, 3 * sizeof(*grid));
	*csize = blocks;
	return true;
}

static int run_func(sim *s, tlc_module *m, const tlc_func *f, const tlc_func *clusters, const tlc_sim_options *o,
                    bool *used, const sim *prev)
{
	*s = (sim){.m = m, .ctx = tlc_module_context(m), .f = f, .after_pass = o->after_pass};
	/* the user's device code (T.import_source) is C++ the simulator does not
	 * have: say so at the call rather than run something else */
	extern_scan xs = {0};
	tlc_walk_stmt(&(tlc_visitor){.ctx = &xs, .stmt_pre = extern_stmt, .expr_pre = extern_expr}, f->body);
	if (xs.call) {
		const tlc_expr *name = xs.call->u.call.nargs > 1 ? xs.call->u.call.args[1] : NULL;
		sim_fail(s, xs.at ? xs.at->loc : f->loc,
		         "cannot run T.call_extern of '%s': it calls device code (T.import_source) that the "
		         "simulator does not have; compile the kernel for a GPU target (cuda-sm90, cuda-sm80, "
		         "hip-gfx942, ...) and run it there",
		         name && name->kind == TLC_EXPR_STR ? name->u.str : "?");
		return 1;
	}
	s->threaded = sim_is_thread_level(f, s->ctx);
	s->block_threads = 1;
	for (int d = 0; d < f->thread_ndim; d++) {
		int64_t n = 1;
		if (tlc_expr_as_int(f->threads[d], &n) && n > 0 && s->block_threads <= INT32_MAX / n)
			s->block_threads *= n;
	}
	if ((s->threaded && !count_threads(s)) || !bind_params(s, o, used, prev))
		return 1;
	s->masked = !s->threaded && !bounds_legalized(f);
	s->strict_bounds = o->strict_bounds;
	if (s->masked)
		read_safe_values(s);
	if (!s->threaded) {
		layout_scan c = {s};
		tlc_walk_stmt(&(tlc_visitor){.ctx = &c, .stmt_pre = note_layout}, f->body);
		if (s->stop)
			return 1;
	}
	int64_t grid[3] = {1, 1, 1}, cdims[3];
	for (int d = 0; d < f->grid_ndim; d++)
		grid[d] = sim_eval_int(s, f->grid[d], f->loc);
	int64_t csize = tlc_func_cluster_dims(clusters, cdims);
	const tlc_stmt *sync_grid = NULL;
	tlc_walk_stmt(&(tlc_visitor){.ctx = &sync_grid, .stmt_pre = find_sync_grid}, f->body);
	if (s->stop || (sync_grid && !grid_sync_setup(s, sync_grid, grid, cdims, &csize, o)) ||
	    !cluster_setup(s, grid, cdims, csize, sync_grid != NULL))
		return 1;
	/* clusters of csize blocks (of one without clusters): all of them, or
	 * enough for the sample, from the first to the last */
	int64_t cgrid[3] = {grid[0] / cdims[0], grid[1] / cdims[1], grid[2] / cdims[2]};
	int64_t total = cgrid[0] * cgrid[1] * cgrid[2];
	int64_t want = o->blocks > 0 ? (o->blocks + csize - 1) / csize : total, runs = want < total ? want : total;
	for (int64_t r = 0; r < runs && !s->stop; r++) {
		int64_t c = runs == total ? r : runs == 1 ? 0 : r * (total - 1) / (runs - 1);
		int64_t cat[3] = {c % cgrid[0], c / cgrid[0] % cgrid[1], c / cgrid[0] / cgrid[1]};
		for (int64_t k = 0; k < csize && !s->stop; k++) {
			/* the block of rank k: x fastest inside the cluster */
			int64_t in[3] = {k % cdims[0], k / cdims[0] % cdims[1], k / cdims[0] / cdims[1]};
			sim *b = s->threaded && csize > 1 ? s->cluster->blocks[k] : s;
			for (int d = 0; d < 3; d++) {
				b->block[d] = cat[d] * cdims[d] + in[d];
				if (f->block_vars[d]) {
					sim_val v = {0, b->block[d]};
					sim_bind_all(b, f->block_vars[d], v);
				}
			}
			if (b != s)
				continue; /* the cluster runs once all its blocks are placed */
			if (s->threaded && csize == 1)
				sim_run_block_threads(s, f->body);
			else if (!s->threaded)
				sim_exec(s, f->body);
		}
		if (s->threaded && csize > 1 && !s->stop)
			sim_run_cluster_threads(s->cluster, f->body);
	}
	return s->stop ? 1 : 0;
}

static bool check_inputs_used(tlc_context *ctx, const tlc_sim_options *o, const bool *used)
{
	for (int i = 0; i < o->ninputs; i++)
		if (!used[i]) {
			tlc_error(ctx, (tlc_loc){0}, "tlc-sim: --input names '%s', which is no parameter of the kernel",
			          o->input_names[i]);
			return false;
		}
	return true;
}

/* The programs of module m: its kernels, a launch group (the T.Kernel
 * frames of one prim_func, tlc_func_launch_group) counting as one. */
static int count_programs(const tlc_module *m)
{
	int n = 0;
	for (int i = 0; i < tlc_module_func_count(m); i++) {
		const char *g;
		int parts, k = tlc_func_launch_group(tlc_module_func(m, i), &g, &parts);
		n += k <= 0;
	}
	return n;
}

/* Whether kernel i of m goes on from the one before it (its launch group's
 * kernel k - 1), and whether it ends its program; the output prefix of its
 * program (NULL when m runs one program). */
static bool program_step(const tlc_module *m, int i, bool *last, const char **prefix)
{
	const tlc_func *f = tlc_module_func(m, i);
	const char *g;
	int parts, k = tlc_func_launch_group(f, &g, &parts);
	*last = k < 0 || k == parts - 1;
	*prefix = count_programs(m) > 1 ? (k < 0 ? f->name : g) : NULL;
	return k > 0;
}

int tlc_sim_run(tlc_module *m, const tlc_sim_options *o)
{
	tlc_context *ctx = tlc_module_context(m);
	int n = tlc_module_func_count(m), rc = 0;
	bool *used = tlc_xcalloc((size_t)(o->ninputs ? o->ninputs : 1), sizeof(bool));
	if (n == 0) {
		tlc_error(ctx, (tlc_loc){0}, "tlc-sim: the module has no kernel to run");
		rc = 1;
	}
	/* the kernels of a launch group run in order, each on the tensors the
	 * one before it left; outputs are written after the last */
	sim prev = {0};
	bool have_prev = false;
	for (int i = 0; i < n && !rc; i++) {
		sim s;
		bool last;
		const char *prefix;
		bool cont = program_step(m, i, &last, &prefix);
		rc = run_func(&s, m, tlc_module_func(m, i), tlc_module_func(m, i), o, used, cont && have_prev ? &prev : NULL);
		if (o->strict_bounds && !s.masked)
			tlc_warning(ctx, s.f->loc,
			            "tlc-sim: --strict-bounds checks the tile level, but '%s' ran after legalize-bounds or "
			            "lowering, where its guards are in the IR and nothing is masked: run it with --passes= or "
			            "--compare",
			            s.f->name);
		if (!rc && last && !write_outputs(&s, o, prefix))
			rc = 1;
		if (have_prev)
			free_sim(&prev);
		prev = s;
		have_prev = true;
	}
	if (have_prev)
		free_sim(&prev);
	if (!rc && !check_inputs_used(ctx, o, used))
		rc = 1;
	free(used);
	return rc;
}

/* ---- the differential check ---- */

static bool same_value(sim_val a, sim_val b, tlc_dtype t, double atol, double rtol, double *diff)
{
	if (!tlc_dtype_is_float(t)) {
		*diff = a.i == b.i ? 0.0 : fabs((double)a.i - (double)b.i);
		return a.i == b.i;
	}
	if (isnan(a.f) || isnan(b.f)) {
		*diff = isnan(a.f) && isnan(b.f) ? 0.0 : INFINITY;
		return isnan(a.f) && isnan(b.f);
	}
	if (a.f == b.f) { /* equal infinities too: rtol * inf would be NaN when rtol is 0 */
		*diff = 0.0;
		return true;
	}
	*diff = fabs(a.f - b.f);
	return *diff <= atol + rtol * fabs(b.f);
}

static void index_text(const sim_array *a, int64_t e, char *buf, size_t n)
{
	int64_t idx[TLC_SIM_MAX_DIMS];
	for (int d = a->ndim - 1; d >= 0; d--) {
		idx[d] = a->shape[d] ? e % a->shape[d] : 0;
		e = a->shape[d] ? e / a->shape[d] : 0;
	}
	buf[0] = '\0';
	for (int d = 0; d < a->ndim; d++)
		snprintf(buf + strlen(buf), n - strlen(buf), "%s%lld", d ? ", " : "", (long long)idx[d]);
}

/* Every tensor parameter of the two runs, element by element. */
static bool compare_tensors(tlc_context *ctx, sim *low, sim *tile, const tlc_sim_compare_options *c)
{
	bool ok = true;
	for (int i = 0; i < low->f->nparams && i < tile->f->nparams; i++) {
		const tlc_param *pl = &low->f->params[i], *pt = &tile->f->params[i];
		if (pl->kind != TLC_PARAM_TENSOR || pt->kind != TLC_PARAM_TENSOR)
			continue;
		sim_array *a = low->arrays[pl->buf->id], *b = tile->arrays[pt->buf->id];
		if (a->numel != b->numel || a->dtype != b->dtype) {
			tlc_error(ctx, low->f->loc, "tlc-sim: '%s' has another shape or dtype after the pipeline", pl->buf->name);
			return false;
		}
		int64_t bad = 0, first = -1;
		double worst = 0.0;
		for (int64_t e = 0; e < a->numel; e++) {
			double d;
			if (!same_value(sim_array_get(a, e), sim_array_get(b, e), a->dtype, c->atol, c->rtol, &d)) {
				if (first < 0)
					first = e;
				bad++;
			}
			worst = d > worst ? d : worst;
		}
		if (bad) {
			char at[160];
			index_text(a, first, at, sizeof at);
			sim_val x = sim_array_get(a, first), y = sim_array_get(b, first);
			bool fl = tlc_dtype_is_float(a->dtype);
			tlc_error(ctx, low->f->loc,
			          "tlc-sim: kernel '%s' after the pipeline differs from its tile-level meaning: %s[%s] = %.9g, "
			          "the tile level gives %.9g; %lld of %lld elements differ (largest difference %.3g, atol %g, "
			          "rtol %g)",
			          low->f->name, pl->buf->name, at, fl ? x.f : (double)x.i, fl ? y.f : (double)y.i, (long long)bad,
			          (long long)a->numel, worst, c->atol, c->rtol);
			ok = false;
		}
	}
	return ok;
}

int tlc_sim_compare(tlc_module *lowered, tlc_module *tile, const tlc_sim_options *o, const tlc_sim_compare_options *c)
{
	tlc_context *ctx = tlc_module_context(lowered);
	int n = tlc_module_func_count(lowered), rc = 0;
	bool *used = tlc_xcalloc((size_t)(o->ninputs ? o->ninputs : 1), sizeof(bool));
	if (n == 0 || n != tlc_module_func_count(tile)) {
		tlc_error(ctx, (tlc_loc){0}, "tlc-sim: the two modules do not hold the same kernels");
		rc = 1;
	}
	sim prev_low = {0}, prev_top = {0};
	bool have_prev = false;
	for (int i = 0; i < n && !rc; i++) {
		sim low, top;
		bool last;
		const char *prefix;
		bool cont = program_step(lowered, i, &last, &prefix) && have_prev;
		rc = run_func(&top, tile, tlc_module_func(tile, i), tlc_module_func(lowered, i), o, used,
		              cont ? &prev_top : NULL);
		if (!rc)
			rc = run_func(&low, lowered, tlc_module_func(lowered, i), tlc_module_func(lowered, i), o, used,
			              cont ? &prev_low : NULL);
		else
			low = (sim){0};
		if (!rc && !compare_tensors(ctx, &low, &top, c))
			rc = 1;
		if (!rc && last && !write_outputs(&low, o, prefix))
			rc = 1;
		if (have_prev) {
			free_sim(&prev_low);
			free_sim(&prev_top);
		}
		prev_low = low;
		prev_top = top;
		have_prev = true;
	}
	if (have_prev) {
		free_sim(&prev_low);
		free_sim(&prev_top);
	}
	if (!rc && !check_inputs_used(ctx, o, used))
		rc = 1;
	free(used);
	return rc;
}
