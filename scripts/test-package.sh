#!/usr/bin/env bash
# Proves the Debian package in a system that has never seen the source: mmdebstrap a minimal
# Debian root into a folder (no change to the host system), install the .deb there with apt so
# its dependencies come from the archive, run both programs inside (the CLI's version, cards,
# an estimate, device discovery; the GUI's screenshot mode under xvfb-run, and the picture must
# not be blank), then purge the package and check that none of its files is left.
#
#   scripts/test-package.sh [--suite bookworm|trixie] [--build] [DEB]
#     --suite  the Debian release of the roots (default bookworm, Debian 12)
#     --build  first build the package inside a fresh root of that release with
#              scripts/package.sh (sources: this checkout's files that git knows)
#     DEB      the package to test (default build-package/llamafit_<version>_amd64.deb)
#   LLAMAFIT_PACKAGE_WORK   folder for the roots and results (default /tmp/llamafit-package-test)
#   LLAMAFIT_APT_CACHE      a folder of downloaded .debs kept between runs (optional)
#   LLAMAFIT_DEBIAN_MIRROR  default http://deb.debian.org/debian
# Needs root (mmdebstrap's root mode, chroot); installs mmdebstrap and ImageMagick if missing.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ ${1:-} == --inside ]]; then
    # Runs inside the test root (chroot), as root, with the package at $2.
    deb=$2
    fail() { echo "test-package (inside): $*" >&2; exit 1; }
    export DEBIAN_FRONTEND=noninteractive HOME=/root
    # As a user's `apt install ./llamafit.deb` does: recommended packages too (Mesa's Vulkan drivers).
    apt-get install -y -q --install-recommends "$deb"
    version=$(dpkg-query -W -f='${Version}' llamafit)
    dpkg -L llamafit >/tmp/llamafit-files
    echo "== llamafit-cli --version"
    llamafit-cli --version | tee /tmp/out
    grep -q "^llamafit-cli $version " /tmp/out || fail "--version does not say $version"
    echo "== llamafit --version"
    QT_QPA_PLATFORM=offscreen llamafit --version | tee /tmp/out
    grep -qx "LlamaFit $version" /tmp/out || fail "llamafit --version does not say $version"
    echo "== llamafit-cli cards"
    llamafit-cli cards | tee /tmp/out
    grep -q "^qwen3.5-35b-a3b-q6_k " /tmp/out || fail "cards does not list qwen3.5-35b-a3b-q6_k"
    echo "== llamafit-cli estimate -m qwen3.5-35b-a3b-q6_k -c 65536 -ctk q8_0 -ctv q8_0"
    llamafit-cli estimate -m qwen3.5-35b-a3b-q6_k -c 65536 -ctk q8_0 -ctv q8_0
    llamafit-cli estimate --json -m qwen3.5-35b-a3b-q6_k -c 65536 -ctk q8_0 -ctv q8_0 >/tmp/out
    grep -Eq '"total_bytes": *[1-9][0-9]{9,}' /tmp/out || fail "estimate --json has no total of at least 1 GB"
    echo "== llamafit-cli devices --json"
    llamafit-cli devices --json | tee /tmp/out
    grep -q '"logical_cpus": *[1-9]' /tmp/out || fail "devices --json found no CPU"
    # Mesa (recommended) brings lavapipe, so Vulkan discovery must find a driver.
    tr -d ' \n' </tmp/out | grep -q '"name":"vulkan","available":true' ||
        fail "devices --json: Vulkan is not available although mesa-vulkan-drivers is installed"
    echo "== llamafit --screenshot under xvfb-run"
    xvfb-run -a -s "-screen 0 1600x1000x24" llamafit --screenshot /tmp/llamafit-window.png
    [[ -s /tmp/llamafit-window.png ]] || fail "no screenshot was written"
    man -w llamafit-cli >/dev/null 2>&1 || [[ -f /usr/share/man/man1/llamafit-cli.1.gz ]]
    echo "== apt-get purge llamafit"
    apt-get purge -y -q llamafit
    dpkg-query -W -f='${Status}\n' llamafit 2>/dev/null | grep -q "install ok" && fail "llamafit is still installed"
    left=0
    while read -r path; do
        [[ $path == /. ]] && continue
        if [[ -d $path && ! -L $path ]]; then
            # A folder may stay only when another package owns it too.
            if ! dpkg-query -S "$path" >/dev/null 2>&1; then
                echo "left behind: folder $path" >&2
                left=1
            fi
        elif [[ -e $path || -L $path ]]; then
            echo "left behind: $path" >&2
            left=1
        fi
    done </tmp/llamafit-files
    ((left == 0)) || fail "files of the package are left after the purge"
    echo "test-package (inside): $(wc -l </tmp/llamafit-files) paths of llamafit $version installed, run and purged"
    exit 0
