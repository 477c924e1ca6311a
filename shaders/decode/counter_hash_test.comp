// Conformance probe of the shader PRNG: for each key (seed, t, kx, ky, stream) writes
// CounterHash and the bits of CounterUniform, to compare bit for bit with core_ref/prng.
// Bindings: 0 keys (CounterKey), 1 out (2 uint64 per key). Push constants: CountParams.
#version 450
#extension GL_ARB_gpu_shader_fp64 : require
#extension GL_ARB_gpu_shader_int64 : require
#include "counter_hash.glsl"

layout(local_size_x_id = 0) in;

#include "counter_key.glsl"  // CounterKey

layout(std430, set = 0, binding = 0) readonly buffer Keys { CounterKey keys[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { uint64_t out_words[]; };

#include "count_params.glsl"  // CountParams

void main() {
  const uint i = gl_GlobalInvocationID.x;
  if (i >= params.count) return;
  const CounterKey k = keys[i];
  const uint64_t h = CounterHash(k.seed, k.t, k.kx, k.ky, k.stream);
  out_words[2u * i] = h;
  out_words[2u * i + 1u] = doubleBitsToUint64(CounterUniform(k.seed, k.t, k.kx, k.ky, k.stream));
}
