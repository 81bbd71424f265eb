#!/usr/bin/env bash
# fuzz.sh [SECONDS] [--only HARNESS] [--runs N]
#
# Builds the libFuzzer harnesses (tests/fuzz) in the sanitizer build (CMakePresets.json
# "asan": clang 14, ASan + UBSan, build-asan/) and runs each for SECONDS (default 60), one
# harness at a time, from a corpus seeded with what tests/data holds (server logs, /metrics,
# /slots, /props, shapes, machine profiles, recorded runs) plus a tiny GGUF model written by
# that build's llamafit-make-gguf (--runs N: N executions each instead of a time budget).
# Prints each harness's executions and exits 1 on the first crash, leaving the input under
# build-asan/fuzz/crashes/ (turn it into a regression test: tests/fuzz/README.md).
#
# Needs clang-14 and libclang-rt-14-dev (Debian 12 packages; scripts/install-build-deps.sh).

set -euo pipefail

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_dir="$(cd "${script_dir}/.." && pwd)"
seconds=60
only=""
runs=""
harnesses=(gguf modelspec machineprofile serverlog serverapi flags)

while [[ $# -gt 0 ]]; do
    case "$1" in
    --only) only="$2" && shift 2 ;;
    --runs) runs="$2" && shift 2 ;;
    [0-9]*) seconds="$1" && shift ;;
    *) echo "usage: $0 [SECONDS] [--only HARNESS] [--runs N]" >&2 && exit 2 ;;
    esac
done
[[ -n "${only}" ]] && harnesses=("${only}")

build_dir="${repo_dir}/build-asan"
fuzz_dir="${build_dir}/fuzz"
command -v clang++-14 >/dev/null || {
    echo "fuzz: clang++-14 not found (apt-get install clang-14 libclang-rt-14-dev)" >&2
    exit 1
}
# The build's own settings are kept (scripts/test-sanitizers.sh has just made it in CI): adding a
# compiler launcher here would change every command and rebuild the harnesses' whole core.
# For ccache, export CMAKE_CXX_COMPILER_LAUNCHER=ccache before the first configure.
(cd "${repo_dir}" && cmake --preset asan >/dev/null)
targets=(llamafit-make-gguf)
for harness in "${harnesses[@]}"; do targets+=("fuzz_${harness}"); done
cmake --build "${build_dir}" -j "$(nproc)" --target "${targets[@]}" >/dev/null

# Seed corpora: copied fresh each run (the fuzzer adds what it finds to corpus/, not to seeds/).
seed() {
    local harness="$1"
    shift
    mkdir -p "${fuzz_dir}/corpus/${harness}"
    local file
    for file in "$@"; do
        [[ -f "${file}" ]] && cp "${file}" "${fuzz_dir}/corpus/${harness}/seed-$(basename "${file}")"
    done
    return 0
}
shopt -s nullglob
seed modelspec "${repo_dir}"/tests/data/shapes/*.json "${repo_dir}"/resources/cards/*.json
seed machineprofile "${repo_dir}"/resources/machines/*.json
seed serverlog "${repo_dir}"/tests/data/logs/*.log "${repo_dir}"/tests/data/server/*.log \
    $(ls "${repo_dir}"/tests/data/recorded/cpu-b*/*.txt | head -n 20)
seed serverapi "${repo_dir}"/tests/data/server/metrics-*.txt "${repo_dir}"/tests/data/server/*.json
mkdir -p "${fuzz_dir}/corpus/flags"
printf -- '-c\n8192\n-np\n4\n-ctk\nq8_0\n-ctv\nq8_0\n-fa\non\n-ngl\n99\n-ot\nexps=CPU\n' \
    >"${fuzz_dir}/corpus/flags/seed-typical"
printf -- '--ctx-size\n0\n--parallel\n1\n--swa-full\n-ub\n1024\n-b\n4096\n-ts\n3,1\n-lm\nnone\n' \
    >"${fuzz_dir}/corpus/flags/seed-more"
make_gguf="${build_dir}/tests/llamafit-make-gguf"
mkdir -p "${fuzz_dir}/corpus/gguf"
if [[ -x "${make_gguf}" ]]; then
    "${make_gguf}" tiny "${fuzz_dir}/corpus/gguf/seed-tiny.gguf" >/dev/null
else
    echo "fuzz: ${make_gguf} not built: the GGUF corpus starts empty" >&2
fi

mkdir -p "${fuzz_dir}/crashes"
status=0
for harness in "${harnesses[@]}"; do
    log="${fuzz_dir}/fuzz_${harness}.log"
    # --runs N: a number of executions (the closing note's figures), else a time budget.
    budget=(-max_total_time="${seconds}")
    [[ -n "${runs}" ]] && budget=(-runs="${runs}")
    # Inputs may grow to 1 MiB (a GGUF header with its arrays), except a server log's: 64 KiB
    # holds every seed log whole (the largest is 14 KB), and each execution parses its input
    # four times, so longer ones only slow the campaign down.
    max_len=1048576
    [[ "${harness}" == serverlog ]] && max_len=65536
    if ! "${build_dir}/tests/fuzz/fuzz_${harness}" "${budget[@]}" -max_len="${max_len}" -timeout=10 \
        -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="${fuzz_dir}/crashes/${harness}-" \
        "${fuzz_dir}/corpus/${harness}" >"${log}" 2>&1; then
        echo "fuzz: ${harness}: CRASH (input under ${fuzz_dir}/crashes/, log ${log})"
        grep -m 5 -E "ERROR|SUMMARY|runtime error" "${log}" || true
        status=1
        continue
    fi
    # libFuzzer may print its final stats twice (at -runs' end and at exit): the last counts.
    executed="$(awk '/stat::number_of_executed_units/ {value = $NF} END {print value}' "${log}")"
    rate="$(awk '/stat::average_exec_per_sec/ {value = $NF} END {print value}' "${log}")"
    echo "fuzz: ${harness}: ${executed:-?} executions (${rate:-?}/s), no crash"
done
exit "${status}"
