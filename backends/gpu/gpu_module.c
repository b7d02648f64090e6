/* gpu_module.c - a module as one self-contained GPU C++ source plus a C header.
 *
 * Layout of the source: the vendor's includes, the device helpers the
 * kernels use (each once, in a fixed order), then per kernel the file-scope
 * declarations it needs, the __global__ function and its extern "C" host
 * launcher
 *     int NAME(<tensor pointers>, <runtime sizes>, void *stream)
 * (gpu_launcher.c). */
#include <string.h>

#include <tlc/walk.h>

#include "gpu_printer.h"

bool gpu_failed(const gpu_emitter *e)
{
	return tlc_error_count(e->ctx) > e->errors_before;
}

const char *gpu_target_name(const gpu_emitter *e)
{
	return e->target->desc->name;
}

void gpu_indent(gpu_emitter *e, int ind)
{
	for (int i = 0; i < ind; i++)
		tlc_buf_putc(e->out, '\t');
}

/* ---- arguments built by the launcher ---- */

int gpu_find_host_arg(const gpu_emitter *e, const char *key)
{
	for (int i = 0; i < e->nhost_args; i++)
		if (strcmp(e->host_args[i].key, key) == 0)
			return i;
	return -1;
}

int gpu_add_host_arg(gpu_emitter *e, const gpu_host_arg *arg)
{
	e->host_args = tlc_mem_grow(e->host_args, e->nhost_args, &e->cap_host_args, sizeof(*e->host_args));
	e->host_args[e->nhost_args] = *arg;
	return e->nhost_args++;
}

/* ---- shared memory ---- */

/* The bytes of the dynamic shared arena: storage-plan placed every
 * shared.dyn buffer and wrote the arena's size on the kernel. */
static int64_t int_attr(const tlc_func *f, const char *key)
{
	int64_t n;
	for (int i = 0; i < f->nattrs; i++)
		if (f->attr_keys[i] && strcmp(f->attr_keys[i], key) == 0 && tlc_expr_as_int(f->attr_values[i], &n))
			return n;
	return 0;
}

static int64_t arena_bytes(const tlc_func *f)
{
	return int_attr(f, "tlc.smem_bytes");
}

int64_t gpu_arena_align(const gpu_emitter *e)
{
	/* the alignment storage-plan asked for (tlc.smem_align), at least 128 */
	int64_t align = int_attr(e->f, "tlc.smem_align");
	return align > 128 ? align : 128;
}

/* ---- signature ---- */

static bool check_params(gpu_emitter *e)
{
	for (int i = 0; i < e->f->nparams; i++) {
		const tlc_param *p = &e->f->params[i];
		tlc_dtype t = p->kind == TLC_PARAM_TENSOR ? p->buf->dtype : p->var->dtype;
		if (!gpu_ctype(e, t) ||
		    (p->kind == TLC_PARAM_SCALAR && !tlc_dtype_is_int(t) && !tlc_dtype_is_float(t)))
			tlc_error(e->ctx, p->kind == TLC_PARAM_TENSOR ? p->buf->loc : e->f->loc,
				  "parameter dtype %s is not supported by target %s yet",
				  tlc_dtype_name(t), gpu_target_name(e));
	}
	return !gpu_failed(e);
}

/* Parameters in order: tensors as pointers, scalars by value, then the
 * arguments the launcher builds (gpu_host_arg). */
static void emit_params(gpu_emitter *e, tlc_buf *out)
{
	for (int i = 0; i < e->f->nparams; i++) {
		const tlc_param *p = &e->f->params[i];
		if (i)
			tlc_buf_puts(out, ", ");
		if (p->kind == TLC_PARAM_TENSOR)
			tlc_buf_printf(out, "%s *__restrict__ %s", gpu_ctype(e, p->buf->dtype),
				       gpu_name(e, p->buf->name));
		else
			tlc_buf_printf(out, "%s %s", gpu_ctype(e, p->var->dtype),
				       gpu_name(e, p->var->name));
	}
	for (int i = 0; i < e->nhost_args; i++)
		tlc_buf_printf(out, "%s%s", e->f->nparams || i ? ", " : "", e->host_args[i].param);
}

