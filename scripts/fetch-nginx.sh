#!/usr/bin/env bash
# fetch-nginx.sh [DEST]
#
# Puts Debian 12's nginx (bookworm's 1.22.1 package) into DEST (default <repo>/.nginx) without
# touching the system: `apt-get download nginx` into a temporary folder and `dpkg -x` into
# DEST/root. Nothing is installed, no service is started, no root is needed. The tests of the
# Hugging Face Hub client serve their emulated Hub with it (tests/support/hubemulation.h; the
# configuration pieces are in ../shared/reference/model-sourcing.md section 5, checked with this
# nginx against real llama-server).
#
# Produces:
#   DEST/root/usr/sbin/nginx   the unpacked binary (it links the host's libc, libcrypt, libpcre2,
#                              libssl and zlib, all in a Debian 12 base system). The tests find it
#                              through $LLAMAFIT_NGINX or the CMake cache variable LLAMAFIT_NGINX.
# Only the nginx package is unpacked: nginx-common holds /etc/nginx and the systemd unit, which
# an nginx started with `-p DIR -c CONF -e LOG` never reads.
#
# Where the package comes from: the host's apt configuration first (its sources, mirrors and
# proxy, read-only, as any user may), then, when that has no nginx 1.22.1 (no package lists yet,
# not Debian 12), a private apt setup (sources list, lists and cache in a temporary folder) for
# Debian bookworm and bookworm-security from deb.debian.org.
#
# Idempotent: a DEST whose nginx already runs and reports nginx/1.22.1 is left alone.
# Exit status: 0 ready; 1 nginx could not be fetched or does not run here (the message says
# why). There is no "skip": the Hub client's tests need it.

set -euo pipefail

readonly EXPECTED_VERSION="nginx/1.22.1"
readonly PACKAGE="nginx"
readonly KEYRING="/usr/share/keyrings/debian-archive-keyring.gpg"
readonly ARCHIVE_LINES=(
    "deb [signed-by=${KEYRING}] http://deb.debian.org/debian bookworm main"
    "deb [signed-by=${KEYRING}] http://deb.debian.org/debian-security bookworm-security main"
)

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_dir="$(cd "${script_dir}/.." && pwd)"
dest="${1:-${repo_dir}/.nginx}"
mkdir -p "${dest}"
dest="$(cd "${dest}" && pwd)"
root="${dest}/root"
binary="${root}/usr/sbin/nginx"

die() {
    echo "fetch-nginx: $*" >&2
    exit 1
}

# The version line of the unpacked nginx (it prints it on stderr), empty when it does not run.
unpacked_version() {
    [[ -x "${binary}" ]] || return 0
    "${binary}" -v 2>&1 || true
}

# As root apt hands downloads to the _apt user, who cannot write into a folder made by mktemp.
sandbox_options=()
if [[ "$(id -u)" == "0" ]]; then
    sandbox_options=(-o "APT::Sandbox::User=root")
fi

# apt-get download with the host's configuration, into the current folder.
download_with_host_apt() {
    apt-get "${sandbox_options[@]}" -qq download "${PACKAGE}" 2>&1
}

# apt-get download with a private bookworm setup, into the current folder. Every path apt would
# write to or read policy from is redirected, so the system's sources, pinning, state and
# caches are neither used nor changed (the same setup as fetch-llama-server.sh).
download_with_private_apt() {
    local apt_dir="$1"
    mkdir -p "${apt_dir}/lists/partial" "${apt_dir}/cache/archives/partial"
    printf '%s\n' "${ARCHIVE_LINES[@]}" >"${apt_dir}/sources.list"
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
        -o "Acquire::Languages=none"
        -o "APT::Architecture=amd64"
        -o "APT::Architectures=amd64"
        "${sandbox_options[@]}"
    )
    # apt-get update succeeds (with warnings) when it cannot connect: look for the index itself.
    apt-get "${apt_options[@]}" -qq update 2>&1 || return 1
    compgen -G "${apt_dir}/lists/*_bookworm_main_binary-amd64_Packages*" >/dev/null || {
        echo "no Debian bookworm package index after apt-get update (no network to deb.debian.org?)"
        return 1
    }
    apt-get "${apt_options[@]}" -qq download "${PACKAGE}" 2>&1
}

# Unpacks the one nginx_*.deb in folder $1 into DEST/root (replacing what was there).
unpack() {
    local debs=("$1"/nginx_*.deb)
    [[ -f "${debs[0]}" ]] || return 1
    rm -rf "${root}"
    mkdir -p "${root}"
    dpkg -x "${debs[0]}" "${root}"
}

if [[ "$(unpacked_version)" == *"${EXPECTED_VERSION}"* ]]; then
    echo "fetch-nginx: ${binary} already holds ${EXPECTED_VERSION}"
    exit 0
fi

command -v apt-get >/dev/null || die "apt-get not found: fetching nginx needs a Debian-based system"
command -v dpkg >/dev/null || die "dpkg not found: fetching nginx needs a Debian-based system"

work="$(mktemp -d "${TMPDIR:-/tmp}/fetch-nginx.XXXXXX")"
trap 'rm -rf "${work}"' EXIT
mkdir -p "${work}/host" "${work}/private"

echo "fetch-nginx: downloading ${PACKAGE} with the host's apt sources"
host_log=""
if host_log="$(cd "${work}/host" && download_with_host_apt)"; then
    if unpack "${work}/host" && [[ "$(unpacked_version)" == *"${EXPECTED_VERSION}"* ]]; then
        echo "fetch-nginx: ready: ${binary} ($(unpacked_version))"
        exit 0
    fi
    host_log="$(unpacked_version)"
    host_log="it gave ${host_log:-an nginx that does not run here}"
else
    host_log="apt-get download failed: ${host_log:-no message}"
fi
echo "fetch-nginx: no ${EXPECTED_VERSION} from the host's apt (${host_log}); trying Debian bookworm from deb.debian.org"

[[ "$(dpkg --print-architecture)" == "amd64" ]] ||
    die "the private setup fetches Debian's amd64 package, and this is $(dpkg --print-architecture)"
[[ -r "${KEYRING}" ]] || die "${KEYRING} missing: install debian-archive-keyring"
private_log=""
private_log="$(cd "${work}/private" && download_with_private_apt "${work}/apt")" ||
    die "apt-get download ${PACKAGE} from Debian bookworm failed (network?): ${private_log}"
unpack "${work}/private" || die "apt-get download produced no nginx_*.deb: ${private_log}"

version="$(unpacked_version)"
if [[ "${version}" != *"${EXPECTED_VERSION}"* ]]; then
    # The usual cause is a library missing on a host that is not Debian 12: say which.
    missing="$(ldd "${binary}" 2>/dev/null | grep 'not found' || true)"
    die "the unpacked ${binary} does not report ${EXPECTED_VERSION}: ${version}${missing:+; missing libraries: ${missing}}"
fi
echo "fetch-nginx: ready: ${binary} (${version})"
