#!/usr/bin/env bash
# soak.sh [MINUTES] [--build-dir DIR] [--model CARD_ID|tiny]
#
# The long run of issue 13: the real llama-server (.llama-server/, scripts/fetch-llama-server.sh)
# under continuous requests for MINUTES (default 30), watched by `llamafit-cli launch` at 2 Hz
# (its monitor polls /health, /props, /slots and /metrics every 500 ms and prints a status line
# each second). The model is a built-in card written with its real dimensions and zero weights
# (default llama-3.2-1b-q8_0: a real model's speed, a few tokens a second on one thread), or
# `tiny` (the 2-layer test model: ~36 completions a second, a stress case for the log reader,
# since llama-server's prompt cache then lists thousands of cached prompts per request).
# Reports what the monitor costs and whether it grows: llamafit-cli's resident memory, open
# file descriptors and threads after the server is ready, after a warm-up minute (the
# monitor's sample rings and Qt's network caches fill then; the rings are bounded, 10 minutes
# at 2 Hz) and at the end, and its CPU time over the run as a share of one core. Targets:
# memory growth after the warm-up < 5 MB, no descriptor or thread growth, CPU <= 1 % of a core.
# A measurement, not a test: it prints the figures and exits 1 when a target is missed.
set -euo pipefail
cd "$(dirname "$0")/.."

minutes=30
build_dir=build
model=llama-3.2-1b-q8_0
while [[ $# -gt 0 ]]; do
    case "$1" in
    --build-dir) build_dir="$2" && shift 2 ;;
    --model) model="$2" && shift 2 ;;
    [0-9]*) minutes="$1" && shift ;;
    *) echo "usage: $0 [MINUTES] [--build-dir DIR] [--model CARD_ID|tiny]" >&2 && exit 2 ;;
    esac
done
cli="${build_dir}/app/cli/llamafit-cli"
make_gguf="${build_dir}/tests/llamafit-make-gguf"
server=.llama-server/llama-server
for needed in "${cli}" "${make_gguf}" "${server}"; do
    [[ -x "${needed}" ]] || { echo "soak: ${needed} is missing (build first; scripts/fetch-llama-server.sh)" >&2; exit 2; }
done

work=$(mktemp -d)
cli_pid=""
requester_pid=""
cleanup() {
    [[ -n "${requester_pid}" ]] && kill "${requester_pid}" 2>/dev/null || true
    # SIGINT: llamafit-cli stops its server (no orphan) and prints the run's totals.
    [[ -n "${cli_pid}" ]] && kill -INT "${cli_pid}" 2>/dev/null && wait "${cli_pid}" 2>/dev/null || true
    rm -rf "${work}"
}
trap cleanup EXIT

if [[ "${model}" == tiny ]]; then
    "${make_gguf}" tiny "${work}/model.gguf" --real-weights >/dev/null
else
    "${make_gguf}" "${model}" "${work}/model.gguf" >/dev/null # sparse: real dimensions, zero weights
fi
# LLAMAFIT_NO_POPULATE: the wrapper's shim keeps a sparse file's load fast (no MAP_POPULATE).
LLAMAFIT_NO_POPULATE=1 LLAMAFIT_LLAMA_SERVER="${server}" "${cli}" launch -m "${work}/model.gguf" -c 1024 -np 1 -t 1 --no-warmup \
    >"${work}/launch.out" 2>"${work}/launch.err" &
cli_pid=$!

url=""
for _ in $(seq 1 600); do
    url=$(grep -o -m 1 'http://127\.0\.0\.1:[0-9]*' "${work}/launch.out" || true)
    [[ -n "${url}" ]] && grep -q "status: ready" "${work}/launch.out" && break
    kill -0 "${cli_pid}" 2>/dev/null || { cat "${work}/launch.err" >&2; exit 1; }
    sleep 0.5 # polling a log file for readiness; nothing here is timed
done
[[ -n "${url}" ]] || { echo "soak: the server did not become ready" >&2; exit 1; }

# What /proc says about llamafit-cli: RSS KiB, descriptors, threads, CPU ticks (user + system).
sample() {
    local rss fds threads ticks
    rss=$(awk '/^VmRSS:/ {print $2}' "/proc/${cli_pid}/status")
    threads=$(awk '/^Threads:/ {print $2}' "/proc/${cli_pid}/status")
    fds=$(find "/proc/${cli_pid}/fd" -mindepth 1 -maxdepth 1 | wc -l)
    ticks=$(awk '{print $14 + $15}' "/proc/${cli_pid}/stat")
    echo "${rss} ${fds} ${threads} ${ticks}"
}

# Continuous requests: one completion after another, each generating 64 tokens.
(
    while true; do
        curl -s -o /dev/null -X POST "${url}/completion" -H 'Content-Type: application/json' \
            -d '{"prompt":"Once upon a time","n_predict":64,"ignore_eos":true}' || true
        echo >>"${work}/requests"
    done
) &
requester_pid=$!

read -r rss_ready _ _ _ < <(sample)
sleep 60 # the warm-up minute
read -r rss0 fds0 threads0 ticks0 < <(sample)
start=$(date +%s)
end=$((start + minutes * 60))
peak_rss=${rss0}
while (($(date +%s) < end)); do
    kill -0 "${cli_pid}" 2>/dev/null || { echo "soak: llamafit-cli ended early" >&2; cat "${work}/launch.err" >&2; exit 1; }
    read -r rss fds threads ticks < <(sample)
    ((rss > peak_rss)) && peak_rss=${rss}
    sleep 10 # the sampling period of this report, not a timing assertion
done
read -r rss1 fds1 threads1 ticks1 < <(sample)
elapsed=$(($(date +%s) - start))
requests=$(wc -l <"${work}/requests" 2>/dev/null || echo 0)
hz=$(getconf CLK_TCK)
cpu_percent=$(awk -v t=$((ticks1 - ticks0)) -v hz="${hz}" -v s="${elapsed}" 'BEGIN {printf "%.2f", 100 * t / hz / s}')
growth_kib=$((rss1 - rss0))
status_lines=$(grep -c '^status:' "${work}/launch.out" || true)

echo "soak: model ${model}, ${elapsed} s, ${requests} requests, ${status_lines} status lines"
echo "soak: llamafit-cli RSS ${rss_ready} KiB when ready, ${rss0} after the warm-up minute, ${rss1} at the end (growth ${growth_kib} KiB, peak ${peak_rss} KiB)"
echo "soak: descriptors ${fds0} -> ${fds1}, threads ${threads0} -> ${threads1}"
echo "soak: CPU ${cpu_percent} % of one core"
echo "soak: last status: $(grep '^status:' "${work}/launch.out" | tail -n 1)"

failed=0
((growth_kib < 5 * 1024)) || { echo "soak: memory grew by ${growth_kib} KiB (target < 5 MB)"; failed=1; }
((fds1 <= fds0)) || { echo "soak: descriptors grew"; failed=1; }
((threads1 <= threads0)) || { echo "soak: threads grew"; failed=1; }
awk -v c="${cpu_percent}" 'BEGIN {exit !(c <= 1.0)}' || { echo "soak: CPU over 1 % of a core"; failed=1; }
exit "${failed}"
