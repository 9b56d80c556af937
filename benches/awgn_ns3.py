"""Bit errors beside ns-3.44's error-rate model, frame by frame.

Usage: python benches/awgn_ns3.py [--seeds N]   (3 by default, about 2 min)

Two nodes under two-ray ground at 914 MHz, sending 0.126 mW so that the
802.11b rates lose frames between 150 and 260 m, with the thresholds at
1e-13 W (the noise is 4.4e-13 W: the SNR, not a threshold, decides), AODV,
node 0 sending 512-byte UDP datagrams to node 1 four times a second for
300 s without RTS/CTS. For each data rate and distance it runs manetsim with
`radio.error_model = "awgn"` and the ns-3 program (`--bitErrors=true`: ns-3's
`YansErrorRateModel`, whose DSSS rates are its `DsssErrorRateModel`, at the
same 7 dB noise figure; `--frameCounts=true` counts the frames each PHY
decoded, its `RxOk`) over seeds 1..N, and prints the fraction of node 0's
frames node 1 decoded and the CBR delivery in each. The fraction mixes the
data frames with the few AODV requests once a route breaks. Basic rate 1
Mb/s: the ACKs, and node 1's frames, get through in both at every distance
shown. Then, for each rate, where each simulator loses half the frames
(manetsim, and ns-3 with its YANS and NIST models), and the SINR the faint
pair of docs/fidelity.md leaves: frames too weak to sense, counted as
interference in both (`radio.interference_threshold_w`, ns-3's
`RxSensitivity`); a saturated 802.11a pair's goodput under each rate
control, manetsim's and ns-3's of the same name, with either response
rate; and a saturated 802.11g pair's at constant rates.
"""

from __future__ import annotations

import math
import subprocess
import sys
import tempfile
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fading_ns3 import measure, scenario, setup

from manetsim import ns3, run

# (standard, data rate in b/s, distance in m)
CASES: list[tuple[str, int, float]] = [
    ("802.11b", 1_000_000, 240.0),
    ("802.11b", 1_000_000, 250.0),
    ("802.11b", 2_000_000, 180.0),
    ("802.11b", 2_000_000, 190.0),
    ("802.11b", 5_500_000, 165.0),
    ("802.11b", 5_500_000, 175.0),
    ("802.11b", 11_000_000, 150.0),
    ("802.11b", 11_000_000, 160.0),
    ("802.11a", 12_000_000, 400.0),
    ("802.11a", 12_000_000, 415.0),
    ("802.11a", 24_000_000, 190.0),
    ("802.11a", 24_000_000, 200.0),
    ("802.11a", 54_000_000, 68.0),
    ("802.11a", 54_000_000, 72.0),
]


def overrides(standard: str, rate_bps: int) -> dict[str, Any]:
    """The bit errors, and the radio that makes each rate lose frames in
    tens to hundreds of metres: 802.11b at 914 MHz over two-ray ground,
    0.126 mW; 802.11a at 5.18 GHz in free space, 10 mW."""
    common = {
        "radio.error_model": "awgn",
        "mac.standard": standard,
        "mac.data_rate_bps": rate_bps,
        # ns-3's frames: the datagram after 8 bytes of LLC/SNAP.
        "mac.frames": "llc_snap",
    }
    if standard == "802.11a":
        return {
            **common,
            "radio.propagation": "free_space",
            "radio.frequency_hz": 5.18e9,
            "radio.tx_power_w": 0.01,
            "radio.rx_threshold_w": 1e-14,
            "radio.cs_threshold_w": 1e-14,
            "mac.basic_rate_bps": 6_000_000,
        }
    return {
        **common,
        "radio.tx_power_w": 1.26e-4,
        "radio.rx_threshold_w": 1e-13,
        "radio.cs_threshold_w": 1e-13,
        "mac.basic_rate_bps": 1_000_000,
    }


# (standard, data rate in b/s, a distance near where half its frames fail)
RATES: list[tuple[str, int, float]] = [
    ("802.11b", 1_000_000, 250.0),
    ("802.11b", 2_000_000, 190.0),
    ("802.11b", 5_500_000, 180.0),
    ("802.11b", 11_000_000, 165.0),
    ("802.11a", 12_000_000, 420.0),
    ("802.11a", 24_000_000, 200.0),
    ("802.11a", 54_000_000, 72.0),
]
# ns-3's error-rate models beside manetsim's.
NS3_MODELS = ("ns3::YansErrorRateModel", "ns3::NistErrorRateModel")


