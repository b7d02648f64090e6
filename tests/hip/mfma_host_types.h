// mfma_host_types.h - host stand-ins for the device types of a generated
// .hip, for tests/hip/mfma_host.cpp: float16 as its IEEE bits (the operand
// values of the test are small integers, exact in float16), and clang's
// vector typedefs as plain arrays.
#include <cstdint>
#include <cstring>

struct tlc_half {
	uint16_t bits;
	tlc_half() : bits(0) {}
	tlc_half(double v)
	{
		// small integers: sign, exponent, 10-bit mantissa
		bits = 0;
		if (v == 0)
			return;
		uint16_t sign = v < 0 ? 0x8000 : 0;
		double a = v < 0 ? -v : v;
		int e = 0;
		while (a >= 2) {
			a /= 2;
			e++;
		}
		bits = (uint16_t)(sign | ((e + 15) << 10) | (uint16_t)((a - 1) * 1024));
	}
	operator double() const
	{
		if (!(bits & 0x7fff))
			return 0;
		int e = ((bits >> 10) & 31) - 15;
		double m = 1 + (bits & 1023) / 1024.0, v = m;
		for (; e > 0; e--)
			v *= 2;
		for (; e < 0; e++)
			v /= 2;
		return bits & 0x8000 ? -v : v;
	}
};
#define _Float16 tlc_half

template <class T, int N> struct tlc_vec {
	T v[N];
};
