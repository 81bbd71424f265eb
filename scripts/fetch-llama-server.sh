#!/usr/bin/env bash
# fetch-llama-server.sh [DEST]
# fetch-llama-server.sh --latest DEST
#
# Installs the llama-server LlamaFit's sizing is checked against -- Debian sid's
# llama.cpp 0.7.0 (upstream build b11669) -- into DEST (default <repo>/.llama-server)
# without touching the system: a private apt sources list, state and cache, then
# `apt-get download` of pinned packages and `dpkg -x` into DEST/root. The current sid
# glibc and C++ runtime are unpacked next to it, so the binary runs on an older
# distribution through the bundled dynamic loader.
#
# Produces:
#   DEST/root/...             the unpacked packages
#   DEST/libnopopulate.so     tests/support/nopopulate.c (drops MAP_POPULATE / WILLNEED hints)
#   DEST/llama-server         wrapper: runs the bundled server with the bundled ld.so and the
#                             CPU backend only; LLAMAFIT_NO_POPULATE=1 preloads libnopopulate.so
#   DEST/llama-fit-params, DEST/llama-bench   the same wrapper around those tools
#   DEST/gpu/llama-server, DEST/gpu/llama-fit-params, DEST/gpu/llama-bench, DEST/gpu/ggml-rpc-server
#                             the same tools with the CPU, Vulkan and RPC backends of the same ggml
#                             loaded (ggml's backend search finds them next to DEST/gpu's copy of
#                             the loader) and the host's libvulkan/Mesa appended to the library
#                             path; lavapipe is made visible (GGML_VK_VISIBLE_DEVICES=0 unless
#                             set). ../shared/reference/gpu-backends.md has the background.
# The integration tests find the wrapper through $LLAMAFIT_LLAMA_SERVER or the CMake
# cache variable LLAMAFIT_LLAMA_SERVER_ROOT.
#
# Idempotent: a DEST whose server already reports 0.7.0 (build 11669) is not downloaded
# again. No sudo; run it as any user on Debian/Ubuntu (apt-get and dpkg must exist).
#
# --latest DEST: the same private setup without version pins: whatever llama.cpp sid has
# now (the first step of a version bump: scripts/compare-builds.sh DEST then says what changed).
#
# Exit status:
#   0  ready
#   3  the pinned build cannot be fetched here (the archive has moved on, no network, not a
#      Debian amd64 system): DEST/UNAVAILABLE holds the reason on one line, and the tests
#      that need the live server report "skipped" with it (tests/support/llamaserverrun.h).
#   1  anything else (a broken unpack, no C compiler for the shim)
# A successful run removes DEST/UNAVAILABLE.
#
# LLAMAFIT_FETCH_LLAMA_VERSION=V pins llama.cpp-tools/libllama0 to V instead of the version
# below: with a version sid does not have, it shows the "archive has moved on" path.

set -euo pipefail

# Pinned versions: the runtime LlamaFit's numbers are validated against.
readonly LLAMA_VERSION="${LLAMAFIT_FETCH_LLAMA_VERSION:-1:0.7.0+dfsg-2}"
readonly GGML_VERSION="0.27.0-1"
readonly EXPECTED_VERSION_TEXT="0.7.0 (build 11669"
readonly PINNED_PACKAGES=("llama.cpp-tools=${LLAMA_VERSION}" "llama.cpp-tools-extra=${LLAMA_VERSION}"
    "libllama0=${LLAMA_VERSION}" "libggml0=${GGML_VERSION}"
    "libggml0-backend-vulkan=${GGML_VERSION}" "libggml0-backend-rpc=${GGML_VERSION}")