def decoded_in(
    doc: dict[str, Any], extra: dict[str, Any], binary: Path | None, model: str
) -> float:
    """The fraction of node 0's frames node 1 decoded (seed 1) in manetsim
    or, given the program, in ns-3 with error-rate model `model`."""
    if binary is None:
        nodes = run(doc, seed=1, overrides=extra).nodes
        return int(nodes["frames_received"][1]) / int(nodes["frames_sent"][0])
    with tempfile.TemporaryDirectory() as folder:
        command = ns3.prepare(doc, Path(folder), binary, overrides=extra, seed=1)
        proc = subprocess.run(
            [*command, "--frameCounts=true", f"--errorRateModel={model}"],
            capture_output=True,
            text=True,
            check=True,
        )
    frames = ns3.parse_frames(proc.stdout)
    return frames[1]["frames_received"] / frames[0]["frames_sent"]


def decoded(
    standard: str, rate_bps: int, distance_m: float, binary: Path | None, model: str = ""
) -> float:
    """`decoded_in` for the two-node scenario at `distance_m`, 100 s."""
    extra = {**overrides(standard, rate_bps), "duration_s": 100.0, "flows.0.stop_s": 100.0}
    return decoded_in(scenario(distance_m), extra, binary, model)


def half_distance(fraction: Callable[[float], float], near_m: float) -> float:
    """Where `fraction` first falls to one half, going out from `near_m`
    (which must decode more than half) in steps of 10 %, then by bisection.
    Going out finds the first crossing: beyond it AODV's route requests,
    sent at the basic rate when the route breaks, mix into the fraction."""
    if fraction(near_m) <= 0.5:
        raise ValueError(f"more than half the frames fail at {near_m} m already")
    far_m = near_m
    while True:
        near_m, far_m = far_m, far_m * 1.1
        if fraction(far_m) <= 0.5:
            break
    for _ in range(7):
        mid_m = (near_m * far_m) ** 0.5
        if fraction(mid_m) > 0.5:
            near_m = mid_m
        else:
            far_m = mid_m
    return (near_m * far_m) ** 0.5


def offsets(binary: Path) -> None:
    """Each rate's distance where half the frames fail, in manetsim and in
    ns-3 with each error-rate model, and the SNR that ns-3's model then
    needs beside manetsim's: free space loses 20 dB a decade of distance,
    two-ray ground past its crossover 40."""
    print()
    print(
        "| standard | rate | half lost, manetsim | ns-3 YansErrorRateModel (SNR beside) "
        "| ns-3 NistErrorRateModel (SNR beside) |"
    )
    print("|---|---|---|---|---|")
    for standard, rate_bps, guess_m in RATES:
        start_m = guess_m * 0.6
        ours = half_distance(partial(decoded, standard, rate_bps, binary=None), start_m)
        per_decade = 20.0 if standard == "802.11a" else 40.0
        cells = []
        for model in NS3_MODELS:
            at = partial(decoded, standard, rate_bps, binary=binary, model=model)
            theirs = half_distance(at, start_m)
            cells.append(f"{theirs:.1f} m ({-per_decade * math.log10(theirs / ours):+.1f} dB)")
        print(
            f"| {standard} | {rate_bps / 1e6:g} Mb/s | {ours:.1f} m | {cells[0]} | {cells[1]} |",
            flush=True,
        )


