"""The SPIR-V rules: every GLSL compute shader of dashi becomes an embedded SPIR-V module here.

One pipeline for every shader family (rollout, batched, carrier, decode, smoke):
  1. expand: the `#include "name"` lines of the source are replaced by the named files
     (glsl_expand.py; shared GLSL, generated parameter blocks, float-controls modes);
  2. compile: glslangValidator -V --target-env vulkan1.2; a shader that does not compile breaks
     the build;
  3. check (bit_exact = True): the contract check of the SPIR-V (spirv_contract_check.py: no Fma,
     every fp64 add/sub/mul/div NoContraction); a violation breaks the build, naming the shader
     and the line;
  4. embed: a C++ header declaring `inline constexpr uint32_t dashi::spirv::<var>[]`, and a
     registration with //shaders:registry under "<package>/<module>", so ShaderBuildHash()
     covers every module a binary links.

spirv_shader(name, src, var, includes, bit_exact)
    One module: cc_library <name>, header <package>/<name>.h.
float_controls_variants(name, src, var, includes, bit_exact)
    Eight modules <name>_fc0..7, one per float-controls variant (below), in one cc_library <name>
    whose header <package>/<name>.h declares <var>Fc0..7 and the variant table
    `std::span<const uint32_t> <var>Variants[8]`, indexed by the variant bits.
shader_params(name, structs)
    Push-constant blocks and std430 records described once: a C++ header <package>/<name>.h
    (structs with static_asserts on every offset and the size) and one GLSL file per struct for
    the shaders to #include (see shader_params below).

Float-controls variants. A Vulkan device may declare the SPIR-V float-controls execution modes
only where it reports the matching VkPhysicalDeviceFloatControlsProperties bit, so a bit-exact
shader becomes eight modules, one per subset of {DenormPreserve, SignedZeroInfNanPreserve,
RoundingModeRTE} for 64-bit floats, and the host picks the variant the device supports
(accel_vulkan/device_caps). The source says `#include "float_controls.glsl"` where the modes go;
variant k gets, for each bit set in k, GL_EXT_spirv_intrinsics' spirv_execution_mode() with the
numbers of the SPIR-V specification (as in glslang's spirv.hpp). SPIR-V 1.4+ (vulkan1.2 → SPIR-V
1.5) has float controls in core, so no extension is declared. The bits are generated into
shaders/float_controls_variants.h from _FLOAT_CONTROLS below.
"""

_TARGET_ENV = "vulkan1.2"

_EXPAND = "//shaders:glsl_expand.py"
_CHECK = "//shaders:spirv_contract_check.py"
_EMBED = "//shaders:spirv_embed.py"
_PARAMS = "//shaders:shader_params.py"

# (variant bit, C++ constant, capability, execution mode), from the SPIR-V specification.
_FLOAT_CONTROLS = [
    (1, "kFloatControlsDenormPreserve", 4464, 4459),  # DenormPreserve
    (2, "kFloatControlsSignedZeroInfNanPreserve", 4466, 4461),  # SignedZeroInfNanPreserve
    (4, "kFloatControlsRoundingModeRte", 4467, 4462),  # RoundingModeRTE
]
_FLOAT_CONTROLS_VARIANTS = 8

def _basename(label):
    return label.split(":")[-1].split("/")[-1]

def _module(name, src, includes, bit_exact):
    """Genrules <name>_expanded.comp and <name>.spv (compiled, checked when bit_exact)."""
    native.genrule(
        name = name + "_expand",
        srcs = [src] + includes.values(),
        outs = [name + "_expanded.comp"],
        cmd = "python3 $(location %s) $@ $(location %s) %s" % (
            _EXPAND,
            src,
            " ".join(["%s=$(location %s)" % (n, l) for n, l in includes.items()]),
        ),
        tools = [_EXPAND],
        # The contract check's test plants violations in expanded sources (//shaders:BUILD).
        visibility = ["//shaders:__subpackages__"],
    )
    shader = "%s/%s (from %s)" % (native.package_name(), name, _basename(src))
    check = ""
    if bit_exact:
        check = ("python3 $(location %s) '%s' $@ --source $< || { rm -f $@; exit 1; }; " %
                 (_CHECK, shader))
    native.genrule(
        name = name + "_spv",
        srcs = [":" + name + "_expanded.comp"],
        outs = [name + ".spv"],
        cmd = ("glslangValidator -V --target-env %s -o $@ $< > $@.log 2>&1 " +
               "|| { cat $@.log >&2; rm -f $@ $@.log; exit 1; }; rm -f $@.log; %s") %
              (_TARGET_ENV, check),
        tools = [_CHECK] if bit_exact else [],
        message = "Compiling shader %s/%s" % (native.package_name(), name),
        visibility = ["//shaders:__subpackages__"],
    )

