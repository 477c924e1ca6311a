// Parseval sums of a half spectrum X (N×(N/2+1), core_ref's Rfft layout), the device twin of
// core_ref's SpectralEnergy / SpectralEnstrophy before their final ½/N⁴: per workgroup
//   partials[group·2 + 0] = Σ w(kx)·|X|²/|k|²  (k ≠ 0),   partials[group·2 + 1] = Σ w(kx)·|X|²,
// w = 1 on the kx = 0 and kx = N/2 columns, else 2; ky = row for row < N/2, row − N otherwise.
// The same fixed order as field_moments.comp (grid stride per invocation, then a binary tree);
// sum_partials.comp adds the groups. Every product, quotient and sum is `precise`.
// Bindings: 0 spectrum (fp64 re, im interleaved), 1 partials (fp64, groups·2).
// Push constants: SpectralMomentsParams.
#version 450
#extension GL_ARB_gpu_shader_fp64 : require

layout(local_size_x = 256) in;

layout(std430, set = 0, binding = 0) readonly buffer Spectrum { double spectrum[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Partials { double partials[]; };

#include "spectral_moments_params.glsl"  // SpectralMomentsParams

shared double sums[2][256];

void main() {
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const uint hc = params.n / 2 + 1;
  const uint count = params.n * hc;
  precise double energy = 0.0, enstrophy = 0.0;
  for (uint e = gl_GlobalInvocationID.x; e < count; e += stride) {
    const uint row = e / hc, kx = e % hc;
    const int ky = row < params.n / 2 ? int(row) : int(row) - int(params.n);
    const double w = (kx == 0 || kx == params.n / 2) ? 1.0 : 2.0;
    const double re = spectrum[2 * e], im = spectrum[2 * e + 1];
    precise double re2 = re * re;
    precise double im2 = im * im;
    precise double mag2 = re2 + im2;
    precise double term = w * mag2;
    enstrophy = enstrophy + term;
    const double dkx = double(kx), dky = double(ky);
    precise double kx2 = dkx * dkx;
    precise double ky2 = dky * dky;
    precise double k2 = kx2 + ky2;
    if (k2 != 0.0) {
      precise double q = term / k2;
      energy = energy + q;
    }
  }
  const uint l = gl_LocalInvocationID.x;
  sums[0][l] = energy;
  sums[1][l] = enstrophy;
  barrier();
  for (uint half_width = 128; half_width > 0; half_width >>= 1) {
    if (l < half_width) {
      precise double a = sums[0][l] + sums[0][l + half_width];
      precise double b = sums[1][l] + sums[1][l + half_width];
      sums[0][l] = a;
      sums[1][l] = b;
    }
    barrier();
  }
  if (l == 0) {
    partials[gl_WorkGroupID.x * 2 + 0] = sums[0][0];
    partials[gl_WorkGroupID.x * 2 + 1] = sums[1][0];
  }
}