fi

suite=bookworm
build=0
deb=
while (($#)); do
    case $1 in
        --suite) suite=$2; shift 2 ;;
        --build) build=1; shift ;;
        -*) echo "test-package: unknown option $1" >&2; exit 2 ;;
        *) deb=$1; shift ;;
    esac
done
[[ $(id -u) -eq 0 ]] || { echo "test-package: needs root (mmdebstrap in root mode, chroot)" >&2; exit 2; }

tools=(mmdebstrap imagemagick ca-certificates debian-archive-keyring)
missing=()
for p in "${tools[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
    echo "test-package: installing ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

mirror=${LLAMAFIT_DEBIAN_MIRROR:-http://deb.debian.org/debian}
work=${LLAMAFIT_PACKAGE_WORK:-/tmp/llamafit-package-test}/$suite
rm -rf "$work"
mkdir -p "$work/out"
# Downloaded packages survive between runs when LLAMAFIT_APT_CACHE names a folder.
cache_hooks=()
if [[ -n ${LLAMAFIT_APT_CACHE:-} ]]; then
    cache="$LLAMAFIT_APT_CACHE/$suite"
    mkdir -p "$cache"
    cache_hooks=(--skip=download/empty --skip=essential/unlink
        --setup-hook='mkdir -p "$1"/var/cache/apt/archives/'
        --setup-hook="sync-in $cache /var/cache/apt/archives/"
        --customize-hook="sync-out /var/cache/apt/archives $cache")
fi

if ((build)); then
    # The package built inside a fresh root of $suite by the same scripts/package.sh.
    git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf "$work/source.tar"
    echo "test-package: building the package inside a fresh $suite root"
    mmdebstrap --variant=apt --include=ca-certificates,git "${cache_hooks[@]}" \
        --customize-hook='mkdir -p "$1/src"' --customize-hook="tar-in $work/source.tar /src" \
        --customize-hook='mkdir -p "$1/out"' \
        --customize-hook='chroot "$1" sh -c "cd /src && scripts/package.sh >/out/package.log 2>&1; echo \$? >/out/package.rc; cp build-package/llamafit_*_amd64.deb /out/ || true"' \
        --customize-hook="sync-out /out $work/out" \
        "$suite" "$work/build-root" "$mirror"
    tail -n 40 "$work/out/package.log"
    if [[ $(cat "$work/out/package.rc") != 0 ]]; then
        # The root stays for a look (and its build folder for a rerun); the log names the step.
        echo "test-package: scripts/package.sh failed inside the $suite root: $work/out/package.log" >&2
        exit 1
    fi
    rm -rf "$work/build-root"
    deb=$(ls "$work"/out/llamafit_*_amd64.deb)
fi
if [[ -z $deb ]]; then
    version=$(sed -n 's/^project(LlamaFit VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
    deb=build-package/llamafit_${version}_amd64.deb
fi
[[ -f $deb ]] || { echo "test-package: no package at $deb (run scripts/package.sh)" >&2; exit 2; }

echo "test-package: testing $deb in a fresh minimal $suite root"
cp "$deb" "$work/llamafit.deb"
cp "$0" "$work/test-package.sh"
# xvfb-run and xauth are the test's own tools (a desktop brings a display of its own).
mmdebstrap --variant=apt --include=xvfb,xauth "${cache_hooks[@]}" \
    --customize-hook="copy-in $work/llamafit.deb $work/test-package.sh /tmp" \
    --customize-hook='chroot "$1" bash /tmp/test-package.sh --inside /tmp/llamafit.deb' \
    --customize-hook="copy-out /tmp/llamafit-window.png $work/out" \
    "$suite" "$work/test-root" "$mirror"
rm -rf "$work/test-root"

# The picture must not be blank: many colours and a spread of brightness.
shot="$work/out/llamafit-window.png"
read -r colours deviation size < <(identify -format '%k %[fx:standard_deviation] %wx%h\n' "$shot")
echo "test-package: screenshot $shot: $size, $colours colours, standard deviation $deviation"
if ((colours < 64)) || awk -v d="$deviation" 'BEGIN { exit !(d < 0.05) }'; then
    echo "test-package: the screenshot is blank or nearly so" >&2
    exit 1
fi
echo "test-package: $suite passed ($deb)"
