"""One area of the conformance suite: its registered cases and the test that runs them.

conformance_area("carrier", deps = [...], golden = True) defines
  :carrier_cases             cc_library of carrier_cases.cc; alwayslink, because the cases register
                             themselves at static-initialisation time (`dashi conform` links it too)
  :carrier_conformance_test  one GoogleTest per case on the default device (lavapipe in CI) with the
                             validation layer on; NOT_SUPPORTED fails there
shard_count splits the cases over that many test processes (GoogleTest sharding): the generated
shape sweeps make the rollout area long for one process on lavapipe.
With golden = True the test gets the golden arrays (read from $DASHI_GOLDEN_DIR, else ./golden,
the runfiles root in Bazel tests).
"""

load("@rules_cc//cc:defs.bzl", "cc_library", "cc_test")

def conformance_area(area, deps, golden = False, shard_count = 1):
    cc_library(
        name = area + "_cases",
        srcs = [area + "_cases.cc"],
        deps = deps + ["//conformance/framework:conformance_case"],
        alwayslink = True,
    )
    cc_test(
        name = area + "_conformance_test",
        size = "medium",
        shard_count = shard_count,
        data = ["//golden:files"] if golden else [],
        deps = [
            ":" + area + "_cases",
            "//conformance/framework:conformance_test_main",
        ],
    )
