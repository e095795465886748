"""Benchmarks of pincite (scripts, not tests); see BENCHMARKS.md for the figures."""
