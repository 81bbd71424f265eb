#!/bin/bash
# record-plans.sh [--out DIR] RECORDING.txt...: re-runs recorded llama-server cases
# (tests/data/recorded/<matrix>/<case>.txt) with allocdump.c preloaded and GRAPH_PRE=1, and keeps
# each reserve's graph as the scheduler got it and as ggml-alloc got it, compacted, in
# DIR/<matrix>_<case>/<n>.pre and <n>.post (DIR defaults to tests/data/plans). The sizing engine's
# test (tests/unit/sizing/engineplans_test.cpp) feeds the .pre graph to the scheduler and allocator
# ports and compares with the .post. A CPU recording runs on the GPU rig with no Vulkan device
# visible (the same CPU backend library as the CPU wrapper), a Vulkan one on lavapipe. An RPC one
# (rpc-*: an "argv:" line with --rpc 127.0.0.1:PORT,..., and "env: GGML_VK_VISIBLE_DEVICES=0" to
# keep lavapipe beside the servers) starts one ggml-rpc-server -d CPU per endpoint, on loopback
# only, and stops each by its process id after the case (and on any exit of this script).
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
rpc_pids=()
# stop_rpc_servers: asks each ggml-rpc-server this script started to stop, then kills the ones
# still there after a grace period, and reaps them all.
stop_rpc_servers() {
    local pid
    for pid in "${rpc_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for _ in 1 2 3 4 5 6 7 8 9 10; do
        local alive=0
        for pid in "${rpc_pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
        [[ $alive == 0 ]] && break
        sleep 0.5
    done
    for pid in "${rpc_pids[@]}"; do
        kill -9 "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    rpc_pids=()
}
trap 'stop_rpc_servers; rm -rf "$scratch"' EXIT
trap 'exit 130' INT TERM
# start_rpc_servers ARGV: one ggml-rpc-server -H 127.0.0.1 -d CPU per --rpc endpoint, each
# waited for until its port accepts a connection.
start_rpc_servers() {
    local endpoints endpoint port
    endpoints=$(sed -E 's/.*--rpc ([^ ]+).*/\1/' <<<"$1")
    for endpoint in ${endpoints//,/ }; do
        port="${endpoint##*:}"
        [[ "${endpoint%:*}" == 127.0.0.1 ]] || { echo "record-plans: $endpoint is not loopback" >&2; return 1; }
        LLAMAFIT_NO_POPULATE=1 "$repo/.llama-server/gpu/ggml-rpc-server" -H 127.0.0.1 -p "$port" -d CPU \
            >"$scratch/rpc-$port.log" 2>&1 &
        rpc_pids+=($!)
        for _ in $(seq 1 100); do
            (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
            sleep 0.2
        done
    done
}
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
    if [[ "$matrix" == rpc* ]]; then
        argv_line="$(grep "^argv:" "$recording")"
        grep -q "^env:.*GGML_VK_VISIBLE_DEVICES=0" "$recording" && devices="0"
        endpoints=$(sed -E 's/.*--rpc ([^ ]+).*/\1/' <<<"$argv_line")
        commas="${endpoints//[^,]/}"
        # the servers, the CPU and lavapipe where it is visible
        buffers=$((${#commas} + 2 + ${#devices}))
        start_rpc_servers "$argv_line" || continue
    fi
    rm -f "$scratch/$case".dump.*
    # run-case.sh ends by comparing with the recording's buffer lines, which a case written by hand
    # (an argv line only) lacks: whether the server planned is told by the dumps.
    OUT="$scratch" REC_DIR="$(dirname "$recording")" VK_DEVICES="$devices" GRAPH_NBUF="$buffers" GRAPH_PRE=1 \
        "$here/run-case.sh" "$case" >"$scratch/run.txt" 2>&1 || true
    stop_rpc_servers
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
    # and the scheduler's copies (4 under pipeline parallelism), which the tests hand the port
    grep "compute buffer size\|sched copies" "$scratch/$case.log" |
        sed 's/.*sched_reserve: *//; s/^reserve took .* ms, //' >"$dest/$name/log.txt"
    grep "^argv:" "$recording" >"$dest/$name/argv.txt"
    echo "record-plans: $name: ${#pres[@]} reserves, $kept kept"
done
