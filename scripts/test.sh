#!/usr/bin/env bash
# Install the test dependencies and run every test: Rust (fmt, clippy, unit and
# integration tests) and Python (ruff, pytest on the installed package).
# This is the README's test command; CI (.ci/run) runs exactly this.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}

echo "== chromium (renders the sweep report in a test) =="
command -v chromium || (apt-get update && apt-get install -y --no-install-recommends chromium)

echo "== fio with the nbd engine (tests/test_serve.py runs it against ssdlab serve) =="
command -v fio >/dev/null || (apt-get update && apt-get install -y --no-install-recommends fio)

echo "== install (builds the Rust extension with maturin) =="
"$PY" -m pip install --quiet ".[test]" "ruff==0.17.6"

echo "== cargo fmt / clippy =="
cargo fmt --all -- --check
cargo clippy --release --workspace --all-targets -- -D warnings

echo "== cargo test =="
cargo test --release --workspace --exclude ssdlab-py

# The core's unit tests once more in a debug build, where its debug_assert! invariants
# (pages program in order, ...) are checked; release builds compile them out. (The
# integration tests are too slow unoptimised for every run.)
echo "== cargo test (core unit tests, debug assertions on) =="
cargo test -p ssdlab-core --lib

echo "== ruff =="
"$PY" -m ruff check python tests

echo "== pytest =="
"$PY" -m pytest -q
