"""Shared pytest fixtures: small, fast runs on the tiny-test preset."""

import os

import pytest
from seed000_tiny import tiny_pair  # noqa: F401 (a fixture for the seed000 study tests)

# A relative PYTHONPATH (`PYTHONPATH=python pytest`) would not reach the programs tests
# start in their temporary directories (cwd=tmp_path): they would import whatever ssdlab
# is installed instead of this one. Made absolute for them.
if os.environ.get("PYTHONPATH"):
    os.environ["PYTHONPATH"] = os.pathsep.join(
        os.path.abspath(p) if p else p for p in os.environ["PYTHONPATH"].split(os.pathsep)
    )

SMALL = {"rw": "randread", "bs": "4KiB", "iodepth": 8, "number_ios": 2000}


@pytest.fixture
def small_workload():
    return dict(SMALL)


# Names a test run may leave in its working directory (caches of the tools themselves).
_CWD_ALLOWED = {".pytest_cache", "__pycache__", ".hypothesis"}


@pytest.fixture(scope="session", autouse=True)
def nothing_written_to_the_working_directory():
    """Tests write only under their temporary directories: after the session, the
    working directory holds no new file (issue 31: real fio left `*-verify.state`
    files there; programs the tests start run with cwd=tmp_path)."""
    before = set(os.listdir("."))
    yield
    new = sorted(set(os.listdir(".")) - before - _CWD_ALLOWED)
    assert not new, f"tests left {new} in the working directory {os.getcwd()}"
