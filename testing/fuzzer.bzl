"""A fuzz target and its replay test from one source file."""

load("//:copts.bzl", "FUSEDNORM_COPTS")

def fusednorm_fuzzer(name, deps, replay_size = "small"):
    """`<name>_fuzzer` from `<name>_fuzzer.cc`: libFuzzer under --config=fuzz
    (//testing:libfuzzer), elsewhere a binary that replays its own
    pseudo-random inputs; and `<name>_fuzz_replay_test`, the same replay as
    an ordinary test.

    Args:
      name: the stem of the source file and of both targets.
      deps: the dependencies of both.
      replay_size: the replay test's size.
    """
    src = name + "_fuzzer.cc"
    native.cc_binary(
        name = name + "_fuzzer",
        testonly = True,
        srcs = [src],
        copts = FUSEDNORM_COPTS + select({
            "//testing:libfuzzer": ["-DFUSEDNORM_LIBFUZZER"],
            "//conditions:default": [],
        }),
        linkopts = select({
            "//testing:libfuzzer": ["-fsanitize=fuzzer"],
            "//conditions:default": [],
        }),
        deps = deps,
    )
    native.cc_test(
        name = name + "_fuzz_replay_test",
        size = replay_size,
        srcs = [src],
        copts = FUSEDNORM_COPTS,
        deps = deps,
    )
