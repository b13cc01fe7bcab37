"""The one copts list shared by every fusednorm C++ target (ISA flags never go here)."""

FUSEDNORM_COPTS = [
    "-Wall",
    "-Wextra",
    "-Wno-unused-parameter",
    "-Wno-sign-compare",
    # docs/design.md: fast mode is two roundings, never contracted into an FMA, on any CPU.
    "-ffp-contract=off",
]
