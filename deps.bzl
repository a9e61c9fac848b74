"""What a workspace that builds kcoll declares: load("@kcoll//:deps.bzl", "kcoll_dependencies"), then call it.

kcoll builds offline against what is installed: Bazel's rule sets as Debian installs them (bazel-rules-java,
bazel-platforms), a rules_cc and a coverage-tools stand-in shipped in kcoll's tree, and repository rules that wrap
the installed Kokkos, MPI, CUDA, NCCL and Gloo (third_party/repositories.bzl). A repository the workspace already
declares is left as it is.
"""

load("//third_party:repositories.bzl", "kcoll_installed_libraries")

def _kcoll_tree_dir_impl(rctx):
    # The directory `subdir` of kcoll's own tree, wherever kcoll is (the main workspace or an external one).
    third_party = rctx.path(Label("//third_party:BUILD")).dirname
    source = rctx.path(str(third_party) + "/" + rctx.attr.subdir)
    for child in source.readdir():
        rctx.symlink(child, child.basename)

_kcoll_tree_dir = repository_rule(
    implementation = _kcoll_tree_dir_impl,
    attrs = {"subdir": attr.string(mandatory = True)},
    local = True,
)

def _maybe(rule, name, **kwargs):
    if not native.existing_rule(name):
        rule(name = name, **kwargs)

def kcoll_dependencies():
    _maybe(native.local_repository, "rules_java", path = "/usr/share/bazel/rules/java")
    _maybe(native.local_repository, "platforms", path = "/usr/share/bazel/platforms")

    # A rules_cc that forwards cc_* to the native rules (Debian's bazel-rules-cc is newer than Bazel 4.2.3 accepts).
    _maybe(_kcoll_tree_dir, "rules_cc", subdir = "rules_cc")

    # Stand-in for the coverage tools Bazel would download; kcoll does not collect coverage through Bazel.
    _maybe(_kcoll_tree_dir, "remote_coverage_tools", subdir = "remote_coverage_tools")
    kcoll_installed_libraries()
