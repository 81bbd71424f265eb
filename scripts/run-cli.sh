#!/usr/bin/env bash
# Sets up LlamaFit on a fresh Debian 12 machine and sizes the built-in Qwen3.5-35B-A3B
# Q6_K card at 65536 context with q8_0 KV, the configuration of the seed article.
# Extra arguments replace the default estimate: scripts/run-cli.sh cards
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-build-deps.sh
build_dir=${LLAMAFIT_BUILD_DIR:-build}
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLLAMAFIT_BUILD_TESTS=OFF >/dev/null
cmake --build "$build_dir" --target llamafit-cli -j "$(nproc)"

if (($#)); then
    exec "$build_dir/app/cli/llamafit-cli" "$@"
fi
exec "$build_dir/app/cli/llamafit-cli" estimate -m qwen3.5-35b-a3b-q6_k -c 65536 -ctk q8_0 -ctv q8_0
