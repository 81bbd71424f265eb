#!/usr/bin/env bash
# fuzz.sh [SECONDS] [--build-dir DIR] [--only HARNESS]
#
# Builds the libFuzzer harnesses (tests/fuzz: the Qt-free core with clang 14, ASan and UBSan)
# into build-fuzz/ and runs each for SECONDS (default 60) on the machine's cores, one harness at
# a time, from a corpus seeded with what tests/data holds (server logs, /metrics, /slots,
# /props, shapes, machine profiles, recorded runs) plus a tiny GGUF model written by the main
# build's llamafit-make-gguf (--build-dir, default build; skipped when it is not built).
# Prints each harness's executions and exits 1 on the first crash, leaving the input under
# build-fuzz/crashes/ (turn it into a regression test: tests/fuzz/README.md).
#
# Needs clang-14 and libclang-rt-14-dev (Debian 12 packages).

set -euo pipefail

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_dir="$(cd "${script_dir}/.." && pwd)"
seconds=60
build_dir="${repo_dir}/build"
only=""
harnesses=(gguf modelspec machineprofile serverlog serverapi flags)

while [[ $# -gt 0 ]]; do
    case "$1" in
    --build-dir) build_dir="$2" && shift 2 ;;
    --only) only="$2" && shift 2 ;;
    [0-9]*) seconds="$1" && shift ;;
    *) echo "usage: $0 [SECONDS] [--build-dir DIR] [--only HARNESS]" >&2 && exit 2 ;;
    esac
done
[[ -n "${only}" ]] && harnesses=("${only}")

fuzz_dir="${repo_dir}/build-fuzz"
command -v clang++-14 >/dev/null || {
    echo "fuzz: clang++-14 not found (apt-get install clang-14 libclang-rt-14-dev)" >&2
    exit 1
}
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
CC=clang-14 CXX=clang++-14 cmake -S "${repo_dir}/tests/fuzz" -B "${fuzz_dir}" -G Ninja \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" >/dev/null
cmake --build "${fuzz_dir}" -j "$(nproc)" >/dev/null

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
    if ! "${fuzz_dir}/fuzz_${harness}" -max_total_time="${seconds}" -max_len=1048576 -timeout=10 \
        -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="${fuzz_dir}/crashes/${harness}-" \
        "${fuzz_dir}/corpus/${harness}" >"${log}" 2>&1; then
        echo "fuzz: ${harness}: CRASH (input under ${fuzz_dir}/crashes/, log ${log})"
        grep -m 5 -E "ERROR|SUMMARY|runtime error" "${log}" || true
        status=1
        continue
    fi
    runs="$(awk '/stat::number_of_executed_units/ {print $NF}' "${log}")"
    echo "fuzz: ${harness}: ${runs:-?} executions in ${seconds} s, no crash"
done
exit "${status}"
