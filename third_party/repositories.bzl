"""Declares fusednorm's external repositories: Debian system libraries and offline stand-ins.

A sibling workspace that depends on fusednorm calls this from its own WORKSPACE:

    local_repository(name = "fusednorm", path = "/path/to/fusednorm")
    load("@fusednorm//third_party:repositories.bzl", "fusednorm_repositories")
    fusednorm_repositories(fusednorm_path = "/path/to/fusednorm")
"""

def _maybe(rule, name, **kwargs):
    if name not in native.existing_rules():
        rule(name = name, **kwargs)

def fusednorm_repositories(fusednorm_path = "."):
    """Declares every repository fusednorm's targets need.

    Args:
      fusednorm_path: path of the fusednorm checkout, relative to the calling workspace's
        root or absolute; "." when called from fusednorm's own WORKSPACE.
    """
    tp = fusednorm_path + "/third_party/"

    # Bazel 4.2.3's @bazel_tools loads these three; offline, small stand-ins serve.
    _maybe(native.local_repository, "rules_cc", path = tp + "rules_cc")
    _maybe(native.local_repository, "rules_java", path = tp + "rules_java")
    _maybe(native.local_repository, "remote_coverage_tools", path = tp + "remote_coverage_tools")

    for name, build_file in [
        ("absl", "absl.BUILD"),
        ("hwy", "hwy.BUILD"),
        ("eigen", "eigen.BUILD"),
        ("gtest", "gtest.BUILD"),
        ("benchmark", "benchmark.BUILD"),
        ("imagecodecs", "imagecodecs.BUILD"),
        ("curl", "curl.BUILD"),
        ("python", "python.BUILD"),
        # Peers for //benchmarks:peers (manual): fetched only when it is built.
        ("opencv", "opencv.BUILD"),
        ("libtorch", "libtorch.BUILD"),
    ]:
        _maybe(
            native.new_local_repository,
            name,
            path = "/usr",
            build_file = str(Label("//third_party:" + build_file)),
        )
