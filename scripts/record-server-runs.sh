#!/usr/bin/env bash
# record-server-runs.sh [--backend cpu|vulkan|holdout-cpu|holdout-vulkan|holdout-rpc] [--server WRAPPER]
#                       [--out DIR] [--build-dir DIR]
#
# Runs an integration matrix against a real llama-server and records, per case, what the server
# printed that LlamaFit's allocation-log parser reads (core/server/allocationlog.h), with the
# argv it was started with and its version. tests/unit/recorded/recordedruns_test.cpp checks the
# sizing core against these recordings on every run, with no server; tests/data/recorded/README.md
# has the format. Then prints the matrix's figures (llamafit-matrix-stats).
#
#   --backend cpu     the CPU matrix (tests/support/integrationcases.cpp: every shape x settings
#                     case; tests/integration/realserver_test.cpp), the default
#   --backend vulkan  the Vulkan matrix (tests/support/vulkancases.cpp: cut shapes x GPU settings,
#                     run on lavapipe as Vulkan0; tests/integration/vulkanserver_test.cpp); the
#                     device list line ("- Vulkan0 : llvmpipe ...") is recorded too
#   --backend holdout-cpu | holdout-vulkan | holdout-rpc
#                     one backend's part of the seeded random holdout (tests/support/holdoutcases.cpp:
#                     real model widths of tests/data/holdout, random settings;
#                     tests/integration/holdoutserver_test.cpp) into tests/data/recorded/holdout-b<build>,
#                     replacing only that backend's <case>.txt (*_cpu, *_vulkan, *_rpc); the device
#                     list with its free memory and the pipeline-parallel line are recorded too (the
#                     RPC part's default split follows them, as in scripts/record-rpc-runs.sh)
#   --server WRAPPER  the llama-server to record (default: $LLAMAFIT_LLAMA_SERVER, else
#                     <repo>/.llama-server/llama-server from scripts/fetch-llama-server.sh; for
#                     vulkan $LLAMAFIT_GPU_LLAMA_SERVER, else <repo>/.llama-server/gpu/llama-server)
#   --out DIR         where to write <case>.txt (default: tests/data/recorded/cpu-b<build>, or
#                     vulkan-lavapipe-b<build>, the build number from `llama-server --version`);
#                     its old *.txt are replaced
#   --build-dir DIR   the CMake build folder holding tests/integration/llamafit_integration
#                     (llamafit_integration_vulkan for vulkan, llamafit_integration_holdout for the
#                     holdout; default: $LLAMAFIT_BUILD_DIR, else build); the target is built first
#   --from-logs DIR   do not run the matrix: convert what an earlier
#                     `LLAMAFIT_KEEP_LOGS=DIR llamafit_integration[_vulkan]` run left in DIR
#
# The matrix runs serially, one server per case: about 10 minutes on two cores for the CPU
# matrix, 12 for the Vulkan one (every case stops at its last buffer line). Cases the run
# machine cannot afford (LLAMAFIT_INTEGRATION_MAX_MIB, default 6144) are recorded as
# "not recorded: <why>". scripts/compare-builds.sh uses this script with --out to a scratch folder.

set -euo pipefail

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_dir="$(cd "${script_dir}/.." && pwd)"
backend="cpu"
server=""
out=""
build_dir="${LLAMAFIT_BUILD_DIR:-build}"
from_logs=""

die() {
    echo "record-server-runs: $*" >&2
    exit 1
}

while [[ $# -gt 0 ]]; do
    case "$1" in
    --backend) backend="$2" && shift 2 ;;
    --server) server="$2" && shift 2 ;;
    --out) out="$2" && shift 2 ;;
    --build-dir) build_dir="$2" && shift 2 ;;
    --from-logs) from_logs="$(cd "$2" && pwd)" && shift 2 ;;
    *) die "unknown argument '$1' (usage: $0 [--backend cpu|vulkan|holdout-cpu|holdout-vulkan|holdout-rpc] [--server WRAPPER] [--out DIR] [--build-dir DIR] [--from-logs DIR])" ;;
    esac
done

