"""Compiles a GLSL compute shader to SPIR-V at build time and embeds it as a C++ array.

A shader that does not compile breaks the build. The header declares
`inline constexpr uint32_t <var>[]` inside namespace dashi::spirv, and the library registers the
module with //shaders:registry (so ShaderBuildHash() covers every linked shader).
"""

def spirv_shader(name, src, var, target_env = "vulkan1.2", visibility = None):
    """Defines `<name>` (a cc_library exposing <package>/<name>.h) from the GLSL file `src`."""
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
    path = native.package_name() + "/" + name
    native.genrule(
        name = name + "_reg",
        outs = [name + "_registration.cc"],
        cmd = ("{ echo '#include \"%s.h\"'; echo '#include \"shaders/registry.h\"'; " +
               "echo 'static const bool kRegistered = ::dashi::spirv::RegisterShader(" +
               "\"%s\", ::dashi::spirv::%s, sizeof(::dashi::spirv::%s) / 4);'; } > $@") %
              (path, path, var, var),
    )
    native.cc_library(
        name = name,
        hdrs = [name + ".h"],
        srcs = [name + "_registration.cc"],
        deps = ["//shaders:registry"],
        alwayslink = True,
        visibility = visibility,
    )
