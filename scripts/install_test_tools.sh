#!/usr/bin/env bash
# Optional tools some tests use, from Debian's packages: ns-2.35 (`ns2`: the
# crosscheck and `bench --against ns2` tests), Wireshark's `tshark` (the pcap
# dissection tests), ns-3.37 with a compiler and pkg-config (`libns3-dev`,
# `g++`, `pkg-config`: the `bench --against ns3` tests, which build
# benches/ns3/manetsim_bench.cc) and `chromium` (the animation's headless
# browser test). Without them those tests skip, saying why.
#
# Best effort: installs only what is missing, only as root with apt-get, and
# never fails (no network or no apt-get means the tests skip, as before).
set -uo pipefail

missing=()
command -v ns > /dev/null || missing+=(ns2)
command -v tshark > /dev/null || missing+=(tshark)
command -v g++ > /dev/null || missing+=(g++)
command -v pkg-config > /dev/null || missing+=(pkg-config)
# The modules python/manetsim/ns3.py builds against (PKG_MODULES there).
pkg-config --exists ns3-core ns3-network ns3-internet ns3-mobility \
    ns3-propagation ns3-wifi ns3-aodv ns3-applications 2> /dev/null ||
    missing+=(libns3-dev)
command -v chromium > /dev/null || missing+=(chromium)
if [ ${#missing[@]} -eq 0 ]; then
    echo "install_test_tools: ns, tshark, ns-3 (pkg-config) and chromium are installed"
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
    timeout 600 apt-get install -y -qq --no-install-recommends "$@" > /dev/null 2>&1
}
# The package lists may be missing or stale: refresh them if the first try
# fails (a refresh that fails for some sources may still serve Debian's).
if try_install "${missing[@]}" || { timeout 300 apt-get update -qq; try_install "${missing[@]}"; }; then
    echo "install_test_tools: installed ${missing[*]}"
    exit 0
fi
# One package that cannot be had must not keep the others out.
for package in "${missing[@]}"; do
    if try_install "$package"; then
        echo "install_test_tools: installed $package"
    else
        echo "install_test_tools: could not install $package; its tests will skip"
    fi
done
exit 0
