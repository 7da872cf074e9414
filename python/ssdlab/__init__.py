"""ssdlab: a fast, deterministic NVMe SSD simulator (DRAM, DRAM-less and HMB drives).

>>> import ssdlab
>>> r = ssdlab.run("tiny-test", {"rw": "randread", "iodepth": 8, "number_ios": 1000})
>>> r["read"]["total_ios"]
1000
"""

from ssdlab import fio, probe
from ssdlab._core import __version__
from ssdlab.api import (
    ConfigError,
    InternalError,
    SimulationError,
    clear_prepared,
    preset_toml,
    presets,
    run,
    run_many,
    validate,
    validate_workload,
)
from ssdlab.comparison import compare
from ssdlab.profiling import profile
from ssdlab.report import Report
from ssdlab.sweep import run_points as sweep_points
from ssdlab.sweep import sweep, sweep_results
from ssdlab.trace import replay, trace_stats, trace_workload
from ssdlab.workloads import WORKLOADS, named_workload

__all__ = [
    "ConfigError",
    "InternalError",
    "Report",
    "SimulationError",
    "WORKLOADS",
    "__version__",
    "clear_prepared",
    "compare",
    "fio",
    "named_workload",
    "preset_toml",
    "presets",
    "probe",
    "profile",
    "replay",
    "run",
    "run_many",
    "sweep",
    "sweep_points",
    "sweep_results",
    "trace_stats",
    "trace_workload",
    "validate",
    "validate_workload",
]
