"""Fading beside ns-3.44's NakagamiPropagationLossModel, frame by frame.

Usage: python benches/fading_ns3.py [--seeds N]   (10 by default, about 10 s)

Two nodes under ns-2's WaveLAN defaults (two-ray ground, the 250 m receive
threshold), AODV, node 0 sending 512-byte UDP datagrams to node 1 four times
a second for 300 s without RTS/CTS. For each fading case and distance it runs
manetsim and the ns-3 program (`benches/ns3/manetsim_bench.cc`, with
`--frameCounts=true`, compiled against the ns-3 found as `manetsim bench
--against ns3` finds it) over seeds 1..N, and prints the fraction of node 0's
frames that node 1 decoded and of node 1's that node 0 decoded, in each
simulator, beside the probability that a frame's fade lifts it over the
threshold: Q(m, m · threshold / mean power), the Gamma distribution's tail.
The end-to-end delivery is printed too; it depends on each simulator's AODV
(docs/fidelity.md, "Fading"). Then the same under ns-2's log-normal
shadowing without fading (ns-3's LogDistancePropagationLossModel from
Friis's loss at the reference distance, then RandomPropagationLossModel
with a normal draw in dB), beside the probability that the draw lifts the
mean power over the threshold; and Rayleigh fading correlated in time
(`radio.fading_doppler_hz`; ns-3's JakesPropagationLossModel), beside the
fraction of the time a link is above the threshold. For that last table
manetsim also runs with static routes: ns-3's AODV, without HELLOs, never
takes a source's route down when its MAC gives a packet up (its neighbour
list, which the MAC's failures are matched against, holds only hops of
packets the node forwarded or received), so its source, like a static
route, sends each packet into the fade where manetsim's AODV rediscovers
and holds them; and it prints the data packets each simulator's MAC gave
up and, for ns-3, those its ARP dropped (docs/fidelity.md, "Fading
correlated in time").
"""

from __future__ import annotations

import argparse
import math
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from manetsim import ns3, run
from manetsim.run import load_config

# (fading, distance in m, overrides, m at that distance)
CASES: list[tuple[str, float, dict[str, Any], float]] = [
    ("none", 210.22, {}, float("inf")),
    ("rayleigh", 210.22, {}, 1.0),
    ("rayleigh", 240.0, {}, 1.0),
    ("nakagami", 210.22, {}, 0.75),
    (
        "nakagami",
        210.22,
        {
            "radio.nakagami_m0": 3.0,
            "radio.nakagami_distance1_m": 250.0,
            "radio.nakagami_distance2_m": 300.0,
        },
        3.0,
    ),
]

# Log-normal shadowing, no fading: (path-loss exponent, deviation in dB,
# distance in m). ns-2's defaults (2.0, 4 dB) put the mean power at the
# receive threshold near 725 m; 2.7 near 131 m.
SHADOWING_CASES: list[tuple[float, float, float]] = [
    (2.0, 4.0, 600.0),
    (2.0, 4.0, 725.0),
    (2.7, 6.0, 100.0),
    (2.7, 6.0, 160.0),
]


# Time-correlated Rayleigh fading: the Doppler frequencies (Hz), at the
# distance where the mean power is twice the threshold.
DOPPLER_HZ: list[float] = [2.0, 20.0, 200.0]

# Where two-ray ground's mean power is twice the 250 m receive threshold
# (the power falls with the fourth power of the distance): 210.22 m.
TWICE_THRESHOLD_M = 250.0 / 2**0.25


def shadowing_overrides(exponent: float, std_db: float) -> dict[str, Any]:
    return {
        "radio.propagation": "shadowing",
        "radio.path_loss_exponent": exponent,
        "radio.shadowing_std_db": std_db,
    }


def scenario(distance_m: float) -> dict[str, Any]:
    return {
        "name": "fading_pair",
        "duration_s": 300.0,
        "seed": 1,
        "area": {"width_m": distance_m + 10.0, "height_m": 10.0},
        "nodes": {
            "count": 2,
            "placement": "explicit",
            "positions": [[0.0, 0.0], [distance_m, 0.0]],
        },
        "routing": {"protocol": "aodv"},
        "mac": {"rts_threshold_bytes": 3000},
        "flows": [
            {
                "src": 0,
                "dst": 1,
                "transport": "udp",
                "app": "cbr",
                "start_s": 1.0,
                "stop_s": 300.0,
                "packet_size_bytes": 512,
                "rate_bps": 16384.0,
            }
        ],
    }


