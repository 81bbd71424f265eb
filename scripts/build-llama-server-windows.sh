#!/usr/bin/env bash
# build-llama-server-windows.sh [DEST]
#
# Cross-builds the llama-server LlamaFit's sizing is checked against -- Debian sid's
# llama.cpp 1:0.7.0+dfsg-2 (upstream build b11669) on Debian's ggml 0.27.0-1 -- for Windows
# x86-64 with Debian 12's MinGW-w64 (g++-mingw-w64-x86-64-posix), CPU backend only, so the
# Windows package and the Wine tests run the same server code as the Linux rig
# (scripts/fetch-llama-server.sh), not some other upstream build.
#
# The sources come from the Debian archive only: `apt-get source --download-only` through a
# private sources list, state and cache (no root needed for that, the system's apt untouched),
# the tarballs checked against the sha256 sums of sid's Sources index, then unpacked and
# Debian's patches applied in `series` order, as Debian's own build does. ggml is built and
# installed into a private prefix first, and llama.cpp is built against it
# (LLAMA_USE_SYSTEM_GGML): Debian's +dfsg llama.cpp tarball has no ggml/src nor
# ggml/include (debian/copyright Files-Excluded), its Linux build links the separately
# packaged libggml0 the same way.
#
# Produces:
#   DEST/bin/llama-server.exe   llama.cpp (llama, llama-common, mtmd, the server) linked in,
#                               with every DLL it loads beside it: ggml.dll, ggml-base.dll,
#                               ggml-cpu.dll (found by ggml's backend search in the
#                               executable's folder), and the MinGW runtime DLLs
#                               (libstdc++-6, libgcc_s_seh-1, libwinpthread-1, libgomp-1)
#   DEST/VERSION                the source package versions and the build recipe
# DEST defaults to <repo>/.llama-server-windows (git-ignored).
#
# Idempotent: when DEST/bin/llama-server.exe exists and DEST/VERSION says what this script
# would build, it exits 0 at once (CI may call it twice).
#
# Needs Debian 12 (or later) amd64 with network access to deb.debian.org; installs cmake,
# ninja-build and g++-mingw-w64-x86-64-posix with apt when they are missing (sudo when not
# root). A cold build takes about ten minutes on two cores (it prints the time it took).
#
# Environment:
#   LLAMAFIT_DEBIAN_SOURCE_DIR  a folder that already holds the six Debian source files
#                               (*.dsc, *.orig.tar.*, *.debian.tar.xz of both packages), e.g.
#                               a CI cache or a download from snapshot.debian.org; they are
#                               checked against the same sha256 sums, and apt is not asked.
#   LLAMAFIT_GGML_TREE, LLAMAFIT_LLAMA_TREE
#                               trying the recipe on other source trees (e.g. an upstream
#                               checkout, with ggml/src and ggml/include removed from the
#                               llama.cpp one): both unpacked and patched already, nothing is
#                               downloaded. DEST/VERSION then names the trees, so such a build
#                               is never taken for the Debian one.
#   LLAMAFIT_WINDOWS_KEEP_WORK=1  keeps DEST/work (sources, build folders) after a success.
#
# Exit status:
#   0  DEST/bin/llama-server.exe is ready
#   3  the pinned sources cannot be had here (sid has moved on, no network, a mirror that
#      serves no source packages): DEST/UNAVAILABLE holds the reason on one line
#   1  anything else (a hash mismatch, a patch that does not apply, a failed build)

set -euo pipefail

