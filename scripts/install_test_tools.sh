#!/usr/bin/env bash
# Optional tools some tests use, from Debian's packages: ns-2.35 (`ns2`: the
# crosscheck and `bench --against ns2` tests) and Wireshark's `tshark` (the
# pcap dissection tests). Without them those tests skip, saying why.
#
# Best effort: installs only what is missing, only as root with apt-get, and
# never fails (no network or no apt-get means the tests skip, as before).
set -uo pipefail

missing=()
command -v ns > /dev/null || missing+=(ns2)
command -v tshark > /dev/null || missing+=(tshark)
if [ ${#missing[@]} -eq 0 ]; then
    echo "install_test_tools: ns and tshark are installed"
    exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get > /dev/null; then
    echo "install_test_tools: ${missing[*]} missing and no root apt-get here;" \
        "their tests will skip (apt-get install ${missing[*]})"
    exit 0
fi
echo "install_test_tools: apt-get install ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
try_install() {
    timeout 600 apt-get install -y -qq --no-install-recommends "${missing[@]}" > /dev/null 2>&1
}
# The package lists may be missing or stale: refresh them if the first try
# fails (a refresh that fails for some sources may still serve Debian's).
if try_install || { timeout 300 apt-get update -qq; try_install; }; then
    echo "install_test_tools: installed ${missing[*]}"
else
    echo "install_test_tools: could not install ${missing[*]}; their tests will skip"
fi
exit 0