static bool compute_threads(gpu_emitter *e, int64_t dims[3])
{
	int max_threads = e->target->desc->info->max_threads;
	e->threads = 1;
	for (int d = 0; d < 3; d++) {
		dims[d] = 1;
		if (d < e->f->thread_ndim && (!tlc_expr_as_int(e->f->threads[d], &dims[d]) || dims[d] <= 0)) {
			tlc_error(e->ctx, e->f->loc,
				  "the thread counts of T.Kernel must be positive compile-time constants");
			return false;
		}
		e->threads *= dims[d];
	}
	if (e->threads > max_threads) {
		tlc_error(e->ctx, e->f->loc,
			  "T.Kernel asks for %lld threads per block; %s allows at most %d",
			  (long long)e->threads, e->target->vendor->language, max_threads);
		return false;
	}
	return true;
}

/* ---- the kernel ---- */

/* The ids of the kernel's named barriers, T.sync_threads(id, count): bit id. */
static tlc_walk_action note_user_barrier(void *p, const tlc_expr *x)
{
	int64_t id;
	if (x->kind == TLC_EXPR_CALL && x->u.call.op == TLC_OP_SYNC_THREADS && x->u.call.nargs > 0 &&
	    tlc_expr_as_int(x->u.call.args[0], &id) && id >= 0 && id < 32)
		*(uint32_t *)p |= (uint32_t)1 << id;
	return TLC_WALK_CONTINUE;
}


/* The definitions of the block and thread variables the body used, at
 * kernel entry: block variables from the rasterization when T.use_swizzle
 * asked for one. */
static void emit_frame(gpu_emitter *e, tlc_buf *out, const int64_t tdims[3])
{
	if (e->used_frame & (1u << 6)) {
		tlc_buf_puts(out, "\tconst int tlc_tid = (int)threadIdx.x");
		if (tdims[1] > 1 || tdims[2] > 1)
			tlc_buf_printf(out, " + %lld * (int)threadIdx.y + %lld * (int)threadIdx.z", (long long)tdims[0],
			               (long long)(tdims[0] * tdims[1]));
		tlc_buf_puts(out, ";\n");
	}
	if (e->used_frame & (1u << 7))
		tlc_buf_puts(out, "\ttlc_rng_state tlc_rng; /* the thread's generator: T.rng_init */\n");
	const char *block = "blockIdx";
	if (e->raster_panel > 0 && (e->used_frame & 7u)) {
		tlc_buf_printf(out, "\tconst dim3 tlc_block_idx = tlc::rasterization2D%s<%lld",
		               e->raster_column ? "Column" : "Row", (long long)e->raster_panel);
		if (e->cluster_blocks > 1)
			tlc_buf_printf(out, ", %lld, %lld", (long long)e->cluster[0], (long long)e->cluster[1]);
		tlc_buf_puts(out, ">();\n");
		block = "tlc_block_idx";
	}
	for (int d = 0; d < 3; d++) {
		if ((e->used_frame & (1u << d)) && e->f->block_vars[d])
			tlc_buf_printf(out, "\tconst int %s = (int)%s.%c;\n",
				       gpu_name(e, e->f->block_vars[d]->name), block, "xyz"[d]);
		if ((e->used_frame & (1u << (3 + d))) && e->f->thread_vars[d])
			tlc_buf_printf(out, "\tconst int %s = (int)threadIdx.%c;\n",
				       gpu_name(e, e->f->thread_vars[d]->name), "xyz"[d]);
	}
}

