"""mpi_test: a GoogleTest binary run as several MPI ranks, one Bazel test per rank count."""

load("//tools:cc.bzl", "cc_binary")
load("//tools:copts.bzl", "KCOLL_COPTS")

DEFAULT_RANKS = [1, 2, 3, 4, 5, 8]

def mpi_test(name, srcs, deps = [], ranks = DEFAULT_RANKS, env = {}, size = "medium", tags = [], args = [], **kwargs):
    """Builds `name`_bin and adds tests `name`_np<N> for each N in `ranks`, plus a test_suite `name`.

    Each test runs tests/mpi_launch.sh N <binary>; a failure on any rank fails the test.
    """
    binary = name + "_bin"
    cc_binary(
        name = binary,
        testonly = True,
        srcs = srcs,
        copts = KCOLL_COPTS,
        deps = deps + ["//tests:mpi_test_main"],
        **kwargs
    )
    tests = []
    for n in ranks:
        test_name = "%s_np%d" % (name, n)
        native.sh_test(
            name = test_name,
            srcs = ["//tests:mpi_launch.sh"],
            args = [str(n), "$(location :%s)" % binary] + args,
            data = [":" + binary],
            env = env,
            size = size,
            tags = tags + ["mpi"],
        )
        tests.append(":" + test_name)
    native.test_suite(name = name, tests = tests, tags = tags)
