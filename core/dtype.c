/* dtype.c - data type names, sizes, classes and TileLang's spellings; scope
 * names. */
#include "internal.h"

#include <string.h>

typedef struct dtype_info {
	const char *name;
	int bits;
	char cls; /* 'b', 'i', 'u', 'f' */
} dtype_info;

static const dtype_info dtypes[TLC_DT_COUNT] = {
	[TLC_DT_VOID] = {"void", 0, 'v'},
#define DTYPE(e, name, bits, cls) [TLC_DT_##e] = {name, bits, cls},
#include <tlc/dtypes.def>
#undef DTYPE
};

/* TileLang's other spellings of the same types. */
static const struct {
	const char *alias;
	tlc_dtype t;
} aliases[] = {
	{"half", TLC_DT_FLOAT16},
	{"fp16", TLC_DT_FLOAT16},
	{"bf16", TLC_DT_BFLOAT16},
	{"float", TLC_DT_FLOAT32},
	{"fp32", TLC_DT_FLOAT32},
	{"double", TLC_DT_FLOAT64},
	{"fp64", TLC_DT_FLOAT64},
	{"float8_e4m3", TLC_DT_FLOAT8_E4M3},
	{"e4m3_float8", TLC_DT_FLOAT8_E4M3},
	{"e5m2_float8", TLC_DT_FLOAT8_E5M2},
	{"int", TLC_DT_INT32},
};

static bool valid(tlc_dtype t)
{
	return (int)t >= 0 && t < TLC_DT_COUNT;
}

const char *tlc_dtype_name(tlc_dtype t)
{
	return valid(t) ? dtypes[t].name : "void";
}

int tlc_dtype_bits(tlc_dtype t)
{
	return valid(t) ? dtypes[t].bits : 0;
}

bool tlc_dtype_is_float(tlc_dtype t)
{
	return valid(t) && dtypes[t].cls == 'f';
}

bool tlc_dtype_is_int(tlc_dtype t)
{
	return valid(t) && (dtypes[t].cls == 'i' || dtypes[t].cls == 'u');
}

bool tlc_dtype_is_unsigned(tlc_dtype t)
{
	return valid(t) && dtypes[t].cls == 'u';
}

bool tlc_dtype_int_range(tlc_dtype t, int64_t *lo, int64_t *hi)
{
	if (t == TLC_DT_BOOL) {
		*lo = 0, *hi = 1;
		return true;
	}
	if (!tlc_dtype_is_int(t))
		return false;
	int bits = tlc_dtype_bits(t);
	if (tlc_dtype_is_unsigned(t)) {
		*lo = 0;
		*hi = bits >= 64 ? INT64_MAX : (int64_t)((UINT64_C(1) << bits) - 1);
	} else {
		*hi = bits >= 64 ? INT64_MAX : (int64_t)((UINT64_C(1) << (bits - 1)) - 1);
		*lo = -*hi - 1;
	}
	return true;
}

tlc_dtype tlc_dtype_from_name(const char *name)
{
	if (!name)
		return TLC_DT_VOID;
	for (int t = 1; t < TLC_DT_COUNT; t++)
		if (strcmp(dtypes[t].name, name) == 0)
			return (tlc_dtype)t;
	for (size_t i = 0; i < TLC_ARRAY_LEN(aliases); i++)
		if (strcmp(aliases[i].alias, name) == 0)
			return aliases[i].t;
	return TLC_DT_VOID;
}

const char *tlc_scope_name(tlc_scope s)
{
	switch (s) {
	case TLC_SCOPE_GLOBAL: return "global";
	case TLC_SCOPE_SHARED: return "shared";
	case TLC_SCOPE_SHARED_DYN: return "shared.dyn";
	case TLC_SCOPE_FRAGMENT: return "local.fragment";
	case TLC_SCOPE_LOCAL: return "local";
	case TLC_SCOPE_VAR: return "local.var";
	case TLC_SCOPE_BARRIER: return "shared.barrier";
	}
	return "global";
}
