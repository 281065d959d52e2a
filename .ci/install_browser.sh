#!/usr/bin/env bash
# Install what the browser tests (tests/test_browser.py, marker "browser") need: Debian's
# chromium and the fonts it draws text with. Idempotent: does nothing when all is there.
# Run it as it is, `.ci/install_browser.sh`: as root (CI, a container) it installs directly; as a user it asks sudo;
# where neither works, or there is no apt-get (macOS, Fedora, ...), it says what to do instead
# (tests/test_install_browser.py runs each case with fakes).
# Playwright drives /usr/bin/chromium (or $SBERT_WORKBOOK_CHROMIUM), so `playwright install` is never used.
set -euo pipefail
PACKAGES=(chromium fonts-liberation fonts-dejavu-core)
CHROMIUM="${SBERT_WORKBOOK_CHROMIUM:-/usr/bin/chromium}"
NEEDS_ROOT="Run this script as root (su -c .ci/install_browser.sh, or docker exec -u 0 ...), or ask whoever runs this
machine to apt-get install"
SKIPPED="Until then the browser tests are skipped (under CI=true they fail)."

missing=()
for package in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [[ ${#missing[@]} -eq 0 ]]; then   # from here on, missing is never empty (bash 3.2 under set -u needs that)
    if [[ -x $CHROMIUM ]]; then echo "install_browser: already installed: ${PACKAGES[*]}"; exit 0; fi
    echo "install_browser: ${PACKAGES[*]} are installed, but $CHROMIUM is not a program: point" \
        "SBERT_WORKBOOK_CHROMIUM at Chromium, or unset it for /usr/bin/chromium" >&2
    exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "install_browser: there is no apt-get here: this script installs Debian's and Ubuntu's packages. Install" \
        "Chromium with your system's package manager (on a Mac: brew install --cask chromium), then tell the tests" \
        "where it is: export SBERT_WORKBOOK_CHROMIUM=/path/to/chromium. $SKIPPED" >&2
    exit 1
fi
as_root=()
if [[ $(id -u) -ne 0 ]]; then
    if ! command -v sudo >/dev/null 2>&1; then
        echo "install_browser: installing ${missing[*]} needs root, and there is no sudo here. $NEEDS_ROOT" \
            "${missing[*]}. $SKIPPED" >&2
        exit 1
    fi
    echo "install_browser: installing ${missing[*]} needs root: asking sudo"
    as_root=(sudo)
fi

apt() {   # apt-get "$@" as root (through sudo when this is not root); what to do when that is refused
    ${as_root[@]+"${as_root[@]}"} env DEBIAN_FRONTEND=noninteractive apt-get "$@" && return 0
    echo "install_browser: apt-get $1 failed (above: why). If sudo refused, $NEEDS_ROOT ${missing[*]}. $SKIPPED" >&2
    exit 1
}

echo "install_browser: installing ${missing[*]}"
apt update -qq
apt install -y -qq --no-install-recommends "${missing[@]}"
"$CHROMIUM" --version
