#!/usr/bin/env bash
# Times llama.cpp's own memory projection against llamafit-cli estimate on the same file.
#
# llama.cpp's projection is the dry run behind --fit: llama-server loads metadata with no
# allocation, reserves the graphs and prints its first "memory breakdown" table (-lv 4).
# We time from exec to that table (then stop the server), and llamafit-cli estimate from
# exec to exit, each N times, and print the medians and their ratio.
#
# usage: scripts/bench-dry-run.sh [BUILD_DIR] [CARD_ID] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build-test}
card=${2:-qwen3.5-35b-a3b-q6_k}
runs=${3:-5}

cli="$build_dir/app/cli/llamafit-cli"
make_gguf="$build_dir/tests/llamafit-make-gguf"
server=.llama-server/llama-server
for f in "$cli" "$make_gguf" "$server"; do
    [[ -x $f ]] || { echo "bench-dry-run: $f is missing (build the tests, run scripts/fetch-llama-server.sh)" >&2; exit 2; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
model="$work/$card.gguf"
"$make_gguf" "$card" "$model" >/dev/null

now_ns() { date +%s%N; }
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

time_llama_dry_run() {
    local start end pid
    start=$(now_ns)
    LLAMAFIT_NO_POPULATE=1 "$server" -m "$model" -lv 4 --no-warmup -c 65536 -ctk q8_0 -ctv q8_0 -t 2 \
        --host 127.0.0.1 --port 0 >"$work/log" 2>&1 &
    pid=$!
    # Wait for the first breakdown table row (the projection); inotify-free polling of the log.
    until grep -q "memory breakdown" "$work/log" 2>/dev/null; do
        kill -0 "$pid" 2>/dev/null || { echo "llama-server exited before its projection:" >&2; tail -5 "$work/log" >&2; exit 1; }
        read -rt 0.005 <> <(:) || true
    done
    end=$(now_ns)
    kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true
    echo $(((end - start) / 1000))
}

time_llamafit() {
    local start end
    start=$(now_ns)
    "$cli" estimate -m "$model" -c 65536 -ctk q8_0 -ctv q8_0 >/dev/null
    end=$(now_ns)
    echo $(((end - start) / 1000))
}

llama_us=$(for _ in $(seq "$runs"); do time_llama_dry_run; done | median)
fit_us=$(for _ in $(seq "$runs"); do time_llamafit; done | median)
echo "model: $card (sparse GGUF, $(du --apparent-size -h "$model" | cut -f1) apparent)"
echo "llama.cpp dry-run projection: median ${llama_us} us over $runs runs"
echo "llamafit-cli estimate:        median ${fit_us} us over $runs runs"
awk -v a="$llama_us" -v b="$fit_us" 'BEGIN { printf "ratio (llama.cpp / llamafit): %.1fx\n", a / b }'
