"""What a client BUILD file loads to compile against kcoll: load("@kcoll//:defs.bzl", "KCOLL_COPTS").

KCOLL_COPTS: the options every translation unit that includes kcoll's or Kokkos' headers needs (C++17, and the
flags of the Kokkos kcoll was configured with, e.g. -fopenmp). Bazel does not pass a library's copts on to the
targets that depend on it, so each such target names them.
"""

load("//tools:copts.bzl", _KCOLL_COPTS = "KCOLL_COPTS")

KCOLL_COPTS = _KCOLL_COPTS
