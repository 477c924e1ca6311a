"""Decode shaders: a GLSL body with shared libraries prepended, compiled by spirv_shader.

glslangValidator is given one file, so the shared GLSL (prelude.glsl with #version and the
extensions, then the libraries in order, then the body) is concatenated into <name>_full.comp first.
"""

load("//shaders:spirv.bzl", "spirv_shader")

def decode_shader(name, body, var, libs = []):
    """Defines `<name>` (cc_library exposing shaders/decode/<name>.h, constant dashi::spirv::<var>)."""
    parts = ["prelude.glsl"] + libs + [body]
    native.genrule(
        name = name + "_src",
        srcs = parts,
        outs = [name + "_full.comp"],
        cmd = "cat " + " ".join(["$(location %s)" % p for p in parts]) + " > $@",
    )
    spirv_shader(
        name = name,
        src = ":" + name + "_full.comp",
        var = var,
    )
