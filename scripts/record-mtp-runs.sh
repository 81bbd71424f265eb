#!/usr/bin/env bash
# record-mtp-runs.sh [--matrix mtp|lora|draft|mmproj] [--server WRAPPER] [--out DIR] [--build-dir DIR] [--no-build]
#
# Records the MTP matrix (issue 11 item 1): llama-server 0.7.0 on the sparse Qwen3.5-35B-A3B shape
# with its NextN block (tests/data/shapes/mtp/qwen35moe-mtp.json) and on the same shape without it
# (tests/data/shapes/qwen35moe.json), with and without --spec-type draft-mtp, across contexts, slot
# counts, K/V types, flash attention, micro-batches and draft sizes. One server at a time, each
# stopped once it listens or has refused the model (the MTP draft context is created after the
# main context's reserve, so "reserve took" alone is not the end).
#
# --matrix mmproj records the vision projector matrix (issue 11 item 3): the tiny text model with the
# generated projectors of tests/data/shapes/mmproj (gemma3, qwen2vl_merger; -fa, --no-mmproj-offload,
# the image-token limits, and a projector of another width, which llama-server refuses), WITH the
# warm-up (without it the projector's compute buffer is never reserved), into mmproj-b<build>/;
# read by tests/unit/recorded/recordedprojectorruns_test.cpp.
#
# --matrix lora records the LoRA matrix (issue 11 item 4) instead: the llama and qwen2 shapes with
# the generated adapters of tests/data/shapes/lora (--lora, --lora-scaled, two adapters, and an
# adapter of another architecture, which llama-server refuses), into lora-b<build>/; read by the
# same test (tests/unit/recorded/recordedmtpruns_test.cpp, its LoRA instance).
#
# --matrix draft records the draft-model matrix (issue 11 item 2) into draft-b<build>/: realistic
# target/draft pairs loaded with -md (Llama-3-8B with Llama-3.2-1B, the qwen3moe shape with the
# qwen3 shape (Qwen3-0.6B), the qwen35moe shape with Qwen3.5-4B, whose recurrent state is the
# draft's own), with and without --spec-type draft-simple, across contexts, slots, the draft's
# K/V types and micro-batch, -fa off. A shape is a tests/data/shapes file or a built-in card id
# (resources/cards). "loading draft model" starts the draft's lines.
#
# The cases are the CASES table below: `name|shape|flags`. Each recording is
# tests/data/recorded/mtp-b<build>/<name>.txt in the format of tests/data/recorded/README.md (the
# same kept lines, plus "creating MTP draft context", which starts the draft context's lines).
# tests/unit/recorded/recordedmtpruns_test.cpp reads every recording, takes its settings from its
# argv (parsed with the flag table) and its model from the shape its -m names, and judges the
# estimate: model, KV, RS and output of both contexts to the printed 0.01 MiB, compute within 5 %,
# and the refusals as refusals. About 6 minutes on two cores.
#
#   --server WRAPPER  default $LLAMAFIT_LLAMA_SERVER, else <repo>/.llama-server/llama-server
#   --out DIR         default tests/data/recorded/mtp-b<build>; its old *.txt are replaced
#   --build-dir DIR   the CMake build folder with tests/llamafit-make-gguf (default build); built first
#   --no-build        use the llamafit-make-gguf already built there (while another build runs)

set -euo pipefail

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_dir="$(cd "${script_dir}/.." && pwd)"
server="${LLAMAFIT_LLAMA_SERVER:-${repo_dir}/.llama-server/llama-server}"
out=""
build_dir="${LLAMAFIT_BUILD_DIR:-build}"
build=1
matrix="mtp"

die() {
    echo "record-mtp-runs: $*" >&2
    exit 1
}

while [[ $# -gt 0 ]]; do
    case "$1" in
    --server) server="$2" && shift 2 ;;
    --out) out="$2" && shift 2 ;;
    --build-dir) build_dir="$2" && shift 2 ;;
    --no-build) build=0 && shift ;;
    --matrix) matrix="$2" && shift 2 ;;
    *) die "unknown argument '$1' (usage: $0 [--server WRAPPER] [--out DIR] [--build-dir DIR] [--no-build])" ;;
    esac
