#!/usr/bin/env bash
# test-windows.sh: LlamaFit's Windows build (scripts/build-windows.sh) under Debian's Wine, in a
# fresh prefix of its own:
#   1. the Windows build's tests (ctest, each .exe through Wine): the core's and the system
#      layer's unit tests, the widget tests with the offscreen platform, and tests/windows'
#      launch of the cross-built llama-server.exe (scripts/build-llama-server-windows.sh);
#   2. the installer, silently (/S), into the prefix: every file of the install manifest is
#      there, with the Start-menu entry, the uninstall entry and llamafit-cli on the user's PATH;
#   3. the installed llamafit-cli's `estimate --json` equals the Linux CLI's byte for byte on
#      every case of the recorded CPU and Vulkan matrices (tests/data/recorded);
#   4. the installed app, started from its install folder and nothing else under Xvfb with the
#      `windows` platform plugin (a missing DLL or plugin shows here), writes its window in
#      English and in Japanese: not blank (screenshots under build-windows/screenshots);
#   5. the silent uninstall leaves none of the installed files, and takes the PATH entry back.
#   LLAMAFIT_WINDOWS_BUILD_DIR  the build folder (default build-windows)
#   LLAMAFIT_LINUX_BUILD_DIR    the Linux build whose llamafit-cli and llamafit-make-gguf the
#                               parity check uses (default build-test, the README's test build)
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(wine wine64 xvfb xauth imagemagick fonts-ipafont-gothic)
"$(dirname "$0")"/ensure-packages.sh test-windows "${packages[@]}"
[[ "${1:-}" == "--install-only" ]] && exit 0

build_dir=$(realpath "${LLAMAFIT_WINDOWS_BUILD_DIR:-build-windows}")
linux_build=$(realpath "${LLAMAFIT_LINUX_BUILD_DIR:-build-test}")
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build_dir/build/CMakeCache.txt")
installer=$build_dir/LlamaFit-$version-setup.exe
qt=$build_dir/qt-6.4.2-x86_64-w64-mingw32
fail() {
    echo "test-windows: FAIL: $*" >&2
    exit 1
}
[[ -f "$installer" ]] || fail "no $installer: run scripts/build-windows.sh first"
[[ -x "$linux_build/app/cli/llamafit-cli" && -x "$linux_build/tests/llamafit-make-gguf" ]] ||
    fail "no Linux llamafit-cli and llamafit-make-gguf in $linux_build (LLAMAFIT_LINUX_BUILD_DIR)"

# A fresh prefix, quiet, without a display, Mono or Gecko. One wineserver for the whole run:
# by default it exits a few seconds after its last client and the next program starts another,
# and a start-up failure then and now failed a test in 0.00 s with no output (see the retry
# below).
export WINEPREFIX=$build_dir/wineprefix
export WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=" DISPLAY=
wineserver -k >/dev/null 2>&1 || true
rm -rf "$WINEPREFIX"
mkdir -p "$WINEPREFIX"
wineserver -p
trap 'wineserver -k >/dev/null 2>&1 || true' EXIT
wineboot --init >/dev/null 2>&1 || true
windows_path() { echo "Z:${1//\//\\}"; }

echo "== 1. the Windows build's tests under Wine"
if [[ -f .llama-server-windows/UNAVAILABLE ]]; then
    echo "test-windows: llamafit_windows_launch is DISABLED (the launch of llama-server.exe is not tested):" \
        "$(cat .llama-server-windows/UNAVAILABLE)" >&2
fi
# The build's programs find Qt's DLLs on Wine's PATH and its plugins (offscreen) by
# QT_PLUGIN_PATH; the installed ones (below) need neither.
(
    export WINEPATH
    WINEPATH=$(windows_path "$qt/bin")
    export QT_PLUGIN_PATH
    QT_PLUGIN_PATH=$(windows_path "$qt/plugins")
    ctest --test-dir "$build_dir/build" --output-on-failure -j "$(nproc)" --repeat until-pass:2
)