static void emit_kernel(gpu_emitter *e, tlc_buf *out, const int64_t tdims[3])
{
	tlc_buf body;
	tlc_buf_init(&body);
	e->out = &body;
	for (int d = 0; d < 3; d++)
		if (e->f->block_vars[d] && d < e->f->grid_ndim) {
			int64_t lo = 0, hi = 0;
			if (tlc_expr_bounds(&e->ranges, e->f->grid[d], &lo, &hi) && hi >= 1)
				tlc_ranges_push(&e->ranges, e->f->block_vars[d], 0, hi - 1);
		}
	for (int d = 0; d < 3; d++)
		if (e->f->thread_vars[d])
			tlc_ranges_push(&e->ranges, e->f->thread_vars[d], 0, tdims[d] - 1);
	/* the body first: it says which frame variables and helpers it uses */
	gpu_emit_stmt(e, e->f->body, 1);

	tlc_buf_puts(out, "extern \"C\" __global__ void ");
	if (e->cluster_blocks > 1)
		tlc_buf_printf(out, e->target->vendor->cluster_dims_attr, (long long)e->cluster[0], (long long)e->cluster[1],
		               (long long)e->cluster[2]);
	tlc_buf_printf(out, "__launch_bounds__(%lld", (long long)e->threads);
	if (e->min_blocks > 0)
		tlc_buf_printf(out, ", %d", e->min_blocks);
	tlc_buf_printf(out, ") %s_kernel(", e->f->name);
	emit_params(e, out);
	tlc_buf_puts(out, ")\n{\n");
	if (e->dyn_smem)
		tlc_buf_printf(out, "\textern __shared__ __align__(%lld) unsigned char tlc_smem[];\n",
		               (long long)gpu_arena_align(e));
	emit_frame(e, out, tdims);
	tlc_buf_puts(out, tlc_buf_str(&body));
	tlc_buf_puts(out, "}\n\n");
	tlc_buf_free(&body);
}

/* ---- the helpers ---- */