done

# name|shape|flags (after -m SHAPE.gguf -lv 4 --no-warmup -fit off -t 2)
CASES=(
    "mtp_c4096_np1|qwen35moe-mtp|-c 4096 -np 1 --spec-type draft-mtp"
    "mtp_c8192_np1|qwen35moe-mtp|-c 8192 -np 1 --spec-type draft-mtp"
    "mtp_c16384_np1|qwen35moe-mtp|-c 16384 -np 1 --spec-type draft-mtp"
    "mtp_c32768_np1|qwen35moe-mtp|-c 32768 -np 1 --spec-type draft-mtp"
    "mtp_c4096_np2|qwen35moe-mtp|-c 4096 -np 2 --spec-type draft-mtp"
    "mtp_c8192_np4|qwen35moe-mtp|-c 8192 -np 4 --spec-type draft-mtp"
    "mtp_c16384_np8|qwen35moe-mtp|-c 16384 -np 8 --spec-type draft-mtp"
    "mtp_c8192_npauto|qwen35moe-mtp|-c 8192 --spec-type draft-mtp"
    "mtp_c4096_np1_q8_0|qwen35moe-mtp|-c 4096 -np 1 -ctk q8_0 -ctv q8_0 --spec-type draft-mtp"
    "mtp_c4096_np2_q8_0|qwen35moe-mtp|-c 4096 -np 2 -ctk q8_0 -ctv q8_0 --spec-type draft-mtp"
    "mtp_c8192_np1_q4_0|qwen35moe-mtp|-c 8192 -np 1 -ctk q4_0 -ctv q4_0 --spec-type draft-mtp"
    "mtp_c4096_np1_kq8_0|qwen35moe-mtp|-c 4096 -np 1 -ctk q8_0 --spec-type draft-mtp"
    "mtp_c4096_np1_faoff|qwen35moe-mtp|-c 4096 -np 1 -fa off --spec-type draft-mtp"
    "mtp_c8192_np4_faoff|qwen35moe-mtp|-c 8192 -np 4 -fa off --spec-type draft-mtp"
    "mtp_c4096_np1_nmax1|qwen35moe-mtp|-c 4096 -np 1 --spec-type draft-mtp --spec-draft-n-max 1"
    "mtp_c4096_np1_nmax5|qwen35moe-mtp|-c 4096 -np 1 --spec-type draft-mtp --spec-draft-n-max 5"
    "mtp_c8192_np2_nmax8|qwen35moe-mtp|-c 8192 -np 2 --spec-type draft-mtp --spec-draft-n-max 8"
    "mtp_c4096_np1_ub256|qwen35moe-mtp|-c 4096 -np 1 -ub 256 --spec-type draft-mtp"
    "mtp_c4096_np1_ub1024|qwen35moe-mtp|-c 4096 -np 1 -ub 1024 --spec-type draft-mtp"
    "mtp_c4096_np1_dub128|qwen35moe-mtp|-c 4096 -np 1 --spec-type draft-mtp --spec-draft-n-ubatch 128"
    "mtp_c8192_np2_dub256|qwen35moe-mtp|-c 8192 -np 2 -ub 1024 --spec-type draft-mtp --spec-draft-n-ubatch 256"
    "mtp_c12288_np3|qwen35moe-mtp|-c 12288 -np 3 --spec-type draft-mtp"
    "nextn_skipped_c4096_np1|qwen35moe-mtp|-c 4096 -np 1"
    "nextn_skipped_c8192_np4|qwen35moe-mtp|-c 8192 -np 4"
    "nextn_skipped_c4096_np1_simple|qwen35moe-mtp|-c 4096 -np 1 --spec-type draft-simple"
    "refused_no_nextn_c4096_np1|qwen35moe|-c 4096 -np 1 --spec-type draft-mtp"
)