def gamma_q(a: float, x: float) -> float:
    """P(X > x) for X ~ Gamma(a, 1): one minus the lower function's series,
    x^a e^-x / Γ(a + 1) * Σ x^n / ((a + 1) … (a + n)), fine for x of a few."""
    term, total, n = 1.0, 1.0, 0
    while term > 1e-17 * total:
        n += 1
        term *= x / (a + n)
        total += term
    return 1.0 - math.exp(a * math.log(x) - x - math.lgamma(a + 1.0)) * total


def expected(doc: dict[str, Any], overrides: dict[str, Any], distance_m: float, m: float) -> float:
    """The probability that a frame `distance_m` away reaches the receive
    threshold: two-ray ground's mean power (past its crossover), faded."""
    radio = load_config(doc, overrides)["radio"]
    h2 = float(radio["antenna_height_m"]) ** 2
    mean_w = float(radio["tx_power_w"]) * h2 * h2 / (distance_m**4 * float(radio["system_loss"]))
    needed = float(radio["rx_threshold_w"]) / mean_w
    if math.isinf(m):
        return 1.0 if needed <= 1.0 else 0.0
    return gamma_q(m, m * needed)


def expected_shadowing(doc: dict[str, Any], overrides: dict[str, Any], distance_m: float) -> float:
    """The probability that a frame `distance_m` away reaches the receive
    threshold under shadowing: Friis's power at the reference distance,
    10 β log10(d / d0) dB less, and a normal draw in dB (deviation
    `radio.shadowing_std_db`) over the rest."""
    radio = load_config(doc, overrides)["radio"]
    wavelength_m = 299_792_458.0 / float(radio["frequency_hz"])
    d0 = float(radio["reference_distance_m"])
    pr0_w = (
        float(radio["tx_power_w"])
        * wavelength_m**2
        / ((4.0 * math.pi * d0) ** 2 * float(radio["system_loss"]))
    )
    mean_w = pr0_w * (d0 / max(distance_m, d0)) ** float(radio["path_loss_exponent"])
    z = (
        10.0
        * math.log10(float(radio["rx_threshold_w"]) / mean_w)
        / float(radio["shadowing_std_db"])
    )
    return 0.5 * math.erfc(z / math.sqrt(2.0))


@dataclass
class Figures:
    """What one case gave over the seeds, for one simulator: frames node 1
    decoded of node 0's, node 0 of node 1's, and the CBR packets delivered."""

    forward: tuple[int, int] = (0, 0)
    backward: tuple[int, int] = (0, 0)
    delivered: tuple[int, int] = (0, 0)
    # Unicast packets the MACs gave up after the retry limit (manetsim's
    # link failures; ns-3's data packets dropped at the retry limit), and
    # data packets ARP dropped (ns-3 only: manetsim's default has no ARP).
    given_up: int = 0
    arp_dropped: int = 0

    def add(
        self,
        forward: tuple[int, int],
        backward: tuple[int, int],
        delivered: tuple[int, int],
        given_up: int,
        arp_dropped: int = 0,
    ) -> None:
        self.forward = (self.forward[0] + forward[0], self.forward[1] + forward[1])
        self.backward = (self.backward[0] + backward[0], self.backward[1] + backward[1])
        self.delivered = (self.delivered[0] + delivered[0], self.delivered[1] + delivered[1])
        self.given_up += given_up
        self.arp_dropped += arp_dropped

    def fractions(self) -> tuple[float, float, float]:
        return tuple(a / b for a, b in (self.forward, self.backward, self.delivered))  # type: ignore[return-value]


def measure(
    fading: str,
    distance_m: float,
    extra: dict[str, Any],
    seeds: int,
    binary: Path | None,
    routing: str = "aodv",
) -> tuple[Figures, Figures | None]:
    """manetsim's figures and, given the ns-3 program, ns-3's, over seeds
    1..seeds; `routing` is manetsim's (the ns-3 program runs AODV)."""
    doc = scenario(distance_m)
    overrides = {"radio.fading": fading, **extra}
    ours, theirs = Figures(), (Figures() if binary is not None else None)
    for seed in range(1, seeds + 1):
        result = run(doc, seed=seed, overrides={**overrides, "routing.protocol": routing})
        sent = result.nodes["frames_sent"].tolist()
        received = result.nodes["frames_received"].tolist()
        flow = result.flows.iloc[0]
        ours.add(
            (received[1], sent[0]),
            (received[0], sent[1]),
            (int(flow["received"]), int(flow["sent"])),
            int(result.mac["link_failures"]),
        )
        if theirs is None or binary is None:
            continue
        with tempfile.TemporaryDirectory() as folder:
            command = ns3.prepare(doc, Path(folder), binary, overrides=overrides, seed=seed)
            proc = subprocess.run(
                [*command, "--frameCounts=true"], capture_output=True, text=True, check=True
            )
        frames = ns3.parse_frames(proc.stdout)
        totals = ns3.parse_result(proc.stdout)
        theirs.add(
            (frames[1]["frames_received"], frames[0]["frames_sent"]),
            (frames[0]["frames_received"], frames[1]["frames_sent"]),
            (int(totals["udp_rx_packets"]), int(totals["udp_tx_packets"])),
            sum(node.get("data_mac_given_up", 0) for node in frames),
            sum(node.get("data_arp", 0) for node in frames),
        )
    return ours, theirs


