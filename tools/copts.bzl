"""The one set of compiler options every kcoll C++ target uses (Bazel does not propagate copts to dependents)."""

load("@kcoll_kokkos//:defs.bzl", "KOKKOS_COPTS")
load("//tools:cc.bzl", "KCOLL_CXX_STD")

# Kokkos' backends need their flags (-fopenmp for OpenMP) in every translation unit that includes Kokkos, and kcoll's
# headers need C++17 (Bazel 4 defaults to C++0x).
KCOLL_COPTS = KCOLL_CXX_STD + KOKKOS_COPTS
