"""The GPU host side: Django-free engine, collectives, sandbox, graders and benchmarks."""