echo "== 2. the installer, silently"
install_dir=$WINEPREFIX/drive_c/users/$(id -un)/AppData/Local/Programs/LlamaFit
wine "$installer" /S
manifest=$build_dir/build/install_manifest.txt
stage=$build_dir/stage
count=0
while IFS= read -r file; do
    relative=${file#"$stage"/}
    cmp -s "$file" "$install_dir/$relative" || fail "the installer did not install $relative as built"
    count=$((count + 1))
done <"$manifest"
[[ -f "$install_dir/uninstall.exe" ]] || fail "no uninstall.exe"
start_menu=$WINEPREFIX/drive_c/users/$(id -un)/AppData/Roaming/Microsoft/Windows/Start\ Menu/Programs/LlamaFit.lnk
[[ -f "$start_menu" ]] || fail "no Start-menu entry"
user_path=$(wine reg query 'HKCU\Environment' /v Path 2>/dev/null | tr -d '\r' | sed -n 's/.*REG_EXPAND_SZ *//p' || true)
[[ "$user_path" == *'\LlamaFit\cmd'* ]] || fail "llamafit-cli is not on the user's PATH ($user_path)"
wine reg query 'HKCU\Software\Microsoft\Windows\CurrentVersion\Uninstall\LlamaFit' /v DisplayVersion |
    tr -d '\r' | grep -q "$version" || fail "no uninstall entry for $version"
echo "installed $count files into $install_dir; Start menu, uninstall entry and PATH set"

echo "== 3. the installed llamafit-cli against the Linux one, byte for byte"
# Every recorded case's argv, less "llama-server": the Linux CLI runs each here, the Windows CLI
# all of them from one batch file in one Wine session (a Wine start per case cost a second).
# Windows' C runtime writes "\n" to a redirected stdout as "\r\n"; that is the one difference
# taken out before the comparison.
parity=$build_dir/cli-parity
rm -rf "$parity"
mkdir -p "$parity"
batch=$parity/estimates.bat
printf '@echo off\r\n' >"$batch"
names=()
for recorded in tests/data/recorded/cpu-b11669/*.txt tests/data/recorded/vulkan-lavapipe-b11669/*.txt; do
    argv=$(sed -n 's/^argv: llama-server //p' "$recorded")
    # shellcheck disable=SC2016 # the recording's literal $SCRATCH
    model=$(sed -n 's|.*-m \$SCRATCH/\([^ ]*\)\.gguf.*|\1|p' <<<"$argv")
    [[ -n "$model" ]] || fail "$recorded: no model in its argv"
    if [[ ! -f "$parity/$model.gguf" ]]; then
        # A shape of tests/data/shapes (the cases spell its '-' as '_'), or one cut as the Vulkan
        # matrix names it: N blocks ("cohere2_l4"), and a vocabulary of V ("llama_l4_v32000").
        shape=$model cut=()
        if [[ "$shape" =~ ^(.*)_v([0-9]+)$ ]]; then
            shape=${BASH_REMATCH[1]} cut+=(--vocab "${BASH_REMATCH[2]}")
        fi
        if [[ "$shape" =~ ^(.*)_l([0-9]+)$ ]]; then
            shape=${BASH_REMATCH[1]} cut+=(--blocks "${BASH_REMATCH[2]}")
        fi
        stem=
        for spec in tests/data/shapes/*.json; do
            candidate=$(basename "$spec" .json)
            [[ "${candidate//-/_}" == "$shape" ]] && stem=$candidate
        done
        [[ -n "$stem" ]] || fail "$recorded: no shape in tests/data/shapes for $model"
        "$linux_build/tests/llamafit-make-gguf" "$stem" "$parity/$model.gguf" "${cut[@]}" >/dev/null
    fi
    read -r -a flags <<<"${argv//\$SCRATCH\//}"
    flags=("${flags[@]/\$PORT/8080}")
    [[ "$recorded" == *vulkan* ]] && flags+=(--gpu "vulkan=2048")
    name=$(basename "$recorded" .txt)
    names+=("$name")
    (cd "$parity" && "$linux_build/app/cli/llamafit-cli" estimate --json "${flags[@]}" >"$name.linux.json" 2>&1) || true
    printf '"%s" estimate --json %s > %s.windows.json 2>&1\r\n' \
        "$(windows_path "$install_dir/llamafit-cli.exe")" "${flags[*]}" "$name" >>"$batch"
done
(cd "$parity" && wine cmd /c estimates.bat)
refusals=0
for name in "${names[@]}"; do
    [[ -f "$parity/$name.windows.json" ]] || fail "$name: the Windows CLI wrote nothing"
    tr -d '\r' <"$parity/$name.windows.json" >"$parity/$name.windows.lf.json"
    cmp -s "$parity/$name.linux.json" "$parity/$name.windows.lf.json" ||
        fail "$name: the Windows CLI's estimate differs: diff $parity/$name.linux.json $parity/$name.windows.lf.json"
    # A refusal (settings the server refused too, as the recording shows) is compared the same.
    grep -q '"error"' "$parity/$name.linux.json" && refusals=$((refusals + 1))
done
echo "${#names[@]} recorded cases ($refusals of them refusals): the Windows CLI's estimate --json equals the Linux CLI's byte for byte"

echo "== 4. the installed app's window, English and Japanese"
shots=$build_dir/screenshots
mkdir -p "$shots"
for language in en ja; do
    shot=$shots/windows-main-$language.png
    rm -f "$shot"
    # From its own folder, with no WINEPATH or QT_PLUGIN_PATH: only what the install holds.
    (cd "$install_dir" && xvfb-run -a -s "-screen 0 1600x1000x24" \
        env -u WINEPATH -u QT_PLUGIN_PATH QT_QPA_PLATFORM=windows DISPLAY= \
        wine ./llamafit.exe --lang "$language" --screenshot "$(windows_path "$shot")") ||
        fail "the installed app did not start or write its window ($language)"
    [[ -s "$shot" ]] || fail "no screenshot $shot"
    colours=$(convert "$shot" -format '%k' info:)
    ((colours > 50)) || fail "$shot is blank ($colours colours)"
    echo "$shot: $(identify -format '%wx%h' "$shot"), $colours colours"
done

echo "== 5. the silent uninstall"
# As Windows runs it: the uninstaller copies itself to %TEMP% and returns at once, so that it
# can delete itself; its last step removes the uninstall entry, which is waited for.
wine "$install_dir/uninstall.exe" /S
uninstall_key='HKCU\Software\Microsoft\Windows\CurrentVersion\Uninstall\LlamaFit'
deadline=$((SECONDS + 120))
while wine reg query "$uninstall_key" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || fail "the uninstaller did not finish within 120 s"
done
left=()
while IFS= read -r file; do
    relative=${file#"$stage"/}
    if [[ -e "$install_dir/$relative" ]]; then
        left+=("$relative")
    fi
done <"$manifest"
if [[ -e "$install_dir/uninstall.exe" ]]; then
    left+=(uninstall.exe)
fi
if [[ -e "$start_menu" ]]; then
    left+=("the Start-menu entry")
fi
((${#left[@]} == 0)) || fail "the uninstaller left ${left[*]}"
[[ ! -e "$install_dir" ]] || fail "the install folder is not empty after the uninstall: $(ls -A "$install_dir")"
# No Path value at all is right too: the uninstaller deletes it when the entry was all it held.
user_path=$(wine reg query 'HKCU\Environment' /v Path 2>/dev/null | tr -d '\r' | sed -n 's/.*REG_EXPAND_SZ *//p' || true)
[[ "$user_path" != *'\LlamaFit\cmd'* ]] || fail "the uninstaller left llamafit-cli on the PATH"
echo "test-windows: all passed (installer $(du -h "$installer" | cut -f1))"
