"""build_id_inputs(): a package's files as inputs of the accelerator build id (//build_id).

Every package of //accel_vulkan/..., //shaders/... and //backend calls it once: a change to any of
its files (tests excluded: they do not change what runs) is a new accelerator build that must be
certified again.
"""

def build_id_inputs():
    native.filegroup(
        name = "build_id_inputs",
        srcs = native.glob(
            ["*"],
            exclude = ["*_test.cc"],
        ),
        visibility = ["//build_id:__pkg__"],
    )