def faint_pair(floor: bool) -> tuple[dict[str, Any], dict[str, Any]]:
    """The faint-pair test's layout (docs/fidelity.md, "Frames too weak to
    sense") with CBR and AODV, which the program expresses: S 20 m from R,
    and a pair I → J out of everyone's carrier-sense range whose frames reach
    R 4 dB below S's, 802.11a at 54 Mb/s in free space at 5.18 GHz, 8 mW,
    the thresholds 3 dB below S's power at R. S sends 200 datagrams of 1000
    bytes a second, I 190.7 (so that the two drift through every phase), for
    100 s; with `floor`, frames down to a thousandth of carrier sense
    interfere. The scenario and its overrides."""
    d_ri = 20.0 * 2.5**0.5
    # Free space at 5.18 GHz: the power at 20 m of 8 mW.
    wavelength_m = 299_792_458.0 / 5.18e9
    p_sr = 0.008 * (wavelength_m / (4.0 * math.pi * 20.0)) ** 2
    doc = scenario(20.0)
    doc["nodes"] = {
        "count": 4,
        "placement": "explicit",
        "positions": [[0.0, 0.0], [20.0, 0.0], [20.0 + d_ri, 0.0], [22.0 + d_ri, 0.0]],
    }
    doc["area"] = {"width_m": 30.0 + d_ri, "height_m": 10.0}
    doc["duration_s"] = 101.0
    flow = {"transport": "udp", "app": "cbr", "start_s": 1.0, "stop_s": 101.0}
    doc["flows"] = [
        {**flow, "src": 0, "dst": 1, "packet_size_bytes": 1000, "rate_bps": 1.6e6},
        {**flow, "src": 2, "dst": 3, "packet_size_bytes": 1000, "rate_bps": 1.5256e6},
    ]
    extra: dict[str, Any] = {
        **overrides("802.11a", 54_000_000),
        "radio.tx_power_w": 0.008,
        "radio.rx_threshold_w": p_sr / 2.0,
        "radio.cs_threshold_w": p_sr / 2.0,
    }
    if floor:
        extra["radio.interference_threshold_w"] = p_sr / 2000.0
    return doc, extra


def faint(binary: Path) -> None:
    """S's frames that R decoded, with and without the faint frames, in
    manetsim and in ns-3 with each error-rate model."""
    print()
    print("| faint frames | S's frames R decoded: manetsim | ns-3 Yans | ns-3 Nist |")
    print("|---|---|---|---|")
    for floor in (False, True):
        doc, extra = faint_pair(floor)
        cells = [decoded_in(doc, extra, None, "")]
        cells += [decoded_in(doc, extra, binary, model) for model in NS3_MODELS]
        label = "down to cs / 1000" if floor else "none (cs)"
        print(f"| {label} | " + " | ".join(f"{c:.4f}" for c in cells) + " |", flush=True)


def saturated_pair(distance_m: float) -> dict[str, Any]:
    """Two nodes `distance_m` apart, node 0 offering 40 Mb/s of 1000-byte
    datagrams for 10 s (more than 802.11a carries)."""
    doc = scenario(distance_m)
    doc["duration_s"] = 11.0
    doc["flows"][0].update(
        {"start_s": 1.0, "stop_s": 11.0, "packet_size_bytes": 1000, "rate_bps": 40e6}
    )
    return doc


# (rate control, data rate in b/s: the top rate under rate control, response rate)
RATE_CONTROLS: list[tuple[str, int, str]] = [
    (kind, rate_bps, response)
    for kind, rate_bps in (
        ("constant", 54_000_000),
        ("constant", 36_000_000),
        ("constant", 24_000_000),
        ("arf", 54_000_000),
        ("aarf", 54_000_000),
        ("minstrel", 54_000_000),
    )
    for response in ("basic", "standard")
]


def rate_controls(binary: Path) -> None:
    """Goodput of a saturated 802.11a pair in free space (0.1 W, thresholds
    at 1e-14 W) under each rate control, 100 m apart (every rate clean) and
    241.2 m (54 Mb/s loses 99.9 % of frames in manetsim), in manetsim and
    in ns-3 with each error-rate model (its ArfWifiManager,
    AarfWifiManager and MinstrelWifiManager)."""
    print()
    print("| distance | rate control | response rate | Mb/s: manetsim | ns-3 Yans | ns-3 Nist |")
    print("|---|---|---|---|---|---|")
    base = {
        **overrides("802.11a", 54_000_000),
        "radio.tx_power_w": 0.1,
    }
    for distance_m in (100.0, 241.2):
        doc = saturated_pair(distance_m)
        for kind, rate_bps, response in RATE_CONTROLS:
            extra = {
                **base,
                "mac.rate_control": kind,
                "mac.data_rate_bps": rate_bps,
                "mac.response_rate": response,
            }
            flows = run(doc, seed=1, overrides=extra).flows
            cells = [int(flows["received"][0]) * 8000 / 10.0 / 1e6]
            for model in NS3_MODELS:
                with tempfile.TemporaryDirectory() as folder:
                    command = ns3.prepare(doc, Path(folder), binary, overrides=extra, seed=1)
                    proc = subprocess.run(
                        [*command, f"--errorRateModel={model}"],
                        capture_output=True,
                        text=True,
                        check=True,
                    )
                totals = ns3.parse_result(proc.stdout)
                cells.append(int(totals["udp_rx_packets"]) * 8000 / 10.0 / 1e6)
            label = f"{kind} at {rate_bps / 1e6:g}" if kind == "constant" else kind
            print(
                f"| {distance_m:g} m | {label} | {response} | "
                + " | ".join(f"{c:.2f}" for c in cells)
                + " |",
                flush=True,
            )


