"""The two C++ rules every package of dashi uses for its own components.

dashi_cc_library: a library from FILE.cc and FILE.h for each FILE in `files` (default: the name).
dashi_cc_test: a GoogleTest binary from NAME.cc (default), linked with gtest_main; size "small"
unless given. Everything else (copts, visibility, testonly, data, ...) passes through.
"""

load("@rules_cc//cc:defs.bzl", "cc_library", "cc_test")

def dashi_cc_library(name, files = None, srcs = None, hdrs = None, **kwargs):
    files = files or [name]
    cc_library(
        name = name,
        srcs = srcs if srcs != None else [f + ".cc" for f in files],
        hdrs = hdrs if hdrs != None else [f + ".h" for f in files],
        **kwargs
    )

def dashi_cc_test(name, srcs = None, deps = [], size = "small", **kwargs):
    cc_test(
        name = name,
        size = size,
        srcs = srcs if srcs != None else [name + ".cc"],
        deps = deps + ["@gtest//:gtest_main"],
        **kwargs
    )
