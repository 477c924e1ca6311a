// Common prelude of every decode shader (shaders/decode/decode_shader.bzl puts it first): the GLSL
// version and the fp64 / int64 extensions. Every fp64 operation whose rounding matters is
// `precise` (SPIR-V NoContraction): no fused multiply-add, so the device rounds like a CPU built
// with -ffp-contract=off.
#version 450
#extension GL_ARB_gpu_shader_fp64 : require
#extension GL_ARB_gpu_shader_int64 : require
