#!/usr/bin/env bash
# compare-builds.sh DIR [--build-dir DIR] [--runs RUNS]
#
# The first step of every llama.cpp version bump: says what changed between the build
# LlamaFit is validated against (tests/data/recorded/, tests/data/server/help-0.7.0.txt) and
# the llama-server in DIR (from `scripts/fetch-llama-server.sh --latest DIR`):
#   1. the flags of `--help` that were added or removed;
#   2. for every case of the integration matrix, run against DIR's server
#      (scripts/record-server-runs.sh), the allocation lines that differ from the recording,
#      and the cases that now fail to load or now load.
# --runs RUNS compares with runs already recorded from DIR's server
# (scripts/record-server-runs.sh --server DIR/llama-server --out RUNS) instead of running the matrix.
# Prints "no differences" when there are none. Exit status 0 either way (it reports, it
# does not judge); 1 when it cannot run. Takes as long as the matrix (a few minutes).

set -euo pipefail

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_dir="$(cd "${script_dir}/.." && pwd)"
recorded="${repo_dir}/tests/data/recorded/cpu-b11669"
old_help="${repo_dir}/tests/data/server/help-0.7.0.txt"
build_dir="${LLAMAFIT_BUILD_DIR:-build}"

die() {
    echo "compare-builds: $*" >&2
    exit 1
}

[[ $# -ge 1 ]] || die "usage: $0 DIR [--build-dir DIR] [--runs RUNS]   (DIR from scripts/fetch-llama-server.sh --latest DIR)"
server="$(cd "$1" && pwd)/llama-server"
shift
runs=""
while [[ $# -gt 0 ]]; do
    case "$1" in
    --build-dir) build_dir="$2" && shift 2 ;;
    --runs) runs="$(cd "$2" && pwd)" && shift 2 ;;
    *) die "unknown argument '$1'" ;;
    esac
done
[[ -x "${server}" ]] || die "${server} is not executable: run scripts/fetch-llama-server.sh --latest DIR first"

work="$(mktemp -d "${TMPDIR:-/tmp}/llamafit-compare-XXXXXX")"
trap 'rm -rf "${work}"' EXIT

# The flag spellings of a --help text: the words that start with "-" in the flag column
# (lines that start with "-"; the description's continuation lines are indented).
flags_of() {
    grep -oE '^-{1,2}[A-Za-z0-9][-A-Za-z0-9_.]*(,? +-{1,2}[A-Za-z0-9][-A-Za-z0-9_.]*)*' "$1" |
        grep -oE -- '-{1,2}[A-Za-z0-9][-A-Za-z0-9_.]*' | sort -u
}

old_version="$(awk '/^server: / {sub(/^server: /, ""); print; exit}' "${recorded}"/*.txt)"
new_version="$("${server}" --version 2>&1 | awk '/^version:/ && !found {print; found = 1}')"
[[ -n "${new_version}" ]] || die "${server} --version printed no version line"
echo "== builds"
echo "recorded: ${old_version}"
echo "new:      ${new_version}"

echo "== --help flags (against ${old_help#"${repo_dir}/"})"
"${server}" --help >"${work}/help-new.txt" 2>&1 || true
flags_of "${old_help}" >"${work}/flags-old"
flags_of "${work}/help-new.txt" >"${work}/flags-new"
added="$(comm -13 "${work}/flags-old" "${work}/flags-new")"
removed="$(comm -23 "${work}/flags-old" "${work}/flags-new")"
differences="$(printf '%s\n%s\n' "${added}" "${removed}" | grep -c . || true)"
if [[ "${differences}" == "0" ]]; then
    echo "same $(wc -l <"${work}/flags-new") flags"
else
    [[ -z "${added}" ]] || echo "added:   $(tr '\n' ' ' <<<"${added}")"
    [[ -z "${removed}" ]] || echo "removed: $(tr '\n' ' ' <<<"${removed}")"
fi
if ! diff -q "${old_help}" "${work}/help-new.txt" >/dev/null; then
    echo "(the help text itself differs: diff ${old_help#"${repo_dir}/"} against DIR's --help for the wording)"
fi

echo "== integration matrix against the recordings"
if [[ -n "${runs}" ]]; then
    cp -r "${runs}" "${work}/new"
else
    "${script_dir}/record-server-runs.sh" --server "${server}" --out "${work}/new" --build-dir "${build_dir}" |
        sed 's/^/  /'
fi

# What a recording says, for comparing builds: the log lines without the build line and the
# reserve timing (they differ between any two builds and say nothing about sizes).
comparable() {
    sed -n '/^log:$/,$p' "$1" | sed '1d' | grep -v -e 'common_params_print_info: build' -e 'reserve took' || true
}
loads() {
    grep -q 'exiting due to model loading error' "$1" && echo "fails to load" || echo "loads"
}

changed_cases=0
compared=0
for old in "${recorded}"/*.txt; do
    name="$(basename "${old}" .txt)"
    new="${work}/new/${name}.txt"
    if [[ ! -f "${new}" ]]; then
        echo "${name}: not run against the new build (the case is gone from the matrix?)"
        changed_cases=$((changed_cases + 1))
        continue
    fi
    if grep -q '^not recorded: ' "${old}" || grep -q '^not recorded: ' "${new}"; then
        continue
    fi
    compared=$((compared + 1))
    if [[ "$(loads "${old}")" != "$(loads "${new}")" ]]; then
        echo "${name}: $(loads "${old}") with the recorded build, $(loads "${new}") with the new one"
    fi
    if ! diff -q <(comparable "${old}") <(comparable "${new}") >/dev/null; then
        echo "${name}:"
        { diff <(comparable "${old}") <(comparable "${new}") || true; } | grep -E '^[<>]' |
            sed 's/^</  recorded:/; s/^>/  new:     /'
        changed_cases=$((changed_cases + 1))
    fi
done
for new in "${work}/new"/*.txt; do
    [[ -f "${recorded}/$(basename "${new}")" ]] ||
        echo "$(basename "${new}" .txt): no recording (a new case: run scripts/record-server-runs.sh)"
done

echo "== summary"
echo "${compared} cases compared, ${changed_cases} with different allocation lines; ${differences} flags added or removed"
if [[ "${changed_cases}" == "0" && "${differences}" == "0" ]]; then
    echo "no differences"
fi
