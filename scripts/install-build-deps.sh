#!/usr/bin/env bash
# Installs the Debian 12 packages LlamaFit builds and tests with. Idempotent: packages
# already present are left alone, and apt is not touched when nothing is missing.
set -euo pipefail

packages=(
    build-essential cmake ninja-build pkg-config
    libgtest-dev libgmock-dev libbenchmark-dev nlohmann-json3-dev
    # llamafit_system: Qt 6 Core (QtTest for the sampler tests), the Vulkan loader and headers,
    # and Mesa's lavapipe so device discovery is tested on a real Vulkan driver without a GPU
    qt6-base-dev libvulkan-dev mesa-vulkan-drivers vulkan-tools
    # the desktop app: QCustomPlot, Qt Linguist (lupdate/lrelease for the Japanese
    # translation), Xvfb for the screenshot tests, and fonts with Japanese glyphs
    libqcustomplot-dev qt6-tools-dev qt6-tools-dev-tools qt6-l10n-tools
    xvfb xauth fonts-dejavu-core fonts-ipafont-gothic
    # the sanitizer build and the fuzz harnesses (CMakePresets.json "asan", scripts/fuzz.sh)
    clang-14 libclang-rt-14-dev
    # apt-get download / dpkg -x for the llama-server test rig
    apt ca-certificates debian-archive-keyring curl
)

"$(dirname "$0")"/ensure-packages.sh install-build-deps "${packages[@]}"