# Holdout parts share one folder: each replaces only its own cases (names end in _<part>).
replace_glob="*.txt"
stats_target="llamafit-matrix-stats"
env_line="LLAMAFIT_NO_POPULATE=1"
case "${backend}" in
cpu)
    server="${server:-${LLAMAFIT_LLAMA_SERVER:-${repo_dir}/.llama-server/llama-server}}"
    target="llamafit_integration"
    filter='CpuMatrix/RealServerTest.*'
    server_variable="LLAMAFIT_LLAMA_SERVER"
    folder_prefix="cpu"
    ;;
vulkan)
    server="${server:-${LLAMAFIT_GPU_LLAMA_SERVER:-${repo_dir}/.llama-server/gpu/llama-server}}"
    target="llamafit_integration_vulkan"
    filter='VulkanMatrix/VulkanServerTest.*'
    server_variable="LLAMAFIT_GPU_LLAMA_SERVER"
    folder_prefix="vulkan-lavapipe"
    ;;
holdout-cpu | holdout-vulkan | holdout-rpc)
    part="${backend#holdout-}"
    if [[ "${part}" == cpu ]]; then
        server="${server:-${LLAMAFIT_LLAMA_SERVER:-${repo_dir}/.llama-server/llama-server}}"
        server_variable="LLAMAFIT_LLAMA_SERVER"
        filter='HoldoutCpu/*'
    else
        server="${server:-${LLAMAFIT_GPU_LLAMA_SERVER:-${repo_dir}/.llama-server/gpu/llama-server}}"
        server_variable="LLAMAFIT_GPU_LLAMA_SERVER"
        filter='HoldoutVulkan/*'
        if [[ "${part}" == rpc ]]; then
            filter='HoldoutRpc/*'
            env_line="LLAMAFIT_NO_POPULATE=1 GGML_VK_VISIBLE_DEVICES="
        fi
    fi
    target="llamafit_integration_holdout"
    folder_prefix="holdout"
    replace_glob="*_${part}.txt"
    stats_target="llamafit_unit_recorded_holdout"
    ;;
*) die "--backend must be cpu, vulkan, holdout-cpu, holdout-vulkan or holdout-rpc, not '${backend}'" ;;
esac

