#!/usr/bin/env bash
# check-format.sh [--fix]
#
# Checks that every C and C++ file git tracks is formatted by the repository's .clang-format
# (clang-format 14, Debian 12's). Prints each file that is not and exits 1; --fix formats them
# in place instead. .ci/run calls it before the tests, so an unformatted change turns CI red.
set -euo pipefail
cd "$(dirname "$0")/.."

clang_format=${CLANG_FORMAT:-clang-format}
if ! command -v "${clang_format}" >/dev/null; then
    echo "check-format: ${clang_format} not found; installing clang-format (Debian package)"
    sudo_cmd=()
    [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
    "${sudo_cmd[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends clang-format
fi

mapfile -t files < <(git ls-files '*.c' '*.cpp' '*.h')
if [[ "${1:-}" == "--fix" ]]; then
    "${clang_format}" -i "${files[@]}"
    exit 0
fi

unformatted=()
for file in "${files[@]}"; do
    if ! "${clang_format}" --dry-run --Werror "${file}" >/dev/null 2>&1; then
        unformatted+=("${file}")
    fi
done
if ((${#unformatted[@]})); then
    echo "check-format: ${#unformatted[@]} file(s) differ from .clang-format (run scripts/check-format.sh --fix):" >&2
    printf '  %s\n' "${unformatted[@]}" >&2
    exit 1
fi
echo "check-format: ${#files[@]} files formatted"
