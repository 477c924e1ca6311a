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

def suite_id_inputs():
    """A conformance package's files as inputs of the suite id (//build_id).

    Every package of //conformance that defines cases, the framework they run in, and the input
    generators they draw from (//core_ref/testing, //core_ref/prng, //core_ref/carrier) calls it
    once:
    a change to what a case computes or compares (not only to its name, measure or tolerance) is a
    new suite that every device must pass again. Tests and the Bazel test driver are excluded.
    """
    native.filegroup(
        name = "suite_id_inputs",
        srcs = native.glob(
            ["*"],
            exclude = ["*_test.cc", "*_test_main.cc"],
        ),
        visibility = ["//build_id:__pkg__"],
    )
