#!/usr/bin/env bash
# ensure-packages.sh WHO PACKAGE...: installs the Debian packages of the list that are not
# installed yet (apt-get, through sudo unless root), saying which on behalf of WHO; apt is not
# touched when nothing is missing. The one home of the check the build, packaging and Windows
# scripts share.
set -euo pipefail
who=$1
shift
missing=()
for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
((${#missing[@]})) || exit 0
sudo_cmd=()
[[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
echo "$who: installing ${missing[*]}"
"${sudo_cmd[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