def _embedded_library(name, modules, table, visibility):
    """cc_library <name>: header <name>.h with the modules (module, var) and the optional table."""
    package = native.package_name()
    specs = ["%s/%s:%s:$(location :%s.spv)" % (package, m, var, m) for m, var in modules]
    native.genrule(
        name = name + "_embed",
        srcs = [":%s.spv" % m for m, _ in modules],
        outs = [name + ".h", name + "_registration.cc"],
        cmd = "python3 $(location %s) $(location %s.h) $(location %s_registration.cc) %s %s %s" % (
            _EMBED,
            name,
            name,
            "%s/%s.h" % (package, name),
            ("--table " + table) if table else "",
            " ".join(specs),
        ),
        tools = [_EMBED],
    )
    native.cc_library(
        name = name,
        hdrs = [name + ".h"],
        srcs = [name + "_registration.cc"],
        deps = ["//shaders:registry"],
        alwayslink = True,
        visibility = visibility,
    )

def _includes(labels):
    return {_basename(l): l for l in labels}

def spirv_shader(name, src, var, includes = [], bit_exact = False, visibility = None):
    """One module from the GLSL `src`: cc_library `name` (header <package>/<name>.h, `var`).

    includes: labels of the files the source (or an included file) names in `#include "..."`,
        by base name. bit_exact: run the contract check (docs/CONFORMANCE.md).
    """
    _module(name, src, _includes(includes), bit_exact)
    _embedded_library(name, [(name, var)], None, visibility)

def float_controls_variants(name, src, var, includes = [], bit_exact = True, visibility = None):
    """Eight modules <name>_fc0..7 of `src` and their table <var>Variants (see the file comment)."""
    modules = []
    for k in range(_FLOAT_CONTROLS_VARIANTS):
        module = "%s_fc%d" % (name, k)
        files = _includes(includes)
        files["float_controls.glsl"] = "//shaders:float_controls_fc%d.glsl" % k
        _module(module, src, files, bit_exact)
        modules.append((module, "%sFc%d" % (var, k)))
    _embedded_library(name, modules, var + "Variants", visibility)

def float_controls_modes(name):
    """The eight GLSL files float_controls_fc<k>.glsl and the C++ header <name>.h of the bits."""
    for k in range(_FLOAT_CONTROLS_VARIANTS):
        lines = []
        if k != 0:
            lines.append("#extension GL_EXT_spirv_intrinsics : require")
        for bit, _, capability, mode in _FLOAT_CONTROLS:
            if k & bit:
                lines.append(
                    "spirv_execution_mode(capabilities = [%d], %d, 64);" % (capability, mode),
                )
        if not lines:
            lines.append("// float controls: none (the defaults of the device)")
        native.genrule(
            name = "float_controls_fc%d_glsl" % k,
            outs = ["float_controls_fc%d.glsl" % k],
            cmd = "printf '%%s\\n' %s > $@" % " ".join(["'%s'" % l for l in lines]),
            visibility = ["//shaders:__subpackages__"],
        )
    guard = "DASHI_SHADERS_%s_H_" % name.upper()
    header = [
        "// Generated by shaders/defs.bzl: the bits of a float-controls variant. Do not edit.",
        "// Variant k (0..%d) declares, for 64-bit floats, each execution mode whose bit is set" %
        (_FLOAT_CONTROLS_VARIANTS - 1),
        "// in k (the variant tables of float_controls_variants() are indexed by k).",
        "#ifndef " + guard,
        "#define " + guard,
        "",
        "#include <cstdint>",
        "",
        "namespace dashi::spirv {",
        "",
    ]
    for bit, constant, capability, mode in _FLOAT_CONTROLS:
        header.append("inline constexpr uint32_t %s = %d;  // execution mode %d, capability %d" %
                      (constant, bit, mode, capability))
    header += [
        "inline constexpr uint32_t kFloatControlsVariantCount = %d;" % _FLOAT_CONTROLS_VARIANTS,
        "",
        "}  // namespace dashi::spirv",
        "",
        "#endif  // " + guard,
    ]
    native.genrule(
        name = name + "_gen",
        outs = [name + ".h"],
        cmd = "printf '%%s\\n' %s > $@" % " ".join(["'%s'" % l for l in header]),
    )
    native.cc_library(
        name = name,
        hdrs = [name + ".h"],
        visibility = ["//visibility:public"],
    )

