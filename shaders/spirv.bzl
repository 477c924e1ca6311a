"""Compiles a GLSL compute shader to SPIR-V at build time and embeds it as a C++ array.

A shader that does not compile breaks the build. The header declares
`inline constexpr uint32_t <var>[]` inside namespace dashi::spirv.
"""

def spirv_shader(name, src, var, target_env = "vulkan1.2"):
    """Defines `<name>` (a cc_library exposing shaders/<name>.h) from the GLSL file `src`."""
    native.genrule(
        name = name + "_gen",
        srcs = [src],
        outs = [name + ".h"],
        cmd = ("glslangValidator -V --target-env %s --vn %s -o $@.raw $(location %s) >/dev/null " +
               "|| { glslangValidator -V --target-env %s -o /dev/null $(location %s); exit 1; }; " +
               "{ echo '#pragma once'; echo '#include <cstdint>'; " +
               "echo 'namespace dashi::spirv {'; " +
               "grep -v '#pragma once' $@.raw | sed 's/^const uint32_t/inline constexpr uint32_t/'; " +
               "echo '}  // namespace dashi::spirv'; } > $@ && rm -f $@.raw") %
              (target_env, var, src, target_env, src),
        message = "Compiling shader " + src,
    )
    native.cc_library(
        name = name,
        hdrs = [name + ".h"],
    )
