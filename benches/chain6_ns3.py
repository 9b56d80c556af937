"""chain6's TCP beside ns-3.44, under ns-2.35's rules and under ns-3's.

Usage: python benches/chain6_ns3.py [--seeds N]   (3 by default, about 5 min)

For each seed, chain6 (python/manetsim/benchmarks/chain6.toml: six static
nodes 200 m apart, AODV, one NewReno flow of 512-byte segments, 360 s) runs
in manetsim three ways and in the ns-3 program (benches/ns3, with
``--frameCounts=true``) two ways:

- manetsim with its defaults, ns-2.35's rules;
- manetsim with ns-3's MAC rules: ``radio.error_model = "awgn"``,
  ``radio.capture_rule = "sinr"``, ``mac.cts_rule`` and ``mac.eifs_rule =
  "standard"``, ``mac.nav_reset = true``;
- the same with ns-3's retransmission timer, ``flows.0.tcp.rto_rule = "ns3"``;
- ns-3.44 as the scenario says (its PHY's thresholds as ns-2.35's);
- ns-3.44 with bit errors (``--bitErrors=true``, what the program runs for
  ``radio.error_model = "awgn"``).

Per row it prints the goodput, the segments that arrived at node 5's TCP
(duplicates included) and how many were duplicates, the sender's timeouts
(ns-3: its entries into ``CA_LOSS``) and, for ns-3, how many struck in a fast
recovery and how many fast recoveries it had, its retransmissions, and the RTS
failures and link failures summed over the nodes (ns-3's link failures are its
data packets given up at the retry limit). docs/fidelity.md, "chain6 beside
ns-3", has the figures.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from manetsim import ns3, run
from manetsim.run import load_config

CHAIN6 = Path(__file__).resolve().parent.parent / "python/manetsim/benchmarks/chain6.toml"

NS3_MAC: dict[str, Any] = {
    "radio.error_model": "awgn",
    "radio.capture_rule": "sinr",
    "mac.cts_rule": "standard",
    "mac.eifs_rule": "standard",
    "mac.nav_reset": True,
}

#: manetsim's rows: a label and the overrides.
MANETSIM_ROWS: list[tuple[str, dict[str, Any]]] = [
    ("manetsim, ns-2.35's rules", {}),
    ("manetsim, ns-3's MAC rules", NS3_MAC),
    ("manetsim, ns-3's MAC rules and timer", {**NS3_MAC, "flows.0.tcp.rto_rule": "ns3"}),
]

#: ns-3's rows: a label and the overrides the program mirrors.
NS3_ROWS: list[tuple[str, dict[str, Any]]] = [
    ("ns-3", {}),
    ("ns-3, bit errors", {"radio.error_model": "awgn"}),
]


@dataclass
class Row:
    label: str
    goodput_kbps: float
    arrived: int
    duplicates: int
    timeouts: int
    in_recovery: int | None
    recoveries: int | None
    retransmissions: int
    rts_failures: int
    link_failures: int


def ours(label: str, overrides: dict[str, Any], seed: int) -> Row:
    result = run(CHAIN6, seed=seed, overrides=overrides)
    flow = result.flows.iloc[0]
    size = packet_size()
    arrived = int(flow["received"])
    return Row(
        label,
        float(flow["goodput_kbps"]),
        arrived,
        max(arrived - int(flow["delivered_in_order_bytes"]) // size, 0),
        int(flow["timeouts"]),
        None,
        None,
        int(flow["retransmissions"]),
        int(result.mac["rts_failures"]),
        int(result.mac["link_failures"]),
    )


def theirs(label: str, overrides: dict[str, Any], seed: int, binary: Path) -> Row:
    with tempfile.TemporaryDirectory() as folder:
        command = ns3.prepare(CHAIN6, Path(folder), binary, overrides=overrides, seed=seed)
        proc = subprocess.run(
            [*command, "--frameCounts=true"], capture_output=True, text=True, check=True
        )
    flow = ns3.parse_flows(proc.stdout)[0]
    nodes = ns3.parse_frames(proc.stdout)
    size = packet_size()
    arrived = nodes[int(flow["dst"])]["ip_data_delivered"]
    return Row(
        label,
        float(flow["goodput_kbps"]),
        arrived,
        max(arrived - int(flow["rx_bytes"]) // size, 0),
        int(flow["loss_episodes"]),
        int(flow["loss_from_recovery"]),
        int(flow["recovery_episodes"]),
        int(flow["retransmitted"]),
        sum(n["rts_failed"] for n in nodes),
        sum(n.get("data_mac_given_up", 0) for n in nodes),
    )


def packet_size() -> int:
    """chain6's segment size, bytes."""
    return int(load_config(CHAIN6)["flows"][0]["packet_size_bytes"])


def table(rows: list[tuple[int, Row]]) -> str:
    head = (
        "| seed | | goodput kbit/s | segments arrived | duplicates | timeouts "
        "| of them in a fast recovery | fast recoveries | retransmissions "
        "| RTS failures | link failures |"
    )
    lines = [head, "|" + "---|" * 11]
    for seed, r in rows:
        dup = f"{r.duplicates:,} ({100.0 * r.duplicates / r.arrived:.1f} %)" if r.arrived else "0"
        lines.append(
            f"| {seed} | {r.label} | {r.goodput_kbps:.1f} | {r.arrived:,} | {dup} "
            f"| {r.timeouts} | {'-' if r.in_recovery is None else r.in_recovery} "
            f"| {'-' if r.recoveries is None else r.recoveries} | {r.retransmissions:,} "
            f"| {r.rts_failures:,} | {r.link_failures} |"
        )
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args(argv)
    if args.seeds < 1:
        parser.error("--seeds: at least 1")
    try:
        binary: Path | None = ns3.build()
    except FileNotFoundError as e:
        print(f"ns-3 not found ({e}): manetsim's rows only", file=sys.stderr)
        binary = None
    rows: list[tuple[int, Row]] = []
    for seed in range(1, args.seeds + 1):
        rows += [(seed, ours(label, o, seed)) for label, o in MANETSIM_ROWS]
        if binary is not None:
            rows += [(seed, theirs(label, o, seed, binary)) for label, o in NS3_ROWS]
    if binary is not None:
        print(f"ns-3 {ns3.installation().version}")
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