# name|shape|flags; @SCRATCH@ is the folder of the generated files.
LORA_CASES=(
    "lora_r16_c4096_np1|llama|-c 4096 -np 1 --lora @SCRATCH@/llama-lora-r16.gguf"
    "lora_r16_scaled_c8192_np2|llama|-c 8192 -np 2 --lora-scaled @SCRATCH@/llama-lora-r16.gguf:0.5"
    "lora_r64_c4096_np1|llama|-c 4096 -np 1 --lora @SCRATCH@/llama-lora-r64-all.gguf"
    "lora_two_c4096_np4|llama|-c 4096 -np 4 --lora @SCRATCH@/llama-lora-r16.gguf,@SCRATCH@/llama-lora-r64-all.gguf"
    "lora_two_flags_c4096_np1|llama|-c 4096 -np 1 --lora @SCRATCH@/llama-lora-r16.gguf --lora-scaled @SCRATCH@/llama-lora-r64-all.gguf:2"
    "lora_refused_arch_c4096_np1|qwen2|-c 4096 -np 1 --lora @SCRATCH@/llama-lora-r16.gguf"
)
# name|shape|flags; @SCRATCH@ is the folder of the generated files. Each -md names a shape or card.
DRAFT_CASES=(
    "llama8b_c4096_np1|llama-3-8b-q4_k_m|-c 4096 -np 1 -md @SCRATCH@/llama-3.2-1b-q8_0.gguf"
    "llama8b_c8192_np1_simple|llama-3-8b-q4_k_m|-c 8192 -np 1 -md @SCRATCH@/llama-3.2-1b-q8_0.gguf --spec-type draft-simple"
    "llama8b_c4096_np2|llama-3-8b-q4_k_m|-c 4096 -np 2 -md @SCRATCH@/llama-3.2-1b-q8_0.gguf"
    "llama8b_c8192_npauto_simple|llama-3-8b-q4_k_m|-c 8192 -md @SCRATCH@/llama-3.2-1b-q8_0.gguf --spec-type draft-simple"
    "llama8b_c16384_np4_simple|llama-3-8b-q4_k_m|-c 16384 -np 4 -md @SCRATCH@/llama-3.2-1b-q8_0.gguf --spec-type draft-simple"
    "llama8b_c4096_np1_kvq8|llama-3-8b-q4_k_m|-c 4096 -np 1 -ctk q8_0 -ctv q8_0 -md @SCRATCH@/llama-3.2-1b-q8_0.gguf"
    "llama8b_c4096_np1_draftkvq8|llama-3-8b-q4_k_m|-c 4096 -np 1 -md @SCRATCH@/llama-3.2-1b-q8_0.gguf -ctkd q8_0 -ctvd q8_0"
    "llama8b_c4096_np1_faoff|llama-3-8b-q4_k_m|-c 4096 -np 1 -fa off -md @SCRATCH@/llama-3.2-1b-q8_0.gguf"
    "llama8b_c4096_np1_ub256|llama-3-8b-q4_k_m|-c 4096 -np 1 -ub 256 -md @SCRATCH@/llama-3.2-1b-q8_0.gguf"
    "llama8b_c4096_np1_dub128|llama-3-8b-q4_k_m|-c 4096 -np 1 -md @SCRATCH@/llama-3.2-1b-q8_0.gguf --spec-type draft-simple --spec-draft-n-ubatch 128"
    "qwen3moe_c4096_np1|qwen3moe|-c 4096 -np 1 -md @SCRATCH@/qwen3.gguf"
    "qwen3moe_c16384_np2_simple|qwen3moe|-c 16384 -np 2 -md @SCRATCH@/qwen3.gguf --spec-type draft-simple"
    "qwen3moe_c8192_np1_draftkvq4|qwen3moe|-c 8192 -np 1 -md @SCRATCH@/qwen3.gguf -ctkd q4_0 -ctvd q4_0"
    "qwen35moe_c4096_np1_simple|qwen35moe|-c 4096 -np 1 -md @SCRATCH@/qwen3.5-4b-q4_k_m.gguf --spec-type draft-simple"
    "qwen35moe_c8192_np2|qwen35moe|-c 8192 -np 2 -md @SCRATCH@/qwen3.5-4b-q4_k_m.gguf"
)
# name|text model|flags; the projector cases keep the warm-up.
MMPROJ_CASES=(
    "qwen2vl_default|tiny|-c 512 --mmproj @SCRATCH@/qwen2vl-mmproj.gguf"
    "qwen2vl_faoff|tiny|-c 512 -fa off --mmproj @SCRATCH@/qwen2vl-mmproj.gguf"
    "qwen2vl_max1024|tiny|-c 512 --mmproj @SCRATCH@/qwen2vl-mmproj.gguf --image-max-tokens 1024"
    "qwen2vl_min256_max500|tiny|-c 512 --mmproj @SCRATCH@/qwen2vl-mmproj.gguf --image-min-tokens 256 --image-max-tokens 500"
    "qwen2vl_max8192|tiny|-c 512 --mmproj @SCRATCH@/qwen2vl-mmproj.gguf --image-max-tokens 8192"
    "qwen2vl_nooffload_faoff_max1024|tiny|-c 512 -fa off --mmproj @SCRATCH@/qwen2vl-mmproj.gguf --no-mmproj-offload --image-max-tokens 1024"
    "gemma3_default|tiny|-c 512 --mmproj @SCRATCH@/gemma3-mmproj.gguf"
    "gemma3_faoff|tiny|-c 512 -fa off --mmproj @SCRATCH@/gemma3-mmproj.gguf"
    "gemma3_nooffload_max64|tiny|-c 512 --mmproj @SCRATCH@/gemma3-mmproj.gguf --no-mmproj-offload --image-max-tokens 64"
    "refused_width_qwen2|qwen2|-c 512 --mmproj @SCRATCH@/gemma3-mmproj.gguf"
)
warmup="--no-warmup "
case "${matrix}" in
mtp) ;;
lora) CASES=("${LORA_CASES[@]}") ;;
draft) CASES=("${DRAFT_CASES[@]}") ;;
mmproj) CASES=("${MMPROJ_CASES[@]}") && warmup="" ;;
*) die "--matrix must be mtp, lora, draft or mmproj, not '${matrix}'" ;;
esac

