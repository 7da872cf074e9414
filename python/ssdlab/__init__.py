"""ssdlab: a fast, deterministic NVMe SSD simulator (DRAM, DRAM-less and HMB drives).

>>> import ssdlab
>>> r = ssdlab.run("tiny-test", {"rw": "randread", "iodepth": 8, "number_ios": 1000})
>>> r["read"]["total_ios"]
1000
"""

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
from ssdlab.report import Report
from ssdlab.workloads import WORKLOADS, named_workload

# Imported when first used: a short run's whole process should not pay for the sweep
# engine (asyncio), the fio parser or the probes it does not use (about 60 ms here).
_LAZY = {
    "fio": ("ssdlab.fio", None),
    "probe": ("ssdlab.probe", None),
    "compare": ("ssdlab.comparison", "compare"),
    "profile": ("ssdlab.profiling", "profile"),
    "sweep_points": ("ssdlab.sweep", "run_points"),
    "sweep": ("ssdlab.sweep", "sweep"),
    "sweep_results": ("ssdlab.sweep", "sweep_results"),
    "replay": ("ssdlab.trace", "replay"),
    "trace_stats": ("ssdlab.trace", "trace_stats"),
    "trace_workload": ("ssdlab.trace", "trace_workload"),
}


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module 'ssdlab' has no attribute {name!r}")
    import importlib

    module, attr = _LAZY[name]
    m = importlib.import_module(module)
    value = m if attr is None else getattr(m, attr)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


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
