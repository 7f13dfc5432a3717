"""The leaderboards' fixed workloads: the graders measure on them and the web side ranks only figures
measured on them (labs/board_specs.py), so each shape is written here once. Standard library only."""

PAGED_CONTEXT = 1024  # paged-attention: the board's kernel figure is timed at this context length (batch 4)
RING_RANKS = 4  # ring-allreduce: the board's all-reduce runs over this many ranks
RING_BYTES = 4 * 2**20  # ... of a float32 tensor this large; its bus bandwidth is `metrics["board"]["busbw"]`