[[ -x "${server}" ]] || die "${server} is not executable: run scripts/fetch-llama-server.sh (or pass --server)"
server="$(cd "$(dirname "${server}")" && pwd)/$(basename "${server}")"
cd "${repo_dir}"
[[ "${build_dir}" == /* ]] || build_dir="${repo_dir}/${build_dir}"

version="$("${server}" --version 2>&1 | awk '/^version:/ && !found {print; found = 1}')"
[[ -n "${version}" ]] || die "${server} --version printed no version line"
build_number="$(sed -E 's/.*\(build ([0-9]+).*/\1/' <<<"${version}")"
[[ "${build_number}" =~ ^[0-9]+$ ]] || die "no build number in '${version}'"
default_out="${repo_dir}/tests/data/recorded/${folder_prefix}-b${build_number}"
out="${out:-${default_out}}"

if [[ -n "${from_logs}" ]]; then
    logs="${from_logs}"
else
    cmake --build "${build_dir}" --target "${target}" "${stats_target}" >/dev/null ||
        die "building ${target} in ${build_dir} failed (configure it first: see README.md)"
    logs="$(mktemp -d "${TMPDIR:-/tmp}/llamafit-record-XXXXXX")"
    trap 'rm -rf "${logs}"' EXIT
    echo "record-server-runs: running the ${backend} integration matrix against ${server} (${version})"
    # The comparison's verdicts do not matter here (a new build may differ): the logs are kept either way.
    env "${server_variable}=${server}" LLAMAFIT_KEEP_LOGS="${logs}" \
        "${build_dir}/tests/integration/${target}" --gtest_filter="${filter}" \
        >"${logs}/gtest.out" 2>&1 || true
    grep -E '^\[  (FAILED|SKIPPED) ' "${logs}/gtest.out" | grep -v 'listed below' | sort -u || true
fi

# The lines allocationlog.cpp reads (and the build line), without the "<time> " prefix; the
# scratch folder and the port are replaced by $SCRATCH and $PORT, the reserve time by <ms>,
# so that two recordings of the same build differ in nothing.
keep='^[IWEDT] (load_tensors: .* model buffer size =|load_tensors: +offloaded |llama_context: +(n_seq_max|n_ctx|n_ctx_seq|n_batch|n_ubatch|flash_attn|kv_unified|n_rs_seq|n_outputs_max) +=|llama_context: .* output buffer size =|llama_kv_cache_iswa: creating|llama_kv_cache: +(.* KV buffer size =|size =)|llama_memory_recurrent: +(.* RS buffer size =|size =)|resolve_fused_ops: Flash Attention|sched_reserve: .*compute buffer size =|sched_reserve: reserve took)|^E |exiting due to model loading error|^[^ ]+\.(c|cpp|cu|m):[0-9]+: |listening on|common_params_print_info: build|common_param: +- [A-Za-z0-9_]+ : |ggml_vulkan: Failed'
# The holdout also keeps every listed device with its free memory (RPC0 pads its name) and the
# pipeline-parallel line, as scripts/record-rpc-runs.sh does.
[[ "${folder_prefix}" == holdout ]] && keep="${keep}|common_param: +- |llama_context: pipeline parallelism"

mkdir -p "${out}"
# shellcheck disable=SC2086 # the glob is meant to expand
rm -f "${out}"/${replace_glob}
recorded=0
skipped=0
for file in "${logs}"/*.log "${logs}"/*.skipped; do
    [[ -e "${file}" ]] || continue
    name="$(basename "${file%.*}")"
    target="${out}/${name}.txt"
    {
        echo "# llama-server run of the integration case ${name}: written by scripts/record-server-runs.sh, do not edit"
        echo "server: ${version}"
        if [[ "${file}" == *.skipped ]]; then
            echo "not recorded: $(head -n 1 "${file}")"
        else
            # shellcheck disable=SC2016 # $SCRATCH and $PORT are literal placeholders
            argv="$(sed -E 's|^.*/llamafit-integration-[A-Za-z0-9]{6}/|$SCRATCH/|' "${logs}/${name}.argv" |
                awk 'prev == "--port" {$0 = "$PORT"} {prev = $0; print}')"
            grep -q '[[:space:]]' <<<"$(tr '\n' '_' <<<"${argv}" | tr -d '\n')" &&
                die "${name}: an argument holds white space; the one-line argv format cannot record it"
            echo "argv: llama-server $(tr '\n' ' ' <<<"${argv}" | sed 's/ $//')"
            echo "env: ${env_line}"
            echo "log:"
            # shellcheck disable=SC2016 # $SCRATCH is a literal placeholder
            sed -E 's/^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+ //' "${file}" | { grep -E "${keep}" || true; } |
                sed -E 's|/[^ ]*/llamafit-integration-[A-Za-z0-9]{6}/|$SCRATCH/|g; s/reserve took [0-9.]+ ms/reserve took <ms> ms/'
        fi
    } >"${target}"
    if [[ "${file}" == *.skipped ]]; then
        skipped=$((skipped + 1))
    else
        recorded=$((recorded + 1))
    fi
done
[[ $((recorded + skipped)) -gt 0 ]] || die "the matrix wrote no logs; its output:
$(tail -n 30 "${logs}/gtest.out" 2>/dev/null)"
echo "record-server-runs: ${recorded} runs recorded, ${skipped} not recorded (too large here), in ${out} ($(du -sh "${out}" | cut -f1))"
# The figures read the folder the tests read: only when this run wrote it.
if [[ "${folder_prefix}" == holdout && "${out}" == "${default_out}" ]]; then
    echo "record-server-runs: the sizing core against the holdout's recordings (tests/unit/recorded):"
    "${build_dir}/tests/unit/recorded/llamafit_unit_recorded_holdout" --gtest_filter='HoldoutComputeFigures.*' |
        grep -E '^\[ holdout' || true
elif [[ "${out}" == "${default_out}" && -x "${build_dir}/tests/unit/recorded/llamafit-matrix-stats" ]]; then
    echo "record-server-runs: the sizing core against these recordings (tests/unit/recorded):"
    "${build_dir}/tests/unit/recorded/llamafit-matrix-stats" --matrix "${backend}"
fi
