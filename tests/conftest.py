"""Shared pytest fixtures: small, fast runs on the tiny-test preset."""

import pytest

SMALL = {"rw": "randread", "bs": "4KiB", "iodepth": 8, "number_ios": 2000}


@pytest.fixture
def small_workload():
    return dict(SMALL)