# (data rate, basic rate) of the 802.11g table: ERP-OFDM data answered in
# ERP-OFDM or DSSS, and HR/DSSS and DSSS data.
ERP_RATES: list[tuple[int, int]] = [
    (54_000_000, 6_000_000),
    (54_000_000, 1_000_000),
    (24_000_000, 6_000_000),
    (11_000_000, 1_000_000),
    (2_000_000, 1_000_000),
]


def erp_overrides(rate_bps: int, basic_bps: int, response: str) -> dict[str, Any]:
    """A saturated 802.11g pair's overrides: 2.412 GHz in free space,
    0.1 W (every rate clean at 100 m), LLC/SNAP frames."""
    return {
        **overrides("802.11a", rate_bps),
        "mac.standard": "802.11g",
        "radio.frequency_hz": 2.412e9,
        "radio.tx_power_w": 0.1,
        "mac.basic_rate_bps": basic_bps,
        "mac.response_rate": response,
    }


def erp(binary: Path) -> None:
    """Goodput of a saturated 802.11g pair 100 m apart at a constant rate
    under each response rate, in manetsim and ns-3 (its
    WIFI_STANDARD_80211g: ERP-OFDM with the 6 µs signal extension), with
    the long slot, then the short one at the basic rate, and the rate ns-3's
    receiver sent its ACKs at."""
    print()
    print(
        "| slot | data rate | basic rate | response rate | Mb/s: manetsim | ns-3 | ns-3's ACKs at |"
    )
    print("|---|---|---|---|---|---|---|")
    doc = saturated_pair(100.0)
    cases = [(r, b, response, "long") for r, b in ERP_RATES for response in ("basic", "standard")]
    cases += [(r, b, "basic", "short") for r, b in ERP_RATES]
    for rate_bps, basic_bps, response, slot in cases:
        extra = {**erp_overrides(rate_bps, basic_bps, response), "mac.slot": slot}
        ours = int(run(doc, seed=1, overrides=extra).flows["received"][0])
        with tempfile.TemporaryDirectory() as folder:
            command = ns3.prepare(doc, Path(folder), binary, overrides=extra, seed=1)
            proc = subprocess.run(
                [*command, "--frameCounts=true"], capture_output=True, text=True, check=True
            )
        theirs = int(ns3.parse_result(proc.stdout)["udp_rx_packets"])
        acks = [
            key.split("_")[2]
            for key in ns3.parse_frames(proc.stdout)[1]
            if key.startswith("acks_at_")
        ]
        print(
            f"| {slot} | {rate_bps / 1e6:g} Mb/s | {basic_bps / 1e6:g} Mb/s | {response} "
            f"| {ours * 8000 / 10.0 / 1e6:.2f} | {theirs * 8000 / 10.0 / 1e6:.2f} "
            f"| {', '.join(f'{int(r) / 1e6:g}' for r in acks)} Mb/s |",
            flush=True,
        )


def main(argv: list[str]) -> int:
    ready = setup(__doc__.splitlines()[0], argv, 3)
    if ready is None:
        return 2
    binary, seeds = ready
    print(
        "| standard | rate | distance | decoded 0→1, manetsim / ns-3 "
        "| CBR delivery manetsim / ns-3 |"
    )
    print("|---|---|---|---|---|")
    for standard, rate_bps, distance_m in CASES:
        extra = overrides(standard, rate_bps)
        ours, theirs = measure("none", distance_m, extra, seeds, binary)
        assert theirs is not None
        a, b = ours.fractions(), theirs.fractions()
        print(
            f"| {standard} | {rate_bps / 1e6:g} Mb/s | {distance_m:g} m | {a[0]:.4f} / {b[0]:.4f} "
            f"| {a[2]:.3f} / {b[2]:.3f} |",
            flush=True,
        )
    offsets(binary)
    faint(binary)
    rate_controls(binary)
    erp(binary)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
