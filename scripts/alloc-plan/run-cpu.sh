#!/bin/bash
# run-cpu.sh NAME MODEL.gguf [llama-server flags...]: runs the CPU llama-server of
# .llama-server/ (scripts/fetch-llama-server.sh) on MODEL with allocdump.c preloaded, until it
# listens or fails, and leaves $OUT/NAME.dump.N (one per ggml-alloc reserve, in order: the main
# context's, then e.g. the MTP draft context's) and $OUT/NAME.log (OUT defaults to
# /tmp/alloc-plan). The MTP draft graph of core/sizing/mtpgraph.cpp was read this way:
#   run-cpu.sh np1 qwen35moe-mtp.gguf -c 4096 -np 1 --spec-type draft-mtp
#   python3 scripts/alloc-plan/galloc_replay.py $OUT/np1.dump.3 32 32
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=scripts/alloc-plan/stopserver.sh
source "$here/stopserver.sh"
repo="$(cd "$here/../.." && pwd)"
out="${OUT:-/tmp/alloc-plan}"
mkdir -p "$out"
[ -f "$out/liballocdump.so" ] || gcc -shared -fPIC -O1 -o "$out/liballocdump.so" "$here/allocdump.c" -ldl
name="$1"
model="$2"
shift 2
server="$repo/.llama-server"
root="$server/root"
lib="$root/usr/lib/x86_64-linux-gnu"
rm -f "$out/$name".dump.*
port=$((19000 + RANDOM % 900))
GGML_BACKEND_PATH="$lib/ggml/backends0/libggml-cpu-haswell.so" GRAPH_DUMP="$out/$name.dump" GRAPH_NBUF=1 \
    timeout 300 "$root/usr/lib64/ld-linux-x86-64.so.2" --inhibit-cache --library-path "$lib:$lib/llama" \
    --preload "$server/libnopopulate.so $out/liballocdump.so" "$root/usr/bin/llama-server" \
    -m "$model" -lv 4 --no-warmup -fit off -t 2 --host 127.0.0.1 --port "$port" "$@" >"$out/$name.log" 2>&1 &
stop_server_when $! "$out/$name.log" "listening on\|error\|failed" 280
grep "compute buffer size" "$out/$name.log" | sed 's/.*sched_reserve:/  /'
ls "$out/$name".dump.*
