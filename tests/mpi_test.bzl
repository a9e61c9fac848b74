"""mpi_test: a GoogleTest binary run as several MPI ranks, one Bazel test per rank count (and transport)."""

load("//tools:cc.bzl", "cc_binary")
load("//tools:copts.bzl", "KCOLL_COPTS")
load("@kcoll_mpi//:defs.bzl", "MPIRUN")

DEFAULT_RANKS = [1, 2, 3, 4, 5, 8]

# The most ranks a transport variant (other than "auto") runs at in `bazel test //...`. Up to it the transport meets
# every shape of schedule: one rank, two, an odd count, a power of two and 2^k + 1, whose folding step sends to and
# from the extra rank. Above it the schedules are the ones the "auto" variant already runs at that rank count, and
# the other transport moves the same kinds of messages as at 5 ranks, only more of them on the same 2 cores; those
# variants are tagged `exhaustive` and `manual` (bazel test //tests:exhaustive runs them).
TRANSPORT_VARIANT_MAX_RANKS = 5

def mpi_test(name, srcs = None, deps = [], ranks = DEFAULT_RANKS, env = {}, size = "medium", tags = [], args = [],
             transports = ["auto"], two_rank_nodes = [], flaky = False, **kwargs):
    """Builds `name`_bin and adds tests `name`_np<N> for each N in `ranks`, plus a test_suite `name`.

    Each test runs tests/mpi_launch.sh N <binary>; a failure on any rank fails the test. `transports` other than
    "auto" (the default choice: shared memory on one node) add tests `name`_<transport>_np<N> that run with
    KCOLL_TRANSPORT=<transport> (above TRANSPORT_VARIANT_MAX_RANKS tagged `exhaustive` and `manual`, and left out of
    the suite). `two_rank_nodes` rank counts add tests `name`_2pernode_np<N>, with nodes of two ranks emulated
    (KCOLL_RANKS_PER_NODE=2): shared memory within each, MPI between them. `flaky`: Bazel runs a failed test up to
    three times (for tests that bound wall-clock times, which a loaded machine can stretch).

    Returns the labels of the tests tagged `manual`, for an exhaustive suite.
    """
    binary = name + "_bin"
    cc_binary(
        name = binary,
        testonly = True,
        srcs = [name + ".cc"] if srcs == None else srcs,
        copts = KCOLL_COPTS,
        deps = deps + ["//tests:matchers", "//tests:mpi_test_main"],
        **kwargs
    )
    # (name prefix, environment, rank counts, the most ranks that run in //...) of every variant.
    variants = []
    for transport in transports:
        if transport == "auto":
            variants.append((name, env, ranks, None))
        else:
            variants.append(("%s_%s" % (name, transport), dict(env, KCOLL_TRANSPORT = transport), ranks,
                             TRANSPORT_VARIANT_MAX_RANKS))
    if two_rank_nodes:
        variants.append((name + "_2pernode", dict(env, KCOLL_RANKS_PER_NODE = "2"), two_rank_nodes, None))
    tests = []
    manual = []
    for prefix, test_env, counts, most in variants:
        for n in counts:
            test_name = "%s_np%d" % (prefix, n)
            exhaustive = most != None and n > most
            native.sh_test(
                name = test_name,
                srcs = ["//tests:mpi_launch.sh"],
                args = [str(n), "$(location :%s)" % binary] + args,
                data = [":" + binary, "//tools:tsan_suppressions.txt"],
                env = dict(test_env, KCOLL_BUILT_MPIRUN = MPIRUN),
                size = size,
                flaky = flaky,
                tags = tags + ["mpi"] + (["exhaustive", "manual"] if exhaustive else []),
            )
            if exhaustive:
                manual.append(":" + test_name)
            else:
                tests.append(":" + test_name)
    native.test_suite(name = name, tests = tests, tags = tags)
    return manual
