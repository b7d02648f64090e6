/* frontend_nvcc.c - the plain queries of tilelang.contrib.nvcc (also
 * tvm.contrib.nvcc) that kernel files make at module level to pick a
 * configuration, answered at compile time from the device the target
 * describes (or -D device_capability), as torch.cuda.get_device_capability
 * is (frontend_host.c):
 *
 *   get_target_compute_version(target=None)   "9.0" on cuda-sm90, "8.0" on cuda-sm80
 *   parse_compute_version("8.9")              (8, 9)
 *   get_target_arch("9.0" | (9, 0))           "90a" (an "a" from major 9 on), "80"
 *   have_fp16 / have_int8 / have_bf16 / have_fp8(compute_version)
 *   have_tensorcore(compute_version=None, target=None)
 *   have_tma(target) / is_hopper(target) / have_pdl(target)
 *   have_cudagraph()
 *
 * TileLang reads the target's arch (sm_90a) or the GPU of the machine; tlc
 * compiles for one target, so any target argument means it.  A HIP target
 * has no CUDA compute version: get_target_compute_version is refused there,
 * and the target predicates are False, as TileLang's are for a non-CUDA
 * target.  The module's other functions (compile_cuda, find_cuda_path, ...)
 * stay host code. */
#include "frontend.h"

#include <tlc/target.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *query_name(const char *fn)
{
	if (strncmp(fn, "tilelang.contrib.nvcc.", 22) == 0)
		return fn + 22;
	if (strncmp(fn, "tvm.contrib.nvcc.", 17) == 0)
		return fn + 17;
	return NULL;
}

static bool hip_target(fe *F)
{
	const tlc_target_device *dev = tlc_target_device_of(F->opts ? F->opts->target : NULL);
	return dev && strcmp(dev->platform, "hip") == 0;
}

/* int(text) of Python, for the parts of a compute version: optional blanks
 * around an optional sign and decimal digits */
static bool py_int(const char *s, size_t n, int64_t *out)
{
	char buf[32];
	while (n && (*s == ' ' || *s == '\t'))
		s++, n--;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	if (n == 0 || n >= sizeof buf)
		return false;
	memcpy(buf, s, n);
	buf[n] = 0;
	char *end;
	long long v = strtoll(buf, &end, 10);
	if (*end || (buf[0] != '-' && buf[0] != '+' && (buf[0] < '0' || buf[0] > '9')))
		return false;
	*out = v;
	return true;
}

/* parse_compute_version(s): s.split(".") read as two ints (the rest of the
 * parts ignored, as TileLang does) */
static bool parse_version(fe *F, const char *fname, fe_val *v, tlc_loc loc, int64_t *major,
			  int64_t *minor)
{
	if (v->kind == FV_TUPLE && v->u.seq.n == 2 && fe_as_int(v->u.seq.items[0], major) &&
	    fe_as_int(v->u.seq.items[1], minor) && !strcmp(fname, "get_target_arch"))
		return true; /* get_target_arch also takes (major, minor) */
	if (v->kind != FV_STR) {
		tlc_error(F->ctx, loc, "tilelang.contrib.nvcc.%s needs a compute version string such as "
			  "\"9.0\", got %s", fname, fe_kind_name(v));
		return false;
	}
	const char *s = v->u.s, *dot = strchr(s, '.');
	const char *rest = dot ? dot + 1 : NULL, *dot2 = rest ? strchr(rest, '.') : NULL;
	if (!dot || !py_int(s, (size_t)(dot - s), major) ||
	    !py_int(rest, dot2 ? (size_t)(dot2 - rest) : strlen(rest), minor)) {
		tlc_error(F->ctx, loc, "tilelang.contrib.nvcc.%s: Compute version parsing error: '%s' is "
			  "not MAJOR.MINOR", fname, s);
		return false;
	}
	return true;
}

/* The compile target's compute version, "MAJOR.MINOR" */
static bool target_version(fe *F, const char *fname, tlc_loc loc, int *major, int *minor)
{
	char q[96];
	snprintf(q, sizeof q, "tilelang.contrib.nvcc.%s()", fname);
	if (hip_target(F) && !fe_define(F, "device_capability")) {
		tlc_error(F->ctx, loc, "%s on a HIP target: an AMD GPU has no CUDA compute version "
			  "(ask torch.cuda.get_device_properties(0).gcnArchName, or give "
			  "-D device_capability=MAJOR.MINOR)", q);
		return false;
	}
	return fe_device_capability(F, q, loc, major, minor);
}

