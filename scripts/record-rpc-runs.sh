#!/usr/bin/env bash
# record-rpc-runs.sh [--build-dir DIR] [--out DIR]
#
# Runs the RPC matrix (tests/support/rpccases.cpp) against the GPU rig of
# scripts/fetch-llama-server.sh (two ggml-rpc-server on 127.0.0.1 and llama-server --rpc, one
# case at a time) and records, per case, the lines LlamaFit's allocation-log parser reads plus
# llama-server's device list (the free memory each RPC server reported, which the default split
# used), with the argv and the server's version. tests/unit/recorded/recordedrpcruns_test.cpp
# checks the sizing core against them without a server. Format: tests/data/recorded/README.md;
# the live test already replaced the servers' ports by the recorded endpoints 127.0.0.1:50052
# and :50053. The CPU matrix has its own recorder, scripts/record-server-runs.sh.
#
#   --build-dir DIR  the CMake build folder holding tests/integration/llamafit_integration
#                    (default: $LLAMAFIT_BUILD_DIR, else build); the target is built first
#   --out DIR        where to write <case>.txt (default: tests/data/recorded/rpc-b<build>)
#
# About two minutes on two cores.

set -euo pipefail

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_dir="$(cd "${script_dir}/.." && pwd)"
build_dir="${LLAMAFIT_BUILD_DIR:-build}"
out=""

die() {
    echo "record-rpc-runs: $*" >&2
    exit 1
}

while [[ $# -gt 0 ]]; do
    case "$1" in
    --build-dir) build_dir="$2" && shift 2 ;;
    --out) out="$2" && shift 2 ;;
    *) die "unknown argument '$1' (usage: $0 [--build-dir DIR] [--out DIR])" ;;
    esac
done

cd "${repo_dir}"
[[ "${build_dir}" == /* ]] || build_dir="${repo_dir}/${build_dir}"
root="$(sed -n 's/^LLAMAFIT_LLAMA_SERVER_ROOT:PATH=//p' "${build_dir}/CMakeCache.txt" 2>/dev/null || true)"
server="${LLAMAFIT_GPU_LLAMA_SERVER:-${root:-${repo_dir}/.llama-server}/gpu/llama-server}"
[[ -x "${server}" ]] || die "${server} is not executable: run scripts/fetch-llama-server.sh (it writes the GPU rig)"

version="$("${server}" --version 2>&1 | awk '/^version:/ && !found {print; found = 1}')"
[[ -n "${version}" ]] || die "${server} --version printed no version line"
build_number="$(sed -E 's/.*\(build ([0-9]+).*/\1/' <<<"${version}")"
[[ "${build_number}" =~ ^[0-9]+$ ]] || die "no build number in '${version}'"
out="${out:-${repo_dir}/tests/data/recorded/rpc-b${build_number}}"

cmake --build "${build_dir}" --target llamafit_integration >/dev/null ||
    die "building llamafit_integration in ${build_dir} failed (configure it first: see README.md)"
logs="$(mktemp -d "${TMPDIR:-/tmp}/llamafit-record-rpc-XXXXXX")"
trap 'rm -rf "${logs}"' EXIT
echo "record-rpc-runs: running the RPC matrix against ${server} (${version})"
# The verdicts do not matter here: the logs are kept either way.
LLAMAFIT_GPU_LLAMA_SERVER="${server}" LLAMAFIT_KEEP_LOGS="${logs}" \
    "${build_dir}/tests/integration/llamafit_integration" --gtest_filter='RpcMatrix/*' >"${logs}/gtest.out" 2>&1 || true
grep -E '^\[  (FAILED|SKIPPED) ' "${logs}/gtest.out" | grep -v 'listed below' | sort -u || true

# What allocationlog.cpp reads (as scripts/record-server-runs.sh keeps it), plus the device list
# with each device's free memory and the pipeline-parallel line.
keep='^[IWEDT] (cmn  common_param: +- |common_param: +- |load_tensors: .* model buffer size =|load_tensors: +offloaded |llama_context: +(n_seq_max|n_ctx|n_ctx_seq|n_batch|n_ubatch|flash_attn|kv_unified|n_rs_seq|n_outputs_max) +=|llama_context: pipeline parallelism|llama_context: .* output buffer size =|llama_kv_cache_iswa: creating|llama_kv_cache: +(.* KV buffer size =|size =)|llama_memory_recurrent: +(.* RS buffer size =|size =)|resolve_fused_ops: Flash Attention|sched_reserve: .*compute buffer size =|sched_reserve: reserve took)|^E |exiting due to model loading error|^[^ ]+\.(c|cpp|cu|m):[0-9]+: |listening on|common_params_print_info: build'

mkdir -p "${out}"
rm -f "${out}"/*.txt
recorded=0
for file in "${logs}"/*.log; do
    [[ -e "${file}" ]] || continue
    name="$(basename "${file%.*}")"
    # shellcheck disable=SC2016 # $SCRATCH and $PORT are literal placeholders
    argv="$(sed -E 's|^.*/llamafit-integration-[A-Za-z0-9]{6}/|$SCRATCH/|' "${logs}/${name}.argv" |
        awk 'prev == "--port" {$0 = "$PORT"} {prev = $0; print}')"
    env="LLAMAFIT_NO_POPULATE=1 GGML_VK_VISIBLE_DEVICES="
    grep -q -- '_rpc1vk_' <<<"${name}" && env="LLAMAFIT_NO_POPULATE=1 GGML_VK_VISIBLE_DEVICES=0"
    {
        echo "# llama-server --rpc run of the RPC case ${name}: written by scripts/record-rpc-runs.sh, do not edit"
        echo "server: ${version}"
        echo "argv: llama-server $(tr '\n' ' ' <<<"${argv}" | sed 's/ $//')"
        echo "env: ${env}"
        echo "log:"
        # shellcheck disable=SC2016 # $SCRATCH is a literal placeholder
        sed -E 's/^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+ //' "${file}" | { grep -E "${keep}" || true; } |
            sed -E 's|/[^ ]*/llamafit-integration-[A-Za-z0-9]{6}/|$SCRATCH/|g; s/reserve took [0-9.]+ ms/reserve took <ms> ms/'
    } >"${out}/${name}.txt"
    recorded=$((recorded + 1))
done
[[ ${recorded} -gt 0 ]] || die "the matrix wrote no logs; its output:
$(tail -n 30 "${logs}/gtest.out" 2>/dev/null)"
echo "record-rpc-runs: ${recorded} runs recorded in ${out} ($(du -sh "${out}" | cut -f1))"