static const struct {
	unsigned flag;
	const char *text;
} shared_helpers[] = {
	{GPU_HELPER_PRINTF, "#ifdef TLC_DEBUG_PRINT\n#include <cstdio>\n#endif\n\n"},
	{GPU_HELPER_FLOORDIV_I32,
	 "static __host__ __device__ __forceinline__ int tlc_floordiv_i32(int a, int b)\n"
	 "{\n\tint q = a / b;\n\treturn (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;\n}\n\n"},
	{GPU_HELPER_FLOORMOD_I32,
	 "static __host__ __device__ __forceinline__ int tlc_floormod_i32(int a, int b)\n"
	 "{\n\tint r = a % b;\n\treturn (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;\n}\n\n"},
	{GPU_HELPER_FLOORDIV_I64,
	 "static __host__ __device__ __forceinline__ long long tlc_floordiv_i64(long long a, long long b)\n"
	 "{\n\tlong long q = a / b;\n\treturn (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;\n}\n\n"},
	{GPU_HELPER_FLOORMOD_I64,
	 "static __host__ __device__ __forceinline__ long long tlc_floormod_i64(long long a, long long b)\n"
	 "{\n\tlong long r = a % b;\n\treturn (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;\n}\n\n"},
	{GPU_HELPER_MINMAX,
	 "/* integer T.min / T.max: each operand is evaluated once (it may be a warp shuffle,\n"
	 " * which every lane must run) */\n"
	 "template <typename T>\n"
	 "static __host__ __device__ __forceinline__ T tlc_min(T a, T b)\n"
	 "{\n\treturn b < a ? b : a;\n}\n\n"
	 "template <typename T>\n"
	 "static __host__ __device__ __forceinline__ T tlc_max(T a, T b)\n"
	 "{\n\treturn a < b ? b : a;\n}\n\n"},
	{GPU_HELPER_FTOI,
	 "/* float -> integer as the language converts (PTX's cvt.rzi): toward zero, saturating at\n"
	 " * the type's ends, NaN -> 0; a plain C++ conversion of an out-of-range value is undefined.\n"
	 " * below / above: the integers just outside [lo, hi], as F rounds them. */\n"
	 "template <typename I, typename F>\n"
	 "static __host__ __device__ __forceinline__ I tlc_ftoi(F x, F below, F above, I lo, I hi)\n"
	 "{\n"
	 "\treturn x != x ? (I)0 : x <= below ? lo : x >= above ? hi : (I)x;\n"
	 "}\n\n"},
	{GPU_HELPER_FLOORMOD_F32,
	 "/* float % as the language defines it: a - floor(a / b) * b, each step rounded (the _rn\n"
	 " * intrinsics are never fused into a multiply-add) */\n"
	 "static __device__ __forceinline__ float tlc_floormod_f32(float a, float b)\n"
	 "{\n\treturn __fsub_rn(a, __fmul_rn(floorf(a / b), b));\n}\n\n"},
	{GPU_HELPER_FLOORMOD_F64,
	 "static __device__ __forceinline__ double tlc_floormod_f64(double a, double b)\n"
	 "{\n\treturn __dsub_rn(a, __dmul_rn(floor(a / b), b));\n}\n\n"},
	{GPU_HELPER_ATOMIC_MINMAX,
	 "/* T.atomic_max / T.atomic_min of a float or double (those of the integers\n"
	 " * are built in): a compare-and-swap of the bits until the element is no\n"
	 " * longer beaten; a NaN value or element compares false, changing nothing.\n"
	 " * Returns the element's value before (return_prev=True). */\n"
	 "template <bool MAX>\n"
	 "static __device__ __forceinline__ float tlc_atomic_minmax(float *p, float v)\n"
	 "{\n\tint *a = reinterpret_cast<int *>(p), old = *a, seen;\n"
	 "\tdo {\n\t\tseen = old;\n\t\tfloat cur = __int_as_float(seen);\n"
	 "\t\tif (!(MAX ? v > cur : v < cur))\n\t\t\treturn cur;\n"
	 "\t\told = atomicCAS(a, seen, __float_as_int(v));\n\t} while (old != seen);\n"
	 "\treturn __int_as_float(seen);\n}\n\n"
	 "template <bool MAX>\n"
	 "static __device__ __forceinline__ double tlc_atomic_minmax(double *p, double v)\n"
	 "{\n\tunsigned long long *a = reinterpret_cast<unsigned long long *>(p), old = *a, seen;\n"
	 "\tdo {\n\t\tseen = old;\n\t\tdouble cur = __longlong_as_double((long long)seen);\n"
	 "\t\tif (!(MAX ? v > cur : v < cur))\n\t\t\treturn cur;\n"
	 "\t\told = atomicCAS(a, seen, (unsigned long long)__double_as_longlong(v));\n"
	 "\t} while (old != seen);\n\treturn __longlong_as_double((long long)seen);\n}\n\n"},
	{GPU_HELPER_BITCAST,
	 "/* T.reinterpret: a value's bits read as another type of the same width.  Copying the\n"
	 " * object representation is defined for every trivially copyable type (a cast of\n"
	 " * its address or a union would break C++'s aliasing rules); the compiler makes it\n"
	 " * a move. */\n"
	 "template <typename To, typename From>\n"
	 "static __device__ __forceinline__ To tlc_bitcast(From x)\n"
	 "{\n\tstatic_assert(sizeof(To) == sizeof(From), \"tlc_bitcast keeps the width\");\n"
	 "\tTo r;\n\t__builtin_memcpy(&r, &x, sizeof(To));\n\treturn r;\n}\n\n"},
	{GPU_HELPER_RNG, gpu_rng_helper},
	{GPU_HELPER_LANES,
	 "/* N elements of T as one aligned access (a converting T.copy_vec) */\n"
	 "template <typename T, int N> struct alignas(sizeof(T) * N) tlc_lanes { T v[N]; };\n\n"},
	{GPU_HELPER_COPY_VEC,
	 "/* BYTES bytes at once, as one access: both addresses are aligned to BYTES (lower-tile-ops\n"
	 " * proved it of shared and global memory, per-thread arrays are declared alignas(BYTES)),\n"
	 " * and the elements are copied as tlc_vec_of<T, N>, never through an unrelated type (a uint4\n"
	 " * over floats breaks the aliasing rules; a memcpy loses the alignment: byte loads) */\n"
	 "template <int BYTES, typename T>\n"
	 "static __device__ __forceinline__ void tlc_copy_vec(T *dst, const T *src)\n"
	 "{\n\tstatic_assert(BYTES % sizeof(T) == 0, \"tlc_copy_vec: whole elements\");\n"
	 "\ttypedef typename tlc_vec_of<T, BYTES / sizeof(T)>::type V;\n"
	 "\t*reinterpret_cast<V *>(dst) = *reinterpret_cast<const V *>(src);\n}\n\n"},
	{GPU_HELPER_SYNC_GRID,
	 "/* T.sync_grid: a barrier of every thread of the grid, whose blocks are all resident (a\n"
	 " * cooperative launch).  The block's threads meet first; its thread 0 then adds to the\n"
	 " * kernel's counter: block 0 adds 2^31 - (blocks - 1), each other block 1, so the\n"
	 " * last arrival flips bit 31 and leaves the low bits as they were (zero) for the next\n"
	 " * barrier.  Thread 0 waits for the flip from the value it saw when it arrived.  The\n"
	 " * fences before the add and after the wait order the block's global writes before\n"
	 " * every other block's reads after the barrier (the block's threads reached thread 0\n"
	 " * through the first __syncthreads, and learn from it through the second). */\n"
	 "static __device__ __forceinline__ void tlc_sync_grid(unsigned int *arrived)\n"
	 "{\n"
	 "\t__syncthreads();\n"
	 "\tif (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {\n"
	 "\t\tconst unsigned int blocks = gridDim.x * gridDim.y * gridDim.z;\n"
	 "\t\tconst bool first = blockIdx.x == 0 && blockIdx.y == 0 && blockIdx.z == 0;\n"
	 "\t\tconst unsigned int add = first ? 0x80000000u - (blocks - 1u) : 1u;\n"
	 "\t\t__threadfence();\n"
	 "\t\tconst unsigned int seen = atomicAdd(arrived, add);\n"
	 "\t\twhile (((seen ^ *(volatile unsigned int *)arrived) & 0x80000000u) == 0u)\n"
	 "\t\t\t;\n"
	 "\t\t__threadfence();\n"
	 "\t}\n"
	 "\t__syncthreads();\n"
	 "}\n\n"},
	{GPU_HELPER_RASTER,
	 "namespace tlc {\n"
	 "/* T.use_swizzle: a permutation of the blocks of a 2-D grid for L2 locality.  Row: panels of\n"
	 " * PANEL block rows, walked column by column inside a panel (the last panel may be\n"
	 " * shorter); Column: the same with rows and columns exchanged.  In a kernel with clusters of\n"
	 " * CX x CY blocks the clusters are what is permuted, as blocks of a grid CX x CY times\n"
	 " * smaller; the blocks of a cluster stay neighbours, in their order inside it. */\n"
	 "template <int PANEL, int CX = 1, int CY = 1>\n"
	 "static __device__ __forceinline__ dim3 rasterization2DRow()\n"
	 "{\n"
	 "\tconst unsigned gx = gridDim.x / CX, gy = gridDim.y / CY;\n"
	 "\tconst unsigned id = blockIdx.x / CX + (blockIdx.y / CY) * gx;\n"
	 "\tconst unsigned panel = id / (PANEL * gx), in_panel = id % (PANEL * gx);\n"
	 "\tconst unsigned rows = min((unsigned)PANEL, gy - panel * PANEL);\n"
	 "\treturn dim3((in_panel / rows) * CX + blockIdx.x % CX, (panel * PANEL + in_panel % rows) * CY + blockIdx.y % CY,\n"
	 "\t            blockIdx.z);\n"
	 "}\n\n"
	 "template <int PANEL, int CX = 1, int CY = 1>\n"
	 "static __device__ __forceinline__ dim3 rasterization2DColumn()\n"
	 "{\n"
	 "\tconst unsigned gx = gridDim.x / CX, gy = gridDim.y / CY;\n"
	 "\tconst unsigned id = blockIdx.y / CY + (blockIdx.x / CX) * gy;\n"
	 "\tconst unsigned panel = id / (PANEL * gy), in_panel = id % (PANEL * gy);\n"
	 "\tconst unsigned cols = min((unsigned)PANEL, gx - panel * PANEL);\n"
	 "\treturn dim3((panel * PANEL + in_panel % cols) * CX + blockIdx.x % CX, (in_panel / cols) * CY + blockIdx.y % CY,\n"
	 "\t            blockIdx.z);\n"
	 "}\n"
	 "} /* namespace tlc */\n\n"},
};