# --latest: the server package; its llama/ggml libraries are added from its Depends.
readonly LATEST_PACKAGE="llama.cpp-tools"
readonly LATEST_EXTRA_PACKAGES=(llama.cpp-tools-extra libggml0-backend-vulkan libggml0-backend-rpc)
readonly EXIT_UNAVAILABLE=3
# Runtime libraries: whatever sid has now (they are backwards compatible).
readonly RUNTIME_PACKAGES=(libc6 libstdc++6 libgcc-s1 libgomp1 libssl3t64 zlib1g libzstd1)
readonly ARCHIVE_LINE="deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian sid main"

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_dir="$(cd "${script_dir}/.." && pwd)"
latest=0
if [[ "${1:-}" == "--latest" ]]; then
    latest=1
    shift
    [[ $# -eq 1 ]] || {
        echo "usage: $0 --latest DEST" >&2
        exit 2
    }
fi
dest="${1:-${repo_dir}/.llama-server}"
mkdir -p "${dest}"
dest="$(cd "${dest}" && pwd)"
root="${dest}/root"
lib_dir="${root}/usr/lib/x86_64-linux-gnu"
loader="${root}/usr/lib64/ld-linux-x86-64.so.2"
backend="${lib_dir}/ggml/backends0/libggml-cpu-haswell.so"
readonly GPU_BACKEND_NAMES=(libggml-vulkan.so libggml-rpc.so)
readonly RPC_SERVER_IN_ROOT="usr/libexec/x86_64-linux-gnu/llama/bin/ggml-rpc-server"

die() {
    echo "fetch-llama-server: $*" >&2
    exit 1
}

# The pinned build cannot be had here: say why, on stderr and in DEST/UNAVAILABLE (one line,
# read by the tests to report "skipped"), and exit with the status scripts/test.sh tells apart.
unavailable() {
    local reason="$1"
    shift
    echo "fetch-llama-server: UNAVAILABLE: ${reason}" >&2
    local detail
    for detail in "$@"; do
        echo "${detail}" >&2
    done
    echo "${reason}" >"${dest}/UNAVAILABLE"
    rm -rf "${dest}/apt"
    exit "${EXIT_UNAVAILABLE}"
}

# Runs the unpacked server directly (no wrapper, no preload) and prints its version text.
unpacked_version() {
    [[ -x "${root}/usr/bin/llama-server" && -x "${loader}" ]] || return 0
    GGML_BACKEND_PATH="${backend}" "${loader}" --inhibit-cache \
        --library-path "${lib_dir}:${lib_dir}/llama" "${root}/usr/bin/llama-server" --version 2>&1 || true
}

download_and_unpack() {
    command -v apt-get >/dev/null || unavailable "apt-get not found: fetching llama-server needs a Debian-based system"
    command -v dpkg >/dev/null || unavailable "dpkg not found: fetching llama-server needs a Debian-based system"
    [[ "$(dpkg --print-architecture)" == "amd64" ]] ||
        unavailable "only amd64 is supported (Debian's x86-64 CPU backends), this is $(dpkg --print-architecture)"
    [[ -r /usr/share/keyrings/debian-archive-keyring.gpg ]] ||
        unavailable "/usr/share/keyrings/debian-archive-keyring.gpg missing: install debian-archive-keyring"

    local apt_dir="${dest}/apt"
    rm -rf "${apt_dir}"
    mkdir -p "${apt_dir}/lists/partial" "${apt_dir}/cache/archives/partial" "${apt_dir}/debs"
    echo "${ARCHIVE_LINE}" >"${apt_dir}/sources.list"

    # Every path apt would write to or read policy from is redirected, so the system's
    # sources, pinning, package state and caches are neither used nor changed.
    local apt_options=(
        -o "Dir::Etc::SourceList=${apt_dir}/sources.list"
        -o "Dir::Etc::SourceParts=/dev/null"
        -o "Dir::Etc::Preferences=/dev/null"
        -o "Dir::Etc::PreferencesParts=/dev/null"
        -o "Dir::State::Lists=${apt_dir}/lists"
        -o "Dir::State::Status=/dev/null"
        -o "Dir::State::extended_states=${apt_dir}/extended_states"
        -o "Dir::Cache=${apt_dir}/cache"
        -o "Debug::NoLocking=1"
        -o "APT::Architecture=amd64"
        -o "APT::Architectures=amd64"
    )
    # As root apt hands downloads to the _apt user, who cannot write into DEST.
    if [[ "$(id -u)" == "0" ]]; then
        apt_options+=(-o "APT::Sandbox::User=root")
    fi

    echo "fetch-llama-server: reading the Debian sid package index"
    # apt-get update succeeds (with warnings) when it cannot connect: look for the index itself.
    apt-get "${apt_options[@]}" -qq update ||
        unavailable "apt-get update of Debian sid failed (no network to deb.debian.org?)"
    compgen -G "${apt_dir}/lists/*_sid_main_binary-amd64_Packages*" >/dev/null ||
        unavailable "could not read Debian sid's package index (no network to deb.debian.org?)"

    local packages=("${PINNED_PACKAGES[@]}")
    if [[ "${latest}" == "1" ]]; then
        # No pins: the server and the llama/ggml libraries it depends on, as sid has them now.
        packages=("${LATEST_PACKAGE}")
        local depends
        depends="$(apt-cache "${apt_options[@]}" depends "${LATEST_PACKAGE}" 2>/dev/null |
            awk '$1 == "Depends:" && $2 ~ /^lib(llama|ggml)/ {print $2}' | sort -u)" ||
            unavailable "sid has no ${LATEST_PACKAGE}"
        [[ -n "${depends}" ]] || unavailable "sid has no ${LATEST_PACKAGE} (or it depends on no libllama/libggml)"
        # shellcheck disable=SC2206 # package names have no spaces
        packages+=(${depends} "${LATEST_EXTRA_PACKAGES[@]}")
    fi

    local spec name version
    for spec in "${packages[@]}"; do
        [[ "${spec}" == *=* ]] || continue
        name="${spec%%=*}"
        version="${spec#*=}"
        # `apt-cache show pkg=ver` succeeds even for a missing version; madison lists the real ones.
        if ! apt-cache "${apt_options[@]}" madison "${name}" 2>/dev/null |
            awk -F'|' -v want="${version}" '{gsub(/ /, "", $2)} $2 == want {found = 1} END {exit !found}'; then
            local now
            now="$(apt-cache "${apt_options[@]}" policy "${name}" 2>/dev/null | awk '/Candidate:/ {print $2}')"
            unavailable "the Debian archive has moved on: ${name} ${version} is not in sid (any more; sid now has: ${now:-nothing})" \
                "LlamaFit's sizing rules are validated against llama.cpp 0.7.0 (build b11669); the unit tests still" \
                "check them against the recordings in tests/data/recorded/. To run the live tests, either fetch the" \
                "old debs from https://snapshot.debian.org (and unpack them into ${root} with dpkg -x), or move the" \
                "project to the new version: scripts/fetch-llama-server.sh --latest DIR, then scripts/compare-builds.sh DIR" \
                "(see tests/data/recorded/README.md), then update the pins at the top of ${BASH_SOURCE[0]}."
        fi
    done

    echo "fetch-llama-server: downloading ${packages[*]} ${RUNTIME_PACKAGES[*]}"
    (cd "${apt_dir}/debs" && apt-get "${apt_options[@]}" -qq download "${packages[@]}" "${RUNTIME_PACKAGES[@]}") ||
        unavailable "apt-get download of ${packages[*]} from Debian sid failed (network?)"

    rm -rf "${root}"
    mkdir -p "${root}"
    local deb
    for deb in "${apt_dir}/debs"/*.deb; do
        dpkg -x "${deb}" "${root}"
    done
    rm -rf "${apt_dir}"
    if [[ "${latest}" == "1" ]]; then
        # The backend folder is named after ggml's soname (backends0 for libggml0).
        local found
        found="$(find "${lib_dir}/ggml" -name libggml-cpu-haswell.so 2>/dev/null | head -n 1)"
        [[ -n "${found}" ]] || die "no libggml-cpu-haswell.so under ${lib_dir}/ggml in sid's ${LATEST_PACKAGE}"
        backend="${found}"
    fi
}

build_shim() {
    local source="${repo_dir}/tests/support/nopopulate.c"
    local shim="${dest}/libnopopulate.so"
    [[ -r "${source}" ]] || die "${source} missing"
    if [[ ! -f "${shim}" || "${source}" -nt "${shim}" ]]; then
        local cc="${CC:-cc}"
        command -v "${cc}" >/dev/null || die "no C compiler (${cc}): install gcc to build the LD_PRELOAD shim"
        # Built by the system compiler, loaded by sid's newer glibc: it only uses
        # dlsym/mmap/madvise, which every glibc since 2.2.5 exports.
        "${cc}" -shared -fPIC -O2 -Wall -Wextra -o "${shim}.tmp" "${source}" -ldl
        mv "${shim}.tmp" "${shim}"
    fi
}

write_wrapper() {
    local wrapper="${dest}/llama-server"
    local backend_in_root="${backend#"${root}/"}"
    sed "s|@BACKEND@|${backend_in_root}|" >"${wrapper}.tmp" <<'EOF'
#!/bin/sh
# Written by scripts/fetch-llama-server.sh: runs the unpacked Debian llama-server
# with its own glibc (bundled ld.so, --library-path) and the haswell CPU backend, so
# results do not depend on the host's libraries or on which CPU variant ggml would pick.
# LLAMAFIT_NO_POPULATE=1 preloads libnopopulate.so (see tests/support/nopopulate.c).
here="$(cd "$(dirname "$0")" && pwd)"
root="$here/root"
lib="$root/usr/lib/x86_64-linux-gnu"
GGML_BACKEND_PATH="$root/@BACKEND@"
export GGML_BACKEND_PATH
if [ "${LLAMAFIT_NO_POPULATE:-0}" = "1" ]; then
    exec "$root/usr/lib64/ld-linux-x86-64.so.2" --inhibit-cache --library-path "$lib:$lib/llama" \
        --preload "$here/libnopopulate.so" "$root/usr/bin/llama-server" "$@"
fi
exec "$root/usr/lib64/ld-linux-x86-64.so.2" --inhibit-cache --library-path "$lib:$lib/llama" \
    "$root/usr/bin/llama-server" "$@"
EOF
    chmod 755 "${wrapper}.tmp"
    mv "${wrapper}.tmp" "${wrapper}"
}

# Tools beside llama-server, with the same loader and CPU backend as its wrapper.
write_tool_wrappers() {
    local tool
    for tool in llama-fit-params llama-bench; do
        sed "s|usr/bin/llama-server|usr/bin/${tool}|g" "${dest}/llama-server" >"${dest}/${tool}.tmp"
        chmod 755 "${dest}/${tool}.tmp"
        mv "${dest}/${tool}.tmp" "${dest}/${tool}"
    done
}

# DEST/gpu: the multi-backend tree. ggml loads the libggml-*.so it finds in the folder of the
# running executable (ggml/src/ggml-backend-reg.cpp), and under the bundled loader that
# executable is the loader itself: so a copy of the loader sits in DEST/gpu next to the CPU
# (haswell only, as in the CPU wrapper), Vulkan and RPC backends.
write_gpu_tree() {
    local gpu="${dest}/gpu"
    local name found
    rm -rf "${gpu}"
    mkdir -p "${gpu}"
    cp -L "${loader}" "${gpu}/ld-linux-x86-64.so.2"
    cp "${backend}" "${gpu}/"
    for name in "${GPU_BACKEND_NAMES[@]}"; do
        found="$(find "${lib_dir}/ggml" -name "${name}" 2>/dev/null | head -n 1)"
        [[ -n "${found}" ]] || die "${name} missing under ${lib_dir}/ggml (libggml0-backend-vulkan/-rpc not unpacked?)"
        cp "${found}" "${gpu}/"
    done
    local tool target
    for tool in llama-server llama-fit-params llama-bench ggml-rpc-server; do
        target="usr/bin/${tool}"
        [[ "${tool}" == ggml-rpc-server ]] && target="${RPC_SERVER_IN_ROOT}"
        sed "s|@TOOL@|${target}|" >"${gpu}/${tool}.tmp" <<'EOF'
#!/bin/sh
# Written by scripts/fetch-llama-server.sh: the unpacked Debian tool with the CPU, Vulkan and
# RPC backends of its ggml (found next to this folder's copy of the loader), its own glibc
# first and the host's libraries last (libvulkan.so.1 and Mesa's drivers come from there).
# GGML_VK_VISIBLE_DEVICES=0 unless set: ggml's Vulkan backend skips CPU-type devices such as
# lavapipe otherwise. LLAMAFIT_NO_POPULATE=1 preloads ../libnopopulate.so.
here="$(cd "$(dirname "$0")" && pwd)"
root="$here/../root"
lib="$root/usr/lib/x86_64-linux-gnu"
unset GGML_BACKEND_PATH
GGML_VK_VISIBLE_DEVICES="${GGML_VK_VISIBLE_DEVICES-0}"
export GGML_VK_VISIBLE_DEVICES
path="$lib:$lib/llama:/usr/lib/x86_64-linux-gnu:/lib/x86_64-linux-gnu"
if [ "${LLAMAFIT_NO_POPULATE:-0}" = "1" ]; then
    exec "$here/ld-linux-x86-64.so.2" --inhibit-cache --library-path "$path" \
        --preload "$here/../libnopopulate.so" "$root/@TOOL@" "$@"
fi
exec "$here/ld-linux-x86-64.so.2" --inhibit-cache --library-path "$path" "$root/@TOOL@" "$@"
EOF
        chmod 755 "${gpu}/${tool}.tmp"
        mv "${gpu}/${tool}.tmp" "${gpu}/${tool}"
    done
}

# An unpack from before the GPU backends were pinned lacks them: fetch again.
gpu_packages_unpacked() {
    [[ -x "${root}/${RPC_SERVER_IN_ROOT}" && -x "${root}/usr/bin/llama-fit-params" ]] &&
        [[ -n "$(find "${lib_dir}/ggml" -name libggml-vulkan.so 2>/dev/null | head -n 1)" ]]
}

if [[ "${latest}" == "1" ]]; then
    download_and_unpack
    [[ -n "$(unpacked_version)" ]] || die "the unpacked llama-server from sid does not run"
elif [[ "$(unpacked_version)" == *"${EXPECTED_VERSION_TEXT}"* ]] && gpu_packages_unpacked; then
    echo "fetch-llama-server: ${root} already holds llama-server ${EXPECTED_VERSION_TEXT})"
else
    download_and_unpack
    [[ "$(unpacked_version)" == *"${EXPECTED_VERSION_TEXT}"* ]] ||
        die "unpacked llama-server does not report ${EXPECTED_VERSION_TEXT}): $(unpacked_version)"
fi
build_shim
write_wrapper
write_tool_wrappers
write_gpu_tree
rm -f "${dest}/UNAVAILABLE"

# The wrapper with the shim preloaded must run: this proves the shim loads under sid's glibc.
LLAMAFIT_NO_POPULATE=1 "${dest}/llama-server" --version 2>&1 | head -n 1
# Vulkan needs the host's libvulkan1 and mesa-vulkan-drivers (scripts/install-build-deps.sh);
# without them the GPU tree still runs, with the CPU and RPC backends only.
"${dest}/gpu/llama-server" --list-devices 2>&1 | grep -E '^ *(Vulkan|RPC)[0-9]' || true
echo "fetch-llama-server: ready: ${dest}/llama-server, ${dest}/gpu/llama-server"
