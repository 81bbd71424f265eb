#!/usr/bin/env bash
# Sets up LlamaFit on a fresh Debian 12 machine and starts the desktop app on the built-in
# Qwen3.5-35B-A3B Q6_K card (no model download needed): build dependencies, a Release build
# of the app, then llamafit. Without a display (a server, CI) it starts under Xvfb and, with
# --screenshot FILE, writes a PNG of the window and exits.
# Arguments are passed to llamafit: scripts/run-gui.sh --lang ja
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-build-deps.sh
build_dir=${LLAMAFIT_BUILD_DIR:-build}
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLLAMAFIT_BUILD_TESTS=OFF >/dev/null
cmake --build "$build_dir" --target llamafit -j "$(nproc)"

app="$build_dir/app/gui/llamafit"
if [[ -z "${DISPLAY:-}" && -z "${WAYLAND_DISPLAY:-}" && -z "${QT_QPA_PLATFORM:-}" ]]; then
    echo "run-gui: no display; starting llamafit under Xvfb (xvfb-run)" >&2
    exec xvfb-run -a -s "-screen 0 1600x1000x24" "$app" "$@"
fi
exec "$app" "$@"