# Pinned source packages: the same versions scripts/fetch-llama-server.sh installs as binaries.
readonly LLAMA_SOURCE_VERSION="1:0.7.0+dfsg-2"
readonly GGML_SOURCE_VERSION="0.27.0-1"
# llama-server --version of Debian's build: "version: 0.7.0 (build 11669, commit Debian)";
# the number is the upstream tag Debian records in libllama0's nightly-tag.txt.
readonly LLAMA_BUILD_NUMBER=11669
readonly LLAMA_BUILD_COMMIT="Debian"
# sha256 of every file of both source packages, from sid's Sources index
# (dists/sid/main/source/Sources, "Checksums-Sha256").
readonly -A SOURCE_SHA256=(
    ["llama.cpp_0.7.0+dfsg-2.dsc"]="965558fea13ff597b002ad69f58c7e93ccf0651da53e9fa0bcc3ece4ad4734ef"
    ["llama.cpp_0.7.0+dfsg.orig.tar.xz"]="2a645530b9e18549f3e6559bb41830164ff7ceba71b2a468d75d957f562b063e"
    ["llama.cpp_0.7.0+dfsg-2.debian.tar.xz"]="1b92e867332cab438b976a46039ab7786c18f5b9bd42c1139beb2c4944e628e3"
    ["ggml_0.27.0-1.dsc"]="e695800c9f55bcd8e9ad987214507058df6a8f9669c591c9a3e35855117e3d9e"
    ["ggml_0.27.0.orig.tar.gz"]="8721e92b96ac5c9526eb928d7e503cadc343ecd020d92146052026a4c49d2a6a"
    ["ggml_0.27.0-1.debian.tar.xz"]="9549e5a5ae0e6c3f6cac9f172921f3d9a30b81c4e8b1d7e7f90a718da9abeec1"
)
readonly LLAMA_ORIG="llama.cpp_0.7.0+dfsg.orig.tar.xz"
readonly LLAMA_DEBIAN="llama.cpp_0.7.0+dfsg-2.debian.tar.xz"
readonly GGML_ORIG="ggml_0.27.0.orig.tar.gz"
readonly GGML_DEBIAN="ggml_0.27.0-1.debian.tar.xz"
readonly ARCHIVE_LINE="deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian sid main"
# Debian patches left out, as "source:patch-file" (none so far). Debian's Linux build applies
# every patch in series; one goes here only when it cannot build for MinGW, with the reason.
readonly SKIPPED_PATCHES=()
# Bumped whenever the recipe below changes what is built: DEST/VERSION then no longer matches.
readonly RECIPE=2
readonly EXIT_UNAVAILABLE=3

readonly HOST_PACKAGES=(cmake ninja-build g++-mingw-w64-x86-64-posix xz-utils patch)
readonly MINGW_CC=x86_64-w64-mingw32-gcc-posix
readonly MINGW_CXX=x86_64-w64-mingw32-g++-posix
# Where the posix-thread-model runtime DLLs live (gcc-mingw-w64-x86-64-posix and
# mingw-w64-x86-64-dev); the win32-model ones beside them are not ABI compatible.
readonly MINGW_SYSROOT=/usr/x86_64-w64-mingw32
# Windows' own DLLs: the closure check below accepts these without a file in DEST/bin.
readonly SYSTEM_DLL_PATTERN='^(kernel32|user32|advapi32|shell32|ole32|oleaut32|ws2_32|wsock32|mswsock|msvcrt|ucrtbase|api-ms-win-.*|bcrypt|ntdll|psapi|dbghelp|crypt32|secur32|iphlpapi|userenv|shlwapi|gdi32|comdlg32|version|winmm|rpcrt4|dnsapi|ncrypt|powrprof|setupapi|cfgmgr32)\.dll$'

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_dir="$(cd "${script_dir}/.." && pwd)"
install_only=false
if [[ "${1:-}" == "--install-only" ]]; then # .ci/run: the host packages first, while apt is free
    install_only=true
    shift
