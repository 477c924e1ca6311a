// The band-pass of one layer in Fourier space: out[k] = in[k] when lo2 < kx² + ky² ≤ hi2, else 0,
// over the half spectrum N×(N/2+1) (interleaved re, im; row i has ky = i for i < N/2, i − N
// otherwise). A copy or a zero: no rounding. The twin of core_ref BandFields' masking loop.
// Bindings: 0 the field's spectrum, 1 the band's spectrum. Push constants: ScalesBandParams.
#version 450
#extension GL_ARB_gpu_shader_fp64 : require

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer In { double spectrum[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { double band[]; };

#include "scales_band_params.glsl"  // ScalesBandParams

void main() {
  const uint hc = p.n / 2u + 1u;
  const uint count = p.n * hc;
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint k = gl_GlobalInvocationID.x; k < count; k += stride) {
    const int i = int(k / hc), j = int(k % hc);
    const int ky = i < int(p.n / 2u) ? i : i - int(p.n);
    const int k2 = j * j + ky * ky;
    const bool keep = k2 > p.lo2 && k2 <= p.hi2;
    band[2u * k] = keep ? spectrum[2u * k] : 0.0;
    band[2u * k + 1u] = keep ? spectrum[2u * k + 1u] : 0.0;
  }
}
