// tlc_fp8.hip.h - CDNA3's float8 storage types (fnuz: no infinities, no
// negative zero, NaN 0x80) for tlc's hip target, with conversions to and
// from float: round to nearest even, subnormals kept, overflow saturating
// to the largest finite value (as tlc-sim rounds, doc/sim.md).  The MFMA
// instructions read the bytes as they are.
namespace tlc {

template <int MANT, int BIAS> struct fp8_fnuz {
	unsigned char bits;

	__host__ __device__ fp8_fnuz() : bits(0) {}
	__host__ __device__ fp8_fnuz(float x) : bits(encode(x)) {}
	__host__ __device__ operator float() const { return decode(bits); }

	static __host__ __device__ float decode(unsigned char b)
	{
		if (b == 0x80)
			return __builtin_nanf("");
		const int e = (b >> MANT) & ((1 << (7 - MANT)) - 1), m = b & ((1 << MANT) - 1);
		const float v = e ? ldexpf(1.0f + (float)m / (1 << MANT), e - BIAS) : ldexpf((float)m, 1 - BIAS - MANT);
		return (b & 0x80) ? -v : v;
	}

	static __host__ __device__ unsigned char encode(float x)
	{
		if (x != x)
			return 0x80;
		const unsigned char sign = x < 0 ? 0x80 : 0;
		const float a = fabsf(x), max = decode(0x7f);
		if (a >= max)
			return sign | 0x7f;
		int e;
		frexpf(a, &e);
		const int emin = 1 - BIAS, lead = e - 1 < emin ? emin : e - 1;
		const float q = ldexpf(1.0f, lead - MANT); // the spacing of values at a
		const float r = rintf(a / q) * q;
		if (r >= max)
			return sign | 0x7f;
		if (r == 0.0f)
			return 0; // no negative zero
		frexpf(r, &e);
		if (e - 1 < emin) // subnormal
			return sign | (unsigned char)(r / ldexpf(1.0f, emin - MANT));
		const unsigned m = (unsigned)((r / ldexpf(1.0f, e - 1) - 1.0f) * (1 << MANT));
		return sign | (unsigned char)((e - 1 + BIAS) << MANT) | (unsigned char)m;
	}
};

typedef fp8_fnuz<3, 8> fp8_e4m3fnuz;
typedef fp8_fnuz<2, 16> fp8_e5m2fnuz;

} // namespace tlc
