"""The timing the Python peer benchmarks share: the median over `rounds`
of the microseconds one of `calls` calls of fn() takes."""

import statistics
import time


def per_call(fn, calls, rounds=7):
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        times.append((time.perf_counter() - start) / calls * 1e6)
    return statistics.median(times)
