#!/bin/bash
# record-plans.sh [--out DIR] RECORDING.txt...: re-runs recorded llama-server cases
# (tests/data/recorded/<matrix>/<case>.txt) with allocdump.c preloaded and GRAPH_PRE=1, and keeps
# each reserve's graph as the scheduler got it and as ggml-alloc got it, compacted, in
# DIR/<matrix>_<case>/<n>.pre and <n>.post (DIR defaults to tests/data/plans). The sizing engine's
# test (tests/unit/sizing/engineplans_test.cpp) feeds the .pre graph to the scheduler and allocator
# ports and compares with the .post. A CPU recording runs on the GPU rig with no Vulkan device
# visible (the same CPU backend library as the CPU wrapper), a Vulkan one on lavapipe.
# Needs build/tests/llamafit-make-gguf and scripts/fetch-llama-server.sh's .llama-server.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
dest="$repo/tests/data/plans"
if [[ "${1:-}" == "--out" ]]; then
    dest="$2"
    shift 2
fi
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
for recording in "$@"; do
    matrix="$(basename "$(dirname "$recording")")"
    case="$(basename "$recording" .txt)"
    name="${matrix%%-b*}_${case}"
    name="${name//-/_}"
    devices=""
    buffers=1
    if [[ "$matrix" == vulkan* ]]; then
        devices="0"
        buffers=2 # Vulkan0 and the CPU
    fi
    rm -f "$scratch/$case".dump.*
    # run-case.sh ends by comparing with the recording's buffer lines, which a case written by hand
    # (an argv line only) lacks: whether the server planned is told by the dumps.
    OUT="$scratch" REC_DIR="$(dirname "$recording")" VK_DEVICES="$devices" GRAPH_NBUF="$buffers" GRAPH_PRE=1 \
        "$here/run-case.sh" "$case" >"$scratch/run.txt" 2>&1 || true
    pres=("$scratch/$case".dump.pre.*)
    if [[ ! -e "${pres[0]}" ]]; then
        echo "record-plans: $case wrote no plan: $(grep -m 3 -i "error\|abort\|failed" "$scratch/$case.log")" >&2
        continue
    fi
    mkdir -p "$dest/$name"
    rm -f "$dest/$name"/*
    kept=0
    for n in $(seq 0 $((${#pres[@]} - 1))); do
        pre="$scratch/$case.dump.pre.$n"
        post="$scratch/$case.dump.$n"
        [[ -f "$post" ]] || { echo "record-plans: $case: reserve $n has no ggml-alloc dump" >&2; continue; }
        # llama.cpp reserves the prompt graph again after the token graph; the same graph reserves
        # the same buffers, so a repeat is not kept.
        repeat=0
        for earlier in "$dest/$name"/*.pre; do
            [[ -f "$earlier" ]] && cmp -s "$earlier" "$pre" && repeat=1
        done
        [[ $repeat == 1 ]] && continue
        n=$kept
        kept=$((kept + 1))
        cp "$pre" "$dest/$name/$n.pre"
        # The post-split graph without pointers, names, shapes and sources: tag, index, backend, pre#.
        sed -E 's/^(L|N) ([0-9]+) (0x[0-9a-f]+|\(nil\)) (-?[0-9]+) .* (pre#-?[0-9]+)$/\1 \2 - \4 \5/' "$post" |
            grep -E '^(BUF|L|N) ' >"$dest/$name/$n.post"
    done
    grep "compute buffer size" "$scratch/$case.log" | sed 's/.*sched_reserve: *//' >"$dest/$name/log.txt"
    grep "^argv:" "$recording" >"$dest/$name/argv.txt"
    echo "record-plans: $name: ${#pres[@]} reserves, $kept kept"
done
