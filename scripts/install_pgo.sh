#!/usr/bin/env bash
# Install manetsim built with profile-guided optimisation (PGO): the same
# results, bit for bit, as `pip install .`, in less CPU time (measured in
# docs/fidelity.md, "Speed").
#
#   bash scripts/install_pgo.sh [PIP_REQUIREMENT]     # default: .
#   bash scripts/install_pgo.sh '.[test]'
#
# It builds and installs the package once instrumented, runs a fixed set of
# scenarios through it (every routing protocol, TCP variants, loss, energy;
# about a minute), merges the profiles they wrote, then builds and installs it
# again with that profile. `manetsim --version` then ends "(pgo build)", and
# `manetsim bench` reports `"build": "pgo"`.
#
# Needs, beside what `pip install .` needs, llvm-profdata of the LLVM that
# rustc uses (`rustc -vV`, "LLVM version"): Debian's `llvm-N` package, or
# rustup's `llvm-tools` component. LLVM_PROFDATA=PATH picks one; PYTHON=PATH
# the interpreter (default: python). The builds use their own cargo target
# folders (target/pgo-generate, target/pgo-use), so the ordinary build's stays
# as it was.
set -euo pipefail
cd "$(dirname "$0")/.."

fail() {
    echo "error: install_pgo.sh: $*" >&2
    exit 2
}

if [ $# -gt 1 ]; then
    fail "at most one argument (a pip requirement such as '.[test]'), got $#"
fi
requirement=${1:-.}
python=${PYTHON:-python}
command -v "$python" >/dev/null || fail "no Python interpreter '$python' (set PYTHON)"
command -v rustc >/dev/null || fail "rustc not found: install a Rust toolchain (https://rustup.rs)"

llvm=$(rustc -vV | sed -n 's/^LLVM version: //p')
major=${llvm%%.*}
[ -n "$major" ] || fail "rustc -vV names no LLVM version"

# The LLVM major version of an llvm-profdata, or nothing.
profdata_major() {
    { "$1" merge --version 2>/dev/null || true; } | sed -n 's/.*LLVM version \([0-9][0-9]*\).*/\1/p' | head -n 1
}

profdata=""
if [ -n "${LLVM_PROFDATA:-}" ]; then
    found=$(profdata_major "$LLVM_PROFDATA")
    [ -n "$found" ] || fail "LLVM_PROFDATA=$LLVM_PROFDATA is not an llvm-profdata that runs"
    [ "$found" = "$major" ] ||
        fail "LLVM_PROFDATA=$LLVM_PROFDATA is LLVM $found; rustc uses LLVM $llvm, and reads only its own profiles"
    profdata=$LLVM_PROFDATA
else
    host=$(rustc -vV | sed -n 's/^host: //p')
    for candidate in \
        "llvm-profdata-$major" \
        "/usr/lib/llvm-$major/bin/llvm-profdata" \
        "$(rustc --print sysroot)/lib/rustlib/$host/bin/llvm-profdata" \
        llvm-profdata; do
        if [ "$(profdata_major "$candidate")" = "$major" ]; then
            profdata=$candidate
            break
        fi
    done
    [ -n "$profdata" ] ||
        fail "no llvm-profdata of LLVM $major (rustc's LLVM is $llvm): install Debian's llvm-$major (apt-get install llvm-$major) or rustup's (rustup component add llvm-tools), or set LLVM_PROFDATA"
fi

work=$(mktemp -d)
instrumented=0
finish() {
    local status=$?
    rm -rf "$work"
    if [ "$status" -ne 0 ] && [ "$instrumented" = 1 ]; then
        echo "install_pgo.sh: the instrumented build is still installed; 'pip install .' replaces it" >&2
    fi
}
trap finish EXIT
echo "install_pgo.sh: rustc's LLVM $llvm, $profdata" >&2

echo "install_pgo.sh: 1/3 building the instrumented package" >&2
instrumented=1
RUSTFLAGS="-Cprofile-generate=$work/raw" CARGO_TARGET_DIR="$PWD/target/pgo-generate" \
    "$python" -m pip install --quiet "$requirement"
build=$("$python" -c 'from manetsim import _core; print(_core.build())')
[ "$build" = "instrumented" ] || fail "the package installed reports a '$build' build, not 'instrumented'"

echo "install_pgo.sh: 2/3 running the training scenarios" >&2
bench=python/manetsim/benchmarks
scenarios=benches/scenarios
train() {
    "$python" -m manetsim run "$@" --json >/dev/null 2>"$work/stderr" ||
        fail "training run '$*' failed: $(tail -n 1 "$work/stderr")"
}
train "$bench/chain6.toml" --seed 2
train "$bench/chain6.toml" --seed 3 --set routing.protocol=dsr --set flows.0.tcp.variant=reno
train "$bench/chain6.toml" --seed 4 --set routing.protocol=dsdv --set flows.0.tcp.variant=vegas
train "$bench/chain6.toml" --seed 5 --set routing.protocol=aomdv --set flows.0.tcp.variant=sack
train "$bench/rwp50.toml" --seed 2
train "$bench/rwp50.toml" --seed 3 --set routing.protocol=dsr --set duration_s=200
train "$bench/rwp50.toml" --seed 4 --set routing.protocol=dsdv --set duration_s=200
train "$bench/rwp50.toml" --seed 5 --set routing.protocol=aomdv --set duration_s=200
train "$bench/rwp50.toml" --seed 6 --set routing.protocol=olsr --set duration_s=100
train "$bench/rwp1000.toml" --seed 2 --set duration_s=12
train "$scenarios/grid50.toml" --seed 2 --set routing.protocol=dsr
train "$scenarios/loss_chain4.toml" --seed 2
train "$scenarios/shadowing_link.toml" --seed 2
train "$scenarios/energy_chain3.toml" --seed 2
train examples/oozothman_grid_mobile.toml --seed 2
train examples/single_hop_saturation.toml --seed 2
"$profdata" merge -o "$work/manetsim.profdata" "$work"/raw/*.profraw

echo "install_pgo.sh: 3/3 building the package with the profile" >&2
RUSTFLAGS="-Cprofile-use=$work/manetsim.profdata" CARGO_TARGET_DIR="$PWD/target/pgo-use" \
    "$python" -m pip install --quiet --no-deps --force-reinstall "$requirement"
build=$("$python" -c 'from manetsim import _core; print(_core.build())')
[ "$build" = "pgo" ] || fail "the package installed reports a '$build' build, not 'pgo'"
instrumented=0
"$python" -m manetsim --version
