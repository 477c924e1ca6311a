"""Float-controls variants of a compute shader, each compiled to SPIR-V at build time.

A Vulkan device may declare the SPIR-V float-controls execution modes only where it reports the
matching VkPhysicalDeviceFloatControlsProperties bit, so one shader becomes eight SPIR-V modules,
one per subset of {DenormPreserve, SignedZeroInfNanPreserve, RoundingModeRTE} for 64-bit floats,
and the host picks the variant the device supports. Variant k (0..7) enables
  bit 0 (1): DenormPreserve 64            (execution mode 4459, capability 4464)
  bit 1 (2): SignedZeroInfNanPreserve 64  (execution mode 4461, capability 4466)
  bit 2 (4): RoundingModeRTE 64           (execution mode 4462, capability 4467)
(numbers from the SPIR-V specification, as in glslang's spirv.hpp). They are written with
GL_EXT_spirv_intrinsics, replacing the line `// @FLOAT_CONTROLS@` of the source. SPIR-V 1.4+
(target vulkan1.2 → SPIR-V 1.5) has float controls in core, so no extension is declared.

float_controls_variants(name = "rollout_partials", src = "rollout_partials.comp",
                        var = "kRolloutPartials") defines cc_libraries rollout_partials_fc0 ..
rollout_partials_fc7 with headers shaders/rollout/rollout_partials_fc<k>.h declaring
dashi::spirv::kRolloutPartialsFc<k>[].
"""

load("//shaders:spirv.bzl", "spirv_shader")

_MODES = [
    # (bit, capability, execution mode)
    (1, 4464, 4459),  # DenormPreserve
    (2, 4466, 4461),  # SignedZeroInfNanPreserve
    (4, 4467, 4462),  # RoundingModeRTE
]

MARKER = "// @FLOAT_CONTROLS@"

def float_controls_variants(name, src, var):
    """Eight spirv_shader targets <name>_fc0..7 (see the file comment); returns their labels."""
    labels = []
    for k in range(8):
        lines = []
        if k != 0:
            lines.append("#extension GL_EXT_spirv_intrinsics : require")
        for bit, capability, mode in _MODES:
            if k & bit:
                lines.append(
                    "spirv_execution_mode(capabilities = [%d], %d, 64);" % (capability, mode),
                )
        if not lines:
            lines.append("// float controls: none (the defaults of the device)")
        variant = "%s_fc%d" % (name, k)
        native.genrule(
            name = variant + "_src",
            srcs = [src],
            outs = [variant + ".comp"],
            # Replace the marker line; fail if the source has no marker (exactly one is expected).
            cmd = ("grep -qx '%s' $< || { echo 'no %s line in $<' >&2; exit 1; }; " +
                   "awk -v repl='%s' '{ if ($$0 == \"%s\") print repl; else print }' $< > $@") %
                  (MARKER, MARKER, "\\n".join(lines), MARKER),
        )
        spirv_shader(
            name = variant,
            src = ":" + variant + ".comp",
            var = "%sFc%d" % (var, k),
        )
        labels.append(":" + variant)
    return labels