static void emit_helpers(tlc_buf *out, const gpu_vendor *v, unsigned helpers)
{
	for (size_t i = 0; i < sizeof(shared_helpers) / sizeof(shared_helpers[0]); i++) {
		if (!(helpers & shared_helpers[i].flag))
			continue;
		if (shared_helpers[i].flag == GPU_HELPER_COPY_VEC)
			tlc_buf_puts(out, v->vec_of ? v->vec_of
			                            : "/* what tlc_copy_vec copies N elements of T as: their aggregate */\n"
			                              "template <typename T, int N> struct tlc_vec_of { typedef tlc_lanes<T, N> type; };\n\n");
		tlc_buf_puts(out, shared_helpers[i].text);
	}
	if (helpers >= GPU_HELPER_VENDOR && v->emit_helpers)
		v->emit_helpers(out, helpers);
}

/* ---- the module ---- */

/* The code of the kernels' T.import_source ("tlc.import_source": a tuple
 * of strings), each text once, in the order of the kernels and of their
 * imports: after the helpers, before the kernels that call it. */
static void emit_imported_sources(tlc_buf *out, tlc_module *m)
{
	const tlc_expr *seen[256];
	int nseen = 0;
	for (int i = 0; i < tlc_module_func_count(m); i++) {
		const tlc_func *f = tlc_module_func(m, i);
		for (int a = 0; a < f->nattrs; a++) {
			const tlc_expr *v = f->attr_values[a];
			if (!f->attr_keys[a] || strcmp(f->attr_keys[a], "tlc.import_source") != 0 || v->kind != TLC_EXPR_TUPLE)
				continue;
			for (int k = 0; k < v->u.tuple.n; k++) {
				const tlc_expr *code = v->u.tuple.items[k];
				bool dup = code->kind != TLC_EXPR_STR;
				for (int j = 0; j < nseen && !dup; j++)
					dup = seen[j] == code; /* hash-consed strings: the same text */
				if (dup)
					continue;
				if (nseen < (int)(sizeof seen / sizeof seen[0]))
					seen[nseen++] = code;
				tlc_buf_printf(out, "/* T.import_source of kernel %s */\n%s\n\n", f->name, code->u.str);
			}
		}
	}
}

