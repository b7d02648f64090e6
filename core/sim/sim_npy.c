/* sim_npy.c - NumPy .npy files (format versions 1 and 2, C order,
 * little-endian) for the simulator's inputs and outputs.
 *
 * Each dtype is written in its storage format: bool '|b1', integers
 * '<iN' / '<uN', float16 '<f2', float32 '<f4', float64 '<f8'; NumPy has no
 * bfloat16 or float8, so those are written as their raw bits, '<u2' and
 * '|u1' (view them with ml_dtypes, or `.view(torch.bfloat16)` after
 * torch.from_numpy).  An input whose descr is the tensor's own is read
 * byte for byte; one of another numeric type is converted element by
 * element (rounded to the tensor's dtype as T.cast rounds). */
#include "sim_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *descr_of(tlc_dtype t)
{
	switch (t) {
	case TLC_DT_BOOL: return "|b1";
	case TLC_DT_INT8: return "|i1";
	case TLC_DT_INT16: return "<i2";
	case TLC_DT_INT32: return "<i4";
	case TLC_DT_INT64: return "<i8";
	case TLC_DT_UINT8: return "|u1";
	case TLC_DT_UINT16: return "<u2";
	case TLC_DT_UINT32: return "<u4";
	case TLC_DT_UINT64: return "<u8";
	case TLC_DT_FLOAT16: return "<f2";
	case TLC_DT_FLOAT32: return "<f4";
	case TLC_DT_FLOAT64: return "<f8";
	case TLC_DT_BFLOAT16: return "<u2"; /* raw bits */
	case TLC_DT_FLOAT8_E4M3:
	case TLC_DT_FLOAT8_E5M2:
	case TLC_DT_FLOAT8_E4M3FNUZ:
	case TLC_DT_FLOAT8_E5M2FNUZ: return "|u1"; /* raw bits */
	default: return NULL;
	}
}

/* The dtype a descr names when read as numbers (not raw bits). */
static tlc_dtype dtype_of_descr(const char *d)
{
	static const tlc_dtype types[] = {TLC_DT_BOOL,   TLC_DT_INT8,   TLC_DT_INT16,   TLC_DT_INT32,
	                                  TLC_DT_INT64,  TLC_DT_UINT8,  TLC_DT_UINT16,  TLC_DT_UINT32,
	                                  TLC_DT_UINT64, TLC_DT_FLOAT16, TLC_DT_FLOAT32, TLC_DT_FLOAT64};
	for (size_t i = 0; i < TLC_ARRAY_LEN(types); i++)
		if (!strcmp(descr_of(types[i]), d) || (d[0] == '=' && !strcmp(descr_of(types[i]) + 1, d + 1)))
			return types[i];
	return TLC_DT_VOID;
}

static bool fail(char *why, size_t n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, n, fmt, ap);
	va_end(ap);
	return false;
}

/* The quoted value after 'key': in the header dict (NUL-terminated copy in out). */
static bool dict_str(const char *h, const char *key, char *out, size_t n)
{
	const char *p = strstr(h, key);
	if (!p)
		return false;
	p = strchr(p + strlen(key), ':');
	if (!p)
		return false;
	p = strchr(p, '\'');
	if (!p)
		return false;
	const char *q = strchr(++p, '\'');
	if (!q || (size_t)(q - p) >= n)
		return false;
	memcpy(out, p, (size_t)(q - p));
	out[q - p] = '\0';
	return true;
}

static int parse_shape(const char *h, int64_t *shape, int max)
{
	const char *p = strstr(h, "'shape'");
	if (!p || !(p = strchr(p, '(')))
		return -1;
	int n = 0;
	for (p++; *p && *p != ')';) {
		if (*p == ' ' || *p == ',') {
			p++;
			continue;
		}
		char *end;
		errno = 0;
		long long v = strtoll(p, &end, 10);
		if (end == p || errno || v < 0 || n == max)
			return -1;
		shape[n++] = v;
		p = end;
		if (*p == 'L')
			p++;
	}
	return *p == ')' ? n : -1;
}

