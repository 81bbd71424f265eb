#!/usr/bin/env bash
# build-windows.sh: LlamaFit for 64-bit Windows -- the desktop app, the CLI and their Windows
# tests -- cross-built with Debian 12's MinGW-w64 (posix threads) against Qt 6.4.2 cross-built
# from Debian's own qt6-base source (../shared/toolchains, unpacked here, not rebuilt), with
# QCustomPlot from Debian's qcustomplot source (scripts/fetch-debian-source.sh). Then the
# install folder (packaging/windows/CMakeLists.txt lists every file), the portable .zip and the
# per-user NSIS installer, whose uninstaller deletes exactly what the install manifest lists.
# scripts/test-windows.sh runs the result under Wine.
#   LLAMAFIT_WINDOWS_BUILD_DIR   build folder (default build-windows): build/, stage/, the
#                                installer LlamaFit-<version>-setup.exe and the .zip
#   LLAMAFIT_QT_MINGW_TARBALL    the cross-built Qt (default ../shared/toolchains/qt-6.4.2-x86_64-w64-mingw32.tar.xz)
#   LLAMAFIT_WINDOWS_CMAKE_ARGS  extra CMake arguments (e.g. a compiler launcher)
#   --install-only               installs the host packages it needs and stops
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

packages=(cmake ninja-build g++-mingw-w64-x86-64-posix qt6-base-dev-tools qt6-tools-dev-tools qt6-l10n-tools
    nlohmann-json3-dev libvulkan-dev googletest nsis zip librsvg2-bin imagemagick patch xz-utils
    apt ca-certificates debian-archive-keyring)
"$(dirname "$0")"/ensure-packages.sh build-windows "${packages[@]}"
[[ "${1:-}" == "--install-only" ]] && exit 0

build_dir=${LLAMAFIT_WINDOWS_BUILD_DIR:-build-windows}
mkdir -p "$build_dir"
build_dir=$(realpath "$build_dir")
tarball=${LLAMAFIT_QT_MINGW_TARBALL:-$root/../shared/toolchains/qt-6.4.2-x86_64-w64-mingw32.tar.xz}
qt=$build_dir/qt-6.4.2-x86_64-w64-mingw32
if [[ ! -f "$qt/mingw-w64-toolchain.cmake" ]]; then
    [[ -f "$tarball" ]] || { echo "build-windows: no cross-built Qt at $tarball (LLAMAFIT_QT_MINGW_TARBALL)" >&2; exit 1; }
    tar xf "$tarball" -C "$build_dir"
fi
# Debian 12's qcustomplot, the source of the Linux build's libqcustomplot2.1-qt6.
qcustomplot=$(scripts/fetch-debian-source.sh bookworm qcustomplot 2.1.0+dfsg1-3.1 \
    b633167e3d4352ea5aa66bb7d51f7db43b82558cdab9231823ae8af338ab22d4 "$build_dir/sources")

read -r -a extra_args <<<"${LLAMAFIT_WINDOWS_CMAKE_ARGS:-}"
# Release without debug information (nobody debugs these binaries here, and CI compiles them
# cold on two cores); the test executables are -O0 as everywhere (tests/testexecutables.cmake).
cmake -S . -B "$build_dir/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" \
    -DCMAKE_TOOLCHAIN_FILE="$qt/mingw-w64-toolchain.cmake" \
    -DQT_HOST_PATH=/usr -DQT_HOST_PATH_CMAKE_DIR=/usr/lib/x86_64-linux-gnu/cmake \
    -DCMAKE_CROSSCOMPILING_EMULATOR=wine \
    -DLLAMAFIT_QCUSTOMPLOT_SOURCE_DIR="$qcustomplot" \
    -DLLAMAFIT_BUILD_BENCHMARKS=OFF -DLLAMAFIT_WERROR=ON "${extra_args[@]}"
cmake --build "$build_dir/build" -j "$(nproc)"

# The install folder, fresh, then the installer's two file lists from its manifest.
stage=$build_dir/stage
rm -rf "$stage"
cmake --install "$build_dir/build" --prefix "$stage" >/dev/null
# Without symbol tables: the programs and the DLLs copied from the toolchain (its libstdc++-6.dll
# alone is 24 MB with them, 2 MB without); their exports stay.
find "$stage" \( -name '*.exe' -o -name '*.dll' \) -exec x86_64-w64-mingw32-strip --strip-unneeded {} +
manifest=$build_dir/build/install_manifest.txt
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build_dir/build/CMakeCache.txt")
install_list=$build_dir/build/installfiles.nsh
uninstall_list=$build_dir/build/uninstallfiles.nsh
: >"$install_list"
: >"$uninstall_list"
folders=()
while IFS= read -r file; do
    relative=${file#"$stage"/}
    windows_relative=${relative//\//\\}
    folder=$(dirname "$relative")
    if [[ "$folder" == "." ]]; then
        echo "SetOutPath \"\$INSTDIR\"" >>"$install_list"
    else
        echo "SetOutPath \"\$INSTDIR\\${folder//\//\\}\"" >>"$install_list"
        folders+=("$folder")
    fi
    echo "File \"$file\"" >>"$install_list"
    echo "Delete \"\$INSTDIR\\$windows_relative\"" >>"$uninstall_list"
done < <(sort "$manifest")
# Each folder the install made, deepest first, removed only if empty (RMDir without /r).
if ((${#folders[@]})); then
    printf '%s\n' "${folders[@]}" | sort -u -r | while IFS= read -r folder; do
        echo "RMDir \"\$INSTDIR\\${folder//\//\\}\"" >>"$uninstall_list"
    done
fi
echo "SetOutPath \"\$INSTDIR\"" >>"$install_list"
(cd "$build_dir/build" && makensis -V2 -INPUTCHARSET UTF8 installer.nsi)
mv -f "$build_dir/build/LlamaFit-$version-setup.exe" "$build_dir/"
zip_name="LlamaFit-$version-windows-x86_64"
rm -rf "${build_dir:?}/$zip_name" "$build_dir/$zip_name.zip"
cp -r "$stage" "$build_dir/$zip_name"
(cd "$build_dir" && zip -q -r -9 "$zip_name.zip" "$zip_name")
rm -rf "$build_dir/${zip_name:?}"
ls -l "$build_dir/LlamaFit-$version-setup.exe" "$build_dir/$zip_name.zip"
