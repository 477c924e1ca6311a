// fp64 sine and cosine for GLSL, which has no double-precision trigonometry.
//
// A port of FreeBSD msun's sin/cos (fdlibm, Sun Microsystems 1993, freely redistributable):
// Cody–Waite reduction x = n·π/2 + (y0 + y1) with π/2 split into 33-bit pieces (e_rem_pio2.c,
// "medium" path, up to three rounds: good to 151 bits), then the minimax kernels __kernel_sin
// (degree 13) and __kernel_cos (degree 14) on [−π/4, π/4] (k_sin.c, k_cos.c). Constants are
// given by their IEEE-754 bit patterns. Every operation is `precise` (no FMA contraction), so
// the result is the same on every device with correctly rounded fp64 add and multiply (Vulkan
// requires that).
//
// Domain: |x| < 2^20·π/2 ≈ 1.647e6 (the medium reduction path); outside it, and for NaN or ±Inf,
// both results are NaN. Accuracy: fdlibm's bound is < 1 ulp; measured against long-double
// sinl/cosl on [0, 2π) (accel_vulkan/decode/vulkan_decode_test.cc, TrigMatchesLongDouble) the
// largest error is below 1 ulp.

double Fp64FromBits(uint hi, uint lo) { return packDouble2x32(uvec2(lo, hi)); }

uint Fp64HighWord(double x) { return unpackDouble2x32(x).y; }

// __kernel_sin(x, y, iy): sin(x + y) for |x| ≤ π/4, y the tail of x; iy = 0 means y = 0.
double KernelSin(double x, double y, bool has_tail) {
  const double S1 = Fp64FromBits(0xBFC55555u, 0x55555549u);
  const double S2 = Fp64FromBits(0x3F811111u, 0x1110F8A6u);
  const double S3 = Fp64FromBits(0xBF2A01A0u, 0x19C161D5u);
  const double S4 = Fp64FromBits(0x3EC71DE3u, 0x57B1FE7Du);
  const double S5 = Fp64FromBits(0xBE5AE5E6u, 0x8A2B9CEBu);
  const double S6 = Fp64FromBits(0x3DE5D93Au, 0x5ACFD57Cu);
  precise double z = x * x;
  precise double w = z * z;
  precise double r = S2 + z * (S3 + z * S4) + z * w * (S5 + z * S6);
  precise double v = z * x;
  precise double result;
  if (!has_tail) {
    result = x + v * (S1 + z * r);
  } else {
    result = x - ((z * (0.5LF * y - v * r) - y) - v * S1);
  }
  return result;
}

// __kernel_cos(x, y): cos(x + y) for |x| ≤ π/4, y the tail of x.
double KernelCos(double x, double y) {
  const double C1 = Fp64FromBits(0x3FA55555u, 0x5555554Cu);
  const double C2 = Fp64FromBits(0xBF56C16Cu, 0x16C15177u);
  const double C3 = Fp64FromBits(0x3EFA01A0u, 0x19CB1590u);
  const double C4 = Fp64FromBits(0xBE927E4Fu, 0x809C52ADu);
  const double C5 = Fp64FromBits(0x3E21EE9Eu, 0xBDB4B1C4u);
  const double C6 = Fp64FromBits(0xBDA8FAE9u, 0xBE8838D4u);
  precise double z = x * x;
  precise double w = z * z;
  precise double r = z * (C1 + z * (C2 + z * C3)) + w * w * (C4 + z * (C5 + z * C6));
  precise double hz = 0.5LF * z;
  precise double v = 1.0LF - hz;
  precise double result = v + (((1.0LF - v) - hz) + (z * r - x * y));
  return result;
}

// __ieee754_rem_pio2, medium path (|x| < 2^20·π/2): x = n·π/2 + y0 + y1 with |y0 + y1| ≤ π/4 (about).
int RemPio2(double x, out double y0_out, out double y1_out) {
  const double invpio2 = Fp64FromBits(0x3FE45F30u, 0x6DC9C883u);  // 2/π
  const double pio2_1 = Fp64FromBits(0x3FF921FBu, 0x54400000u);   // first 33 bits of π/2
  const double pio2_1t = Fp64FromBits(0x3DD0B461u, 0x1A626331u);  // π/2 − pio2_1
  const double pio2_2 = Fp64FromBits(0x3DD0B461u, 0x1A600000u);   // second 33 bits
  const double pio2_2t = Fp64FromBits(0x3BA3198Au, 0x2E037073u);  // π/2 − (pio2_1 + pio2_2)
  const double pio2_3 = Fp64FromBits(0x3BA3198Au, 0x2E000000u);   // third 33 bits
  const double pio2_3t = Fp64FromBits(0x397B839Au, 0x252049C1u);  // π/2 − (pio2_1+pio2_2+pio2_3)
  precise double q = x * invpio2;
  precise double fn = roundEven(q);
  const int n = int(fn);
  precise double r = x - fn * pio2_1;
  precise double w = fn * pio2_1t;  // 1st round, good to 85 bits
  precise double y0 = r - w;
  const int j = int((Fp64HighWord(x) >> 20) & 0x7FFu);
  int i = j - int((Fp64HighWord(y0) >> 20) & 0x7FFu);
  if (i > 16) {  // 2nd round, good to 118 bits
    precise double t = r;
    w = fn * pio2_2;
    r = t - w;
    w = fn * pio2_2t - ((t - r) - w);
    y0 = r - w;
    i = j - int((Fp64HighWord(y0) >> 20) & 0x7FFu);
    if (i > 49) {  // 3rd round, good to 151 bits, covers all cases
      precise double t2 = r;
      w = fn * pio2_3;
      r = t2 - w;
      w = fn * pio2_3t - ((t2 - r) - w);
      y0 = r - w;
    }
  }
  precise double y1 = (r - y0) - w;
  y0_out = y0;
  y1_out = y1;
  return n;
}

// sin(x) and cos(x) together (FreeBSD s_sin.c / s_cos.c).
void SinCosF64(double x, out double s, out double c) {
  const uint ix = Fp64HighWord(x) & 0x7FFFFFFFu;
  if (ix <= 0x3FE921FBu) {  // |x| ≲ π/4
    if (ix < 0x3E500000u) {  // |x| < 2^-26: sin x = x, cos x = 1 to within half an ulp
      s = x;
      c = 1.0LF;
      return;
    }
    s = KernelSin(x, 0.0LF, false);
    c = KernelCos(x, 0.0LF);
    return;
  }
  if (ix >= 0x413921FBu) {  // outside the medium reduction range, or Inf / NaN
    const double nan_value = Fp64FromBits(0x7FF80000u, 0u);
    s = nan_value;
    c = nan_value;
    return;
  }
  double y0, y1;
  const int n = RemPio2(x, y0, y1);
  const double ks = KernelSin(y0, y1, true);
  const double kc = KernelCos(y0, y1);
  switch (n & 3) {
    case 0: s = ks; c = kc; break;
    case 1: s = kc; c = -ks; break;
    case 2: s = -ks; c = -kc; break;
    default: s = -kc; c = ks; break;
  }
}
