#!/usr/bin/env bash
# The sanitizer run (issue 13; the last stage of .ci/run): the "asan" preset of
# CMakePresets.json (clang 14, AddressSanitizer + UndefinedBehaviorSanitizer; the core, the
# system layer, the CLI, their tests and the libFuzzer harnesses) built into build-asan/, its
# unit suite and short integration tests run with leak detection on, then a smoke run of each
# fuzz harness (scripts/fuzz.sh SECONDS, default 15). Expects scripts/test.sh to have run
# (build dependencies, .llama-server/).
#   scripts/test-sanitizers.sh --build-only  builds and stops (.ci/run builds in the background
#                                            while the main suite runs; needs only the build
#                                            dependencies)
set -euo pipefail
cd "$(dirname "$0")/.."

# The preset lists each test binary's tests when ctest runs (DISCOVERY_MODE PRE_TEST), not when it
# is linked: .ci/run builds this at the lowest CPU priority beside the suite, where a listing that
# takes a second had outrun gtest_discover_tests' 60 s timeout and failed the build.
cmake --preset asan >/dev/null
cmake --build --preset asan -j "$(nproc)" --target llamafit_sanitizer_suite
[[ "${1:-}" == "--build-only" ]] && exit 0
seconds=${1:-15}
ctest --preset asan -j "$(nproc)" | tee build-asan/ctest-output.txt
scripts/fuzz.sh "${seconds}"