/* "// Generated by tlc ...": how to compile the source, from the target's
 * device compiler and the flags that select its chip. */
static void emit_banner(tlc_buf *out, const gpu_target *t)
{
	tlc_buf_printf(
		out,
		"// Generated by tlc for target %s (%s). Self-contained: compile with\n//   %s",
		t->desc->name, t->arch, t->desc->compiler);
	for (const char *const *flag = t->desc->arch_flags; flag && *flag; flag++)
		tlc_buf_printf(out, " %s", *flag);
	tlc_buf_puts(out, " -c <this file>\n");
	tlc_buf_puts(out, t->vendor->includes);
	tlc_buf_puts(out, "#include <stdint.h>\n\n");
}

static int emit_func(tlc_module *m, const gpu_target *t, int fi, tlc_buf *kernels,
		     tlc_buf *launchers, tlc_buf *header, unsigned *helpers)
{
	tlc_func *f = tlc_module_func(m, fi);
	/* a launch group (several T.Kernel frames) gets one function and one
	 * declaration, after its last kernel: the verifier has checked that its
	 * kernels are the ones before, in order */
	const char *group;
	int nparts, part = tlc_func_launch_group(f, &group, &nparts);
	bool group_end = part >= 0 && part == nparts - 1 && fi - part >= 0;
	const tlc_func *parts[64];
	if (group_end && nparts > (int)(sizeof parts / sizeof parts[0])) {
		tlc_error(tlc_module_context(m), f->loc, "launch group '%s' has %d kernels; at most %d are supported",
		          group, nparts, (int)(sizeof parts / sizeof parts[0]));
		return 1;
	}
	for (int i = 0; group_end && i < nparts; i++)
		parts[i] = tlc_module_func(m, fi - part + i);
	gpu_emitter e = {.m = m, .ctx = tlc_module_context(m), .target = t, .f = f};
	int64_t tdims[3];
	tlc_buf decls, kernel;
	e.errors_before = tlc_error_count(e.ctx);
	/* passes made new variables: C needs unique names */
	tlc_func_uniquify_names(m, f);
	if (!check_params(&e) || !compute_threads(&e, tdims))
		return tlc_error_count(e.ctx) - e.errors_before;
	tlc_walk_func(&(tlc_visitor){.ctx = &e.user_bars, .expr_pre = note_user_barrier}, f);
	e.dyn_smem = arena_bytes(f);
	e.static_smem = int_attr(f, "tlc.smem_static");
	/* the blocks per SM a pass sized the kernel's registers for */
	e.min_blocks = (int)int_attr(f, "tlc.min_blocks");
	e.cluster_blocks = tlc_func_cluster_dims(f, e.cluster);
	if (e.cluster_blocks > 1 && (!t->vendor->cluster_dims_attr || e.cluster_blocks > t->desc->info->max_cluster)) {
		tlc_error(e.ctx, f->loc, "kernel '%s' runs in clusters of %lld blocks; target %s has %s", f->name,
		          (long long)e.cluster_blocks, t->desc->name,
		          t->desc->info->max_cluster > 1 ? "smaller clusters (max_cluster)" : "no thread-block clusters");
		return tlc_error_count(e.ctx) - e.errors_before;
	}
	for (int d = 0; d < 3 && e.cluster_blocks > 1; d++) {
		int64_t g = 1;
		if ((d >= f->grid_ndim || tlc_expr_as_int(f->grid[d], &g)) && g % e.cluster[d]) {
			tlc_error(e.ctx, f->loc, "kernel '%s': its grid has %lld blocks along %c, not a multiple of its "
			          "clusters' %lld (\"tlc.cluster_dims\")", f->name, (long long)g, "xyz"[d],
			          (long long)e.cluster[d]);
			return tlc_error_count(e.ctx) - e.errors_before;
		}
	}
	tlc_buf_init(&decls);
	tlc_buf_init(&kernel);
	e.decls = &decls;
	emit_kernel(&e, &kernel, tdims);
	tlc_buf_puts(kernels, tlc_buf_str(&decls));
	tlc_buf_puts(kernels, tlc_buf_str(&kernel));
	if (!gpu_failed(&e))
		gpu_emit_launcher(&e, launchers, tdims);
	if (!gpu_failed(&e) && group_end)
		gpu_emit_group_launcher(&e, launchers, parts, nparts);
	if (!gpu_failed(&e) && (part < 0 || group_end))
		gpu_emit_header_decl(&e, header, parts, group_end ? nparts : 0);
	*helpers |= e.helpers;
	tlc_buf_free(&kernel);
	tlc_buf_free(&decls);
	tlc_ranges_free(&e.ranges);
	tlc_mem_free(e.host_args);
	return tlc_error_count(e.ctx) - e.errors_before;
}

int gpu_emit_module(tlc_module *m, const gpu_target *t, tlc_codegen_result *out)
{
	tlc_buf kernels, launchers, header;
	unsigned helpers = 0;
	int errors = 0;
	tlc_buf_init(&kernels);
	tlc_buf_init(&launchers);
	tlc_buf_init(&header);
	for (int i = 0; i < tlc_module_func_count(m); i++)
		errors += emit_func(m, t, i, &kernels, &launchers, &header, &helpers);
	if (!errors) {
		emit_banner(&out->source, t);
		emit_helpers(&out->source, t->vendor, helpers);
		emit_imported_sources(&out->source, m);
		tlc_buf_puts(&out->source, tlc_buf_str(&kernels));
		tlc_buf_puts(&out->source, tlc_buf_str(&launchers));
		gpu_emit_header_file(&out->header, m, t, tlc_buf_str(&header));
	}
	tlc_buf_free(&kernels);
	tlc_buf_free(&launchers);
	tlc_buf_free(&header);
	return errors;
}

int gpu_register_targets(tlc_registry *reg, const tlc_target_desc *const *targets, int n)
{
	for (int i = 0; i < n; i++)
		if (tlc_register_target(reg, targets[i]))
			return -1;
	return 0;
}
