/* frag_digits.h - for the tests that check target descriptions' matrix
 * fragments (test_target.c, test_hip_target.c): the thread of a constant
 * logical index, read off a fragment's digits (tlc/layout.h), relative to
 * its thread range. */
#ifndef TLC_TEST_FRAG_DIGITS_H
#define TLC_TEST_FRAG_DIGITS_H

#include <stdint.h>
#include <tlc/layout.h>

static inline int64_t thread_of(const tlc_layout *f, const int64_t *idx)
{
	int64_t t = 0;
	for (int k = 0; k < f->ndigits; k++) {
		const tlc_frag_digit *d = &f->digits[k];
		if (d->is_thread && d->dim >= 0)
			t += (idx[d->dim] / d->stride) % d->radix * d->weight;
	}
	return t;
}

#endif
