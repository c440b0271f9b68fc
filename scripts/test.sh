#!/usr/bin/env bash
# The project's test command: formatting and lints, then every test of every crate
# in release mode (the interpreter's differential test runs over a million cases
# against the host CPU and prints its summary line). --no-fail-fast: every test
# binary runs, so one run names every failure.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --release -- -D warnings
cargo test --workspace --release --no-fail-fast -- --nocapture
