/* frontend_shuffle.c - the warp shuffles of TileLang's surface that take a
 * member mask, and TVM's warp-shuffle intrinsics:
 *
 *   T.shfl_sync(mask, value, srcLane, width=None)        CUDA's __shfl_sync
 *   T.tvm_warp_shuffle(mask, value, lane, width, warp_size)
 *   T.tvm_warp_shuffle_up / _down(mask, value, delta, width, warp_size)
 *
 * (T.shfl_xor / shfl_down / shfl_up(value, offset) are the ops of the same
 * names, with the full mask.)  TVM prints tvm_warp_shuffle as
 * __shfl_sync(mask, value, lane, width) on CUDA and __shfl(value, lane,
 * width) on ROCm: warp_size only steered TVM's own lowering, and it is
 * checked and dropped.  The source lane is taken modulo width, as CUDA
 * does (srcLane & (width - 1): the PTX's segment rule), so shfl_idx's lane
 * is always inside the segment on both vendors.
 *
 * The printed code shuffles with the full mask, every lane of the warp
 * taking part (tlc-sim checks that every lane runs the statement): a mask
 * that names fewer lanes, or one known only at run time, is refused. */
#include "frontend.h"

#include <tlc/target.h>

#include <stdio.h>
#include <string.h>

static const char *const names[] = {"shfl_sync", "tvm_warp_shuffle", "tvm_warp_shuffle_up",
				    "tvm_warp_shuffle_down"};

bool fe_shuffle_has(const char *name)
{
	for (size_t i = 0; i < TLC_ARRAY_LEN(names); i++)
		if (strcmp(names[i], name) == 0)
			return true;
	return false;
}

static int target_lanes(fe *F)
{
	const tlc_target_info *t = F->opts ? F->opts->target : NULL;
	return t && t->lanes > 0 ? t->lanes : 32;
}

static const char *target_name(fe *F)
{
	const tlc_target_device *dev = tlc_target_device_of(F->opts ? F->opts->target : NULL);
	return dev ? dev->arch : "this target";
}

/* The mask must name every lane: all ones in its low 32 bits (CUDA's warp;
 * HIP ignores the mask, as TVM's ROCm code does, and shuffles the whole
 * wavefront) */
static bool full_mask(fe *F, const char *fname, fe_val *v, tlc_loc loc)
{
	int64_t m;
	const tlc_expr *e = v->kind == FV_EXPR ? v->u.e : NULL;
	bool known = v->kind == FV_BOOL ? false : e ? tlc_expr_as_int(e, &m) : fe_as_int(v, &m);
	if (known && (m & 0xffffffffLL) == 0xffffffffLL)
		return true;
	if (known)
		tlc_error(F->ctx, loc, "%s with mask 0x%llx on %s: tlc shuffles with the full mask only "
			  "(every lane of the warp takes part); pass 0xffffffff and run the shuffle "
			  "where every lane of the warp runs", fname,
			  (unsigned long long)(m & 0xffffffffLL), target_name(F));
	else
		tlc_error(F->ctx, loc, "%s with a mask known only at run time ('%s') on %s: tlc shuffles "
			  "with the full mask only; pass 0xffffffff and run the shuffle where every "
			  "lane of the warp runs", fname, fe_show(F, v), target_name(F));
	return false;
}

/* width: a compile-time power of two from 1 to the warp's lanes */
static bool shuffle_width(fe *F, const char *fname, fe_val *v, tlc_loc loc, int64_t *w)
{
	int lanes = target_lanes(F);
	if (!fe_const_int(F, v, "the shuffle width", loc, w))
		return false;
	if (*w < 1 || *w > lanes || (*w & (*w - 1))) {
		tlc_error(F->ctx, loc, "%s: width %lld must be a power of two from 1 to %d (the lanes of "
			  "a warp on %s)", fname, (long long)*w, lanes, target_name(F));
		return false;
	}
	return true;
}

/* The value: a scalar of a type both vendors shuffle (32 and 64 bits, and
 * the 16-bit floats on CUDA) */
static const tlc_expr *shuffle_value(fe *F, const char *fname, fe_val *v, tlc_loc loc)
{
	const tlc_expr *x = fe_to_scalar(F, v, loc);
	if (!x)
		return NULL;
	tlc_dtype t = x->dtype;
	int bits = tlc_dtype_bits(t);
	const tlc_target_device *dev = tlc_target_device_of(F->opts ? F->opts->target : NULL);
	bool hip = dev && strcmp(dev->platform, "hip") == 0;
	bool half = t == TLC_DT_FLOAT16 || t == TLC_DT_BFLOAT16;
	if (t == TLC_DT_BOOL || (bits != 32 && bits != 64 && !(half && !hip))) {
		tlc_error(F->ctx, loc, "%s of a %s value on %s: shuffles move 32- or 64-bit values%s; "
			  "T.cast it to int32 or float32 first", fname, tlc_dtype_name(t), target_name(F),
			  hip ? "" : " (and float16/bfloat16)");
		return NULL;
	}
	return x;
}

fe_val *fe_call_shuffle(fe *F, const char *n, int nargs, fe_val **args, int nkw, const char **kwn,
			fe_val **kwv, tlc_loc loc)
{
	static const char *const sync_names[] = {"mask", "value", "srcLane", "width"};
	static const char *const tvm_names[] = {"mask", "value", "lane", "width", "warp_size"};
	char fname[64];
	snprintf(fname, sizeof fname, "T.%s", n);
	bool sync = strcmp(n, "shfl_sync") == 0;
	fe_val *a[5] = {NULL};
	if (!fe_bind_args(F, fname, sync ? sync_names : tvm_names, sync ? 4 : 5, sync ? 3 : 5, nargs,
			  args, nkw, kwn, kwv, a, loc))
		return NULL;
	if (!full_mask(F, fname, a[0], loc))
		return NULL;
	int64_t width = 0, ws;
	if (a[3] && a[3]->kind != FV_NONE && !shuffle_width(F, fname, a[3], loc, &width))
		return NULL;
	if (!sync && !fe_const_int(F, a[4], "warp_size", loc, &ws))
		return NULL;
	const tlc_expr *value = shuffle_value(F, fname, a[1], loc);
	const tlc_expr *lane = value ? fe_to_scalar(F, a[2], loc) : NULL;
	if (!lane)
		return NULL;
	if (!tlc_dtype_is_int(lane->dtype) && lane->dtype != TLC_DT_BOOL) {
		tlc_error(F->ctx, loc, "%s: the lane must be an integer, got %s", fname,
			  tlc_dtype_name(lane->dtype));
		return NULL;
	}
	tlc_module *m = F->m;
	if (lane->dtype != TLC_DT_INT32)
		lane = tlc_cast(m, TLC_DT_INT32, lane);
	tlc_op_id op = !strcmp(n, "tvm_warp_shuffle_up")     ? TLC_OP_SHFL_UP
		       : !strcmp(n, "tvm_warp_shuffle_down") ? TLC_OP_SHFL_DOWN
							     : TLC_OP_SHFL_IDX;
	if (op == TLC_OP_SHFL_IDX) /* CUDA's srcLane modulo width */
		lane = tlc_simplify_expr(
		    m, tlc_binary(m, TLC_EXPR_BITAND, lane,
				  tlc_i32(m, (width ? width : target_lanes(F)) - 1)));
	const tlc_expr *cargs[3] = {value, lane, tlc_i32(m, width)};
	return fe_expr(F, tlc_call(m, op, value->dtype, width ? 3 : 2, cargs, 0, NULL, NULL));
}
