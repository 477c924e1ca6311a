// Bit-exactness probe of the decoder's fp64 sin(πx), cos(πx) (sincospi_f64.glsl, the phases of
// synth_residual.comp): out[2i] = sin(π x[i]), out[2i+1] = cos(π x[i]), compared with core_ref's
// SinCosPi bit for bit by the case decode.trig.sincospi_bit_exact. Built in the eight
// float-controls variants (shaders/defs.bzl), as synth_residual.comp, and run in the supported one.
// Bindings: 0 x (double), 1 out (double). Push constants: CountParams.
#version 450
#extension GL_ARB_gpu_shader_fp64 : require
#extension GL_ARB_gpu_shader_int64 : require
#include "float_controls.glsl"  // the execution modes of the variant built (shaders/defs.bzl)
#include "sincospi_f64.glsl"

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer X { double x[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { double sc[]; };

#include "count_params.glsl"  // CountParams

void main() {
  const uint i = gl_GlobalInvocationID.x;
  if (i >= params.count) return;
  double s, c;
  SinCosPiF64(x[i], s, c);
  sc[2u * i] = s;
  sc[2u * i + 1u] = c;
}
