#!/usr/bin/env bash
# The whole test suite: Rust formatting, lints and tests, then Python lints and
# tests. Run from anywhere; assumes the package is installed (pip install '.[test]').
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== cargo fmt"
cargo fmt --all --check
echo "== cargo clippy"
cargo clippy --workspace --all-targets -- -D warnings
# The core's optional parallel probe (sim::parallel), which its tests build too.
cargo clippy -p manetsim-core --all-targets --features parallel-probe -- -D warnings
echo "== cargo test"
cargo test --workspace
echo "== ruff check"
ruff check python tests
echo "== ruff format"
ruff format --check python tests
echo "== pytest"
# One worker per core (pytest-xdist): the tests are independent, each in its
# own temporary folder.
python -m pytest -q -n auto
