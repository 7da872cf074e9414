"""ssdlab: a fast, deterministic NVMe SSD simulator."""

from ssdlab._core import __version__  # noqa: F401
