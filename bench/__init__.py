"""pincite's benchmarks: one runner (`python -m bench`), its scenarios (bench/scenarios/) and their harness.

Not part of the package and not imported by the tests; the figures are in BENCHMARKS.md.
"""