def shader_params(name, structs, visibility = None):
    """Push-constant blocks and std430 records of a shader family, described once.

    structs: a list of push_constants(...) / glsl_record(...) / glsl_constants(...) values.
    Generates cc_library `name`
    (header <package>/<name>.h: one C++ struct per entry in namespace dashi::vk, std430 offsets
    computed by shader_params.py and pinned by static_asserts, explicit zeroed padding where
    std430 leaves a gap, so every byte the host pushes or uploads is initialised) and, per entry,
    the GLSL file named by its `glsl` argument, which the shaders #include where the declaration
    belongs (list it in the shader's `includes`).
    """
    include = "%s/%s.h" % (native.package_name(), name)
    spec = json.encode([s.spec for s in structs])
    native.genrule(
        name = name + "_gen",
        outs = [name + ".h"] + [s.glsl for s in structs],
        cmd = ("python3 $(location %s) %s $(location %s.h) <<'SHADER_PARAMS_EOF'\n%s\n" +
               "SHADER_PARAMS_EOF") % (_PARAMS, include, name, spec.replace("$", "$$")),
        tools = [_PARAMS],
    )
    native.cc_library(
        name = name,
        hdrs = [name + ".h"],
        visibility = visibility,
    )

def _fields(fields):
    return [{"type": f[0], "name": f[1], "comment": f[2] if len(f) > 2 else ""} for f in fields]

def _constants(constants):
    return [{"name": c[0], "value": c[1], "comment": c[2] if len(c) > 2 else ""} for c in constants]

def push_constants(cc_name, glsl, fields, instance = "params", block = "Params", comment = "",
                   constants = []):
    """A push-constant block: GLSL `layout(push_constant) uniform <block> {...} <instance>;`.

    fields: (type, name) or (type, name, comment); types: uint, int, float, double, uint64_t,
    int64_t. constants: (name, value) or (name, value, comment), uint constants declared in both
    languages before the block.
    """
    return struct(glsl = glsl, spec = {
        "kind": "push_constant",
        "cc_name": cc_name,
        "glsl_file": glsl,
        "glsl_name": block,
        "instance": instance,
        "comment": comment,
        "fields": _fields(fields),
        "constants": _constants(constants),
    })

def glsl_record(cc_name, glsl_name, glsl, fields, comment = "", constants = []):
    """A std430 record of a storage buffer: GLSL `struct <glsl_name> {...};` (fields as above)."""
    return struct(glsl = glsl, spec = {
        "kind": "struct",
        "cc_name": cc_name,
        "glsl_file": glsl,
        "glsl_name": glsl_name,
        "instance": "",
        "comment": comment,
        "fields": _fields(fields),
        "constants": _constants(constants),
    })

def glsl_constants(glsl, constants):
    """uint constants shared by shaders of the family: (name, value) or (name, value, comment)."""
    return struct(glsl = glsl, spec = {
        "kind": "constants",
        "cc_name": "",
        "glsl_file": glsl,
        "glsl_name": "",
        "instance": "",
        "comment": "",
        "fields": [],
        "constants": _constants(constants),
    })
