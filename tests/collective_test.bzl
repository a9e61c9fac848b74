"""collective_test: an mpi_test over the rank counts every collective is validated at, plus exhaustive variants."""

load("//tests:mpi_test.bzl", "mpi_test")

# 1..9 cover every small shape (powers of two, odd, and 2^k +- 1 for the folding schedules); 13 and 16 a larger odd
# count and a larger power of two. Oversubscribed on small machines.
COLLECTIVE_RANKS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 16]

def collective_test(name, srcs = None, deps = [], ranks = COLLECTIVE_RANKS, **kwargs):
    """mpi_test `name` over `ranks`, plus `name`_exhaustive (a test_suite of `name`_exhaustive_np<N>).

    The exhaustive tests run the same binary with KCOLL_EXHAUSTIVE=1 (every type and op at the large count, every
    host backend); the suite also holds the transport variants above mpi_test's TRANSPORT_VARIANT_MAX_RANKS. They are
    tagged "exhaustive" and "manual", so `bazel test //...` skips them; run them with `bazel test //tests:exhaustive`
    or `bazel test //tests:<name>_exhaustive`.
    """
    tests = mpi_test(name = name, srcs = srcs, deps = deps, ranks = ranks, **kwargs)
    binary = ":%s_bin" % name
    for n in ranks:
        test_name = "%s_exhaustive_np%d" % (name, n)
        native.sh_test(
            name = test_name,
            srcs = ["//tests:mpi_launch.sh"],
            args = [str(n), "$(location %s)" % binary],
            data = [binary],
            env = {"KCOLL_EXHAUSTIVE": "1"},
            size = "enormous",
            tags = ["exhaustive", "manual", "mpi"],
        )
        tests.append(":" + test_name)
    native.test_suite(name = name + "_exhaustive", tests = tests, tags = ["exhaustive", "manual"])
