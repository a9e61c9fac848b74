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

def kcoll_library(name, srcs = None, hdrs = None, **kwargs):
    """cc_library `name` of `name`.cc and `name`.h (whichever exist), unless `srcs` or `hdrs` say otherwise."""
    cc_library(
        name = name,
        srcs = native.glob([name + ".cc"]) if srcs == None else srcs,
        hdrs = native.glob([name + ".h"]) if hdrs == None else hdrs,
        **kwargs
    )

def kcoll_test(name, srcs = None, deps = [], **kwargs):
    """cc_test `name` of `name`.cc (unless `srcs` says otherwise), with kcoll's matcher names (tests/matchers.h)."""
    cc_test(
        name = name,
        srcs = [name + ".cc"] if srcs == None else srcs,
        deps = deps + ["//tests:matchers"],
        **kwargs
    )