fi
[[ $# -le 1 ]] || {
    echo "usage: $0 [--install-only] [DEST]" >&2
    exit 2
}
dest="${1:-${repo_dir}/.llama-server-windows}"
mkdir -p "${dest}"
dest="$(cd "${dest}" && pwd)"
work="${dest}/work"
jobs=2 # CI's machines have two cores; more jobs only add memory pressure there

die() {
    echo "build-llama-server-windows: $*" >&2
    exit 1
}

say() {
    echo "build-llama-server-windows: $*"
}

# The pinned sources cannot be had here: say why, on stderr and in DEST/UNAVAILABLE (one line,
# the same convention as scripts/fetch-llama-server.sh), and exit with status 3.
unavailable() {
    local reason="$1"
    shift
    echo "build-llama-server-windows: UNAVAILABLE: ${reason}" >&2
    local detail
    for detail in "$@"; do
        echo "${detail}" >&2
    done
    echo "${reason}" >"${dest}/UNAVAILABLE"
    rm -rf "${work}"
    exit "${EXIT_UNAVAILABLE}"
}

# What DEST/VERSION says for a build from this script's inputs; a rerun compares against it.
expected_version_text() {
    if [[ -n "${LLAMAFIT_GGML_TREE:-}${LLAMAFIT_LLAMA_TREE:-}" ]]; then
        echo "llama.cpp local tree ${LLAMAFIT_LLAMA_TREE:-?} (not Debian's source package)"
        echo "ggml local tree ${LLAMAFIT_GGML_TREE:-?} (not Debian's source package)"
    else
        echo "llama.cpp ${LLAMA_SOURCE_VERSION} (Debian source package)"
        echo "ggml ${GGML_SOURCE_VERSION} (Debian source package)"
    fi
    echo "build ${LLAMA_BUILD_NUMBER} commit ${LLAMA_BUILD_COMMIT}"
    echo "recipe ${RECIPE}: MinGW-w64 ${MINGW_CXX}, Release -O2, CPU backend (haswell ISA), OpenMP"
}

install_host_packages() {
    local missing=() p
    for p in "${HOST_PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "${p}" 2>/dev/null | grep -q "install ok installed" || missing+=("${p}")
    done
    ((${#missing[@]})) || return 0
    local sudo_cmd=()
    [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
    say "installing ${missing[*]}"
    "${sudo_cmd[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# Downloads both source packages into $1 with apt-get source, through a private apt setup:
# every path apt would read policy from or write to is redirected (as in fetch-llama-server.sh).
download_sources() {
    local into="$1"
    command -v apt-get >/dev/null || unavailable "apt-get not found: the sources come from the Debian archive"
    [[ -r /usr/share/keyrings/debian-archive-keyring.gpg ]] ||
        unavailable "/usr/share/keyrings/debian-archive-keyring.gpg missing: install debian-archive-keyring"
    local state="${work}/apt"
    rm -rf "${state}"
    mkdir -p "${state}/lists/partial" "${state}/cache/archives/partial"
    echo "${ARCHIVE_LINE}" >"${state}/sources.list"
    local apt_options=(
        -o "Dir::Etc::SourceList=${state}/sources.list"
        -o "Dir::Etc::SourceParts=/dev/null"
        -o "Dir::Etc::Preferences=/dev/null"
        -o "Dir::Etc::PreferencesParts=/dev/null"
        -o "Dir::State::Lists=${state}/lists"
        -o "Dir::State::Status=/dev/null"
        -o "Dir::Cache=${state}/cache"
        -o "Debug::NoLocking=1"
    )
    # As root apt hands downloads to the _apt user, who cannot write into DEST.
    [[ "$(id -u)" != "0" ]] || apt_options+=(-o "APT::Sandbox::User=root")

    say "reading Debian sid's source index"
    apt-get "${apt_options[@]}" -qq update ||
        unavailable "apt-get update of Debian sid's sources failed (no network to deb.debian.org?)"
    compgen -G "${state}/lists/*_sid_main_source_Sources*" >/dev/null ||
        unavailable "could not read Debian sid's source index (no network to deb.debian.org?)"
    local spec name version now
    for spec in "llama.cpp=${LLAMA_SOURCE_VERSION}" "ggml=${GGML_SOURCE_VERSION}"; do
        name="${spec%%=*}"
        version="${spec#*=}"
        if ! apt-cache "${apt_options[@]}" showsrc "${name}" 2>/dev/null | grep -qx "Version: ${version}"; then
            now="$(apt-cache "${apt_options[@]}" showsrc "${name}" 2>/dev/null | awk '/^Version:/ {print $2}' | tr '\n' ' ')"
            unavailable "the Debian archive has moved on: source ${name} ${version} is not in sid (sid now has: ${now:-nothing})" \
                "Fetch the six files from https://snapshot.debian.org into a folder and set LLAMAFIT_DEBIAN_SOURCE_DIR," \
                "or move the project to the new version (scripts/fetch-llama-server.sh --latest, scripts/compare-builds.sh)."
        fi
    done
    say "downloading the source packages llama.cpp ${LLAMA_SOURCE_VERSION} and ggml ${GGML_SOURCE_VERSION}"
    if ! (cd "${into}" && apt-get "${apt_options[@]}" -q source --download-only \
        "llama.cpp=${LLAMA_SOURCE_VERSION}" "ggml=${GGML_SOURCE_VERSION}"); then
        unavailable "apt-get source could not download llama.cpp ${LLAMA_SOURCE_VERSION} / ggml ${GGML_SOURCE_VERSION} from deb.debian.org (no network, or a mirror that serves no source packages)" \
            "Put the six files (${!SOURCE_SHA256[*]}) into a folder and set LLAMAFIT_DEBIAN_SOURCE_DIR to it."
    fi
    rm -rf "${state}"
}

# apt-get source checks the files against the signed index too; this check also covers files
# that came from LLAMAFIT_DEBIAN_SOURCE_DIR, and names the file that differs.
verify_sources() {
    local dir="$1" file want got
    for file in "${!SOURCE_SHA256[@]}"; do
        want="${SOURCE_SHA256[${file}]}"
        [[ -f "${dir}/${file}" ]] || die "${file} is missing in ${dir}"
        got="$(sha256sum "${dir}/${file}" | cut -d' ' -f1)"
        [[ "${got}" == "${want}" ]] ||
            die "sha256 mismatch for ${file}: got ${got}, sid's Sources index says ${want} (corrupt or substituted download)"
    done
    say "sha256 of all six source files matches sid's Sources index"
}

# Unpacks ORIG (whose files may sit in one top folder or none) and DEBIAN into TREE, then
# applies debian/patches in series order with patch -p1 -- what dpkg-source -x does for a
# 3.0 (quilt) package, without needing dpkg-dev.
unpack_and_patch() {
    local orig="$1" debian="$2" tree="$3" source_name="$4"
    local unpack="${tree}.unpack"
    rm -rf "${tree}" "${unpack}"
    mkdir -p "${unpack}"
    tar -xf "${orig}" -C "${unpack}"
    local entries=("${unpack}"/*)
    if [[ ${#entries[@]} -eq 1 && -d "${entries[0]}" ]]; then
        mv "${entries[0]}" "${tree}"
        rmdir "${unpack}"
    else
        mv "${unpack}" "${tree}"
    fi
    tar -xf "${debian}" -C "${tree}"
    local series="${tree}/debian/patches/series"
    [[ -f "${series}" ]] || return 0
    local line name level skip count=0
    while read -r line || [[ -n "${line}" ]]; do
        line="${line%%#*}"
        read -r name level _ <<<"${line}" || true
        [[ -n "${name:-}" ]] || continue
        skip=0
        for s in "${SKIPPED_PATCHES[@]}"; do
            [[ "${s}" == "${source_name}:${name}" ]] && skip=1
        done
        if ((skip)); then
            say "${source_name}: leaving out debian/patches/${name} (SKIPPED_PATCHES)"
            continue
        fi
        patch -d "${tree}" "${level:--p1}" --batch --forward --quiet -i "debian/patches/${name}" ||
            die "${source_name}: debian/patches/${name} does not apply"
        count=$((count + 1))
    done <"${series}"
    say "${source_name}: applied ${count} Debian patches"
}

# Logs the -D options Debian's Linux build passes (debian/rules), so a version bump shows
# what to compare with the choices below.
log_debian_options() {
    local tree="$1" name="$2"
    [[ -f "${tree}/debian/rules" ]] || return 0
    say "${name}: CMake options in debian/rules:"
    grep -o -E -- '-D[A-Za-z0-9_]+=[^ \\]*' "${tree}/debian/rules" | sort -u | sed 's/^/    /' || true
}

write_toolchain() {
    # The C++ runtime stays in DLLs (libstdc++-6.dll, ...), as in LlamaFit's own Windows build:
    # one copy shared by the executable and the ggml DLLs, as libstdc++.so.6 is in a Linux install.
    cat >"${work}/mingw-w64-x86_64.cmake" <<EOF
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(CMAKE_C_COMPILER ${MINGW_CC})
set(CMAKE_CXX_COMPILER ${MINGW_CXX})
set(CMAKE_RC_COMPILER x86_64-w64-mingw32-windres)
set(CMAKE_FIND_ROOT_PATH ${MINGW_SYSROOT} ${work}/prefix)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
EOF
    common_cmake_options=(-G Ninja
        "-DCMAKE_TOOLCHAIN_FILE=${work}/mingw-w64-x86_64.cmake"
        -DCMAKE_BUILD_TYPE=Release
        "-DCMAKE_C_FLAGS_RELEASE=-O2 -DNDEBUG"
        "-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG")
}

# Debian 12's MinGW-w64 headers (mingw-w64 10) lack THREAD_POWER_THROTTLING_STATE, which
# ggml-cpu.c uses for _WIN32_WINNT >= 0x0602 to keep Windows 11 from parking its worker
# threads (ggml_thread_apply_priority); newer headers have it. Where it is missing, a header
# with the Windows SDK's definition (processthreadsapi.h) is forced into ggml's C files, so
# the code compiles as upstream wrote it instead of being cut out.
write_compat_header() {
    compat_c_flags=()
    if printf '#include <windows.h>\nTHREAD_POWER_THROTTLING_STATE t;\n' |
        "${MINGW_CC}" -x c -fsyntax-only - 2>/dev/null; then
        return 0
    fi
    cat >"${work}/mingw-compat.h" <<'EOF'
/* Written by scripts/build-llama-server-windows.sh: definitions from the Windows SDK's
   processthreadsapi.h that Debian 12's mingw-w64 headers lack. */
#pragma once
#ifdef _WIN32
typedef struct _THREAD_POWER_THROTTLING_STATE {
    unsigned long Version;
    unsigned long ControlMask;
    unsigned long StateMask;
} THREAD_POWER_THROTTLING_STATE, *PTHREAD_POWER_THROTTLING_STATE;
#define THREAD_POWER_THROTTLING_CURRENT_VERSION 1
#define THREAD_POWER_THROTTLING_EXECUTION_SPEED 0x1
#endif
EOF
    compat_c_flags=("-DCMAKE_C_FLAGS=-include ${work}/mingw-compat.h")
}
compat_c_flags=()

# Options both builds share: Release at -O2 like Debian's dpkg-buildflags, without -g
# (nobody debugs these binaries, and debug info doubles the link time). Set by write_toolchain.
common_cmake_options=()

build_ggml() {
    local tree="$1"
    # ggml's debian/rules builds GGML_BACKEND_DL=ON with GGML_CPU_ALL_VARIANTS=ON and
    # GGML_NATIVE=OFF: one libggml-cpu-<variant>.so per x86 level in
    # /usr/lib/x86_64-linux-gnu/ggml/backends0 (the libggml0 package), the best one picked at
    # run time. The Linux rig pins the haswell variant (fetch-llama-server.sh's
    # GGML_BACKEND_PATH). Here: the same dynamic backend loading, but a single CPU backend built
    # with exactly the haswell variant's features (ggml/src/CMakeLists.txt:
    # ggml_add_cpu_backend_variant(haswell SSE42 AVX F16C FMA AVX2 BMI2)) -- the same kernels
    # and the same repack choices, one compile instead of fourteen, and it runs on this
    # machine and under Wine (any x86-64 CPU since 2013).
    # No GGML_BACKEND_DIR: ggml then searches the executable's folder, where ggml-cpu.dll lies.
    # OpenMP on, as in Debian's build (libggml0 depends on libgomp1): the posix MinGW gcc
    # has libgomp (/usr/lib/gcc/x86_64-w64-mingw32/12-posix/libgomp-1.dll).
    # GGML_LLAMAFILE=OFF: ggml's own default when built on its own, as Debian does (Debian's
    # llama-server logs "CPU : SSE3 = 1 | ... | OPENMP = 1 | REPACK = 1", no LLAMAFILE).
    # Only the CPU backend: no Vulkan/RPC (libggml0-backend-*) for this build.
    # Shared libraries as in Debian's libggml0 (GGML_BACKEND_DL needs them anyway).
    cmake -S "${tree}" -B "${work}/build-ggml" "${common_cmake_options[@]}" "${compat_c_flags[@]}" \
        "-DCMAKE_INSTALL_PREFIX=${work}/prefix" \
        -DBUILD_SHARED_LIBS=ON \
        -DGGML_BACKEND_DL=ON \
        -DGGML_CPU_ALL_VARIANTS=OFF \
        -DGGML_NATIVE=OFF \
        -DGGML_SSE42=ON -DGGML_AVX=ON -DGGML_F16C=ON -DGGML_FMA=ON -DGGML_AVX2=ON -DGGML_BMI2=ON \
        -DGGML_AVX_VNNI=OFF -DGGML_AVX512=OFF -DGGML_AVX512_VBMI=OFF -DGGML_AVX512_VNNI=OFF \
        -DGGML_AVX512_BF16=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF \
        -DGGML_OPENMP=ON -DGGML_LLAMAFILE=OFF \
        -DGGML_CPU=ON -DGGML_VULKAN=OFF -DGGML_RPC=OFF -DGGML_BLAS=OFF \
        -DGGML_CCACHE=OFF \
        -DGGML_BUILD_TESTS=OFF -DGGML_BUILD_EXAMPLES=OFF >"${work}/ggml-configure.log" ||
        die "ggml: cmake configure failed, see ${work}/ggml-configure.log"
    grep -q '^GGML_OPENMP_ENABLED:INTERNAL=ON$' "${work}/build-ggml/CMakeCache.txt" ||
        die "ggml: OpenMP not found for ${MINGW_CC} (see ${work}/ggml-configure.log)"
    cmake --build "${work}/build-ggml" -j "${jobs}"
    cmake --install "${work}/build-ggml" >/dev/null
}

build_llama() {
    local tree="$1"
    # llama.cpp's debian/rules builds against the system ggml (LLAMA_USE_SYSTEM_GGML), with
    # the build number and "Debian" as commit (llama-server --version:
    # "0.7.0 (build 11669, commit Debian)"), and without the Web UI (debian/copyright: "we
    # don't build the UI"). LLAMA_USE_PREBUILT_UI=OFF: nothing is downloaded while building.
    # LLAMA_OPENSSL=OFF: Debian links OpenSSL for HTTPS downloads (-hf); there is no OpenSSL
    # for MinGW here, and LlamaFit does not have the server download models.
    # Only the llama-server target is built (tools, tests, examples are configured, not built).
    # BUILD_SHARED_LIBS=OFF, unlike Debian's libllama0: llama, llama-common, mtmd and
    # llama-server-impl are linked into llama-server.exe. Their static objects with worker
    # threads (the stream session manager's GC thread in tools/server/server-stream.cpp) are
    # destroyed in a DLL's PROCESS_DETACH after Windows has killed the thread, and joining it
    # there hangs: `llama-server.exe --version` printed the version and never exited (measured
    # under Wine; upstream's common/log.cpp leaks its logger for the same reason). In the
    # executable they are destroyed by exit() while the thread still runs.
    cmake -S "${tree}" -B "${work}/build-llama" "${common_cmake_options[@]}" \
        -DBUILD_SHARED_LIBS=OFF \
        -DLLAMA_USE_SYSTEM_GGML=ON \
        "-Dggml_DIR=${work}/prefix/lib/cmake/ggml" \
        "-DLLAMA_BUILD_NUMBER=${LLAMA_BUILD_NUMBER}" \
        "-DLLAMA_BUILD_COMMIT=${LLAMA_BUILD_COMMIT}" \
        -DLLAMA_BUILD_IS_DEV=OFF \
        -DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_COMMON=ON \
        -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_APP=OFF \
        -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF \
        -DLLAMA_OPENSSL=OFF -DLLAMA_CURL=OFF \
        -DLLAMA_ALL_WARNINGS=OFF >"${work}/llama-configure.log" ||
        die "llama.cpp: cmake configure failed, see ${work}/llama-configure.log"
    cmake --build "${work}/build-llama" -j "${jobs}" --target llama-server
}

# The DLL names FILE imports (objdump's "DLL Name:" lines), lower-cased.
imported_dlls() {
    x86_64-w64-mingw32-objdump -p "$1" | awk '/DLL Name:/ {print tolower($3)}'
}

# Copies llama-server.exe and everything it loads into BIN: the DLLs built here, the ggml
# DLLs (ggml-cpu.dll is loaded at run time, so it is copied by name, not found as an import),
# and the MinGW runtime DLLs; then checks that every import of every file is satisfied.
assemble() {
    local bin="$1"
    rm -rf "${bin}"
    mkdir -p "${bin}"
    cp "${work}/build-llama/bin/llama-server.exe" "${bin}/"
    local built
    for built in "${work}/build-llama/bin/"*.dll; do # none while llama.cpp is linked statically
        if [[ -f "${built}" ]]; then
            cp "${built}" "${bin}/"
        fi
    done
    cp "${work}/prefix/bin/"*.dll "${bin}/"
    [[ -f "${bin}/ggml-cpu.dll" ]] || die "ggml-cpu.dll was not built"
    local gcc_dir
    gcc_dir="$(dirname "$("${MINGW_CXX}" -print-libgcc-file-name)")"
    local runtime
    for runtime in libstdc++-6.dll libgcc_s_seh-1.dll libgomp-1.dll; do
        [[ -f "${gcc_dir}/${runtime}" ]] || die "${runtime} not found in ${gcc_dir}"
        cp "${gcc_dir}/${runtime}" "${bin}/"
    done
    [[ -f "${MINGW_SYSROOT}/lib/libwinpthread-1.dll" ]] || die "libwinpthread-1.dll not found in ${MINGW_SYSROOT}/lib"
    cp "${MINGW_SYSROOT}/lib/libwinpthread-1.dll" "${bin}/"
    # Keep only what is loaded: imports of the executable and, transitively, of each DLL,
    # plus ggml-cpu.dll (and its imports), which ggml loads by name.
    local -A needed=()
    local queue=(llama-server.exe ggml-cpu.dll) file dll
    needed[llama-server.exe]=1
    needed[ggml-cpu.dll]=1
    while ((${#queue[@]})); do
        file="${queue[0]}"
        queue=("${queue[@]:1}")
        while read -r dll; do
            [[ -n "${dll}" && -z "${needed[${dll}]:-}" ]] || continue
            if [[ -f "${bin}/${dll}" ]]; then
                needed[${dll}]=1
                queue+=("${dll}")
            elif ! [[ "${dll}" =~ ${SYSTEM_DLL_PATTERN} ]]; then
                die "${file} imports ${dll}, which is neither built here nor a Windows DLL"
            fi
        done < <(imported_dlls "${bin}/${file}")
    done
    for file in "${bin}"/*; do
        [[ -n "${needed[$(basename "${file}")]:-}" ]] || rm -f "${file}"
    done
    x86_64-w64-mingw32-strip --strip-unneeded "${bin}"/*.exe "${bin}"/*.dll
}

# --- main ---

if ${install_only}; then
    install_host_packages
    exit 0
fi
rm -f "${dest}/UNAVAILABLE" # from an earlier run; written again if still so
expected="$(expected_version_text)"
if [[ -f "${dest}/bin/llama-server.exe" && -f "${dest}/VERSION" && "$(cat "${dest}/VERSION")" == "${expected}" ]]; then
    say "${dest}/bin/llama-server.exe is up to date ($(head -n 1 "${dest}/VERSION"))"
    exit 0
fi

[[ "$(uname -m)" == "x86_64" ]] || die "only an x86-64 host is supported"
install_host_packages
command -v "${MINGW_CXX}" >/dev/null || die "${MINGW_CXX} not found (g++-mingw-w64-x86-64-posix)"

rm -rf "${work}"
mkdir -p "${work}/sources"
if [[ -n "${LLAMAFIT_GGML_TREE:-}${LLAMAFIT_LLAMA_TREE:-}" ]]; then
    [[ -f "${LLAMAFIT_GGML_TREE:-}/CMakeLists.txt" && -f "${LLAMAFIT_LLAMA_TREE:-}/CMakeLists.txt" ]] ||
        die "LLAMAFIT_GGML_TREE and LLAMAFIT_LLAMA_TREE must both name source trees"
    say "building the local trees ${LLAMAFIT_GGML_TREE} and ${LLAMAFIT_LLAMA_TREE}, NOT Debian's sources"
    ggml_tree="$(cd "${LLAMAFIT_GGML_TREE}" && pwd)"
    llama_tree="$(cd "${LLAMAFIT_LLAMA_TREE}" && pwd)"
else
    if [[ -n "${LLAMAFIT_DEBIAN_SOURCE_DIR:-}" ]]; then
        say "taking the source packages from ${LLAMAFIT_DEBIAN_SOURCE_DIR}"
        for file in "${!SOURCE_SHA256[@]}"; do
            [[ -f "${LLAMAFIT_DEBIAN_SOURCE_DIR}/${file}" ]] || die "${LLAMAFIT_DEBIAN_SOURCE_DIR}/${file} missing"
            cp "${LLAMAFIT_DEBIAN_SOURCE_DIR}/${file}" "${work}/sources/"
        done
    else
        download_sources "${work}/sources"
    fi
    verify_sources "${work}/sources"
    ggml_tree="${work}/ggml"
    llama_tree="${work}/llama.cpp"
    unpack_and_patch "${work}/sources/${GGML_ORIG}" "${work}/sources/${GGML_DEBIAN}" "${ggml_tree}" ggml
    unpack_and_patch "${work}/sources/${LLAMA_ORIG}" "${work}/sources/${LLAMA_DEBIAN}" "${llama_tree}" llama.cpp
    log_debian_options "${ggml_tree}" ggml
    log_debian_options "${llama_tree}" llama.cpp
fi
rm -f "${dest}/UNAVAILABLE"

write_toolchain
write_compat_header
start=$(date +%s)
say "building ggml (CPU backend) with ${MINGW_CXX}, ${jobs} jobs"
build_ggml "${ggml_tree}"
ggml_done=$(date +%s)
say "building llama-server against it"
build_llama "${llama_tree}"
end=$(date +%s)

# The compilers' CPU time says what the wall time is on two otherwise idle cores (a busy
# machine stretches the wall time). `times` runs in this shell, not in a pipeline's subshell,
# so that it counts this shell's children.
times >"${work}/cpu-times"
cpu_times="$(tail -n 1 "${work}/cpu-times" | awk '{
    for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); cpu[i] = t[1] * 60 + t[2] }
    printf "user %.0fs, sys %.0fs", cpu[1], cpu[2] }')"

rm -f "${dest}/VERSION"
assemble "${dest}/bin"
echo "${expected}" >"${dest}/VERSION"
[[ "${LLAMAFIT_WINDOWS_KEEP_WORK:-0}" == "1" ]] || rm -rf "${work}"

say "build time: $(((end - start) / 60))m$(((end - start) % 60))s" \
    "(ggml $((ggml_done - start))s, llama-server $((end - ggml_done))s), compiler CPU time: ${cpu_times}"
say "ready: ${dest}/bin/llama-server.exe"
ls -l "${dest}/bin"
