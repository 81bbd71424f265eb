#!/usr/bin/env bash
# Builds the Debian package llamafit_<version>_amd64.deb on Debian 12 or 13: the build
# dependencies (apt), an optimised build of llamafit and llamafit-cli (-O2 -g, as Debian builds;
# cpack strips the binaries), `cpack -G DEB`, then
# checks it: the version agrees everywhere (CMake, both programs, the package, the metainfo,
# CHANGELOG.md), `appstreamcli validate` passes and `lintian` reports no errors.
# The package lands in the build folder and its path is printed last.
#   LLAMAFIT_PACKAGE_BUILD_DIR  build folder (default build-package); CI passes scripts/test.sh's
#                               build-test, so the binaries the suite tested are the ones packaged
#                               and nothing is compiled twice
#   LLAMAFIT_PACKAGE_BUILD_TYPE CMake build type (default: the build folder's, else RelWithDebInfo)
#   LLAMAFIT_PACKAGE_CMAKE_ARGS extra CMake arguments (e.g. a compiler launcher)
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-build-deps.sh
# What packaging needs on top of the build: PNG icons (rsvg-convert), shlibdeps
# (dpkg-shlibdeps in dpkg-dev, file), and the checks (appstreamcli, desktop-file-validate, lintian).
packaging_packages=(librsvg2-bin dpkg-dev file appstream desktop-file-utils lintian)
"$(dirname "$0")"/ensure-packages.sh package "${packaging_packages[@]}"

build_dir=${LLAMAFIT_PACKAGE_BUILD_DIR:-build-package}
# A build folder that exists keeps its build type (CI's build-test is Release at -O2: changing the
# type would recompile everything).
cached_build_type=$(sed -n 's/^CMAKE_BUILD_TYPE:STRING=//p' "$build_dir/CMakeCache.txt" 2>/dev/null || true)
build_type=${LLAMAFIT_PACKAGE_BUILD_TYPE:-${cached_build_type:-RelWithDebInfo}}
read -r -a extra_args <<<"${LLAMAFIT_PACKAGE_CMAKE_ARGS:-}"
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE="$build_type" -DCMAKE_INSTALL_PREFIX=/usr \
    -DLLAMAFIT_BUILD_TESTS=OFF -DLLAMAFIT_BUILD_BENCHMARKS=OFF "${extra_args[@]}"
cmake --build "$build_dir" -j "$(nproc)"
rm -f "$build_dir"/llamafit_*.deb
(cd "$build_dir" && cpack -G DEB)

version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build_dir/CMakeCache.txt")
deb="$build_dir/llamafit_${version}_amd64.deb"
[[ -f $deb ]] || { echo "package: $deb was not made" >&2; exit 1; }

fail() { echo "package: $*" >&2; exit 1; }
# One version everywhere.
[[ $(dpkg-deb -f "$deb" Version) == "$version" ]] || fail "the package's version is not $version"
"$build_dir/app/cli/llamafit-cli" --version | grep -q "^llamafit-cli $version " ||
    fail "llamafit-cli --version does not say $version"
QT_QPA_PLATFORM=offscreen "$build_dir/app/gui/llamafit" --version | grep -qx "LlamaFit $version" ||
    fail "llamafit --version does not say $version"
metainfo="$build_dir/packaging/io.github.llamafit.LlamaFit.metainfo.xml"
grep -q "<release version=\"$version\"" "$metainfo" || fail "the metainfo has no release $version"
grep -q "^## \[$version\] - " CHANGELOG.md || fail "CHANGELOG.md has no entry for $version"
release_date=$(sed -n "s/^## \[$version\] - //p" CHANGELOG.md)
grep -q "<release version=\"$version\" date=\"$release_date\"" "$metainfo" ||
    fail "CHANGELOG.md dates $version $release_date, the metainfo does not"

# The files a desktop program brings.
contents=$(dpkg-deb -c "$deb")
for path in usr/bin/llamafit usr/bin/llamafit-cli usr/share/applications/llamafit.desktop \
    usr/share/icons/hicolor/scalable/apps/llamafit.svg usr/share/icons/hicolor/48x48/apps/llamafit.png \
    usr/share/icons/hicolor/256x256/apps/llamafit.png usr/share/metainfo/io.github.llamafit.LlamaFit.metainfo.xml \
    usr/share/man/man1/llamafit.1.gz usr/share/man/man1/llamafit-cli.1.gz \
    usr/share/bash-completion/completions/llamafit-cli usr/share/doc/llamafit/copyright \
    usr/share/doc/llamafit/changelog.gz; do
    grep -q " \./$path\$" <<<"$contents" || fail "the package lacks /$path"
done

# --no-net: the screenshot URL is checked for form, not fetched (the build may be offline).
appstreamcli validate --no-net --explain "$metainfo"
desktop-file-validate resources/llamafit.desktop
# lintian: no errors (warnings are explained in packaging/README.md). --fail-on error
# returns non-zero on an error tag only.
lintian --fail-on error --info --display-level ">=info" "$deb" || fail "lintian reports errors"
echo "package: $deb"