bool sim_npy_read(const char *path, sim_array *a, char *why, size_t nwhy)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return fail(why, nwhy, "cannot open '%s': %s", path, strerror(errno));
	unsigned char pre[12];
	bool ok = false;
	char *h = NULL;
	if (fread(pre, 1, 10, f) != 10 || memcmp(pre, "\x93NUMPY", 6)) {
		fail(why, nwhy, "'%s' is not a .npy file", path);
		goto out;
	}
	size_t hlen = pre[8] | (size_t)pre[9] << 8;
	if (pre[6] >= 2) {
		if (fread(pre + 10, 1, 2, f) != 2) {
			fail(why, nwhy, "'%s': truncated header", path);
			goto out;
		}
		hlen |= (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
	}
	if (hlen > (1u << 20)) {
		fail(why, nwhy, "'%s': header of %zu bytes", path, hlen);
		goto out;
	}
	h = malloc(hlen + 1);
	if (!h || fread(h, 1, hlen, f) != hlen) {
		fail(why, nwhy, "'%s': truncated header", path);
		goto out;
	}
	h[hlen] = '\0';
	char descr[16];
	int64_t shape[TLC_SIM_MAX_DIMS];
	int nd = parse_shape(h, shape, TLC_SIM_MAX_DIMS);
	if (!dict_str(h, "'descr'", descr, sizeof descr) || nd < 0) {
		fail(why, nwhy, "'%s': cannot read its descr and shape", path);
		goto out;
	}
	if (strstr(h, "'fortran_order': True")) {
		fail(why, nwhy, "'%s' is in Fortran order; write it in C order (np.ascontiguousarray)", path);
		goto out;
	}
	bool same_shape = nd == a->ndim;
	for (int d = 0; same_shape && d < nd; d++)
		same_shape = shape[d] == a->shape[d];
	if (!same_shape) {
		char want[160] = "", got[160] = "";
		for (int d = 0; d < a->ndim; d++)
			snprintf(want + strlen(want), sizeof want - strlen(want), "%s%lld", d ? ", " : "", (long long)a->shape[d]);
		for (int d = 0; d < nd; d++)
			snprintf(got + strlen(got), sizeof got - strlen(got), "%s%lld", d ? ", " : "", (long long)shape[d]);
		fail(why, nwhy, "'%s' has shape (%s), the parameter (%s)", path, got, want);
		goto out;
	}
	tlc_dtype from = dtype_of_descr(descr);
	if (!strcmp(descr, descr_of(a->dtype))) {
		if (fread(a->data, 1, (size_t)a->nbytes, f) != (size_t)a->nbytes) {
			fail(why, nwhy, "'%s': fewer elements than its shape says", path);
			goto out;
		}
	} else if (from != TLC_DT_VOID) {
		sim_array tmp;
		if (!sim_array_init(&tmp, from, nd, shape)) {
			fail(why, nwhy, "'%s': out of memory", path);
			goto out;
		}
		if (fread(tmp.data, 1, (size_t)tmp.nbytes, f) != (size_t)tmp.nbytes) {
			sim_array_free(&tmp);
			fail(why, nwhy, "'%s': fewer elements than its shape says", path);
			goto out;
		}
		for (int64_t e = 0; e < a->numel; e++)
			sim_array_set(a, e, sim_convert(sim_array_get(&tmp, e), from, a->dtype));
		sim_array_free(&tmp);
	} else {
		fail(why, nwhy, "'%s' holds '%s', which cannot be read as %s (expected '%s')", path, descr,
		     tlc_dtype_name(a->dtype), descr_of(a->dtype));
		goto out;
	}
	ok = true;
out:
	free(h);
	fclose(f);
	return ok;
}

bool sim_npy_write(const char *path, const sim_array *a, char *why, size_t nwhy)
{
	char dict[512];
	int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (", descr_of(a->dtype));
	for (int d = 0; d < a->ndim; d++)
		n += snprintf(dict + n, sizeof dict - (size_t)n, "%lld%s", (long long)a->shape[d],
		              a->ndim == 1 || d + 1 < a->ndim ? ", " : "");
	n += snprintf(dict + n, sizeof dict - (size_t)n, "), }");
	/* pad with spaces and a newline so that the data starts 64-byte aligned */
	size_t total = 10 + (size_t)n + 1, pad = (64 - total % 64) % 64;
	size_t hlen = (size_t)n + pad + 1;
	FILE *f = fopen(path, "wb");
	if (!f)
		return fail(why, nwhy, "cannot write '%s': %s", path, strerror(errno));
	unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(hlen & 0xff),
	                         (unsigned char)(hlen >> 8)};
	bool ok = fwrite(pre, 1, 10, f) == 10 && fwrite(dict, 1, (size_t)n, f) == (size_t)n;
	for (size_t i = 0; ok && i < pad; i++)
		ok = fputc(' ', f) != EOF;
	ok = ok && fputc('\n', f) != EOF && fwrite(a->data, 1, (size_t)a->nbytes, f) == (size_t)a->nbytes;
	if (fclose(f) != 0)
		ok = false;
	return ok || fail(why, nwhy, "cannot write '%s': %s", path, strerror(errno));
}