def setup(description: str, argv: list[str], seeds: int) -> tuple[Path, int] | None:
    """A comparison's command line (``--seeds``, `seeds` by default) and
    the ns-3 program, built; ``None``, with the reason on stderr, without
    ns-3."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--seeds", type=int, default=seeds)
    args = parser.parse_args(argv)
    try:
        binary = ns3.build()
    except FileNotFoundError as e:
        print(f"error: {e}", file=sys.stderr)
        return None
    print(f"ns-3 {ns3.installation().version}, seeds 1-{args.seeds}")
    return binary, args.seeds


def main(argv: list[str]) -> int:
    ready = setup(__doc__.splitlines()[0], argv, 10)
    if ready is None:
        return 2
    binary, seeds = ready
    print(
        "| fading | distance | m | model | manetsim 0→1 / 1→0 | ns-3 0→1 / 1→0 "
        "| CBR delivery manetsim / ns-3 |"
    )
    print("|---|---|---|---|---|---|---|")
    for fading, distance_m, extra, m in CASES:
        ours, theirs = measure(fading, distance_m, extra, seeds, binary)
        assert theirs is not None
        want = expected(scenario(distance_m), {"radio.fading": fading, **extra}, distance_m, m)
        a, b = ours.fractions(), theirs.fractions()
        m_text = "-" if math.isinf(m) else f"{m:g}"
        print(
            f"| {fading} | {distance_m:g} m | {m_text} | {want:.4f} | {a[0]:.4f} / {a[1]:.4f} "
            f"| {b[0]:.4f} / {b[1]:.4f} | {a[2]:.3f} / {b[2]:.3f} |"
        )
    print()
    print(
        "| shadowing β, deviation | distance | model | manetsim 0→1 / 1→0 | ns-3 0→1 / 1→0 "
        "| CBR delivery manetsim / ns-3 |"
    )
    print("|---|---|---|---|---|---|")
    for exponent, std_db, distance_m in SHADOWING_CASES:
        extra = shadowing_overrides(exponent, std_db)
        ours, theirs = measure("none", distance_m, extra, seeds, binary)
        assert theirs is not None
        want = expected_shadowing(scenario(distance_m), extra, distance_m)
        a, b = ours.fractions(), theirs.fractions()
        print(
            f"| {exponent:g}, {std_db:g} dB | {distance_m:g} m | {want:.4f} "
            f"| {a[0]:.4f} / {a[1]:.4f} | {b[0]:.4f} / {b[1]:.4f} | {a[2]:.3f} / {b[2]:.3f} |",
            flush=True,
        )
    print()
    distance_m = TWICE_THRESHOLD_M
    print(f"Rayleigh fading correlated in time, {distance_m:.2f} m apart")
    print(
        "| Doppler | above the threshold | 0→1 manetsim AODV / static / ns-3 "
        "| 1→0 manetsim AODV / static / ns-3 | CBR delivery manetsim AODV / static / ns-3 "
        "| given up manetsim AODV / static / ns-3 | ns-3 ARP drops |"
    )
    print("|---|---|---|---|---|---|---|")
    want = expected(scenario(distance_m), {"radio.fading": "rayleigh"}, distance_m, 1.0)
    for doppler_hz in DOPPLER_HZ:
        extra = {"radio.fading_doppler_hz": doppler_hz}
        ours, theirs = measure("rayleigh", distance_m, extra, seeds, binary)
        static, _ = measure("rayleigh", distance_m, extra, seeds, None, routing="static")
        assert theirs is not None
        a, s_, b = ours.fractions(), static.fractions(), theirs.fractions()
        cells = [f"{a[k]:.4f} / {s_[k]:.4f} / {b[k]:.4f}" for k in (0, 1)]
        print(
            f"| {doppler_hz:g} Hz | {want:.4f} | {cells[0]} | {cells[1]} "
            f"| {a[2]:.3f} / {s_[2]:.3f} / {b[2]:.3f} "
            f"| {ours.given_up} / {static.given_up} / {theirs.given_up} "
            f"| {theirs.arp_dropped} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
