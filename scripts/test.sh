#!/usr/bin/env bash
# Sets up and runs LlamaFit's tests on a fresh Debian 12 machine: build dependencies,
# Debian's llama-server 0.7.0 in .llama-server/ (no system-wide change), a warnings-as-
# errors build, then the unit and integration suites (benchmarks run separately: see README).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-build-deps.sh
scripts/fetch-llama-server.sh .llama-server

build_dir=${LLAMAFIT_BUILD_DIR:-build-test}
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLLAMAFIT_WERROR=ON
cmake --build "$build_dir" -j "$(nproc)"
ctest --test-dir "$build_dir" -LE bench --output-on-failure -j "$(nproc)"
