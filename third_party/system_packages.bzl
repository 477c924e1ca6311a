"""Repository rules that hold the build to the Debian packages third_party/packages.lock names.

`locked_system_packages` runs tools/lock/check_packages.sh when Bazel fetches it and fails the
build with the script's message (each package whose version or files differ from the lock, and
the commands that fix it). It is `local`, so Bazel runs the check again at every server start and
whenever the WORKSPACE, the lock or the checker changes; a build in a running server costs nothing.
WORKSPACE loads a file from it, which makes every build fetch it (and so check) first.

`system_library` takes the place of new_local_repository for a library from those packages: a
BUILD file of ours over a host directory, usable only once the check has passed, and only for
packages the lock names.

    locked_system_packages(name = "system_packages")
    load("@system_packages//:defs.bzl", "LOCKED_PACKAGES")
    system_library(name = "fftw", packages = ["libfftw3-dev"], path = "/usr",
                   build_file = "//third_party:fftw.BUILD")
"""

_VERIFIED = "verified_packages.txt"

def _locked_system_packages_impl(rctx):
    lock = rctx.path(rctx.attr.lock)
    rctx.report_progress("Checking the host's Debian packages against %s" % rctx.attr.lock)

    # Resolving the scripts' labels makes a change to any of them fetch (and check) again.
    for script in rctx.attr._scripts:
        rctx.path(script)
    result = rctx.execute(
        ["bash", str(rctx.path(rctx.attr._checker)), str(lock)],
        timeout = 600,
        quiet = True,
    )
    if result.return_code != 0:
        fail("\n" + result.stderr.strip() + "\n")

    verified = {}
    for line in result.stdout.splitlines():
        name, version = line.split(" ")
        verified[name] = version
    rctx.file(_VERIFIED, result.stdout)
    rctx.file("defs.bzl", "\n".join([
        '"""The Debian packages the build was checked against: name -> locked version."""',
        "",
        "LOCKED_PACKAGES = %r" % verified,
        "",
    ]))
    rctx.file("BUILD.bazel", 'exports_files(["defs.bzl", "%s"])\n' % _VERIFIED)

locked_system_packages = repository_rule(
    implementation = _locked_system_packages_impl,
    attrs = {
        "lock": attr.label(
            default = "//third_party:packages.lock",
            allow_single_file = True,
            doc = "The package lock to check the host against.",
        ),
        "_checker": attr.label(default = "//tools/lock:check_packages.sh"),
        "_scripts": attr.label_list(default = [
            "//tools/lock:host_packages.sh",
            "//tools/lock:lock_file.sh",
        ]),
    },
    local = True,
    doc = "Fails the build when the host's Debian packages differ from the lock.",
)

def _system_library_impl(rctx):
    # Reading the check's result makes this repository wait for the check, and fail with it.
    verified = {}
    for line in rctx.read(rctx.attr._verified).splitlines():
        name, version = line.split(" ")
        verified[name] = version
    unlocked = [p for p in rctx.attr.packages if p not in verified]
    if unlocked:
        fail(("system_library %s: %s not in third_party/packages.lock; add a line with the " +
              "package's name there and run `bash tools/lock/refresh.sh`") %
             (rctx.name, ", ".join(unlocked) + (" is" if len(unlocked) == 1 else " are")))

    # What new_local_repository does: the directory's entries, and our BUILD file over them.
    # One `ln` for all entries: rctx.symlink per entry takes seconds on /usr/include.
    result = rctx.execute(["sh", "-c", 'ln -s "$1"/* .', "ln", rctx.attr.path])
    if result.return_code != 0:
        fail("system_library %s: cannot mirror %s: %s" % (rctx.name, rctx.attr.path, result.stderr))
    rctx.symlink(rctx.attr.build_file, "BUILD.bazel")

system_library = repository_rule(
    implementation = _system_library_impl,
    attrs = {
        "build_file": attr.label(
            mandatory = True,
            allow_single_file = True,
            doc = "Our BUILD file for the library.",
        ),
        "packages": attr.string_list(
            mandatory = True,
            allow_empty = False,
            doc = "The locked Debian packages the library's files come from.",
        ),
        "path": attr.string(
            mandatory = True,
            doc = "The host directory the repository mirrors, e.g. /usr or /usr/include.",
        ),
        "_verified": attr.label(default = "@system_packages//:" + _VERIFIED),
    },
    local = True,
    doc = "new_local_repository for a library from packages the lock names and the host matches.",
)

# Every system library of the build: (repository name, the locked packages its files come from,
# the host directory it mirrors). Each has our BUILD file, third_party/<name>.BUILD.
_SYSTEM_LIBRARIES = [
    ("gtest", ["libgtest-dev", "libgmock-dev"], "/usr"),
    ("boost", ["libboost1.74-dev"], "/usr/include"),
    ("vulkan", ["libvulkan-dev", "libvulkan1"], "/usr"),
    ("glslang", ["glslang-dev", "spirv-tools"], "/usr"),
    ("vkfft", ["libvkfft-dev"], "/usr/include"),
    ("cli11", ["libcli11-dev"], "/usr/include"),
    ("nlohmann_json", ["nlohmann-json3-dev"], "/usr/include"),
    ("libpng", ["libpng-dev", "libpng16-16", "zlib1g-dev"], "/usr"),
    ("fftw", ["libfftw3-dev", "libfftw3-double3"], "/usr"),
    ("openblas", ["libopenblas-dev", "libopenblas-pthread-dev", "libopenblas0-pthread"], "/usr"),
]

def system_libraries():
    """Declares the repositories of _SYSTEM_LIBRARIES (tools/setup.sh installs their packages)."""
    for name, packages, path in _SYSTEM_LIBRARIES:
        system_library(
            name = name,
            build_file = "//third_party:%s.BUILD" % name,
            packages = packages,
            path = path,
        )
