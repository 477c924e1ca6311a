"""dashi_fuzz_target: one libFuzzer target and its corpus replayed as a test.

For a target NAME (source NAME.cc defining LLVMFuzzerTestOneInput, seeds in corpus/NAME/):
- NAME: the fuzzer binary, tagged manual; fuzz/run_fuzzers.sh builds it with clang-14 and
  `--config=fuzz` (libFuzzer + ASan + UBSan) and runs it.
- NAME_replay_test: the same source linked with replay_main.cc and run over corpus/NAME/ by
  `bazel test //...` with the project's own compiler: every seed, and every input a fuzzer found
  and that was added to the corpus, stays a regression test.
"""

load("@rules_cc//cc:defs.bzl", "cc_binary", "cc_test")

def dashi_fuzz_target(name, deps):
    corpus = "corpus/" + name
    native.filegroup(
        name = name + "_corpus",
        srcs = native.glob([corpus + "/*"]),
    )
    cc_binary(
        name = name,
        srcs = [name + ".cc"],
        deps = deps + [":fuzz_input"],
        tags = ["manual"],
    )
    cc_test(
        name = name + "_replay_test",
        size = "small",
        srcs = [name + ".cc", "replay_main.cc"],
        deps = deps + [":fuzz_input"],
        data = [":" + name + "_corpus"],
        args = ["$(rootpaths :" + name + "_corpus)"],
    )
