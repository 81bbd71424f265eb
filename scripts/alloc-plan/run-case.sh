#!/bin/bash
# run-case.sh CASE: runs one recorded Vulkan case (tests/data/recorded/vulkan-lavapipe-b11669/
# CASE.txt) on the GPU rig with allocdump.c preloaded, and leaves $OUT/CASE.dump.N (one per
# reserve; the last pp reserve is .0) and $OUT/CASE.log (OUT defaults to /tmp/alloc-plan). Needs
# build/tests/llamafit-make-gguf (--blocks/--vocab cut the shape as the matrix does). Then:
#   python3 scripts/alloc-plan/galloc_replay.py $OUT/CASE.dump.0 64 64
#   python3 scripts/alloc-plan/peak.py $OUT/CASE.dump.0 0
#   python3 scripts/alloc-plan/sequence.py $OUT/CASE.dump.0 0
# An RPC case (REC_DIR=tests/data/recorded/rpc-b11669): start two ggml-rpc-server -H 127.0.0.1 -d CPU
# on the recorded ports first, hide lavapipe with VK_DEVICES= (empty) and dump all three buffers with
# GRAPH_NBUF=3; the RPC servers' buffers align to 32 B.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=scripts/alloc-plan/stopserver.sh
source "$here/stopserver.sh"
repo="$(cd "$here/../.." && pwd)"
rig="${LLAMAFIT_RIG:-$repo/.llama-server/gpu}"
out="${OUT:-/tmp/alloc-plan}"
mkdir -p "$out"
[ -f "$out/liballocdump.so" ] || gcc -shared -fPIC -O1 -o "$out/liballocdump.so" "$here/allocdump.c" -ldl
c="$1"
# REC_DIR: another folder of CASE.txt files (an "argv: llama-server ..." line each), for a run the
# matrix does not hold (a whole shape, other settings).
rec="${REC_DIR:-$repo/tests/data/recorded/vulkan-lavapipe-b11669}/$c.txt"
argv=$(grep "^argv:" "$rec" | sed 's/^argv: llama-server //')
model=$(echo "$argv" | sed 's/.*\$SCRATCH\/\([^ ]*\)\.gguf.*/\1/')
stem=$(echo "$model" | sed -E 's/_l[0-9]+//; s/_v[0-9]+//')
case $stem in deepseek2_mla) shape=deepseek2-mla ;; gpt_oss) shape=gpt-oss ;; falcon_h1) shape=falcon-h1 ;; command_r) shape=command-r ;; ernie4_5_moe) shape=ernie4_5-moe ;; minimax_m2) shape=minimax-m2 ;; hunyuan_moe) shape=hunyuan-moe ;; *) shape=$stem ;; esac
cut=""
[[ $model =~ _l([0-9]+) ]] && cut="$cut --blocks ${BASH_REMATCH[1]}"
[[ $model =~ _v([0-9]+) ]] && cut="$cut --vocab ${BASH_REMATCH[1]}"
# shellcheck disable=SC2086
[ -f "$out/$model.gguf" ] || "$repo/build/tests/llamafit-make-gguf" "$shape" "$out/$model.gguf" $cut >/dev/null
port=$((19000 + RANDOM % 900))
args=$(echo "$argv" | sed "s#\$SCRATCH#$out#; s#\$PORT#$port#")
root="$rig/../root"
lib="$root/usr/lib/x86_64-linux-gnu"
rm -f "$out/$c".dump.*
# shellcheck disable=SC2086
env -u GGML_BACKEND_PATH GGML_VK_VISIBLE_DEVICES="${VK_DEVICES-0}" GRAPH_DUMP="$out/$c.dump" GRAPH_NBUF="${GRAPH_NBUF:-2}" \
    timeout 120 "$rig/ld-linux-x86-64.so.2" --inhibit-cache \
    --library-path "$lib:$lib/llama:/usr/lib/x86_64-linux-gnu:/lib/x86_64-linux-gnu" \
    --preload "$rig/../libnopopulate.so $out/liballocdump.so" "$root/usr/bin/llama-server" $args \
    >"$out/$c.log" 2>&1 &
stop_server_when $! "$out/$c.log" "sched copies\|error" 100
grep "compute buffer size" "$out/$c.log" | sed 's/.*sched_reserve:/  this run:/'
grep "compute buffer size" "$rec" | sed 's/.*sched_reserve:/  recorded:/'
