"""kcoll's C++ rules: Bazel's native ones with the C++ standard kcoll is written in.

Bazel 4's auto-configured toolchain compiles C++ as C++0x unless told otherwise. kcoll's targets say -std=c++17
themselves, so that they build the same in a client workspace that sets no flags of its own (docs/embedding.md,
"Bazel"). C sources (.c) are compiled without it.
"""

KCOLL_CXX_STD = ["-std=c++17"]

def _with_std(kwargs):
    srcs = kwargs.get("srcs", [])
    if type(srcs) == "list" and srcs and all([s.endswith(".c") or s.endswith(".h") for s in srcs]):
        return kwargs
    out = dict(kwargs)
    out["copts"] = KCOLL_CXX_STD + kwargs.get("copts", [])
    return out

def cc_library(**kwargs):
    native.cc_library(**_with_std(kwargs))

def cc_binary(**kwargs):
    native.cc_binary(**_with_std(kwargs))

def cc_test(**kwargs):
    native.cc_test(**_with_std(kwargs))

# Every kcoll library and test depends on Abseil (absl::Status is the error type throughout): the two macros below add
# it, so their deps name only kcoll's own targets and the other third-party libraries.
_ABSL = "//third_party:absl"

def _with_absl(deps):
    return deps if _ABSL in deps else deps + [_ABSL]

def kcoll_library(name, srcs = None, hdrs = None, deps = [], **kwargs):
    """cc_library `name` of `name`.cc and `name`.h (whichever exist), unless `srcs` or `hdrs` say otherwise."""
    cc_library(
        name = name,
        srcs = native.glob([name + ".cc"]) if srcs == None else srcs,
        hdrs = native.glob([name + ".h"]) if hdrs == None else hdrs,
        deps = _with_absl(deps),
        **kwargs
    )

def kcoll_test(name, srcs = None, deps = [], **kwargs):
    """cc_test `name` of `name`.cc (unless `srcs` says otherwise), with kcoll's matcher names (tests/matchers.h) and
    GoogleTest's main, unless a dep brings a main of its own (a target named *_main, e.g. tests:kokkos_test_main)."""
    own_main = [d for d in deps if d.endswith("_main")]
    cc_test(
        name = name,
        srcs = [name + ".cc"] if srcs == None else srcs,
        deps = _with_absl(deps) + ["//tests:matchers"] + ([] if own_main else ["//third_party:gtest_main"]),
        **kwargs
    )

def kcoll_sh_test(name, binary = None, srcs = None, args = [], data = [], **kwargs):
    """sh_test `name` of `name`.sh (unless `srcs` says otherwise) with tests/shell_test_env.sh, which it sources, in
    its data; `binary`, when given, is its first argument and in its data too."""
    native.sh_test(
        name = name,
        srcs = [name + ".sh"] if srcs == None else srcs,
        args = (["$(location %s)" % binary] if binary else []) + args,
        data = ([binary] if binary else []) + data + [str(Label("//tests:shell_test_env.sh"))],
        **kwargs
    )
