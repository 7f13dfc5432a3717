"""Whole-system benchmarks that need the web side, a broker and a worker (`python -m bench.NAME`)."""
