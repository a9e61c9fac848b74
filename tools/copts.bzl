"""The one set of compiler options every kcoll C++ target uses (Bazel does not propagate copts to dependents)."""

load("@kcoll_kokkos//:defs.bzl", "KOKKOS_COPTS")

# Kokkos' backends need their flags (-fopenmp for OpenMP) in every translation unit that includes Kokkos.
KCOLL_COPTS = KOKKOS_COPTS
