"""The one copts list shared by every fusednorm C++ target (ISA flags never go here)."""

FUSEDNORM_COPTS = [
    "-Wall",
    "-Wextra",
    "-Wno-unused-parameter",
    "-Wno-sign-compare",
]