static fe_val *version_str(fe *F, int major, int minor)
{
	char buf[32];
	snprintf(buf, sizeof buf, "%d.%d", major, minor);
	return fe_str(F, fe_strdup(F, buf));
}

bool fe_nvcc_call(fe *F, const char *fn, int nargs, fe_val **args, int nkw, const char **kwn,
		  fe_val **kwv, tlc_loc loc, fe_val **out)
{
	const char *n = query_name(fn);
	if (!n)
		return false;
	static const char *const one[] = {"compute_version"}, *const tgt[] = {"target"};
	static const char *const tc[] = {"compute_version", "target"};
	fe_val *a[2] = {NULL, NULL};
	int major, minor;
	int64_t x, y;
	*out = NULL;
	char fname[96];
	snprintf(fname, sizeof fname, "tilelang.contrib.nvcc.%s", n);
	if (!strcmp(n, "get_target_compute_version")) {
		if (fe_bind_args(F, fname, tgt, 1, 0, nargs, args, nkw, kwn, kwv, a, loc) &&
		    target_version(F, n, loc, &major, &minor))
			*out = version_str(F, major, minor);
		return true;
	}
	if (!strcmp(n, "parse_compute_version")) {
		if (fe_bind_args(F, fname, one, 1, 1, nargs, args, nkw, kwn, kwv, a, loc) &&
		    parse_version(F, n, a[0], loc, &x, &y)) {
			fe_val *t = fe_seq(F, FV_TUPLE, 2);
			t->u.seq.items[0] = fe_int(F, x);
			t->u.seq.items[1] = fe_int(F, y);
			*out = t;
		}
		return true;
	}
	if (!strcmp(n, "get_target_arch")) {
		if (fe_bind_args(F, fname, one, 1, 1, nargs, args, nkw, kwn, kwv, a, loc) &&
		    parse_version(F, n, a[0], loc, &x, &y)) {
			char buf[48];
			snprintf(buf, sizeof buf, "%lld%s", (long long)(x * 10 + y), x >= 9 ? "a" : "");
			*out = fe_str(F, fe_strdup(F, buf));
		}
		return true;
	}
	bool by_version = !strcmp(n, "have_fp16") || !strcmp(n, "have_int8") ||
			  !strcmp(n, "have_bf16") || !strcmp(n, "have_fp8");
	if (by_version || !strcmp(n, "have_tensorcore")) {
		bool tensorcore = !by_version;
		if (!fe_bind_args(F, fname, tc, tensorcore ? 2 : 1, tensorcore ? 0 : 1, nargs, args,
				  nkw, kwn, kwv, a, loc))
			return true;
		if (a[0] && a[0]->kind != FV_NONE) {
			if (!parse_version(F, n, a[0], loc, &x, &y))
				return true;
		} else { /* have_tensorcore(): the target's (TileLang: the GPU's or the target's) */
			if (hip_target(F) && !fe_define(F, "device_capability")) {
				*out = fe_bool(F, false);
				return true;
			}
			if (!target_version(F, n, loc, &major, &minor))
				return true;
			x = major;
			y = minor;
		}
		bool r = !strcmp(n, "have_fp16")   ? (x == 5 && y >= 3) || x >= 6
			 : !strcmp(n, "have_int8") ? x >= 6
			 : !strcmp(n, "have_bf16") ? x >= 8
			 : !strcmp(n, "have_fp8")  ? (x == 8 && y >= 9) || x >= 9
						   : x >= 7;
		*out = fe_bool(F, r);
		return true;
	}
	if (!strcmp(n, "have_tma") || !strcmp(n, "is_hopper") || !strcmp(n, "have_pdl")) {
		if (!fe_bind_args(F, fname, tgt, 1, 1, nargs, args, nkw, kwn, kwv, a, loc))
			return true;
		if (hip_target(F)) { /* TileLang: False for a target that is not CUDA */
			*out = fe_bool(F, false);
			return true;
		}
		if (!target_version(F, n, loc, &major, &minor))
			return true;
		*out = fe_bool(F, n[0] == 'i' ? major == 9 && minor == 0 : major >= 9);
		return true;
	}
	if (!strcmp(n, "have_cudagraph")) {
		/* CUDA graphs came with CUDA 10; every toolkit tlc's code needs has them */
		if (fe_bind_args(F, fname, tgt, 0, 0, nargs, args, nkw, kwn, kwv, a, loc))
			*out = fe_bool(F, !hip_target(F));
		return true;
	}
	return false;
}