[[ -x "${server}" ]] || die "${server} is not executable: run scripts/fetch-llama-server.sh (or pass --server)"
[[ "${build_dir}" == /* ]] || build_dir="${repo_dir}/${build_dir}"
[[ "${build}" == 0 ]] || cmake --build "${build_dir}" --target llamafit-make-gguf >/dev/null
[[ -x "${build_dir}/tests/llamafit-make-gguf" ]] || die "${build_dir}/tests/llamafit-make-gguf is not built"
version="$("${server}" --version 2>&1 | awk '/^version:/ && !found {print; found = 1}')"
build_number="$(sed -E 's/.*\(build ([0-9]+).*/\1/' <<<"${version}")"
[[ "${build_number}" =~ ^[0-9]+$ ]] || die "cannot read the build number from '${version}'"
out="${out:-${repo_dir}/tests/data/recorded/${matrix}-b${build_number}}"

scratch="$(mktemp -d /tmp/llamafit-mtp-XXXXXX)"
pid=""
cleanup() {
    [[ -n "${pid}" ]] && kill "${pid}" 2>/dev/null && wait "${pid}" 2>/dev/null
    rm -rf "${scratch}"
}
trap cleanup EXIT
"${build_dir}/tests/llamafit-make-gguf" "${repo_dir}/tests/data/shapes/mtp/qwen35moe-mtp.json" "${scratch}/qwen35moe-mtp.gguf" >/dev/null
"${build_dir}/tests/llamafit-make-gguf" qwen35moe "${scratch}/qwen35moe.gguf" >/dev/null
if [[ "${matrix}" == draft ]]; then
    # Shapes of tests/data/shapes by name, built-in cards by id: llamafit-make-gguf takes both.
    for shape in llama-3-8b-q4_k_m llama-3.2-1b-q8_0 qwen3moe qwen3 qwen3.5-4b-q4_k_m; do
        "${build_dir}/tests/llamafit-make-gguf" "${shape}" "${scratch}/${shape}.gguf" >/dev/null
    done
fi
if [[ "${matrix}" == mmproj ]]; then
    "${build_dir}/tests/llamafit-make-gguf" tiny "${scratch}/tiny.gguf" >/dev/null
    "${build_dir}/tests/llamafit-make-gguf" qwen2 "${scratch}/qwen2.gguf" >/dev/null
    for projector in "${repo_dir}"/tests/data/shapes/mmproj/*.json; do
        "${build_dir}/tests/llamafit-make-gguf" "${projector}" "${scratch}/$(basename "${projector%.json}").gguf" >/dev/null
    done
fi
if [[ "${matrix}" == lora ]]; then
    for shape in llama qwen2; do
        "${build_dir}/tests/llamafit-make-gguf" "${shape}" "${scratch}/${shape}.gguf" >/dev/null
    done
    for adapter in "${repo_dir}"/tests/data/shapes/lora/*.json; do
        "${build_dir}/tests/llamafit-make-gguf" "${adapter}" "${scratch}/$(basename "${adapter%.json}").gguf" >/dev/null
    done
fi

# The kept lines of record-server-runs.sh, plus the MTP draft context's opening line.
keep='^[IWEDT] (load_tensors: .* model buffer size =|load_tensors: +offloaded |llama_context: +(n_seq_max|n_ctx|n_ctx_seq|n_batch|n_ubatch|flash_attn|kv_unified|n_rs_seq|n_outputs_max) +=|llama_context: .* output buffer size =|llama_kv_cache_iswa: creating|llama_kv_cache: +(.* KV buffer size =|size =)|llama_memory_recurrent: +(.* RS buffer size =|size =)|resolve_fused_ops: Flash Attention|sched_reserve: .*compute buffer size =|sched_reserve: reserve took|common_speculative_init_result: (creating MTP draft context|loading draft model)|llama_adapter_lora_init_impl: .* LoRA buffer size =|load_hparams: +model size:|get_dummy_batch: warmup with image size|reserve_compute_meta: .*compute buffer size =|warmup: flash attention is)|^E |exiting due to model loading error|mismatch between text model|listening on|common_params_print_info: build'

mkdir -p "${out}"
rm -f "${out}"/*.txt
for entry in "${CASES[@]}"; do
    IFS='|' read -r name shape flags <<<"${entry}"
    port=$((18000 + RANDOM % 1000))
    log="${scratch}/${name}.log"
    # shellcheck disable=SC2086 # the flags are words
    LLAMAFIT_NO_POPULATE=1 "${server}" -m "${scratch}/${shape}.gguf" -lv 4 ${warmup}-fit off -t 2 ${flags//@SCRATCH@/${scratch}} \
        --host 127.0.0.1 --port "${port}" >"${log}" 2>&1 &
    pid=$!
    for _ in $(seq 600); do
        grep -q -E 'listening on|exiting due to model loading error' "${log}" && break
        kill -0 "${pid}" 2>/dev/null || break
        sleep 0.5
    done
    kill "${pid}" 2>/dev/null || true
    wait "${pid}" 2>/dev/null || true
    pid=""
    grep -q -E 'listening on|exiting due to model loading error' "${log}" || die "${name}: the server neither listened nor refused; its log: ${log}"
    {
        echo "# llama-server run of the ${matrix} case ${name}: written by scripts/record-mtp-runs.sh, do not edit"
        echo "server: ${version}"
        # shellcheck disable=SC2016 # $SCRATCH and $PORT are literal placeholders
        echo 'argv: llama-server -m $SCRATCH/'"${shape}.gguf -lv 4 ${warmup}-fit off -t 2 ${flags//@SCRATCH@/\$SCRATCH}"' --host 127.0.0.1 --port $PORT'
        echo "env: LLAMAFIT_NO_POPULATE=1"
        echo "log:"
        # shellcheck disable=SC2016 # $SCRATCH is a literal placeholder
        sed -E 's/^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+ //' "${log}" | { grep -E "${keep}" || true; } |
            sed -E "s|${scratch}/|\$SCRATCH/|g; s/reserve took [0-9.]+ ms/reserve took <ms> ms/; s/:${port}/:\$PORT/g"
    } >"${out}/${name}.txt"
    echo "record-mtp-runs: ${name}"
done
echo "record-mtp-runs: ${#CASES[@]} runs recorded in ${out}"
