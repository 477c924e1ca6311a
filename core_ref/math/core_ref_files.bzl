"""Collects the static archives and the C++ sources of every core_ref library under some roots.

`core_ref_files(name, deps)` walks `deps` transitively (an aspect along `deps`) and provides, as
its files, each core_ref cc_library's archives and its srcs and hdrs, so that a check over them
(no_libm_test.sh) covers a library as soon as the roots depend on it, with no list to maintain.
"""

_CoreRefFilesInfo = provider(fields = ["archives", "sources"])

def _aspect_impl(target, ctx):
    archives, sources = [], []
    if target.label.package.startswith("core_ref/") and CcInfo in target:
        archives = [f for f in target.files.to_list() if f.path.endswith(".a")]
        for attr in ("srcs", "hdrs"):
            sources += [f for f in getattr(ctx.rule.files, attr, [])]
    deps = [d[_CoreRefFilesInfo] for d in getattr(ctx.rule.attr, "deps", []) if _CoreRefFilesInfo in d]
    return [_CoreRefFilesInfo(
        archives = depset(archives, transitive = [d.archives for d in deps]),
        sources = depset(sources, transitive = [d.sources for d in deps]),
    )]

_core_ref_files_aspect = aspect(implementation = _aspect_impl, attr_aspects = ["deps"])

def _rule_impl(ctx):
    infos = [d[_CoreRefFilesInfo] for d in ctx.attr.deps]
    files = depset(transitive = [i.archives for i in infos] + [i.sources for i in infos])
    return [DefaultInfo(files = files, runfiles = ctx.runfiles(transitive_files = files))]

core_ref_files = rule(
    implementation = _rule_impl,
    attrs = {"deps": attr.label_list(aspects = [_core_ref_files_aspect])},
)
