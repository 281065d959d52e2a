#!/usr/bin/env bash
# Install what the browser tests (tests/test_browser.py, marker "browser") need: Debian's
# chromium and the fonts it draws text with. Idempotent: does nothing when all is there.
# Run as root (CI does); Playwright drives /usr/bin/chromium, so `playwright install` is never used.
set -euo pipefail
PACKAGES=(chromium fonts-liberation fonts-dejavu-core)

missing=()
for package in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [[ ${#missing[@]} -eq 0 && -x /usr/bin/chromium ]]; then
    echo "install_browser: already installed: ${PACKAGES[*]}"
    exit 0
fi
if [[ $(id -u) -ne 0 ]]; then
    echo "install_browser: need root to apt-get install ${missing[*]} (run with sudo, or as root in CI)" >&2
    exit 1
fi
echo "install_browser: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
/usr/bin/chromium --version
