// fp8_host.cpp - the float8 fnuz conversions the hip target prints
// (device/tlc_fp8.hip.h, compiled here for the CPU) against tlc-sim's
// rounding (tlc_sim_encode / tlc_sim_decode, core/sim/sim_number.c built
// with it by mfma_host.sh): every code decodes
// to the same value, and floats across the whole range (random, ties,
// subnormals, overflow, NaN, infinities, signed zeros) encode to the same
// code.  So a kernel's float8 values on the GPU are the simulator's.
#define __host__
#define __device__
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "tlc_fp8.hip.h"

extern "C" {
#include <tlc/sim.h>
}

template <class F> static int check(tlc_dtype t, const char *name)
{
	int bad = 0;
	for (int b = 0; b < 256; b++) {
		double want = tlc_sim_decode(t, (uint64_t)b), got = F::decode((unsigned char)b);
		if (!(got == want || (std::isnan(got) && std::isnan(want))) && bad++ < 5)
			std::printf("%s: code 0x%02x decodes to %g, tlc-sim says %g\n", name, b, got, want);
	}
	std::srand(7);
	const float specials[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e-30f, -1e-30f, 1e30f, -1e30f};
	for (int i = 0; i < 200000 + 9; i++) {
		float x;
		if (i < 9) {
			x = specials[i];
		} else if (i < 9 + 256 * 4) {
			// midpoints between neighbouring codes (ties) and their neighbours
			int b = (i - 9) / 4, k = (i - 9) % 4;
			double v0 = tlc_sim_decode(t, (uint64_t)b), v1 = tlc_sim_decode(t, (uint64_t)((b + 1) & 0x7f));
			x = (float)(k == 0 ? (v0 + v1) / 2 : k == 1 ? std::nextafter((v0 + v1) / 2, 1e9) : k == 2 ? -v0 : v0 * 1.0001);
		} else {
			// log-uniform magnitudes over the whole range, both signs
			double e = (std::rand() / (double)RAND_MAX) * 40 - 24;
			x = (float)((std::rand() & 1 ? -1 : 1) * std::pow(2.0, e));
		}
		unsigned want = (unsigned)tlc_sim_encode(t, tlc_sim_round(t, x)), got = F::encode(x);
		if (got != want && bad++ < 5)
			std::printf("%s: %.9g encodes to 0x%02x, tlc-sim says 0x%02x\n", name, x, got, want);
	}
	std::printf("%s: %d disagreements\n", name, bad);
	return bad;
}

int main()
{
	int bad = check<tlc::fp8_e4m3fnuz>(TLC_DT_FLOAT8_E4M3FNUZ, "float8_e4m3fnuz");
	bad += check<tlc::fp8_e5m2fnuz>(TLC_DT_FLOAT8_E5M2FNUZ, "float8_e5m2fnuz");
	return bad != 0;
}
