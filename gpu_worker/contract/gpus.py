"""GPU data-sheet figures, written once: the roofline grader, the experiments' cost model and the course's
roofline widget all read this table. Standard library only, like the rest of the contract."""

from dataclasses import dataclass


@dataclass(frozen=True)
class DataSheet:
    """A GPU's vendor figures. None: the data sheet line is not one we rely on for this model."""

    hbm_gbps: float | None  # peak memory bandwidth, GB/s
    fp16_tflops: float | None  # dense FP16/BF16 tensor-core peak, TFLOP/s, without sparsity
    memory_gb: float | None = None  # memory in 10^9 bytes, where a page says whether weights fit


# Keyed by a part of the name CUDA reports ("NVIDIA H100 80GB HBM3"); the longest key found in a name wins.
DATASHEETS = {
    "H200": DataSheet(4800, 989, memory_gb=141),
    "H100 SXM": DataSheet(3350, 989, memory_gb=80),
    "H100 80GB HBM3": DataSheet(3350, 989),
    "H100 PCIe": DataSheet(2000, 756),
    "H100 NVL": DataSheet(3900, 835),
    "A100": DataSheet(None, 312),  # an A100 we do not list: its compute is known, its bandwidth varies
    "A100-SXM4-80GB": DataSheet(2039, 312, memory_gb=80),
    "A100 80GB PCIe": DataSheet(1935, 312),
    "A100-SXM4-40GB": DataSheet(1555, 312),
    "A100-PCIE-40GB": DataSheet(1555, 312),
    "L40S": DataSheet(864, 362),
    "L4": DataSheet(300, 121, memory_gb=24),
    "A10": DataSheet(600, 125),
    "RTX 4090": DataSheet(1008, 165),
    "GH200": DataSheet(4000, 989),
    "B200": DataSheet(8000, 2250),
}


def datasheet_for(device_name: str) -> DataSheet | None:
    """The figures of the model `device_name` names, e.g. "NVIDIA H100 NVL" -> H100 NVL (not H100 SXM's)."""
    for key in sorted(DATASHEETS, key=len, reverse=True):
        if key in device_name:
            return DATASHEETS[key]
    return None
