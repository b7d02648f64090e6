/* sim_memory.c - buffer instances of the simulator: C-order arrays in
 * their dtype's storage format, little-endian, read and written one
 * element at a time. */
#include "sim_internal.h"

#include <stdlib.h>
#include <string.h>

static int elem_bytes(tlc_dtype t)
{
	int bits = tlc_dtype_bits(t);
	return bits < 8 ? 1 : bits / 8;
}

bool sim_array_init(sim_array *a, tlc_dtype t, int ndim, const int64_t *shape)
{
	memset(a, 0, sizeof(*a));
	a->dtype = t;
	a->ndim = ndim;
	a->numel = 1;
	for (int d = 0; d < ndim; d++) {
		if (shape[d] < 0 || (shape[d] && a->numel > INT64_MAX / 8 / shape[d]))
			return false;
		a->shape[d] = shape[d];
		a->numel *= shape[d];
	}
	a->nbytes = a->numel * elem_bytes(t);
	/* at least one byte, so that an empty array still has storage */
	a->data = calloc((size_t)(a->nbytes ? a->nbytes : 1), 1);
	return a->data != NULL;
}

void sim_array_free(sim_array *a)
{
	if (!a->view) {
		free(a->data);
		free(a->shadow);
	}
	free(a->reg_state);
	a->data = NULL;
	a->shadow = NULL;
	a->reg_state = NULL;
}

static uint64_t load_bits(const unsigned char *p, int n)
{
	uint64_t v = 0;
	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void store_bits(unsigned char *p, int n, uint64_t v)
{
	for (int i = 0; i < n; i++, v >>= 8)
		p[i] = (unsigned char)(v & 0xff);
}

sim_val sim_array_get(const sim_array *a, int64_t e)
{
	int n = elem_bytes(a->dtype);
	uint64_t bits = load_bits(a->data + e * n, n);
	sim_val v = {0, 0};
	if (tlc_dtype_is_float(a->dtype))
		v.f = tlc_sim_decode(a->dtype, bits);
	else
		v.i = sim_wrap_int(a->dtype, (int64_t)bits);
	return v;
}

void sim_array_set(sim_array *a, int64_t e, sim_val v)
{
	int n = elem_bytes(a->dtype);
	uint64_t bits = tlc_dtype_is_float(a->dtype) ? tlc_sim_encode(a->dtype, v.f) : (uint64_t)v.i;
	store_bits(a->data + e * n, n, bits);
}
