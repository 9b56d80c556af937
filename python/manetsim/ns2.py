"""ns-2.35: export a scenario as a Tcl script, parse its trace, cross-check.

:func:`export_tcl` writes an ns-2.35 script for the same scenario: the same
positions and movements (through the setdest writer), PHY and MAC parameters,
routing agent, transport agents, applications and start/stop times, with an
old-format wireless trace (agent and router levels) that :func:`parse_trace`
reads. What the two simulators do not both support is refused with an
:class:`ExportError` naming the key, never exported approximately.

:func:`crosscheck` runs manetsim and ``ns`` on the same scenario and seeds and
returns the same metrics from both, computed by manetsim from its own result
and from ns-2's trace by :func:`parse_trace`.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from manetsim import _core
from manetsim.run import load_config, movements_ns2, override_pairs, resolved_toml
from manetsim.stats import intervals_overlap, mean_ci

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping

    from manetsim.run import Overrides, ScenarioLike

__all__ = [
    "ExportError",
    "FlowStats",
    "TraceStats",
    "crosscheck",
    "export_tcl",
    "parse_trace",
]

INSTALL_HINT = "ns-2 is not installed: apt-get update && apt-get install -y ns2 (Debian's ns2)"
MAX_NS_TIMEOUT_S = 1e9
"""The longest ``ns_timeout_s`` (as a scenario's longest time, 1e9 s)."""


def missing_ns_message(ns_command: str) -> str:
    """Why ``ns_command`` cannot run: ns-2 is not installed (the default
    ``ns`` is not on the PATH), or the program the caller named is not
    there."""
    if ns_command == "ns":
        return INSTALL_HINT
    return f"--ns {ns_command}: no such program (or it is not executable)"


def check_ns_timeout(timeout_s: float | None) -> None:
    """Raises ``ValueError`` unless ``timeout_s`` is None or a time in
    (0, :data:`MAX_NS_TIMEOUT_S`] seconds."""
    if timeout_s is not None and not 0 < timeout_s <= MAX_NS_TIMEOUT_S:
        raise ValueError(f"expected seconds > 0 and at most 1e9, got {timeout_s:g}")


_ROUTING = {"aodv": "AODV", "dsr": "DSR", "dsdv": "DSDV", "aomdv": "AOMDV"}
_PROPAGATION = {
    "two_ray_ground": "Propagation/TwoRayGround",
    "free_space": "Propagation/FreeSpace",
    "shadowing": "Propagation/Shadowing",
}
# manetsim TCP variant -> (ns-2 agent, sink)
_TCP = {
    "tahoe": ("Agent/TCP", "Agent/TCPSink"),
    "reno": ("Agent/TCP/Reno", "Agent/TCPSink"),
    "newreno": ("Agent/TCP/Newreno", "Agent/TCPSink"),
    "sack": ("Agent/TCP/Sack1", "Agent/TCPSink/Sack1"),
    "vegas": ("Agent/TCP/Vegas", "Agent/TCPSink"),
}
# manetsim TCP variants that ns-2.35 runs only as a congestion-control module
# of its TCP-Linux agent (`Agent/TCP/Linux`, `select_ca NAME`): that agent
# recovers from a loss with a SACK scoreboard and rate halving
# (tcp/tcp-linux.cc), where manetsim's variant recovers as NewReno or Reno.
_TCP_LINUX_ONLY = {
    "westwood": ("Westwood+", "NewReno"),
    "veno": ("Veno", "Reno"),
    "cubic": ("CUBIC", "NewReno"),
}
# Packets each band of ns-2.35's CMUPriQueue (its DSR's interface queue)
# holds: `IFQ_MAXLEN` in queue/dsr-priqueue.h, not bound to Tcl, so the
# node's -ifqLen does not reach it.
_CMU_BAND_PACKETS = 50
# Routing control packet types in ns-2's trace.
_CONTROL_TYPES = {"AODV", "AOMDV", "DSR", "message", "OLSR", "TORA", "IMEP"}


class ExportError(ValueError):
    """The scenario uses something ns-2.35 cannot run the same way."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"cannot export to ns-2: key `{key}`: {message}")
        self.key = key


# -- export ----------------------------------------------------------------------


def export_tcl(
    scenario: ScenarioLike,
    overrides: Overrides = None,
    seed: int | None = None,
    trace_file: str = "trace.tr",
    tracing: bool = True,
    mac_trace: bool = False,
) -> str:
    """The ns-2.35 Tcl script for ``scenario``; raises :class:`ExportError`.

    ``tracing=False`` turns the agent and router traces off (ns-2 still wants a
    ``trace-all`` file: /dev/null), for timing. ``mac_trace=True`` turns ns-2's
    MAC trace on as well (every frame sent, and ``D … MAC RET`` for every frame
    its MAC gives up on, as manetsim's trace has them); the trace is then about
    three times as large.
    """
    config = load_config(scenario, overrides, seed)
    _check_exportable(config)
    moves = movements_ns2(scenario, overrides, seed)
    if not trace_file or any(ch in trace_file for ch in "{}\\\n\r"):
        raise ValueError(f"trace_file: a plain file name is needed, got {trace_file!r}")
    area = config["area"]
    moves, grid_m = inside_ns2_grid(moves, float(area["width_m"]), float(area["height_m"]))
    return _script(config, moves, trace_file, tracing, grid_m, mac_trace and tracing)


#: How far :func:`inside_ns2_grid` moves a scenario into ns-2's flat grid.
NS2_GRID_MARGIN_M = 1.0

_SET_XY = re.compile(r"^(\$node_\(\d+\) set )([XY])_ (\S+)$")
_SETDEST = re.compile(r'^(\$ns_ at \S+ "\$node_\(\d+\) setdest )(\S+) (\S+) (\S+)"$')


def inside_ns2_grid(moves: str, width_m: float, height_m: float) -> tuple[str, tuple[float, float]]:
    """Movement lines ns-2.35 will follow, and the flat grid they need.

    ns-2.35's ``MobileNode::set_destination`` refuses (the script stops with
    an error) any ``setdest`` whose point is not strictly inside the flat
    grid: on its edge, or a coordinate of 0. Scripted waypoints often end on
    the area's edge or corner. Then every position and destination is moved
    :data:`NS2_GRID_MARGIN_M` into a grid larger by twice that on each axis:
    a translation, which leaves every distance, so every received power and
    propagation delay, as it was. Movements already inside are returned as
    they are, with the area as the grid.
    """
    inside = True
    for line in moves.splitlines():
        m = _SETDEST.match(line)
        if m:
            x, y = float(m.group(2)), float(m.group(3))
            inside = inside and 0.0 < x < width_m and 0.0 < y < height_m
    if inside:
        return moves, (width_m, height_m)
    d = NS2_GRID_MARGIN_M

    def shifted(value: str) -> str:
        v = float(value) + d
        return str(int(v)) if v.is_integer() and abs(v) < 2**53 else repr(v)

    out = []
    for line in moves.splitlines():
        xy = _SET_XY.match(line)
        dest = _SETDEST.match(line)
        if xy:
            line = f"{xy.group(1)}{xy.group(2)}_ {shifted(xy.group(3))}"
        elif dest:
            x, y = shifted(dest.group(2)), shifted(dest.group(3))
            line = f'{dest.group(1)}{x} {y} {dest.group(4)}"'
        out.append(line)
    out.insert(
        _header_end(out),
        f"# moved {d:g} m into ns-2's flat grid on each axis (ns-2.35 refuses a setdest "
        "on the grid's edge); distances are unchanged",
    )
    return "\n".join(out) + "\n", (width_m + 2 * d, height_m + 2 * d)


def _header_end(lines: list[str]) -> int:
    """Where the comment lines at the top of ``lines`` end."""
    for i, line in enumerate(lines):
        if not line.startswith("#"):
            return i
    return len(lines)


#: ns-2.35's `DSSS_MaxPropagationDelay`, in its MAC's response timeouts.
NS2_MAX_PROPAGATION_DELAY_S = 2e-6
#: ns-2.35's `LL set delay_ 25us` (each way between the MAC and routing).
NS2_LL_DELAY_S = 25e-6

#: The TCP and IP headers ns-2.35's TCP agents add to packetSize_ (its
#: `tcpip_base_hdr_size_`), all but Vegas's, whose own output() does not.
NS2_TCP_HEADER_BYTES = 40

#: The header ns-2.35's `Agent/TFRC` adds to packetSize_ (`headersize_`,
#: with `useHeaders_ true`): a 512-byte packet is `tcpFriend 544` at the
#: agent. manetsim counts a TFRC packet's payload and 40 header bytes, as a
#: TCP segment's, so the parser counts ns-2.35's the same way.
NS2_TFRC_HEADER_BYTES = 32


def add_model_arguments(parser: argparse.ArgumentParser) -> None:
    """``--arp``, ``--mac`` and ``--tcp`` for a cross-check script: the
    arguments of :func:`mac_overrides` and :func:`tcp_overrides`, all
    ``"ns2"`` unless given."""
    parser.add_argument(
        "--arp",
        choices=("off", "ns2"),
        default="ns2",
        help="manetsim's [mac] arp (ns-2 always resolves addresses with ARP)",
    )
    parser.add_argument(
        "--mac",
        choices=("standard", "ns2"),
        default="ns2",
        help="manetsim's [mac] frames, backoff_draw, backoff_count, tie_rule and ll_delay_s "
        "(ns2: ns-2.35's frame sizes, backoff slots and their count in doubles, its clock's "
        "order of a backoff's end and a frame's arrival in one nanosecond, and 25 us link "
        "layer, so both put the same frames on the air at the same moments)",
    )
    parser.add_argument(
        "--tcp",
        choices=("standard", "ns2"),
        default="ns2",
        help="manetsim's [flows.tcp] ssthresh_rule, rto_rule, limited_transmit, start_rule, "
        "vegas_rule, sack_rule and recovery_rule (ns2: ns-2.35's halving of the window, "
        "its retransmission timeout in clock ticks, "
        "its limited transmit, singledup_, on in its agents but Vegas, its one-way agents' "
        "40-byte SYN first, syn_, and its Vegas, Sack1, Reno and Newreno agents' rules; "
        "standard: RFC 5681's halving of the flight, RFC 6298's timeout, limited transmit "
        "and the SYN off on both sides, the Vegas paper's rule, RFC 6675's SACK recovery "
        "and RFC 6582's fast recovery)",
    )


def mac_overrides(arp: str = "ns2", mac: str = "ns2") -> dict[str, Any]:
    """Scenario overrides for manetsim's MAC below a cross-check: ``[mac] arp``
    (``"off"`` or ``"ns2"``), and with ``mac="ns2"`` ns-2.35's frame sizes,
    backoff slots, count of slots, order of a backoff's end and a frame's
    arrival within one nanosecond (``tie_rule``) and 25 us link layer
    (``mac="standard"``: the defaults). Both set ns-2.35's wait of DIFS after
    EIFS (``eifs_rule``), manetsim's default."""
    if arp not in ("off", "ns2") or mac not in ("standard", "ns2"):
        raise ValueError(f"arp must be off or ns2 and mac standard or ns2, got {arp!r}, {mac!r}")
    return {
        "mac.arp": arp,
        "mac.frames": mac,
        "mac.backoff_draw": mac,
        "mac.backoff_count": "ns2" if mac == "ns2" else "exact",
        "mac.tie_rule": "ns2" if mac == "ns2" else "timers_first",
        "mac.ll_delay_s": NS2_LL_DELAY_S if mac == "ns2" else 0.0,
        "mac.eifs_rule": "ns2",
    }


def tcp_overrides(
    scenario: ScenarioLike, overrides: Overrides = None, tcp: str = "ns2"
) -> dict[str, Any]:
    """Scenario overrides for every TCP flow of ``scenario`` (after
    ``overrides``) below a cross-check. ``tcp="ns2"``: ns-2.35's halving of
    the window on a loss (``ssthresh_rule = "ns2"``), its retransmission
    timeout in clock ticks (``rto_rule = "ns2"``), its limited
    transmit (``singledup_``, on by default in every ns-2.35 agent manetsim
    exports but Vegas), its Vegas agent's window rule (``vegas_rule =
    "ns2"``), its Sack1 agent's recovery (``sack_rule = "ns2"``), its Reno
    and Newreno agents' fast recovery (``recovery_rule = "ns2"``) and, for
    a flow without the handshake, its agents' start (``start_rule =
    "ns2"``: a 40-byte SYN first, ``syn_`` and ``delay_growth_``);
    ``"standard"``: RFC 5681's halving of the flight, RFC 6298's timeout,
    no limited transmit (the export then turns ns-2's off too), the Vegas
    paper's rule, RFC 6675's SACK recovery, RFC 5681's and RFC 6582's fast
    recovery and the initial window at once (``syn_`` off too)."""
    if tcp not in ("standard", "ns2"):
        raise ValueError(f"tcp must be standard or ns2, got {tcp!r}")
    c = load_config(scenario, overrides, None)
    out: dict[str, Any] = {}
    for i, flow in enumerate(c.get("flows", [])):
        if flow.get("transport") != "tcp":
            continue
        variant = (flow.get("tcp") or {}).get("variant", "newreno")
        out[f"flows.{i}.tcp.ssthresh_rule"] = "ns2" if tcp == "ns2" else "flight_size"
        out[f"flows.{i}.tcp.rto_rule"] = "ns2" if tcp == "ns2" else "rfc"
        out[f"flows.{i}.tcp.limited_transmit"] = tcp == "ns2" and variant != "vegas"
        if not (flow.get("tcp") or {}).get("handshake", True):
            out[f"flows.{i}.tcp.start_rule"] = "ns2" if tcp == "ns2" else "window"
        own = _NS2_VARIANT_RULES.get(variant)
        if own is not None:
            out[f"flows.{i}.tcp.{own[0]}"] = "ns2" if tcp == "ns2" else own[1]
    return out


def routing_overrides(routing: str) -> dict[str, Any]:
    """Scenario overrides that make manetsim's ``routing`` agent run as
    ns-2.35's does where it has a choice: AODV's and DSR's ``preset =
    "ns2"``, AOMDV's HELLO link detection, node-disjoint paths, unlimited
    route errors, message sizes, destination replies and RREQ ids kept to
    its 6 s purge (ns-2.35 compiles AOMDV without link-layer detection,
    with ``AOMDV_NODE_DISJOINT_PATHS``, sends a RERR for every packet it
    cannot route, sizes its messages by its ``aomdv_packet.h`` and purges
    its ids every BCAST_ID_SAVE); nothing for the rest."""
    if routing in ("aodv", "dsr"):
        return {f"routing.{routing}.preset": "ns2"}
    if routing == "aomdv":
        return {
            "routing.aomdv.link_detection": "hello",
            "routing.aomdv.disjoint": "node",
            "routing.aomdv.rerr_rate_limit": False,
            "routing.aomdv.message_sizes": "ns2",
            "routing.aomdv.target_replies": "ns2",
            "routing.aomdv.id_purge": "ns2",
        }
    return {}


def like_ns2_overrides(scenario: ScenarioLike, overrides: Overrides = None) -> dict[str, Any]:
    """Scenario overrides that make manetsim run ns-2.35's models wherever it
    has one for what ``scenario`` (after ``overrides``) uses:
    :func:`routing_overrides` (AODV's or DSR's ``preset = "ns2"``, AOMDV's
    HELLOs), :func:`mac_overrides` (ARP, frame sizes, backoff slots, link
    layer) and :func:`tcp_overrides` (loss response, limited transmit), a
    TCP flow with the handshake goes without it, as ns-2.35's one-way
    agents do (then a 40-byte SYN first: ``start_rule = "ns2"``), an
    SCTP flow applies ``Max.Burst``, counts its bytes, times its sends,
    opens, counts its errors, keeps its window and counts miss indications
    as ns-2.35's agent does (``max_burst_rule``, ``byte_rule``,
    ``send_rule``, ``idle_rule``, ``handshake_rule``, ``fault_rule``,
    ``window_rule`` and ``miss_rule = "ns2"``), a TFRC flow spaces its
    packets as ns-2.35's ``Agent/TFRC`` (``ca_`` and ``df_``: oscillation prevention, filters of
    0.95), and a gateway forwards as ns-2.35's base stations do
    (``gateway.forwarding = "base_station"``). With them
    :func:`known_differences` has nothing to say but about an energy
    model's idle power, which ns-2.35 charges lazily (the scenario's own
    setting, left as it is); apply ``overrides`` after them to keep the
    caller's own settings."""
    c = load_config(scenario, overrides, None)
    out: dict[str, Any] = {}
    routing = c["routing"]["protocol"]
    out.update(routing_overrides(routing))
    out.update(mac_overrides())
    one_way = {
        f"flows.{i}.tcp.handshake": False
        for i, flow in enumerate(c.get("flows", []))
        if flow.get("transport") == "tcp" and (flow.get("tcp") or {}).get("handshake", True)
    }
    out.update(one_way)
    out.update(tcp_overrides(scenario, override_pairs(overrides) + override_pairs(one_way)))
    for i, flow in enumerate(c.get("flows", [])):
        if flow.get("transport") == "sctp":
            out[f"flows.{i}.sctp.max_burst_rule"] = "ns2"
            out[f"flows.{i}.sctp.byte_rule"] = "ns2"
            out[f"flows.{i}.sctp.send_rule"] = "ns2"
            out[f"flows.{i}.sctp.idle_rule"] = "ns2"
            out[f"flows.{i}.sctp.handshake_rule"] = "ns2"
            out[f"flows.{i}.sctp.fault_rule"] = "ns2"
            out[f"flows.{i}.sctp.window_rule"] = "ns2"
            out[f"flows.{i}.sctp.miss_rule"] = "ns2"
        if flow.get("transport") == "tfrc":
            out[f"flows.{i}.tfrc.oscillation_prevention"] = True
            out[f"flows.{i}.tfrc.rtt_filter"] = NS2_TFRC_DF
            out[f"flows.{i}.tfrc.increase_rule"] = "ns2"
            out[f"flows.{i}.tfrc.feedback_rule"] = "ns2"
            out[f"flows.{i}.tfrc.history_discounting"] = True
            out[f"flows.{i}.tfrc.rto_rule"] = "ns2"
            out[f"flows.{i}.tfrc.pacing_rule"] = "ns2"
            out[f"flows.{i}.tfrc.start_rule"] = "ns2"
    if c.get("gateway"):
        out["gateway.forwarding"] = "base_station"
    return out


#: TCP variants whose ns-2.35 agent follows a rule of its own: the
#: `[flows.tcp]` key, its default and how the two differ.
_NS2_VARIANT_RULES = {
    "vegas": (
        "vegas_rule",
        "paper",
        "manetsim adjusts Vegas's window as Brakmo & Peterson's paper does, ns-2.35's agent "
        "rounds Diff to whole segments and grows by 1/cwnd per ACK",
    ),
    "sack": (
        "sack_rule",
        "rfc",
        "manetsim recovers as RFC 6675 does, ns-2.35's Sack1 resends every hole below the "
        "highest SACK as a pipe counter allows and resends SACKed segments after a timeout",
    ),
    **{
        variant: (
            "recovery_rule",
            "rfc",
            "manetsim ends fast recovery with cwnd at ssthresh (RFC 5681, RFC 6582), "
            f"ns-2.35's {agent} opens the window on the ACK that ends it as on any new ACK, "
            "and its partial ACKs may deflate the window it leaves",
        )
        for variant, agent in (("reno", "Reno"), ("newreno", "Newreno"))
    },
}


def known_differences(scenario: ScenarioLike, overrides: Overrides = None) -> list[str]:
    """Where the scenario, as manetsim runs it, departs from what the exported
    script makes ns-2.35 do, with the setting that removes the difference.

    The export keeps these (they are documented choices, not errors), but a
    side-by-side comparison should say so: an AODV or DSR scenario on its
    RFC preset paces route discovery differently from ns-2.35 (see
    ``docs/fidelity.md``).
    """
    c = load_config(scenario, overrides, None)
    routing = c["routing"]["protocol"]
    notes: list[str] = []
    if routing in ("aodv", "dsr"):
        table = c["routing"].get(routing) or {}
        if table.get("preset", "rfc") == "rfc":
            what = {
                "aodv": "RFC 3561's expanding ring search and timers",
                "dsr": "RFC 4728's pacing of route requests and a single route cache",
            }[routing]
            notes.append(
                f'routing.{routing}.preset is "rfc": manetsim follows {what}, ns-2.35 its '
                f"own; --set routing.{routing}.preset=ns2 compares like with like "
                "(docs/fidelity.md)"
            )
    gateway = c.get("gateway")
    if gateway and gateway.get("forwarding", "tunnel") == "tunnel":
        notes.append(
            'gateway.forwarding is "tunnel": manetsim sends a packet for a host in an '
            "outer IP header to the gateway (20 bytes more on every wireless hop) and a "
            "DSDV source holds it while it has no route there; ns-2.35's base station "
            "takes it bare, and its DSDV drops it at once; --set "
            "gateway.forwarding=base_station compares like with like"
        )
    aomdv = c["routing"].get("aomdv") or {}
    if routing == "aomdv" and aomdv.get("link_detection", "mac") == "mac":
        notes.append(
            'routing.aomdv.link_detection is "mac": manetsim\'s AOMDV finds a link broken '
            "when the MAC gives up on a frame, ns-2.35's by missing HELLOs (it compiles no "
            "link-layer detection); --set routing.aomdv.link_detection=hello compares like "
            "with like (docs/fidelity.md)"
        )
    if routing == "aomdv" and aomdv.get("disjoint", "link") == "link":
        notes.append(
            'routing.aomdv.disjoint is "link": manetsim keeps link-disjoint paths (the '
            "paper's), ns-2.35 node-disjoint ones (one RREP per request at each node); "
            "--set routing.aomdv.disjoint=node compares like with like (docs/fidelity.md)"
        )
    if routing == "aomdv" and aomdv.get("rerr_rate_limit", True):
        notes.append(
            "routing.aomdv.rerr_rate_limit is true: manetsim's AOMDV relay reports a "
            "destination it has no route for at most once a second, and sends at most 10 "
            "RERRs a second; ns-2.35's sends one for every packet, with no limit; --set "
            "routing.aomdv.rerr_rate_limit=false compares like with like (docs/fidelity.md)"
        )
    if routing == "aomdv" and aomdv.get("message_sizes", "standard") != "ns2":
        notes.append(
            'routing.aomdv.message_sizes is "standard": manetsim\'s AOMDV messages travel '
            "over UDP, 56 bytes at the IP layer, ns-2.35's without, RREQ and RREP 52 bytes "
            "and HELLO 44; --set routing.aomdv.message_sizes=ns2 compares like with like "
            "(docs/fidelity.md)"
        )
    if routing == "aomdv" and aomdv.get("target_replies", "paths") != "ns2":
        notes.append(
            'routing.aomdv.target_replies is "paths": manetsim\'s AOMDV destination answers '
            "each request copy that set up a reverse path, once per path; ns-2.35's also "
            "answers a copy with no room for its path and one sharing the first hop of a "
            "path no shorter than it; --set routing.aomdv.target_replies=ns2 compares like "
            "with like (docs/fidelity.md)"
        )
    if routing == "aomdv" and aomdv.get("id_purge", "exact") != "ns2":
        notes.append(
            "routing.aomdv.id_purge is \"exact\": manetsim's AOMDV forgets a RREQ's id "
            "6 s after hearing it; ns-2.35's at its purge every 6 s after that, 6 to 12 s "
            "later; --set routing.aomdv.id_purge=ns2 compares like with like "
            "(docs/fidelity.md)"
        )
    if c["mac"].get("arp", "off") == "off":
        notes.append(
            'mac.arp is "off": manetsim knows every neighbour\'s address, ns-2.35 resolves '
            "each with ARP (and drops what waits behind an unanswered request); "
            "--set mac.arp=ns2 compares like with like (docs/fidelity.md)"
        )
    frames = c["mac"].get("frames", "standard")
    if frames != "ns2":
        if frames == "standard":
            header, more = "a 28-byte MAC header", "6 or 26 bytes more"
        else:
            header, more = "a 28-byte MAC header and 8 bytes of LLC/SNAP", "2 bytes less or 18 more"
        notes.append(
            f'mac.frames is "{frames}": manetsim\'s data frames carry {header}, '
            "ns-2.35's 34, and ns-2.35's routing agents but AODV's add a second IP header "
            f"to TCP packets ({more} airtime per TCP frame in ns-2.35); --set mac.frames=ns2 "
            "compares like with like (docs/fidelity.md)"
        )
    if c["mac"].get("backoff_draw", "standard") == "standard":
        notes.append(
            'mac.backoff_draw is "standard": manetsim draws 0..CW backoff slots, ns-2.35 '
            "0..CW-1; --set mac.backoff_draw=ns2 compares like with like (docs/fidelity.md)"
        )
    if c["mac"].get("backoff_count", "exact") == "exact":
        notes.append(
            'mac.backoff_count is "exact": ns-2.35 counts the slots a paused backoff '
            "waited in doubles, and a pause on a slot boundary counts one fewer about two "
            "times in three; --set mac.backoff_count=ns2 compares like with like "
            "(docs/fidelity.md)"
        )
    if c["mac"].get("eifs_rule", "ns2") == "standard":
        notes.append(
            'mac.eifs_rule is "standard": after a frame it could not decode, manetsim\'s '
            "backoff counts from the end of EIFS, ns-2.35's DIFS later; --set "
            "mac.eifs_rule=ns2 compares like with like (docs/scenario.md)"
        )
    if c["mac"].get("cts_rule", "ns2") == "standard":
        notes.append(
            'mac.cts_rule is "standard": manetsim answers an RTS whenever the NAV of '
            "other frames' Duration fields is clear; ns-2.35 only with the medium idle, "
            "nothing arriving and no EIFS running; --set mac.cts_rule=ns2 compares like "
            "with like (docs/scenario.md)"
        )
    if c["mac"].get("nav_reset", False):
        notes.append(
            "mac.nav_reset is true: the NAV an overheard RTS sets in manetsim ends when its "
            "CTS was due (IEEE 802.11's NAV reset); ns-2.35 keeps it to the end of the "
            "exchange; --set mac.nav_reset=false compares like with like (docs/scenario.md)"
        )
    moving = (c.get("mobility") or {}).get("model", "static") != "static"
    if moving and c["mac"].get("tie_rule", "timers_first") == "timers_first":
        notes.append(
            'mac.tie_rule is "timers_first": a backoff that ends in the nanosecond a '
            "frame starts arriving transmits; ns-2.35's clock of doubles lets the frame of a "
            "node that came closer arrive first (the backoff defers), so moving nodes "
            "collide less there; --set mac.tie_rule=ns2 compares like with like "
            "(docs/fidelity.md)"
        )
    if float(c["mac"].get("ll_delay_s", 0.0)) != NS2_LL_DELAY_S:
        notes.append(
            f"mac.ll_delay_s is {c['mac'].get('ll_delay_s', 0.0):g}: ns-2.35's link layer holds "
            "every packet 25 us on its way between the MAC and routing, each way (a relay "
            "then meets its MAC busy with the ACK and backs off); --set mac.ll_delay_s=25e-6 "
            "compares like with like (docs/fidelity.md)"
        )
    for i, flow in enumerate(c.get("flows", [])):
        tcp = flow.get("tcp") or {}
        if flow.get("transport") == "tcp" and tcp.get("ssthresh_rule") != "ns2":
            notes.append(
                f'flows.{i}.tcp.ssthresh_rule is "{tcp.get("ssthresh_rule", "flight_size")}": '
                "manetsim halves the data in flight on a loss (RFC 5681), ns-2.35 its window, "
                "keeping ssthresh's integer part; "
                f"--set flows.{i}.tcp.ssthresh_rule=ns2 compares like with like "
                "(docs/fidelity.md)"
            )
        if flow.get("transport") == "tcp" and tcp.get("rto_rule") != "ns2":
            rule = tcp.get("rto_rule", "rfc")
            how = "ns-3 does" if rule == "ns3" else "RFC 6298 does"
            notes.append(
                f'flows.{i}.tcp.rto_rule is "{rule}": manetsim computes '
                f"the retransmission timeout as {how}, ns-2.35 in whole ticks of its "
                "clock from the one segment it times; "
                f"--set flows.{i}.tcp.rto_rule=ns2 compares like with like (docs/fidelity.md)"
            )
        # A variant whose ns-2.35 agent has a rule of its own.
        own = (
            _NS2_VARIANT_RULES.get(tcp.get("variant", "newreno"))
            if flow.get("transport") == "tcp"
            else None
        )
        if own is not None and tcp.get(own[0]) != "ns2":
            key, default, what = own
            notes.append(
                f'flows.{i}.tcp.{key} is "{tcp.get(key, default)}": {what}; '
                f"--set flows.{i}.tcp.{key}=ns2 compares like with like (docs/fidelity.md)"
            )
        tfrc = flow.get("tfrc") or {}
        if flow.get("transport") == "tfrc":
            # Each of the flow's TFRC settings that is not ns-2.35's.
            unlike = [
                (key, value)
                for key, value, same in [
                    (
                        "oscillation_prevention",
                        "true",
                        bool(tfrc.get("oscillation_prevention", False)),
                    ),
                    (
                        "rtt_filter",
                        str(NS2_TFRC_DF),
                        float(tfrc.get("rtt_filter", 0.9)) == NS2_TFRC_DF,
                    ),
                    ("increase_rule", "ns2", tfrc.get("increase_rule", "rfc") == "ns2"),
                    ("feedback_rule", "ns2", tfrc.get("feedback_rule", "rfc") == "ns2"),
                    (
                        "history_discounting",
                        "true",
                        bool(tfrc.get("history_discounting", False)),
                    ),
                    ("rto_rule", "ns2", tfrc.get("rto_rule", "rfc") == "ns2"),
                    ("pacing_rule", "ns2", tfrc.get("pacing_rule", "rfc") == "ns2"),
                    (
                        "start_rule",
                        "ns2",
                        # The export gives ns-2.35 the flow's rate before the
                        # first report (InitRate_); only the initial window
                        # differs, and only for these sizes.
                        tfrc.get("start_rule", "rfc") == "ns2"
                        or not 1095 < int(flow.get("packet_size_bytes", 0)) < 2190,
                    ),
                ]
                if not same
            ]
            if unlike:
                sets = " ".join(f"--set flows.{i}.tfrc.{k}={v}" for k, v in unlike)
                notes.append(
                    f"flows.{i}.tfrc: manetsim runs RFC 5348's TFRC where the flow says "
                    f"so ({', '.join(k for k, _ in unlike)}); ns-2.35's Agent/TFRC spaces "
                    "packets at X R_sqmean / sqrt(R_sample) (ca_) with filters of 0.95 "
                    "(df_), raises its rate gradually, reports from its sink at every new "
                    "loss event and urgent packet, halves its rate after 2 RTTs without "
                    "feedback, discounts old loss intervals (discount_) and takes the "
                    "equation's t_RTO from a TCP-style estimate in 100 ms ticks (tzero_), "
                    "keeps a packet's time once set (nextpkt) and starts from a window of "
                    "3 packets of 1096 to 2189 bytes (rfc3390; RFC 5348: 4380 bytes); "
                    f"{sets} compares like with like (docs/fidelity.md)"
                )
        sctp = flow.get("sctp") or {}
        if flow.get("transport") == "sctp" and sctp.get("max_burst_rule", "rfc") != "ns2":
            notes.append(
                f'flows.{i}.sctp.max_burst_rule is "{sctp.get("max_burst_rule", "rfc")}": '
                "manetsim sends at most Max.Burst packets at every sending opportunity "
                "(RFC 4960), ns-2.35's agent only after a SACK of a chunk sent again, "
                "otherwise filling its window at once; "
                f"--set flows.{i}.sctp.max_burst_rule=ns2 compares like with like "
                "(docs/fidelity.md)"
            )
        if flow.get("transport") == "sctp" and sctp.get("byte_rule", "rfc") != "ns2":
            notes.append(
                f'flows.{i}.sctp.byte_rule is "{sctp.get("byte_rule", "rfc")}": manetsim '
                "counts a DATA chunk's user data in the flight size and cwnd (RFC 4960), "
                "ns-2.35's agent the chunk with its 16-byte header, and grows cwnd by at "
                f"most 1,468 bytes; --set flows.{i}.sctp.byte_rule=ns2 compares like "
                'with like (docs/scenario.md, "SCTP")'
            )
        if flow.get("transport") == "sctp" and sctp.get("send_rule", "rfc") != "ns2":
            notes.append(
                f'flows.{i}.sctp.send_rule is "{sctp.get("send_rule", "rfc")}": manetsim '
                "sends whenever cwnd allows, the application's message included "
                "(RFC 4960); ns-2.35's agent sends new data only while it handles a "
                "SACK, checks cwnd once per packet, keeps chunks marked for "
                "retransmission outstanding and resends them bundled, and stalls "
                "after its first message when the application is slower than the "
                f"round trip; --set flows.{i}.sctp.send_rule=ns2 compares like with "
                'like (docs/scenario.md, "SCTP")'
            )
        if flow.get("transport") == "sctp" and sctp.get("idle_rule", "rfc") != "ns2":
            notes.append(
                f'flows.{i}.sctp.idle_rule is "{sctp.get("idle_rule", "rfc")}": ns-2.35\'s '
                "agent halves cwnd for each RTO without a packet sent down to 4 x 1,468 "
                "bytes, and raises a cwnd between 2 and 4 x 1,468 bytes to that floor "
                "(RFC 4960 leaves a cwnd of 4 MTU or less alone); "
                f"--set flows.{i}.sctp.idle_rule=ns2 compares like with like "
                '(docs/scenario.md, "SCTP")'
            )
        if flow.get("transport") == "sctp" and sctp.get("handshake_rule", "rfc") != "ns2":
            notes.append(
                f'flows.{i}.sctp.handshake_rule is "{sctp.get("handshake_rule", "rfc")}": '
                "ns-2.35's agent opens with smaller chunks (no state cookie), then sends "
                "a HEARTBEAT and holds its data until the HEARTBEAT ACK, one round trip "
                "later, whose RTT sets the RTO; "
                f"--set flows.{i}.sctp.handshake_rule=ns2 compares like with like "
                '(docs/scenario.md, "SCTP")'
            )
        if flow.get("transport") == "sctp" and sctp.get("fault_rule", "rfc") != "ns2":
            resend = (
                "; after an unanswered HEARTBEAT it sends the next at once, at the "
                "doubled RTO, where RFC 4960 section 8.3 waits for the end of the "
                "next heartbeat period"
                if float(sctp.get("heartbeat_interval_s", 30.0))
                else ""
            )
            notes.append(
                f'flows.{i}.sctp.fault_rule is "{sctp.get("fault_rule", "rfc")}": '
                "ns-2.35's agent stops counting the association's errors once its only "
                "address turns inactive, after 6 in a row (Path.Max.Retrans 5), so its "
                "association never fails where manetsim's fails at the 11th (RFC 4960 "
                f"section 8.1){resend}; they differ where a path stays lost for 30 s or "
                f"more; --set flows.{i}.sctp.fault_rule=ns2 compares like with like "
                '(docs/scenario.md, "SCTP")'
            )
        if flow.get("transport") == "sctp" and sctp.get("window_rule", "rfc") != "ns2":
            notes.append(
                f'flows.{i}.sctp.window_rule is "{sctp.get("window_rule", "rfc")}": '
                "ns-2.35's receiver drops any chunk its window has no room for, the one "
                "that would fill the gap in front of what it holds included, and its "
                "sender takes gap acks back only from a SACK with gap-ack blocks, so a "
                "late SACK can open the window over the chunks held; an association "
                "whose window fills that way delivers nothing more (RFC 4960 section "
                "6.2 drops the highest held TSN instead); "
                f"--set flows.{i}.sctp.window_rule=ns2 compares like with like "
                '(docs/scenario.md, "SCTP")'
            )
        if flow.get("transport") == "sctp" and sctp.get("miss_rule", "rfc") != "ns2":
            notes.append(
                f'flows.{i}.sctp.miss_rule is "{sctp.get("miss_rule", "rfc")}": '
                "ns-2.35's agent keeps the highest TSN newly acknowledged from SACK "
                "to SACK, so a SACK that acknowledges nothing new (one answering a "
                "duplicate, or a late one) still counts miss indications, and a chunk "
                "marked after a T3 expiry counts them too: it fast-retransmits more, "
                "often chunks the receiver holds (RFC 4960 section 7.2.4 counts per "
                f"SACK); --set flows.{i}.sctp.miss_rule=ns2 compares like with like "
                '(docs/scenario.md, "SCTP")'
            )
    energy = c.get("energy")
    if energy and float(energy.get("idle_w", 0.0)):
        notes.append(
            f"energy.idle_w is {float(energy['idle_w']):g}: ns-2.35 charges a node's idle "
            "power only when its radio sends or receives, so the energy it reports "
            "at the end leaves out each node's idle time since its last frame and "
            "energy.consumed_j reads low on its side; --set energy.idle_w=0 compares the "
            "rest like with like (docs/fidelity.md)"
        )
    return notes


def _check_exportable(c: Mapping[str, Any]) -> None:
    routing = c["routing"]["protocol"]
    if routing not in _ROUTING:
        names = ", ".join(sorted(_ROUTING))
        raise ExportError(
            "routing.protocol",
            f'"{routing}" has no ns-2.35 equivalent (stock ns-2.35 has {names})',
        )
    dsr = c["routing"].get("dsr") or {}
    if routing == "dsr" and not dsr.get("gratuitous_replies", True):
        raise ExportError(
            "routing.dsr.gratuitous_replies",
            "ns-2.35's DSR always sends gratuitous replies "
            "(dsragent_send_grat_replies is compiled in, not a Tcl variable)",
        )
    if routing == "dsr" and dsr.get("flow_state") is False:
        raise ExportError(
            "routing.dsr.flow_state",
            "ns-2.35's DSR always runs flow state "
            "(dsragent_enable_flowstate is compiled in, not a Tcl variable)",
        )
    queue = int(c["mac"]["queue_packets"])
    if routing == "dsr" and queue != _CMU_BAND_PACKETS:
        raise ExportError(
            "mac.queue_packets",
            f"ns-2.35's DSR runs over its CMUPriQueue, whose bands hold "
            f"{_CMU_BAND_PACKETS} packets each whatever -ifqLen says (IFQ_MAXLEN is "
            f"compiled in): set mac.queue_packets={_CMU_BAND_PACKETS} for a like-for-like "
            f"run (the scenario has {queue})",
        )
    if routing == "aodv":
        _check_aodv_exportable(c["routing"].get("aodv") or {})
    aomdv = c["routing"].get("aomdv") or {}
    if routing == "aomdv" and float(aomdv.get("hello_interval_s", 1.0)) != 1.0:
        raise ExportError(
            "routing.aomdv.hello_interval_s",
            "ns-2.35's AOMDV sends a HELLO every 1 s (HELLO_INTERVAL is compiled in)",
        )
    if c.get("gateway"):
        _check_gateway_exportable(c)
    if c["mac"]["standard"] != "802.11":
        raise ExportError(
            "mac.standard",
            f"\"{c['mac']['standard']}\": ns-2.35's Mac/802_11 has 802.11's DSSS PHY alone "
            '(a 192 us PLCP, any dataRate_); standard = "802.11" runs it at any rate',
        )
    if c["radio"].get("error_model", "none") != "none":
        raise ExportError(
            "radio.error_model",
            f'"{c["radio"]["error_model"]}": ns-2.35\'s WirelessPhy decodes every frame above '
            'RXThresh_ and has no bit errors; error_model = "none" is what it runs',
        )
    if c["radio"].get("fading", "none") != "none":
        raise ExportError(
            "radio.fading",
            f'"{c["radio"]["fading"]}": ns-2.35\'s propagation models draw no fading over '
            'two-ray ground, free space or shadowing; fading = "none" is what it runs',
        )
    max_prop_s = float(c["mac"].get("max_propagation_delay_s", NS2_MAX_PROPAGATION_DELAY_S))
    if max_prop_s != NS2_MAX_PROPAGATION_DELAY_S:
        raise ExportError(
            "mac.max_propagation_delay_s",
            f"{max_prop_s:g}: ns-2.35's Mac/802_11 allows 2e-6 s of propagation each way "
            "in its CTS and ACK timeouts (DSSS_MaxPropagationDelay is compiled in)",
        )
    for i, flow in enumerate(c.get("flows", [])):
        key = f"flows.{i}"
        if flow.get("start_jitter_s", 0.0):
            raise ExportError(f"{key}.start_jitter_s", "ns-2 starts flows at exact times")
        transport, app = flow["transport"], flow["app"]
        if transport == "udp":
            if app not in ("cbr", "onoff"):
                raise ExportError(
                    f"{key}.app", f'"{app}" over UDP is not exported (only cbr and onoff)'
                )
        elif transport == "tcp":
            if app not in ("ftp", "cbr", "onoff"):
                raise ExportError(f"{key}.app", f'"{app}" over TCP is not exported')
            tcp = flow["tcp"]
            if tcp["variant"] in _TCP_LINUX_ONLY:
                name, recovery = _TCP_LINUX_ONLY[tcp["variant"]]
                raise ExportError(
                    f"{key}.tcp.variant",
                    f"ns-2.35 has {name} only as a module of Agent/TCP/Linux "
                    f"(select_ca {tcp['variant']}), which recovers from a loss with SACK "
                    f"and rate halving where manetsim's recovers as {recovery}: not "
                    f"exported (exported: {', '.join(_TCP)})",
                )
            if tcp["variant"] not in _TCP:
                raise ExportError(
                    f"{key}.tcp.variant",
                    f'"{tcp["variant"]}" is not in stock ns-2.35 (exported: {", ".join(_TCP)})',
                )
            if tcp.get("slow_start", "standard") != "standard":
                raise ExportError(
                    f"{key}.tcp.slow_start",
                    f'ns-2.35\'s TCP agents have no "{tcp["slow_start"]}" (its slow start ends '
                    f"at a loss or ssthresh): set {key}.tcp.slow_start=standard",
                )
            if tcp.get("frto"):
                raise ExportError(
                    f"{key}.tcp.frto",
                    f"ns-2.35's stock TCP agents have no F-RTO: set {key}.tcp.frto=false",
                )
            if tcp["variant"] == "vegas" and tcp.get("limited_transmit"):
                raise ExportError(
                    f"{key}.tcp.limited_transmit",
                    "ns-2.35's Vegas agent has no limited transmit: "
                    f"set {key}.tcp.limited_transmit=false",
                )
            if flow.get("transfer_bytes") is not None:
                _check_transfer_exportable(key, flow)
            if tcp["handshake"]:
                raise ExportError(
                    f"{key}.tcp.handshake",
                    "ns-2's one-way TCP agents have no handshake: "
                    f"set {key}.tcp.handshake=false for a like-for-like run",
                )
        elif transport == "tfrc":
            if app not in ("ftp", "cbr", "onoff"):
                raise ExportError(f"{key}.app", f'"{app}" over TFRC is not exported')
        elif transport == "sctp":
            _check_sctp_exportable(key, flow)
        else:
            raise ExportError(f"{key}.transport", f'"{transport}" is not exported yet')
    for i, loss in enumerate(c.get("loss", [])):
        key = f"loss.{i}"
        if loss["model"] != "uniform":
            raise ExportError(f"{key}.model", "only uniform loss maps to ns-2's ErrorModel")
        if loss["packets"] != "all":
            raise ExportError(
                f"{key}.packets",
                'ns-2\'s ErrorModel drops every packet type; only packets = "all" is exported',
            )
    energy = c.get("energy")
    if energy and energy.get("sleep_w", 0.0):
        raise ExportError("energy.sleep_w", "nodes never sleep in the exported script")


_HIER_NODES_PER_CLUSTER = 2048
"""Nodes one cluster of ns-2.35's default hierarchical address holds (11 bits)."""


def _check_gateway_exportable(c: Mapping[str, Any]) -> None:
    """Refuses what ns-2.35's wired-cum-wireless nodes cannot run alike.

    The export makes the gateway an ns-2 base station (`-wiredRouting ON`)
    and each host a wired node joined to it by a duplex link. Of the
    routing agents manetsim exports, ns-2.35's DSDV and DSR send a packet
    for another domain towards their node's base station (DSDV's
    `forwardPacket`, DSR's `handlePktWithoutSR`), but its DSR base-station
    node does not build with agent traces on; its AODV and AOMDV have no
    such rule.
    """
    gateway = c["gateway"]
    routing = c["routing"]["protocol"]
    if routing == "dsr":
        raise ExportError(
            "routing.protocol",
            'a scenario with a gateway is exported only over DSDV (it has "dsr"): '
            "ns-2.35's DSR routes to a base station, but its base-station node "
            "(Node/MobileNode/BaseStationNode) fails to build with agent tracing on "
            '("can\'t read ragent_")',
        )
    if routing != "dsdv":
        raise ExportError(
            "routing.protocol",
            f'a scenario with a gateway is exported only over DSDV (it has "{routing}"): '
            "ns-2.35's base stations (wired-cum-wireless nodes) take the MANET's packets "
            "for wired hosts only through DSDV's and DSR's forwarding to the base station; "
            "its AODV and AOMDV have none, and it has no AODV-UU",
        )
    nodes = gateway["node"]
    if isinstance(nodes, list) and len(nodes) > 1:
        raise ExportError(
            "gateway.node",
            "one gateway is exported: an ns-2.35 mobile node has one base station, "
            f"where manetsim's nodes pick among {len(nodes)} gateways",
        )
    count, hosts = int(c["nodes"]["count"]), int(gateway["hosts"])
    if max(count, hosts) > _HIER_NODES_PER_CLUSTER:
        raise ExportError(
            "nodes.count" if count > hosts else "gateway.hosts",
            f"ns-2.35's hierarchical addresses hold {_HIER_NODES_PER_CLUSTER} nodes a "
            f"cluster (the scenario has {count} nodes and {hosts} hosts)",
        )
    for i, flow in enumerate(c.get("flows", [])):
        src, dst = int(flow["src"]), int(flow["dst"])
        if src >= count and dst >= count:
            raise ExportError(
                f"flows.{i}.dst",
                "a flow between two hosts never enters the MANET: not exported",
            )
        if (src >= count or dst >= count) and flow["transport"] == "sctp":
            raise ExportError(
                f"flows.{i}.transport",
                "an SCTP flow to or from a host is not exported: ns-2's trace of a wired "
                "link does not tell a DATA chunk from a SACK, so its data could not be "
                "counted there",
            )


def _gateway_node_lines(c: Mapping[str, Any]) -> list[str]:
    """The nodes of a scenario with a gateway, in ns-2's wired-cum-wireless
    form: hierarchical addresses, MANET node i at 0.0.i (node id i, address
    i, as without a gateway), the gateway a base station, and host h at
    1.0.h (node id nodes.count + h, address 1.0.h, 4194304 + h in wireless
    lines), each wired to the gateway."""
    gateway = c["gateway"]
    nodes = gateway["node"]
    gw = int(nodes[0] if isinstance(nodes, list) else nodes)
    count, hosts = int(c["nodes"]["count"]), int(gateway["hosts"])
    rate = int(float(gateway["rate_bps"]))
    delay = _tcl_number(float(gateway["delay_s"]))
    # ns-2.35's DropTail holds limit_ - 1 packets (see the interface queue).
    limit = int(gateway["queue_packets"]) + 1
    return [
        "for {set i 0} {$i < $val(nn)} {incr i} {",
        f'    $ns_ node-config -wiredRouting [expr {{$i == {gw} ? "ON" : "OFF"}}]',
        "    set node_($i) [$ns_ node 0.0.$i]",
        "    $node_($i) random-motion 0",
        "}",
        "$ns_ node-config -wiredRouting OFF",
        "# Every other node's base station is the gateway. Listing the mobile nodes",
        "# in the simulator's node list lets ns-2.35 compute its hierarchical routes",
        "# with the MANET's nodes numbered first (its node_id_by_addr reads every",
        "# entry of that list, and crashes on a gap).",
        "for {set i 0} {$i < $val(nn)} {incr i} {",
        f"    if {{$i != {gw}}} {{",
        f"        $node_($i) base-station [AddrParams addr2id [$node_({gw}) node-addr]]",
        "        $ns_ add-node $node_($i) [$node_($i) id]",
        "    }",
        "}",
        "# The hosts are wired nodes: no routing agent.",
        '$ns_ set routingAgent_ ""',
        f"for {{set h 0}} {{$h < {hosts}}} {{incr h}} {{",
        f"    set node_([expr {count} + $h]) [$ns_ node 1.0.$h]",
        f"    $ns_ duplex-link $node_([expr {count} + $h]) $node_({gw}) {rate} {delay} DropTail",
        f"    $ns_ queue-limit $node_([expr {count} + $h]) $node_({gw}) {limit}",
        f"    $ns_ queue-limit $node_({gw}) $node_([expr {count} + $h]) {limit}",
        "}",
    ]


def _check_transfer_exportable(key: str, flow: Mapping[str, Any]) -> None:
    """Refuses a finite transfer ns-2.35's one-way TCP cannot send exactly."""
    size, total = int(flow["packet_size_bytes"]), int(flow["transfer_bytes"])
    if total % size:
        raise ExportError(
            f"{key}.transfer_bytes",
            f"ns-2's one-way TCP sends whole packets: {total} is not a multiple of "
            f"packet_size_bytes = {size}",
        )


def _check_aodv_exportable(aodv: Mapping[str, Any]) -> None:
    """Refuses the `[routing.aodv]` keys that ns-2.35's AODV cannot follow.

    ns-2.35 compiles its AODV options in (``aodv.h``): MAC link-failure
    detection with no HELLOs, local repair, ACTIVE_ROUTE_TIMEOUT 10 s,
    intermediate nodes that may answer, and no gratuitous RREP. The ``rfc``
    preset differs from it only in the RREQ timing and ring constants, which
    ``docs/fidelity.md`` lists among the known differences; ``preset = "ns2"``
    copies them.
    """
    key = "routing.aodv"
    if aodv.get("preset", "rfc") == "aodv_uu":
        raise ExportError(
            f"{key}.preset",
            '"aodv_uu" has no ns-2.35 equivalent (use preset = "ns2" for ns-2.35\'s own constants)',
        )
    if aodv.get("link_detection", "mac") != "mac":
        raise ExportError(
            f"{key}.link_detection",
            "ns-2.35's AODV detects broken links from MAC failures only "
            "(AODV_LINK_LAYER_DETECTION is compiled in, not a Tcl variable)",
        )
    if not aodv.get("local_repair", True):
        raise ExportError(
            f"{key}.local_repair",
            "ns-2.35's AODV always repairs locally (AODV_LOCAL_REPAIR is compiled in)",
        )
    timeout = aodv.get("active_route_timeout_s")
    if timeout is not None and float(timeout) != 10.0:
        raise ExportError(
            f"{key}.active_route_timeout_s",
            "ns-2.35's ACTIVE_ROUTE_TIMEOUT is 10 s, compiled in",
        )
    if aodv.get("gratuitous_rrep", False):
        raise ExportError(f"{key}.gratuitous_rrep", "ns-2.35's AODV sends no gratuitous RREP")
    if aodv.get("destination_only", False):
        raise ExportError(
            f"{key}.destination_only",
            "ns-2.35's AODV lets intermediate nodes reply; it has no destination-only flag",
        )


def _dsdv_lines(c: Mapping[str, Any]) -> list[str]:
    """`[routing.dsdv]` as ns-2.35's `Agent/DSDV` class variables."""
    dsdv = c["routing"].get("dsdv")
    if c["routing"]["protocol"] != "dsdv" or not dsdv:
        return []
    return [
        f"Agent/DSDV set use_mac_ {1 if dsdv['mac_feedback'] else 0}",
        f"Agent/DSDV set perup_ {float(dsdv['periodic_update_interval_s'])!r}",
        f"Agent/DSDV set min_update_periods_ {int(dsdv['min_update_periods'])}",
    ]


def _tcl_number(value: float) -> str:
    return repr(float(value)) if not float(value).is_integer() else f"{float(value):.1f}"


#: ns-2.35 accepts a raw seed from 1 to MAXINT - 1 (``RNG::set_seed``).
_NS2_RAW_SEEDS = 2**31 - 2


def ns2_raw_seed(seed: int, stream: int = 0) -> int:
    """The raw seed the exported script gives one of ns-2.35's generators
    for manetsim's ``seed``: ``stream`` 0 is ``$defaultRNG``, 1 the
    shadowing model's own.

    ns-2.35 seeds its MRG32k3a generator by setting all six words of its
    state to the seed, and from such a state the first draws are nearly
    proportional to a small seed: the first uniform is 3.4e-4 x the seed
    (0.00034 for seed 1, 0.00067 for seed 2, measured with Debian's ns-2.35).
    A Pareto on-off source's first burst then lasted 15-35 s instead of a
    fraction of a second over seeds 1-4. So the seed goes through
    SplitMix64 first, which spreads consecutive seeds over the whole range
    (1 to 2^31 - 2)."""
    mask = 2**64 - 1
    z = (int(seed) + (stream + 1) * 0x9E3779B97F4A7C15) & mask
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
    z ^= z >> 31
    return 1 + z % _NS2_RAW_SEEDS


def _tcl_comment(text: str) -> list[str]:
    """``text`` as Tcl comment lines: each of its lines behind ``# ``, so a
    scenario's name can never become a command. A backslash at the end of
    a comment line would continue the comment onto the next line, so one
    is followed by a space."""
    return [f"# {line}" + (" " if line.endswith("\\") else "") for line in text.splitlines()]


def _script(
    c: Mapping[str, Any],
    moves: str,
    trace_file: str,
    tracing: bool = True,
    grid_m: tuple[float, float] | None = None,
    mac_trace: bool = False,
) -> str:
    radio, mac = c["radio"], c["mac"]
    if grid_m is None:
        grid_m = (float(c["area"]["width_m"]), float(c["area"]["height_m"]))
    routing = _ROUTING[c["routing"]["protocol"]]
    ifq = "CMUPriQueue" if routing == "DSR" else "Queue/DropTail/PriQueue"
    # ns-2.35's DropTail (and PriQueue, its routing packets put first) drops
    # once length + 1 reaches limit_, so it holds limit_ - 1 packets; its
    # CMUPriQueue ignores limit_ and holds _CMU_BAND_PACKETS a band (a DSR
    # scenario with another queue is refused). manetsim's queue holds
    # queue_packets.
    ifq_len = int(mac["queue_packets"]) + (ifq != "CMUPriQueue")
    n = c["nodes"]["count"]
    duration = float(c["duration_s"])
    capture_ratio = 10 ** (float(radio["capture_threshold_db"]) / 10)
    lines = [
        "# Generated by manetsim (`manetsim export ns2`) for ns-2.35.",
        *_tcl_comment(f"Scenario: {c.get('name', '')}, seed {c['seed']}."),
        f"# Run: ns run.tcl  (writes the trace to {trace_file})",
        "",
        f"set val(nn) {n}",
        f"set val(stop) {_tcl_number(duration)}",
        f"set val(trace) {{{trace_file}}}",
        "",
        f"Mac/802_11 set dataRate_ {int(mac['data_rate_bps'])}",
        f"Mac/802_11 set basicRate_ {int(mac['basic_rate_bps'])}",
        f"Mac/802_11 set RTSThreshold_ {int(mac['rts_threshold_bytes'])}",
        f"Mac/802_11 set ShortRetryLimit_ {int(mac['short_retry_limit'])}",
        f"Mac/802_11 set LongRetryLimit_ {int(mac['long_retry_limit'])}",
        f"Phy/WirelessPhy set Pt_ {radio['tx_power_w']!r}",
        f"Phy/WirelessPhy set freq_ {radio['frequency_hz']!r}",
        f"Phy/WirelessPhy set RXThresh_ {radio['rx_threshold_w']!r}",
        f"Phy/WirelessPhy set CSThresh_ {radio['cs_threshold_w']!r}",
        f"Phy/WirelessPhy set CPThresh_ {capture_ratio!r}",
        f"Phy/WirelessPhy set L_ {radio['system_loss']!r}",
        f"Phy/WirelessPhy set bandwidth_ {int(mac['data_rate_bps'])}",
        f"Antenna/OmniAntenna set Z_ {radio['antenna_height_m']!r}",
        *_dsdv_lines(c),
    ]
    if radio["propagation"] == "shadowing":
        lines += [
            f"Propagation/Shadowing set pathlossExp_ {radio['path_loss_exponent']!r}",
            f"Propagation/Shadowing set std_db_ {radio['shadowing_std_db']!r}",
            f"Propagation/Shadowing set dist0_ {radio['reference_distance_m']!r}",
        ]
    prop_option = f"-propType {_PROPAGATION[radio['propagation']]}"
    prop_lines: list[str] = []
    if radio["propagation"] == "shadowing":
        # The model's own generator: its class seed_ indexes a table of 64
        # seeds (ns-2.35 aborts at 64 and over), so the instance is seeded
        # raw, from the same seed spread as the default generator's.
        prop_option = "-propInstance $prop_"
        prop_lines = [
            "set prop_ [new Propagation/Shadowing]",
            f"$prop_ seed raw {ns2_raw_seed(int(c['seed']), 1)}",
        ]
    energy = c.get("energy")
    energy_opts = ""
    if energy:
        energy_opts = (
            f" -energyModel EnergyModel -initialEnergy {energy['initial_j']!r}"
            f" -txPower {energy['tx_w']!r} -rxPower {energy['rx_w']!r}"
            f" -idlePower {energy['idle_w']!r} -sleepPower 0.0"
        )
    gateway = c.get("gateway")
    lines += [
        "",
        "set ns_ [new Simulator]",
        *(
            [
                "# Wired-cum-wireless: the MANET is domain 0, the hosts domain 1.",
                "$ns_ node-config -addressType hierarchical",
                "AddrParams set domain_num_ 2",
                "AddrParams set cluster_num_ {1 1}",
                f"AddrParams set nodes_num_ {{{n} {int(gateway['hosts'])}}}",
            ]
            if gateway
            else []
        ),
        "global defaultRNG",
        f"# seed {int(c['seed'])}, spread (SplitMix64): ns-2.35's first draws grow"
        " with a small raw seed",
        f"$defaultRNG seed {ns2_raw_seed(int(c['seed']))}",
        # ns-2 needs trace-all even untraced: with tracing off it writes to
        # /dev/null and the agent/router trace objects are off.
        "set tracefd [open $val(trace) w]" if tracing else "set tracefd [open /dev/null w]",
        "$ns_ trace-all $tracefd",
        "set topo [new Topography]",
        f"$topo load_flatgrid {_tcl_number(grid_m[0])} {_tcl_number(grid_m[1])}",
        "set god_ [create-god $val(nn)]",
        "set chan [new Channel/WirelessChannel]",
        *prop_lines,
        f"$ns_ node-config -adhocRouting {routing} -llType LL -macType Mac/802_11 \\",
        f"    -ifqType {ifq} -ifqLen {ifq_len} -antType Antenna/OmniAntenna \\",
        f"    {prop_option} -phyType Phy/WirelessPhy \\",
        "    -channel $chan -topoInstance $topo "
        + (
            "-agentTrace ON -routerTrace ON \\"
            if tracing
            else "-agentTrace OFF -routerTrace OFF \\"
        ),
        f"    -macTrace {'ON' if mac_trace else 'OFF'} -movementTrace OFF{energy_opts}",
        "",
        "proc make_err {rate} {",
        "    set err [new ErrorModel]",
        "    $err unit pkt",
        "    $err set rate_ $rate",
        "    $err ranvar [new RandomVariable/Uniform]",
        "    $err drop-target [new Agent/Null]",
        "    return $err",
        "}",
    ]
    losses = {int(loss["node"]): loss for loss in c.get("loss", [])}
    if gateway:
        lines += _gateway_node_lines(c)
    else:
        lines.append("for {set i 0} {$i < $val(nn)} {incr i} {")
        lines.append("    set node_($i) [$ns_ node]")
        lines.append("    $node_($i) random-motion 0")
        lines.append("}")
    for node, loss in sorted(losses.items()):
        if loss["where"] == "after_mac":
            # Between MAC and LL: the node loses frames its MAC acknowledged.
            lines += [
                f"set em_{node} [make_err {loss['rate']!r}]",
                f"[$node_({node}) set mac_(0)] up-target $em_{node}",
                f"$em_{node} target [$node_({node}) set ll_(0)]",
            ]
        else:
            # Below the MAC: the frame is corrupted before the MAC sees it.
            lines += [
                f"set em_{node} [make_err {loss['rate']!r}]",
                f"[$node_({node}) set netif_(0)] up-target $em_{node}",
                f"$em_{node} target [$node_({node}) set mac_(0)]",
            ]
    lines += ["", "# Positions and movements (manetsim's trajectories, setdest format)"]
    lines += [line for line in moves.splitlines() if line.strip()]
    lines.append("")
    for i, flow in enumerate(c.get("flows", [])):
        lines += _flow_lines(i, flow)
    lines += [
        "",
        "for {set i 0} {$i < $val(nn)} {incr i} {",
        '    $ns_ at $val(stop) "$node_($i) reset"',
        "}",
        "proc finish {} {",
        "    global ns_ tracefd val node_",
        *(
            [
                # Each node's energy left, after its initial energy, for the
                # crosscheck (`energy.consumed_j`).
                "    for {set i 0} {$i < $val(nn)} {incr i} {",
                f'        puts "manetsim-energy $i {float(energy["initial_j"])!r} '
                '[$node_($i) energy]"',
                "    }",
            ]
            if energy
            else []
        ),
        "    $ns_ flush-trace",
        "    close $tracefd",
        "}",
        '$ns_ at [expr $val(stop) + 0.0001] "finish"',
        '$ns_ at [expr $val(stop) + 0.0002] "puts \\"NS EXITING...\\"; $ns_ halt"',
        "$ns_ run",
        "",
    ]
    return "\n".join(lines)


def _transfer_packets(flow: Mapping[str, Any]) -> int:
    """The packets of a finite FTP transfer (validated a whole number)."""
    return int(flow["transfer_bytes"]) // int(flow["packet_size_bytes"])


def _ns2_advance(flow: Mapping[str, Any]) -> int:
    """What to `producemore` for the flow's transfer in ns-2.35: its packets.

    With `syn_ true` its one-way agents but Vegas's send a 40-byte SYN as
    sequence number 0 and raise `curseq_` by one for it, so `producemore 9`
    sends the SYN and data packets 1 to 9 (measured with ns-2.35); with
    `syn_ false`, and from Vegas's agent, data packets 0 to 8.
    """
    return _transfer_packets(flow)


def _cbr_rate(flow: Mapping[str, Any], size: int) -> str:
    """ns-2 CBR's `rate_` for the flow's interval between packets.

    ns-2's CBR sends a packet every `packetSize_` * 8 / `rate_` seconds;
    manetsim's every `interval_s`, or `packet_size_bytes` * 8 / `rate_bps`.
    The rate is written whole when it is whole, else to the digit (ns-2
    reads a fractional `rate_`).
    """
    payload = int(flow["packet_size_bytes"])
    rate = flow.get("rate_bps")
    if rate is not None and size == payload:
        bps = float(rate)
    else:
        interval = float(flow["interval_s"]) if rate is None else payload * 8 / float(rate)
        bps = size * 8 / interval
    return str(int(bps)) if bps.is_integer() else repr(bps)


#: IPv4's header, SCTP's common header and a DATA chunk's header (RFC 4960).
_IP_HEADER_BYTES = 20
_SCTP_COMMON_BYTES = 12
_SCTP_DATA_HEADER_BYTES = 16
#: The path MTU both simulators use (ns-2.35's `mtu_` default).
_SCTP_MTU_BYTES = 1500


def _check_sctp_exportable(key: str, flow: Mapping[str, Any]) -> None:
    """Refuses an SCTP flow ns-2.35 would run differently."""
    app, size = flow["app"], int(flow["packet_size_bytes"])
    if app not in ("cbr", "ftp", "onoff"):
        raise ExportError(f"{key}.app", f'"{app}" over SCTP is not exported')
    if flow.get("transfer_bytes") is not None:
        raise ExportError(
            f"{key}.transfer_bytes",
            "a finite transfer over SCTP is not exported yet (its last message and the "
            "association's shutdown have no counterpart checked against ns-2.35's "
            "Agent/SCTP): remove transfer_bytes for a like-for-like run",
        )
    distribution = (flow.get("onoff") or {}).get("distribution", "exponential")
    if app == "onoff" and distribution == "exponential":
        # Measured with Debian's ns-2.35: the run stops at the first burst
        # with "SCTP ERROR: number of unreliable streams (24407) > total".
        raise ExportError(
            f"{key}.onoff.distribution",
            "ns-2.35's Application/Traffic/Exponential hands the first packet of "
            'each burst to its agent with the flag "NEW_BURST", which Agent/SCTP '
            "takes for an SCTP-aware application's stream data, and ns-2.35 exits "
            '("SCTP ERROR: number of unreliable streams ... > total"); on-off over '
            'SCTP is exported with distribution = "pareto"',
        )
    chunk = _SCTP_DATA_HEADER_BYTES + -(-size // 4) * 4
    bundling = bool((flow.get("sctp") or {}).get("bundling", True))
    if not bundling and _IP_HEADER_BYTES + _SCTP_COMMON_BYTES + 2 * chunk <= _SCTP_MTU_BYTES:
        # Measured with Debian's ns-2.35: CBR of 512-byte messages over
        # SCTP sent 194 of its 268 packets with two DATA chunks.
        raise ExportError(
            f"{key}.sctp.bundling",
            f"ns-2.35's Agent/SCTP always bundles {size}-byte messages that wait "
            "(two or more fit in one packet), and this flow sends one DATA chunk a "
            "packet: remove the key for a like-for-like run, or use messages of at "
            f"least {_SCTP_MIN_UNBUNDLED_BYTES} bytes",
        )
    interval = float((flow.get("sctp") or {}).get("heartbeat_interval_s", 30.0))
    if interval != int(interval):
        raise ExportError(
            f"{key}.sctp.heartbeat_interval_s",
            f"ns-2.35's heartbeatInterval_ is a whole number of seconds, and this "
            f"flow's is {interval:g}",
        )
    streams = int((flow.get("sctp") or {}).get("streams", 1))
    if streams > 1 and app != "ftp":
        # sctp.cc's sendmsg: an application that is not SCTP-aware (CBR,
        # on-off) writes on one stream, whatever numOutStreams_ says.
        raise ExportError(
            f"{key}.sctp.streams",
            f"ns-2.35's Agent/SCTP sends what {app.upper()} writes on one stream "
            f"(its sendmsg sets one for applications that are not SCTP-aware), so "
            f'{streams} streams are exported only for app = "ftp"',
        )
    max_burst = int((flow.get("sctp") or {}).get("max_burst", _NS2_SCTP_MAX_BURST))
    if max_burst != _NS2_SCTP_MAX_BURST:
        raise ExportError(
            f"{key}.sctp.max_burst",
            f"ns-2.35's Agent/SCTP compiles Max.Burst in as {_NS2_SCTP_MAX_BURST} "
            f"(got {max_burst}): remove the key for a like-for-like run",
        )
    if app == "ftp" and size % 4:
        raise ExportError(
            f"{key}.packet_size_bytes",
            "ns-2.35's Agent/SCTP cuts a bulk transfer into chunks of dataChunkSize_, "
            f"a multiple of 4 bytes: use a multiple of 4 (got {size})",
        )
    if size > _SCTP_MAX_CHUNK_BYTES:
        raise ExportError(
            f"{key}.packet_size_bytes",
            "ns-2.35's Agent/SCTP does not fragment (it stops on a DATA chunk "
            f"larger than its {_SCTP_MTU_BYTES}-byte MTU allows): use at most "
            f"{_SCTP_MAX_CHUNK_BYTES} bytes (got {size})",
        )


#: ns-2.35's `Agent/TFRC` `df_`: the filter of its RTT estimate and of the
#: mean square root of the RTT (RFC 5348's q and q2 are 0.9).
NS2_TFRC_DF = 0.95

#: ns-2.35's `Agent/TFRC` `InitRate_`: bytes a second before the first report.
NS2_TFRC_INIT_RATE_BYTES_PER_S = 300

#: The largest message one DATA chunk carries in a 1500-byte packet (IP 20,
#: common header 12, chunk header 16); manetsim fragments larger ones.
_SCTP_MAX_CHUNK_BYTES = 1452

#: ns-2.35's `MAX_BURST` (sctp.h), RFC 4960's recommended value.
_NS2_SCTP_MAX_BURST = 4

#: The smallest message two of which do not fit one 1500-byte packet:
#: 20 + 12 + 2 * (16 + 720) = 1504 (a message is padded to 4 bytes).
_SCTP_MIN_UNBUNDLED_BYTES = 717


def _flow_lines(i: int, flow: Mapping[str, Any]) -> list[str]:
    src, dst = int(flow["src"]), int(flow["dst"])
    size = int(flow["packet_size_bytes"])
    start = _tcl_number(flow["start_s"])
    stop = _tcl_number(flow["stop_s"])
    lines = [f"# flow {i}: {flow['transport']}/{flow['app']} {src} -> {dst}"]
    if flow["transport"] == "udp":
        lines += [
            f"set agent_({i}) [new Agent/UDP]",
            f"set sink_({i}) [new Agent/LossMonitor]",
        ]
    elif flow["transport"] == "sctp":
        # ns-2.35's dataChunkSize_ counts the chunk's 16-byte header: a bulk
        # transfer's messages are the flow's size; a CBR message is its
        # packetSize_, in one chunk of up to the default 1468. Both ends
        # heartbeat an idle path every heartbeatInterval_ (RFC 4960's
        # HB.interval, the flow's heartbeat_interval_s); 0 leaves only the
        # HEARTBEAT ns-2.35 sends as the association opens.
        # A bulk transfer's chunks go to numOutStreams_ streams in turn;
        # unordered_ sets every chunk's U bit.
        chunk = size + _SCTP_DATA_HEADER_BYTES if flow["app"] == "ftp" else 1468
        sctp = flow.get("sctp") or {}
        heartbeat_s = int(float(sctp.get("heartbeat_interval_s", 30.0)))
        lines += [
            f"set agent_({i}) [new Agent/SCTP]",
            f"$agent_({i}) set mtu_ {_SCTP_MTU_BYTES}",
            f"$agent_({i}) set dataChunkSize_ {chunk}",
            f"$agent_({i}) set heartbeatInterval_ {heartbeat_s}",
            f"$agent_({i}) set useMaxBurst_ 1",
            f"$agent_({i}) set numOutStreams_ {int(sctp.get('streams', 1))}",
            f"$agent_({i}) set unordered_ {1 if sctp.get('unordered', False) else 0}",
            f"set sink_({i}) [new Agent/SCTP]",
            f"$sink_({i}) set mtu_ {_SCTP_MTU_BYTES}",
            f"$sink_({i}) set heartbeatInterval_ {heartbeat_s}",
        ]
    elif flow["transport"] == "tfrc":
        # ns-2.35's TFRC: the application's bytes become packets of
        # packetSize_ (tfrc.cc's sendmsg), so it is the flow's packet size.
        # Its sqrt(RTT) spacing (ca_), filter (df_) and rate before the
        # first report (InitRate_: RFC 5348's one packet a second, or
        # ns-2.35's 300 bytes a second), as the flow's [flows.tfrc] says.
        tfrc = flow.get("tfrc") or {}
        init_rate = (
            NS2_TFRC_INIT_RATE_BYTES_PER_S if tfrc.get("start_rule", "rfc") == "ns2" else size
        )
        lines += [
            f"set agent_({i}) [new Agent/TFRC]",
            f"$agent_({i}) set packetSize_ {size}",
        ]
        if flow["app"] != "ftp":
            # With its default SndrType_ 0 the agent, once started, sends at
            # its TFRC rate whatever the application hands it (CBR at 100
            # kbit/s went out at 80 packets a second, not 24); SndrType_ 1
            # sends only what the application handed over (Debian's
            # ns-2.35: CBR at 40 kbit/s, 967 packets sent in 99 s).
            lines.append(f"$agent_({i}) set SndrType_ 1")
        lines += [
            f"$agent_({i}) set ca_ {int(bool(tfrc.get('oscillation_prevention', False)))}",
            f"$agent_({i}) set df_ {float(tfrc.get('rtt_filter', 0.9))!r}",
            f"$agent_({i}) set InitRate_ {init_rate}",
            f"set sink_({i}) [new Agent/TFRCSink]",
            f"$sink_({i}) set discount_ {int(bool(tfrc.get('history_discounting', False)))}",
        ]
    else:
        tcp = flow["tcp"]
        agent, sink = _TCP[tcp["variant"]]
        if tcp["variant"] == "vegas":
            # ns-2.35's Vegas agent has an output() of its own that sends
            # packetSize_ bytes without adding the 40 header bytes the other
            # agents add: the same packets on the air need the headers in.
            lines.append(
                f"# Agent/TCP/Vegas sends packetSize_ bytes, headers included: "
                f"{size} + {NS2_TCP_HEADER_BYTES}"
            )
            size += NS2_TCP_HEADER_BYTES
        if tcp["delayed_ack"]:
            sink = (
                "Agent/TCPSink/DelAck" if sink == "Agent/TCPSink" else "Agent/TCPSink/Sack1/DelAck"
            )
        lines += [
            f"set agent_({i}) [new {agent}]",
            f"$agent_({i}) set packetSize_ {size}",
            f"$agent_({i}) set window_ {int(tcp['window_packets'])}",
            f"$agent_({i}) set windowInit_ {int(tcp['initial_window_packets'])}",
            f"$agent_({i}) set minrto_ {tcp['min_rto_s']!r}",
        ]
        # ns-2.35's defaults (`syn_ true`, `delay_growth_ true`) are manetsim's
        # start_rule = "ns2"; "window" turns both off (delay_growth_ alone
        # would reset the window on the first ACK).
        syn = "true" if tcp.get("start_rule", "window") == "ns2" else "false"
        lines += [f"$agent_({i}) set syn_ {syn}", f"$agent_({i}) set delay_growth_ {syn}"]
        if tcp["variant"] != "vegas":
            # ns-2.35's limited transmit (on by default), as the scenario says.
            lines.append(f"$agent_({i}) set singledup_ {int(bool(tcp.get('limited_transmit')))}")
        if tcp["variant"] == "vegas":
            lines += [
                f"$agent_({i}) set v_alpha_ {tcp['vegas_alpha']!r}",
                f"$agent_({i}) set v_beta_ {tcp['vegas_beta']!r}",
                f"$agent_({i}) set v_gamma_ {tcp['vegas_gamma']!r}",
            ]
        lines.append(f"set sink_({i}) [new {sink}]")
    lines += [
        f"$agent_({i}) set fid_ {i}",
        f"$ns_ attach-agent $node_({src}) $agent_({i})",
        f"$ns_ attach-agent $node_({dst}) $sink_({i})",
        f"$ns_ connect $agent_({i}) $sink_({i})",
    ]
    if flow["app"] == "ftp":
        lines += [f"set app_({i}) [new Application/FTP]"]
    elif flow["app"] == "onoff":
        # ns-2.35's exponential and Pareto generators draw bursts of whole
        # packets at rate_ and idle times as manetsim's on-off sources do.
        onoff = flow.get("onoff") or {}
        pareto = onoff.get("distribution", "exponential") == "pareto"
        lines += [
            f"set app_({i}) [new Application/Traffic/{'Pareto' if pareto else 'Exponential'}]",
            f"$app_({i}) set packetSize_ {size}",
            f"$app_({i}) set rate_ {_cbr_rate(flow, size)}",
            f"$app_({i}) set burst_time_ {float(onoff.get('on_s', 0.5))!r}",
            f"$app_({i}) set idle_time_ {float(onoff.get('off_s', 0.5))!r}",
        ]
        if pareto:
            lines.append(f"$app_({i}) set shape_ {float(onoff.get('shape', 1.5))!r}")
    else:
        lines += [
            f"set app_({i}) [new Application/Traffic/CBR]",
            f"$app_({i}) set packetSize_ {size}",
            f"$app_({i}) set rate_ {_cbr_rate(flow, size)}",
            f"$app_({i}) set random_ 0",
        ]
    begin = "start"
    stoppers = [(stop, f"$app_({i})")]
    if flow["app"] in ("cbr", "onoff"):
        # ns-2's traffic generators add their interval to the clock in
        # floating point: CBR every 0.1 s from 1.0 s sent its 81st packet at
        # 8.99999999999998 s, before a stop at 9.0 (Debian's ns-2.35).
        # manetsim sends nothing at stop_s, so ns-2's generator stops 1 ns
        # sooner, whichever way its sum rounded.
        stoppers = [(repr(float(flow["stop_s"]) - 1e-9), f"$app_({i})")]
    if flow["transport"] == "tfrc":
        # FTP's stop asks its agent to `advance 0`, which Agent/TFRC does
        # not know: a TFRC flow is stopped at its agent (a CBR source's
        # packets still queued there are then not sent, as in manetsim).
        stoppers = [s for s in stoppers if flow["app"] != "ftp"] + [(stop, f"$agent_({i})")]
    if flow.get("transfer_bytes") is not None:
        begin = f"producemore {_ns2_advance(flow)}"
    lines += [
        f"$app_({i}) attach-agent $agent_({i})",
        f'$ns_ at {start} "$app_({i}) {begin}"',
        *(f'$ns_ at {when} "{who} stop"' for when, who in stoppers),
        f'puts "manetsim-flow {i} [$agent_({i}) set agent_addr_] [$agent_({i}) set agent_port_]"',
    ]
    return lines


# -- trace parsing -------------------------------------------------------------------


@dataclass
class FlowStats:
    """One flow's figures from an ns-2 trace, with manetsim's definitions."""

    sent: int = 0
    received: int = 0
    received_bytes: int = 0
    first_send_s: float | None = None
    last_receive_s: float | None = None
    delays_s: list[float] = field(default_factory=list)
    seqs_sent: set[int] = field(default_factory=set)
    seqs_received: set[int] = field(default_factory=set)
    # The highest sequence number sent so far (an SCTP packet's is its last
    # TSN), -1 before the first.
    highest_seq_sent: int = -1
    retransmissions: int = 0
    duplicates: int = 0

    @property
    def throughput_kbps(self) -> float:
        if self.first_send_s is None or self.last_receive_s is None:
            return 0.0
        span = self.last_receive_s - self.first_send_s
        return self.received_bytes * 8 / span / 1000 if span > 0 else 0.0

    @property
    def delay_ms(self) -> float:
        return 1000 * statistics.fmean(self.delays_s) if self.delays_s else float("nan")

    @property
    def jitter_ms(self) -> float:
        d = self.delays_s
        if len(d) < 2:
            return float("nan")
        return 1000 * statistics.fmean(abs(b - a) for a, b in zip(d, d[1:]))

    @property
    def loss_pct(self) -> float:
        return (self.sent - self.received) / self.sent * 100 if self.sent else float("nan")


@dataclass
class TraceStats:
    """What :func:`parse_trace` reads from a trace."""

    flows: dict[tuple[int, int], FlowStats]
    routing_packets: int
    lines: int
    drops: dict[str, int]
    routing_by_message: dict[str, int] = field(default_factory=dict)
    # Of those, the packets relayed for another node, per message, where the
    # trace tells (see :func:`_forwarded`); NaN where it does not.
    routing_forwarded_by_message: dict[str, float] = field(default_factory=dict)
    # DSR's flow-state lines, named as manetsim's `routing.flow_state`.
    flow_state: dict[str, int] = field(default_factory=dict)


# ns-2.35's DSR traces its flow state on lines of its own, named here as
# manetsim's `routing.flow_state` keys.
_FLOW_STATE_LINES = {
    "SFESTs": "established",
    "SFs": "by_flow",
    "SFf": "forwarded",
    "SFErr": "unknown",
}


def parse_trace(path: str | Path) -> TraceStats:
    """Parses an ns-2 old-format wireless trace (agent and router levels).

    Flows are keyed by (source address, source port), read from the IP header
    field ``[src:port dst:port ttl nexthop]`` of agent-level events. Per flow,
    with manetsim's definitions: data packets sent (retransmissions included)
    and received (TCP ACKs excluded; a TCP segment delivered again is counted
    in ``duplicates``, not received), received bytes as traced (ns-2 counts
    the TCP/IP header; a UDP packet counts 20 bytes of IP header and no UDP
    header, where manetsim counts 28), one-way delay matched by packet uid,
    and TCP retransmissions (a sequence number sent again). Routing
    packets are router-level sends and forwards of control packet types, as
    manetsim counts each hop's transmission, also by message
    (``routing_by_message``, see :func:`_control_message`). Malformed lines
    raise ``ValueError`` naming the line.
    """
    path = Path(path)
    flows: dict[tuple[int, int], FlowStats] = {}
    # uid -> (send time, size as manetsim counts it: the IP datagram)
    sent_at: dict[str, tuple[float, int]] = {}
    routing = 0
    by_message: dict[str, int] = {}
    forwarded: dict[str, float] = {}
    drops: dict[str, int] = {}
    flow_state: dict[str, int] = {}
    # The flows sources opened: each (node, flow id) an `SFESTs` line names.
    opened: set[tuple[str, str]] = set()
    # AODV's and AOMDV's route errors sent, by agent, and the instants of
    # drops, by node: a route error sent at the instant of a drop at its
    # node was originated there (see `_rerrs_relayed`).
    rerrs: dict[str, list[tuple[str, str]]] = {"AODV": [], "AOMDV": []}
    drop_instants: set[tuple[str, str]] = set()
    # The uids of TCP SYNs seen at an agent, to know them on a wired link.
    syns: set[str] = set()
    # Data packets a routing agent has taken in (`r … RTR`) and nothing has
    # shown since: uid -> the time it came in (see `_vanished`).
    resting: dict[str, float] = {}
    last_s = 0.0
    count = 0
    with path.open(encoding="utf-8", errors="replace") as handle:
        for count, line in enumerate(handle, start=1):
            if line.startswith("SF"):
                name = _FLOW_STATE_LINES.get(line.split(" ", 1)[0])
                if name is not None:
                    flow_state[name] = flow_state.get(name, 0) + 1
                if name == "established":
                    # `SFESTs time _node_ uid [src -> dst] id(header) to ...`
                    fields = line.split()
                    if len(fields) < 8:
                        raise ValueError(f"{path}:{count}: an SFESTs line has too few fields")
                    opened.add((fields[2], fields[7].split("(", 1)[0]))
                continue
            if not line or line[0] not in "srfDd+-":
                continue
            tokens = line.split()
            if len(tokens) < 8:
                raise ValueError(f"{path}:{count}: a trace event has too few fields")
            if not tokens[2].startswith("_"):
                # A wired link's line (`+ - r d`): a host's sends and
                # receptions, and the links' queue drops.
                if resting and len(tokens) > 11:
                    # A gateway's packet went on over the wire.
                    resting.pop(tokens[11], None)
                wired = _wired_event(tokens, f"{path}:{count}")
                if wired is None:
                    continue
                event, key, ev = wired
                if ev.uid in syns:
                    continue  # a SYN, 20 bytes longer on the wire than at its agent
                if event == "d":
                    drops["WIRE:d"] = drops.get("WIRE:d", 0) + 1
                    continue
                stats = flows.setdefault(key, FlowStats())
                if event == "s":
                    _count_sent(stats, sent_at, ev)
                else:
                    _count_received(stats, sent_at, ev)
                continue
            event, layer, kind = tokens[0], tokens[3], tokens[6]
            try:
                now = float(tokens[1])
            except ValueError:
                raise ValueError(f"{path}:{count}: bad time `{tokens[1]}`") from None
            last_s = max(last_s, now)
            if layer == "RTR" and event == "r" and kind not in _CONTROL_TYPES:
                resting[tokens[5]] = now
            elif resting and layer != "MAC":
                # Another node's MAC may still send or lose a copy of it.
                resting.pop(tokens[5], None)
            if event in "Dd":
                reason = tokens[4]
                drops[f"{layer}:{reason}"] = drops.get(f"{layer}:{reason}", 0) + 1
                if layer != "MAC":  # a MAC trace's lines (`RET`, `COL`) tell no agent's
                    drop_instants.add((tokens[2], tokens[1]))
                continue
            if layer == "RTR":
                if kind in _CONTROL_TYPES and event in "sf":
                    routing += 1
                    message = _control_message(kind, tokens)
                    if message is not None:
                        by_message[message] = by_message.get(message, 0) + 1
                        if kind in rerrs and message == "rerr":
                            rerrs[kind].append((tokens[2], tokens[1]))
                            relayed = 0.0
                        else:
                            relayed = _forwarded(event, kind, message, tokens)
                        forwarded[message] = forwarded.get(message, 0.0) + relayed
                continue
            if layer != "AGT" or kind in ("ack", "tcpFriendCtl"):
                continue  # a TCP ACK, TFRC's feedback: not a flow's data
            if kind == "sctp" and "D" not in tokens[8:]:
                continue  # a SACK or a handshake chunk: not a flow's data
            if kind == "tcp" and tokens[7] == str(NS2_TCP_HEADER_BYTES):
                # A one-way agent's SYN (`syn_ true`): its 40 header bytes and
                # no data, which manetsim's flows do not count either.
                syns.add(tokens[5])
                continue
            ip = _ip_field(tokens)
            if ip is None:
                raise ValueError(f"{path}:{count}: no IP header field `[src:port ...]`")
            src_addr, src_port = (int(x) for x in tokens[ip].lstrip("[").split(":"))
            key = (src_addr, src_port)
            uid = tokens[5]
            size = int(tokens[7])
            stats = flows.setdefault(key, FlowStats())
            seq = _seq(kind, tokens, ip) if kind in ("tcp", "sctp") else None
            ev = _DataEvent(kind, seq, size, uid, now)
            if event == "s":
                _count_sent(stats, sent_at, ev)
            elif event == "r":
                _count_received(stats, sent_at, ev)
    for kind, sent in rerrs.items():
        if sent:
            forwarded["rerr"] += _rerrs_relayed(kind, sent, drop_instants)
    vanished = _vanished(resting, last_s)
    if vanished:
        drops[VANISHED] = vanished
    return TraceStats(
        flows=flows,
        routing_packets=routing,
        lines=count,
        drops=drops,
        routing_by_message=by_message,
        routing_forwarded_by_message=forwarded,
        flow_state={**flow_state, "opened": len(opened)} if opened else flow_state,
    )


VANISHED = "RTR:vanished"
"""The drop reason :func:`parse_trace` gives the packets :func:`_vanished`
counts: no ns-2 trace line names it."""

RTQ_TIMEOUT_S = 30.0
"""How long ns-2.35's AODV and AOMDV keep a packet waiting for a route
(``AODV_RTQ_TIMEOUT``, ``AOMDV_RTQ_TIMEOUT``)."""


def _vanished(resting: Mapping[str, float], last_s: float) -> int:
    """How many data packets a routing agent took in (``r … RTR``) at least
    :data:`RTQ_TIMEOUT_S` before the trace's last line and no line showed
    again: neither sent on, nor dropped, nor delivered.

    ns-2.35's AODV and AOMDV drop a packet that waited that long for a route
    without a trace line: their queues' ``purge()`` unlinks it and calls no
    ``drop()``. The packet then only disappears from the trace, and this
    counts it; manetsim counts the same loss as ``route_buffer_timeout``.
    A packet taken in later may still have been waiting at the end, as
    manetsim's in-flight packets are."""
    return sum(1 for at in resting.values() if at + RTQ_TIMEOUT_S <= last_s)


@dataclass(frozen=True)
class _DataEvent:
    """A flow's data packet at an agent, or on a host's wired link: its
    trace type, sequence number (a TCP segment's or SCTP TSN, else None),
    size as traced, uid and time."""

    kind: str
    seq: int | None
    size: int
    uid: str
    now: float


def _count_sent(stats: FlowStats, sent_at: dict[str, tuple[float, int]], ev: _DataEvent) -> None:
    """A flow's data packet sent, as manetsim counts it."""
    kind, seq, size, uid, now = ev.kind, ev.seq, ev.size, ev.uid, ev.now
    stats.sent += 1
    if stats.first_send_s is None:
        stats.first_send_s = now
    # ns-2's TCP agents count their 40 header bytes, its SCTP agent its IP,
    # common and chunk headers, its TFRC agent 32 (counted here as manetsim
    # counts a TFRC packet: payload and 40); its UDP agent sends bare
    # payload, to which routing agents add their headers (some strip them
    # again on delivery).
    if kind in ("tcp", "sctp"):
        counted = size
    elif kind == "tcpFriend":
        counted = size - NS2_TFRC_HEADER_BYTES + NS2_TCP_HEADER_BYTES
    else:
        counted = size + _UDP_IP_HEADER_BYTES
    sent_at[uid] = (now, counted)
    if seq is not None:
        # A retransmission, as manetsim counts it: a TCP segment sent
        # before; an SCTP packet whose last chunk was sent before. ns-2.35's
        # trace names a bundle by its last TSN only, so a packet of chunks
        # sent again may carry a TSN that named no packet: it was sent
        # before if it is not above the highest TSN sent (TSNs leave in
        # order).
        again = seq <= stats.highest_seq_sent if kind == "sctp" else seq in stats.seqs_sent
        if again:
            stats.retransmissions += 1
        stats.seqs_sent.add(seq)
        stats.highest_seq_sent = max(stats.highest_seq_sent, seq)


def _count_received(
    stats: FlowStats, sent_at: dict[str, tuple[float, int]], ev: _DataEvent
) -> None:
    """A flow's data packet received, as manetsim counts it: a TCP segment
    or SCTP TSN delivered again is neither received nor timed (SCENARIO.md's
    definitions)."""
    seq, size, uid, now = ev.seq, ev.size, ev.uid, ev.now
    if seq is not None:
        if seq in stats.seqs_received:
            stats.duplicates += 1
            return
        stats.seqs_received.add(seq)
    stats.received += 1
    stats.last_receive_s = now
    if uid in sent_at:
        sent_s, ip_bytes = sent_at[uid]
        stats.received_bytes += ip_bytes
        stats.delays_s.append(now - sent_s)
    else:
        stats.received_bytes += size


_HIER_DOMAIN_SHIFT = 22
_HIER_CLUSTER_SHIFT = 11
"""ns-2.35's default hierarchical address: domain, cluster and node fields
of 10, 11 and 11 bits (address 1.0.3 is 4194307 in wireless lines)."""


def _hier_address(text: str) -> tuple[int, int]:
    """A wired line's `domain.cluster.node.port` (or a flat `node.port`) as
    the address wireless lines print and the port."""
    parts = [int(x) for x in text.split(".")]
    *node, port = parts
    if len(node) == 3:
        domain, cluster, n = node
        return (domain << _HIER_DOMAIN_SHIFT) | (cluster << _HIER_CLUSTER_SHIFT) | n, port
    return node[0], port


def _wired_event(tokens: list[str], where: str) -> tuple[str, tuple[int, int], _DataEvent] | None:
    """What a wired link's line tells of a flow's data, in a scenario whose
    hosts (domain 1) are each wired to the gateway: `+` on a packet from a
    host is its send, `r` of a packet for a host its reception; `d` is a
    link's queue drop. None for the rest (a dequeue, a packet relayed
    between links, an acknowledgement or feedback). Returns (event `s`, `r`
    or `d`, the flow's key, the packet)."""
    # `event time from to type size flags fid src.port dst.port seq uid`
    if len(tokens) < 12:
        raise ValueError(f"{where}: a wired link's event has too few fields")
    event, kind = tokens[0], tokens[4]
    try:
        now, size, seq = float(tokens[1]), int(tokens[5]), int(tokens[10])
        src, dst = _hier_address(tokens[8]), _hier_address(tokens[9])
    except ValueError:
        raise ValueError(f"{where}: a malformed wired link's event") from None
    uid = tokens[11]
    ev = _DataEvent(kind, seq if kind == "tcp" else None, size, uid, now)
    if event == "d":
        return ("d", src, ev)
    if kind in ("ack", "tcpFriendCtl") or (kind == "tcp" and size == NS2_TCP_HEADER_BYTES):
        return None
    if event == "+" and src[0] >> _HIER_DOMAIN_SHIFT:
        return ("s", src, ev)
    if event == "r" and dst[0] >> _HIER_DOMAIN_SHIFT:
        return ("r", src, ev)
    return None


def _rerrs_relayed(kind: str, sent: list[tuple[str, str]], drops: set[tuple[str, str]]) -> int:
    """How many of an AODV or AOMDV agent's route errors ``sent`` (node,
    time as traced) a node relayed for another, from when they were sent.

    ns-2.35's AODV originates a route error at the instant of a drop at the
    same node: `rt_ll_failed` drops the packet the MAC or ARP failed on (`RTR
    CBK`) and `handle_link_failure` sends the error unjittered
    (`sendError(rerr, false)`); `rt_resolve` drops a packet it has no route
    for (`RTR NRTE`) as it sends its error, unjittered too. Its AOMDV does
    the same in `rt_resolve`, and, compiled without link-layer detection,
    finds a link lost in `nb_purge`, whose timer ticks every HELLO_INTERVAL
    (1 s) from the agent's start at 0, and sends that error unjittered: at
    a whole second. Both relay an error from `recvError` with up to 10 ms
    of jitter (`sendError(nre)`, `0.01 * Random::uniform()`), at an instant
    that neither a drop at that node nor a tick shares. (A relay's line
    carries its own IP source, so the line alone does not tell.)
    """
    return sum(
        1
        for node, time in sent
        if (node, time) not in drops and not (kind == "AOMDV" and float(time).is_integer())
    )


_AODV_MESSAGES = {
    "(REQUEST)": "rreq",
    "(REPLY)": "rrep",
    "(ERROR)": "rerr",
    "(HELLO)": "hello",
    "(GWADV)": "gwadv",
}


def _control_message(kind: str, tokens: list[str]) -> str | None:
    """The routing message a router-level trace line carries, named as
    manetsim's ``routing.by_message`` names it (:data:`ROUTING_MESSAGES`), or
    ``None`` when the line does not say.

    AODV ends the line with the type, AOMDV puts it before a closing ``[a b]``
    on its replies, errors and HELLOs; DSR prints its header's flags
    after the IP field, ``N [request id] [reply ...] [error ...]`` (a request
    may carry an error, a reply is counted as a reply whether gratuitous or
    not, a packet with none of the three is a flow-state error); DSDV's
    updates are all ``message``.
    """
    if kind == "AODV":
        return _AODV_MESSAGES.get(tokens[-1])
    if kind == "AOMDV":
        # A reply, error or HELLO line goes on after its type with `[a b]`.
        for token in reversed(tokens[-3:]):
            if token in _AODV_MESSAGES:
                return _AODV_MESSAGES[token]
        return None
    if kind == "message":
        return "update"
    if kind == "DSR":
        ip = _ip_field(tokens)
        if ip is None or len(tokens) < ip + 12:
            return None
        if tokens[ip + 5] == "[1":
            return "rreq"
        if tokens[ip + 7] == "[1":
            return "rrep"
        if tokens[ip + 11] == "[1":
            return "rerr"
        # None of the three: ns-2.35's DSR sends no other packet of its own
        # than a flow-state error (an unknown flow, `sendUnknownFlow`),
        # whose flags its trace does not print; a route error by RFC 4728,
        # as manetsim counts it.
        return "rerr"
    return None


def _forwarded(event: str, kind: str, message: str, tokens: list[str]) -> float:
    """Whether a router-level send of a control packet relays it for another
    node (1) or not (0), as manetsim's ``routing.by_message.*.forwarded``
    counts it; NaN where the line does not tell.

    ns-2 traces ``f`` where the packet's IP source is another node. That
    tells for DSR, whose relays keep the source, for DSDV's updates and
    AODV's and AOMDV's HELLOs (never relayed) and for AODV's and AOMDV's
    replies, which relays pass on with the IP source of the node that
    answered. Their relays send a request again with their own IP source,
    so a request is relayed when the line's node is not its originator
    (``[0x2 hops id [dst seqno] [origin seqno]]``); their route errors say
    neither on their line (they are told apart by when they are sent:
    :func:`_rerrs_relayed`).
    """
    if kind in ("DSR", "message"):
        return float(event == "f")
    if kind not in ("AODV", "AOMDV"):
        return math.nan
    if message in ("rrep", "hello"):
        return float(event == "f")
    if message == "rreq" and len(tokens) > 4:
        try:
            origin = int(tokens[-3].lstrip("["))
            node = int(tokens[2].strip("_"))
        except ValueError:
            return math.nan
        return float(origin != node)
    return math.nan


ROUTING_MESSAGES = {
    "grat_rrep": "rrep",
    "update_full": "update",
    "update_incremental": "update",
}
"""manetsim's message names folded as ns-2's trace can tell them apart: DSR's
gratuitous replies are replies, DSDV's full and incremental dumps are updates."""

DROPS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "queue_full": (("queue_full",), ("IFQ:IFQ", "IFQ:---", "WIRE:d")),
    "arp": (("arp",), ("IFQ:ARP",)),
    "route_buffer": (
        ("route_buffer_full", "route_buffer_timeout"),
        ("RTR:IFQ", "RTR:TOUT", "RTR:vanished"),
    ),
}
"""Drops compared: manetsim's reasons and the ns-2 trace's layer and reason
for the same loss (a full interface queue, which ns-2.35's ``CMUPriQueue``
under DSR traces as ``IFQ`` and its ``Queue/DropTail/PriQueue`` under AODV,
AOMDV and DSDV as ``---``, dropping with no reason; a packet ARP gave up waiting on; a
packet a routing agent's buffer of packets waiting for a route evicted when
full or dropped after waiting too long, together because ns-2's DSR traces
both as ``TOUT``, and ns-2.35's AODV and AOMDV trace the second not at all:
:func:`_vanished` counts those)."""


_UDP_IP_HEADER_BYTES = 28
"""UDP (8) and IP (20) headers, which manetsim counts in a UDP packet's size."""


def _ip_field(tokens: list[str]) -> int | None:
    for i in range(8, len(tokens)):
        if tokens[i].startswith("[") and ":" in tokens[i]:
            return i
    return None


def _seq(kind: str, tokens: list[str], ip: int) -> int | None:
    """A TCP segment's number (`[seq ack]`), or an SCTP packet's TSN (`[1 D
    TSN stream SSN]`; a bundle's last chunk's)."""
    try:
        if kind == "sctp":
            return int(tokens[ip + 6])
        return int(tokens[ip + 4].lstrip("["))
    except (IndexError, ValueError):
        return None


# -- cross-check ---------------------------------------------------------------------

METRICS = ("throughput_kbps", "delay_ms", "jitter_ms", "loss_pct", "retransmissions")


@dataclass
class Side:
    """One simulator's per-seed figures and times."""

    per_seed: list[dict[str, float]] = field(default_factory=list)
    wall_s: list[float] = field(default_factory=list)
    core_s: list[float] = field(default_factory=list)
    #: CPU time (user + system) of each seed's process alone: runs side by
    #: side (``jobs`` > 1) do not add their waits for a core to it, as they
    #: do to wall times. NaN where the platform cannot tell one child's from
    #: another's.
    cpu_s: list[float] = field(default_factory=list)
    #: Seeds left out of both sides, each with why: ns-2.35 crashed on it.
    left_out: list[tuple[int, str]] = field(default_factory=list)


class Ns2CrashError(RuntimeError):
    """ns-2 died of a signal (a crash inside ns-2.35) on one seed, or hung
    (its trace stopped growing for ``ns_stall_s``) and was stopped."""

    def __init__(self, seed: int, message: str) -> None:
        super().__init__(message)
        self.seed = seed


def signal_name(returncode: int) -> str:
    """The signal a negative exit status names (``-11``: ``SIGSEGV``)."""
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"


@dataclass
class _Finished:
    """A process that ran to its end: what it printed and what it took."""

    returncode: int
    stdout: str
    stderr: str
    wall_s: float
    cpu_s: float
    #: Stopped by the watchdog: the watched file stopped growing.
    stalled: bool = False


#: How long ns-2 may run without its trace growing before
#: :func:`crosscheck` takes it for hung (ns-2.35's DSDV can loop for ever).
NS_STALL_S = 300.0


def _last_trace_time(trace: Path) -> str:
    """The time on the last whole line of an ns-2 trace, or "0"."""
    try:
        with trace.open("rb") as f:
            f.seek(max(0, trace.stat().st_size - 4096))
            lines = f.read().decode("utf-8", errors="replace").splitlines()
    except OSError:
        return "0"
    for line in reversed(lines[1:] if len(lines) > 1 else lines):
        fields = line.split()
        if len(fields) > 1:
            return fields[1]
    return "0"


#: The file in the run's folder that :func:`_run_timed` sends the process's
#: standard output to, while it runs (a watchdog may watch it grow).
RUN_STDOUT = ".manetsim-stdout"


def with_clock(tcl: str, step_s: float) -> str:
    """``tcl``, an exported script, printing ns-2's clock to its standard
    output every ``step_s`` seconds of simulated time (one line, flushed).

    A script with its traces off writes nothing while it runs; with the
    clock a watchdog can tell a run that is slow from one that is stuck
    (ns-2.35's DSDV can loop for ever at one instant). One event per
    ``step_s``: a few hundred in a reference scenario, beside ns-2's
    millions.
    """
    if not step_s > 0:
        raise ValueError(f"step_s: expected seconds > 0, got {step_s!r}")
    head, sep, tail = tcl.rpartition("\n$ns_ run\n")
    if not sep:
        raise ValueError("not an exported script: no '$ns_ run' line")
    clock = [
        "",
        "# The clock, for the watchdog of `manetsim bench` (one line per step).",
        "proc manetsim_clock {step} {",
        "    global ns_",
        '    puts stdout "manetsim-clock [$ns_ now]"',
        "    flush stdout",
        '    $ns_ at [expr [$ns_ now] + $step] "manetsim_clock $step"',
        "}",
        f'$ns_ at 0.0 "manetsim_clock {_tcl_number(step_s)}"',
    ]
    return head + "\n".join(clock) + sep + tail


def last_clock(stdout: str) -> str:
    """The last time a script :func:`with_clock` printed, or "0"."""
    for line in reversed(stdout.splitlines()):
        if line.startswith("manetsim-clock "):
            return line.split()[1]
    return "0"


def _clock_lines(file: Path) -> int:
    """How many clock lines (:func:`with_clock`) ``file`` holds so far."""
    try:
        return file.read_bytes().count(b"manetsim-clock ")
    except OSError:
        return 0


#: A clock that moved is allowed this many times its slowest step so far
#: before the next (a large scenario's steps can outlast ``NS_STALL_S``).
CLOCK_STEP_SLACK = 10.0


def _run_timed(
    command: list[str],
    cwd: Path,
    timeout_s: float | None,
    watch: tuple[Path, float] | None = None,
    clock: bool = False,
) -> _Finished | None:
    """Runs ``command`` in ``cwd`` to its end and measures it: wall time, and
    the CPU time of that one process (``os.wait4``), which does not count
    its waits for a core while other runs share the machine (they still slow
    it a little, through the caches they share). Its output goes through
    files in ``cwd``. Returns None when it was stopped after ``timeout_s``
    seconds. With ``watch = (file, stall_s)``, a process that runs
    ``stall_s`` seconds while ``file`` does not grow is stopped, and its
    result says ``stalled``. With ``clock``, progress is the clock lines
    ``file`` gains (:func:`with_clock`), from the first one on, and a
    clock may also take :data:`CLOCK_STEP_SLACK` times its slowest step so
    far, or as long as the set-up took before its first line."""
    out_path, err_path = cwd / RUN_STDOUT, cwd / ".manetsim-stderr"
    with out_path.open("wb") as out, err_path.open("wb") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(command, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
    stopped = threading.Event()

    def stop() -> None:
        stopped.set()
        proc.kill()

    timer = None if timeout_s is None else threading.Timer(timeout_s, stop)
    if timer is not None:
        timer.start()
    stalled = threading.Event()
    finished = threading.Event()

    def watchdog(file: Path, stall_s: float) -> None:
        size, since = -1, time.monotonic()
        # With the clock: the slowest step so far, at first the set-up's
        # time (a scenario that sets up long may step long).
        slowest = 0.0
        while not finished.wait(min(5.0, stall_s / 4)):
            if clock:
                # Progress is the clock's lines, counted from the first: a
                # long set-up prints none, and is not a hang.
                now_size = _clock_lines(file)
                if now_size == 0:
                    slowest = (time.monotonic() - since) / CLOCK_STEP_SLACK
                    continue
            else:
                now_size = file.stat().st_size if file.exists() else 0
            now = time.monotonic()
            if now_size != size:
                if clock and size > 0:
                    slowest = max(slowest, (now - since) / (now_size - size))
                size, since = now_size, now
            elif now - since >= max(stall_s, CLOCK_STEP_SLACK * slowest):
                stalled.set()
                proc.kill()
                return

    dog = None if watch is None else threading.Thread(target=watchdog, args=watch, daemon=True)
    if dog is not None:
        dog.start()
    try:
        if hasattr(os, "wait4"):
            _, status, usage = os.wait4(proc.pid, 0)
            proc.returncode = os.waitstatus_to_exitcode(status)
            cpu_s = usage.ru_utime + usage.ru_stime
        else:  # pragma: no cover - not POSIX
            proc.wait()
            cpu_s = float("nan")
    finally:
        if timer is not None:
            timer.cancel()
        finished.set()
        if dog is not None:
            dog.join()
    wall_s = time.perf_counter() - start
    stdout = out_path.read_text(encoding="utf-8", errors="replace")
    stderr = err_path.read_text(encoding="utf-8", errors="replace")
    out_path.unlink()
    err_path.unlink()
    # Stopped: the timer fired and the process died of it (not one that
    # ended on its own as the timer fired).
    if stopped.is_set() and (proc.returncode < 0 or not hasattr(os, "wait4")):
        return None
    hung = stalled.is_set() and (proc.returncode < 0 or not hasattr(os, "wait4"))
    return _Finished(proc.returncode, stdout, stderr, wall_s, cpu_s, stalled=hung)


@dataclass
class _SeedRun:
    """One simulator's run of one seed."""

    figures: dict[str, float]
    wall_s: float
    cpu_s: float
    core_s: float = float("nan")


def crosscheck(
    scenario: ScenarioLike,
    seeds: Iterable[int],
    overrides: Overrides = None,
    ns_command: str = "ns",
    ns_timeout_s: float | None = None,
    keep_traces: Path | None = None,
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
    mac_trace: bool = False,
    ns_stall_s: float = NS_STALL_S,
) -> tuple[Side, Side]:
    """Runs manetsim and ns-2 on ``scenario`` for each seed.

    With ``keep_traces``, each seed's traces stay in ``keep_traces/seed-N``:
    ``ns2.tcl`` and ``ns2.tr`` (the script and ns-2.35's trace) and
    ``manetsim.tr`` (manetsim's, in the same format: ``[output]
    ns2_trace``), to compare hop by hop with one parser. manetsim's time then
    includes writing its trace, as ns-2's always does. ``mac_trace`` (with
    ``keep_traces`` only) turns ns-2.35's MAC trace on too, as manetsim's
    trace always has its MAC lines, and adds both traces' MAC lines, counted
    by :func:`mac_line_counts` (``mac.*``), to the figures.

    ``jobs`` seeds run side by side (each runs manetsim, then ns-2); the
    figures are the same as one at a time, in the order of ``seeds``. Wall
    times then include waiting for the machine; CPU times (``cpu_s``) do
    not, though runs side by side slow each other a little through shared
    caches. ``progress(done, total)``, if given, is called from the calling
    thread as each seed finishes (both simulators).

    Returns (manetsim, ns-2) figures per seed: for each flow ``i``,
    ``flowI.<metric>`` for the metrics in :data:`METRICS`, plus
    ``routing_packets``. Wall and CPU times are of whole processes on both
    sides (``manetsim run`` and ``ns``, each including its start-up);
    manetsim's core time is kept apart in ``core_s``. An ``ns`` run that
    takes longer than ``ns_timeout_s`` seconds is stopped and raises
    ``RuntimeError`` (ns-2.35 can crawl: see DSDV with MAC feedback in
    ``docs/fidelity.md``).

    A seed on which ns-2 crashes (dies of a signal, as ns-2.35's AODV can
    in ``aodv_rt_entry::pc_delete``) or hangs (runs ``ns_stall_s`` seconds
    without its trace growing, as ns-2.35's DSDV can, looping for ever in
    ``processUpdate``; it is then stopped) is left out of both sides and
    named in ``left_out`` of both; any other failure of either simulator
    raises ``RuntimeError``, as does a crash or hang on every seed.
    """
    if shutil.which(ns_command) is None:
        raise FileNotFoundError(missing_ns_message(ns_command))
    if jobs < 1:
        raise ValueError(f"jobs: expected at least 1, got {jobs}")
    if mac_trace and keep_traces is None:
        raise ValueError("mac_trace: only with keep_traces (the MAC lines are for reading)")
    check_ns_timeout(ns_timeout_s)
    check_ns_timeout(ns_stall_s)
    pairs = override_pairs(overrides)

    crashes: list[Ns2CrashError] = []

    def one(seed: int) -> tuple[_SeedRun, _SeedRun] | None:
        try:
            return _crosscheck_seed(
                scenario, pairs, seed, ns_command, ns_timeout_s, keep_traces, mac_trace, ns_stall_s
            )
        except Ns2CrashError as crash:
            crashes.append(crash)
            return None

    seeds = list(seeds)
    total = len(seeds)
    if jobs == 1:
        runs = []
        for seed in seeds:
            runs.append(one(seed))
            if progress is not None:
                progress(len(runs), total)
    else:
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            futures = [pool.submit(one, seed) for seed in seeds]
            try:
                for done, finished in enumerate(as_completed(futures), start=1):
                    if finished.exception() is not None:
                        for f in futures:
                            f.cancel()
                        break
                    if progress is not None:
                        progress(done, total)
                runs = [f.result() for f in futures]
            except BaseException:
                # The first failure, by seed, is the one reported; seeds not
                # started yet never start.
                for f in futures:
                    f.cancel()
                raise
    if all(run is None for run in runs):
        raise RuntimeError(str(min(crashes, key=lambda c: c.seed)))
    left_out = sorted((c.seed, str(c)) for c in crashes)
    ours, theirs = Side(left_out=list(left_out)), Side(left_out=list(left_out))
    for pair in runs:
        if pair is None:
            continue
        mine, ns2_run = pair
        for side, run in ((ours, mine), (theirs, ns2_run)):
            side.per_seed.append(run.figures)
            side.wall_s.append(run.wall_s)
            side.cpu_s.append(run.cpu_s)
        ours.core_s.append(mine.core_s)
    return ours, theirs


def _crosscheck_seed(
    scenario: ScenarioLike,
    pairs: list[tuple[str, str]],
    seed: int,
    ns_command: str,
    ns_timeout_s: float | None,
    keep_traces: Path | None,
    mac_trace: bool = False,
    ns_stall_s: float = NS_STALL_S,
) -> tuple[_SeedRun, _SeedRun]:
    """One seed of :func:`crosscheck`: manetsim, then ns-2."""
    script = export_tcl(scenario, pairs, seed, mac_trace=mac_trace)
    kept = None if keep_traces is None else Path(keep_traces) / f"seed-{seed}"
    if kept is not None:
        kept.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="manetsim-run-") as folder:
        # Time manetsim as a whole process too, like ns-2: same footing.
        scenario_file = Path(folder) / "scenario.toml"
        ours_pairs = pairs if kept is None else [*pairs, ("output.ns2_trace", "true")]
        scenario_file.write_text(resolved_toml(scenario, ours_pairs, seed), encoding="utf-8")
        command = [sys.executable, "-m", "manetsim.cli", "run", str(scenario_file), "--json"]
        done = _run_timed(command, Path(folder), None)
        if done is None:  # only a timeout stops a run, and this one has none
            raise RuntimeError(f"manetsim was stopped on seed {seed}")
        if done.returncode != 0:
            raise RuntimeError(f"manetsim failed on seed {seed}: {done.stderr.strip()}")
        result = json.loads(done.stdout)
        mine = _SeedRun(_manetsim_figures(result), done.wall_s, done.cpu_s, float(result["wall_s"]))
        if kept is not None:
            shutil.move(Path(folder) / f"{result['scenario']}.tr", kept / KEPT_MANETSIM_TRACE)
    with tempfile.TemporaryDirectory(prefix="manetsim-ns2-") as folder:
        tcl = Path(folder) / "run.tcl"
        tcl.write_text(script, encoding="utf-8")
        trace = Path(folder) / "trace.tr"
        done = _run_timed([ns_command, str(tcl)], Path(folder), ns_timeout_s, (trace, ns_stall_s))
        if done is None:
            raise RuntimeError(
                f"ns-2 did not finish seed {seed} within {ns_timeout_s:g} s "
                "(--ns-timeout-s); it was stopped"
            )
        lost = None
        if done.stalled:
            lost = (
                f"ns-2 hung on seed {seed}: its trace stopped at {_last_trace_time(trace)} s "
                f"and did not grow for {ns_stall_s:g} s (--ns-stall-s), so it was stopped"
            )
        elif done.returncode < 0:
            lost = (
                f"ns-2 crashed on seed {seed} ({signal_name(done.returncode)}); "
                f"the last it printed: {ns2_failure(done.stdout, done.stderr)}"
            )
        if lost is not None:
            # The script stays for a look at what ns-2 did with it.
            if kept is not None:
                shutil.move(tcl, kept / "ns2.tcl")
            raise Ns2CrashError(seed, lost)
        if done.returncode != 0 or "NS EXITING" not in done.stdout:
            why = ns2_failure(done.stdout, done.stderr)
            raise RuntimeError(f"ns-2 failed on seed {seed} (exit status {done.returncode}): {why}")
        stats = parse_trace(Path(folder) / "trace.tr")
        theirs = _SeedRun(_ns2_figures(stats, done.stdout), done.wall_s, done.cpu_s)
        if kept is not None:
            shutil.move(tcl, kept / "ns2.tcl")
            shutil.move(Path(folder) / "trace.tr", kept / KEPT_NS2_TRACE)
    if mac_trace and kept is not None:
        # Both traces have their MAC lines: count them side by side.
        mine.figures.update(mac_line_counts(kept / KEPT_MANETSIM_TRACE))
        theirs.figures.update(mac_line_counts(kept / KEPT_NS2_TRACE))
    return mine, theirs


#: What ns-2.35 prints on stderr at every start, failed or not.
_NS2_NOISE = frozenset({"INITIALIZE THE LIST xListHead"})


KEPT_MANETSIM_TRACE = "manetsim.tr"
"""manetsim's trace in a kept seed's folder (``crosscheck --keep-traces``)."""
KEPT_NS2_TRACE = "ns2.tr"
"""ns-2.35's trace in a kept seed's folder."""


def kept_traces(seed_dir: Path) -> tuple[Path, Path]:
    """manetsim's and ns-2.35's traces that ``crosscheck(keep_traces=DIR)``
    left in ``seed_dir`` (``DIR/seed-N``).

    Raises :class:`FileNotFoundError` naming every one that is not there.
    """
    traces = (seed_dir / KEPT_MANETSIM_TRACE, seed_dir / KEPT_NS2_TRACE)
    missing = [str(p) for p in traces if not p.is_file()]
    if missing:
        raise FileNotFoundError(f"no trace at {', '.join(missing)}")
    return traces


def kept_seeds(paths: Iterable[Path]) -> list[tuple[Path, tuple[Path, Path]]]:
    """The seed folders ``crosscheck(keep_traces=DIR)`` left among
    ``paths``, each with its two traces (:func:`kept_traces`): a path is a
    seed folder (``DIR/seed-N``, holding a trace) or a folder holding them
    (taken in name order).

    Raises :class:`FileNotFoundError` naming the paths when they hold no
    seed folder, or naming the traces a seed folder lacks.
    """
    paths = list(paths)
    dirs: list[Path] = []
    for p in paths:
        if (p / KEPT_MANETSIM_TRACE).exists() or (p / KEPT_NS2_TRACE).exists():
            dirs.append(p)
        else:
            dirs.extend(sorted(d for d in p.glob("seed-*") if d.is_dir()))
    if not dirs:
        raise FileNotFoundError(f"no seed folder in {', '.join(map(str, paths))}")
    return [(d, kept_traces(d)) for d in dirs]


def kept_seeds_from_argv(
    prog: str, description: str, argv: list[str] | None
) -> list[tuple[Path, tuple[Path, Path]]] | None:
    """For a script that reads a crosscheck's kept traces: its arguments
    (``argv``, or the command line's), seed folders or the folders holding
    them, parsed as ``prog``, and their :func:`kept_seeds`; ``None`` after
    saying on stderr why there are none.
    """
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("dirs", nargs="+", type=Path, help="seed folders, or their parent")
    args = parser.parse_args(argv)
    try:
        return kept_seeds(args.dirs)
    except FileNotFoundError as e:
        print(f"{prog}: no kept traces: {e}", file=sys.stderr)
        return None


def ns2_failure(stdout: str, stderr: str) -> str:
    """What a failed ns-2 run said, in one line.

    An error in a command the script scheduled (``$ns_ at ...``) stops ns-2
    with a line ``ns: <command>: <message>`` on stdout, its Tcl traceback
    after it; an error while the script is read goes to stderr: the message
    first, then the traceback, ending with the file and line. ns-2 also
    writes a line of its own to stderr at every start, which says nothing.
    """
    for line in stdout.splitlines():
        if line.startswith("ns: "):
            return line.strip()
    said = [line.strip() for line in stderr.splitlines() if line.strip()]
    said = [line for line in said if line not in _NS2_NOISE]
    if said:
        return said[0] if len(said) == 1 else f"{said[0]} | {said[-1]}"
    tail = [line.strip() for line in stdout.splitlines() if line.strip()][-3:]
    return " | ".join(tail) if tail else "it printed nothing"


#: The MAC lines :func:`mac_line_counts` counts, by (event, reason, frame):
#: ``None`` as the frame stands for every data frame (any packet type).
MAC_LINES: dict[str, tuple[str, str, str | None]] = {
    "mac.rts_sent": ("s", "---", "RTS"),
    "mac.rts_received": ("r", "---", "RTS"),
    "mac.cts_received": ("r", "---", "CTS"),
    "mac.ack_received": ("r", "---", "ACK"),
    "mac.collided.rts": ("D", "COL", "RTS"),
    "mac.collided.cts": ("D", "COL", "CTS"),
    "mac.collided.ack": ("D", "COL", "ACK"),
    "mac.collided.data": ("D", "COL", None),
    "mac.busy": ("D", "BSY", "RTS"),
    "mac.duplicate": ("D", "DUP", None),
    "mac.gave_up.rts": ("D", "RET", "RTS"),
    "mac.gave_up.data": ("D", "RET", None),
}


def mac_line_counts(path: str | Path) -> dict[str, float]:
    """Counts an ns-2 trace's MAC lines (ns-2.35's with ``-macTrace ON``, or
    manetsim's, which always has them) as :data:`MAC_LINES` names them:
    RTS sent; RTS, CTS and ACK accepted (``r``, ns-2.35's ``mac_log``);
    frames lost to collisions (``D … COL``) by kind, broadcast ones with the
    data; RTS too busy to answer (``BSY``); duplicates (``DUP``); frames
    given up on after their retries (``RET``)."""
    wanted = {spec: key for key, spec in MAC_LINES.items()}
    counts = dict.fromkeys(MAC_LINES, 0.0)
    control = ("RTS", "CTS", "ACK")
    with Path(path).open(encoding="utf-8", errors="replace") as f:
        for line in f:
            if " MAC " not in line:
                continue
            t = line.split(maxsplit=7)
            if len(t) < 7 or t[3] != "MAC":
                continue
            kind = t[6] if t[6] in control else None
            key = wanted.get((t[0], t[4], kind))
            if key is not None:
                counts[key] += 1
    return counts


def _manetsim_figures(result: Mapping[str, Any]) -> dict[str, float]:
    out: dict[str, float] = {"routing_packets": float(result["routing"]["packets_sent"])}
    for message, count in result["routing"]["by_message"].items():
        key = f"routing.{ROUTING_MESSAGES.get(message, message)}"
        out[key] = out.get(key, 0.0) + float(count["packets"])
        if "forwarded" in count:  # results from before it was counted lack it
            relayed = f"{key}.forwarded"
            out[relayed] = out.get(relayed, 0.0) + float(count["forwarded"])
    for name, (reasons, _) in DROPS.items():
        out[f"drops.{name}"] = float(sum(result["drops"].get(r, 0) for r in reasons))
    if result["routing"].get("protocol") == "dsr":
        for name, count in result["routing"].get("flow_state", {}).items():
            out[f"flow_state.{name}"] = float(count)
    # Without an energy model the result's lists are empty.
    consumed = (result.get("energy") or {}).get("consumed_j") or []
    if consumed:
        out["energy.consumed_j"] = math.fsum(consumed)
    flows = result["flows"]
    _add_totals(
        out,
        [(f["sent"], f["received"], f["delay_ms"] * f["received"], f["received"]) for f in flows],
    )
    for i, flow in enumerate(flows):
        for metric in METRICS:
            out[f"flow{i}.{metric}"] = float(flow[metric])
    return out


def _add_totals(out: dict[str, float], flows: list[tuple[int, int, float, int]]) -> None:
    """Adds the figures of every flow together: `flows.sent` and
    `flows.received` (packets, as each flow counts them), `flows.delivery_pct`
    (received of sent) and `flows.delay_ms`, the mean over every received
    packet of every flow. Each flow is (sent, received, the sum of its packets'
    delays in ms, how many packets were timed). With many flows, as in
    rwp1000, these say more than any one flow does."""
    if not flows:
        return
    sent = sum(f[0] for f in flows)
    received = sum(f[1] for f in flows)
    out["flows.sent"] = float(sent)
    out["flows.received"] = float(received)
    out["flows.delivery_pct"] = 100.0 * received / sent if sent else float("nan")
    timed = sum(f[3] for f in flows)
    out["flows.delay_ms"] = sum(f[2] for f in flows if f[3]) / timed if timed else float("nan")


def _ns2_figures(stats: TraceStats, stdout: str) -> dict[str, float]:
    out: dict[str, float] = {"routing_packets": float(stats.routing_packets)}
    for message, count in stats.routing_by_message.items():
        out[f"routing.{message}"] = float(count)
    for message, relayed in stats.routing_forwarded_by_message.items():
        out[f"routing.{message}.forwarded"] = relayed
    for name, (_, ns2_reasons) in DROPS.items():
        out[f"drops.{name}"] = float(sum(stats.drops.get(r, 0) for r in ns2_reasons))
    for name, count in stats.flow_state.items():
        out[f"flow_state.{name}"] = float(count)
    flows = []
    consumed_j: list[float] = []
    for line in stdout.splitlines():
        if line.startswith("manetsim-flow "):
            _, index, addr, port = line.split()
            flows.append((index, stats.flows.get((int(addr), int(port)), FlowStats())))
        elif line.startswith("manetsim-energy "):
            _, _, initial, left = line.split()
            consumed_j.append(float(initial) - float(left))
    if consumed_j:
        out["energy.consumed_j"] = math.fsum(consumed_j)
    _add_totals(
        out, [(f.sent, f.received, 1000 * math.fsum(f.delays_s), len(f.delays_s)) for _, f in flows]
    )
    for index, flow in flows:
        for metric in METRICS:
            out[f"flow{index}.{metric}"] = float(getattr(flow, metric))
    return out


def summarize_sides(ours: Side, theirs: Side) -> list[tuple[str, float, float, float]]:
    """(metric, manetsim mean, ns-2 mean, ratio) for every metric manetsim
    reports; ns-2's is NaN where its trace does not tell. A count of routing
    messages or drops that a seed lacks is 0 there."""
    keys: dict[str, None] = {}
    for seed in ours.per_seed:
        keys.update(dict.fromkeys(seed))
    rows = []
    for key in keys:
        a = _mean(seed_values(ours, key))
        b = _mean(seed_values(theirs, key))
        ratio = a / b if b and not math.isnan(b) else float("nan")
        rows.append((key, a, b, ratio))
    return rows


def seed_values(side: Side, key: str) -> list[float]:
    """One metric of one simulator, seed by seed: NaN where a seed's run
    does not tell it, 0 for a count of routing messages or drops it lacks."""
    counts = ("routing.", "drops.", "flow_state.", "mac.")
    missing = 0.0 if key.startswith(counts) else float("nan")
    return [s.get(key, missing) for s in side.per_seed]


def intervals(ours: Side, theirs: Side, key: str) -> tuple[float, float, bool | None]:
    """Across seeds: the half-widths of manetsim's and ns-2's 95 %
    confidence intervals of ``key`` (Student's t), and whether the two
    intervals overlap (issue 8's test for mobile scenarios). NaN and None
    with fewer than two seeds."""
    ma, ha, _ = mean_ci(seed_values(ours, key))
    mb, hb, _ = mean_ci(seed_values(theirs, key))
    return ha, hb, intervals_overlap((ma, ha), (mb, hb))


def overlap_tally(ours: Side, theirs: Side, keys: Iterable[str]) -> tuple[int, list[str]]:
    """Of ``keys``, how many metrics both simulators' 95 % intervals tell
    (:func:`intervals`: two seeds or more, a value on each side), and those
    of them whose intervals do not overlap, in ``keys``' order."""
    told, apart = 0, []
    for key in keys:
        overlap = intervals(ours, theirs, key)[2]
        if overlap is None:
            continue
        told += 1
        if not overlap:
            apart.append(key)
    return told, apart


def overlap_line(told: int, apart: list[str]) -> str:
    """:func:`overlap_tally`'s count in words, for a report."""
    line = f"95 % intervals overlap for {told - len(apart)} of {told} metrics"
    return line + (f"; apart: {', '.join(apart)}" if apart else "")


def compared_seeds(seeds: int, first: int, left_out: list[tuple[int, str]]) -> list[int]:
    """The seeds a cross-check of ``seeds`` seeds from ``first`` compared, in
    the order of its sides' ``per_seed``: those not left out."""
    dropped = {seed for seed, _ in left_out}
    return [s for s in range(first, first + seeds) if s not in dropped]


def divergent_seeds(
    ours: Side, theirs: Side, seeds: list[int], factor: float = 2.0
) -> list[tuple[int, float, float]]:
    """(seed, manetsim's, ns-2.35's) packets received by all flows
    (``flows.received``) on each seed where one simulator received less than
    ``1/factor`` of the other's: a seed the means can hide (ns-2.35's SCTP
    stuck for good on a full window, a flow's route never found), to look at
    with ``--keep-traces``."""
    out = []
    for seed, a_fig, b_fig in zip(seeds, ours.per_seed, theirs.per_seed, strict=True):
        a, b = a_fig.get("flows.received"), b_fig.get("flows.received")
        if a is None or b is None or math.isnan(a) or math.isnan(b):
            continue
        if max(a, b) > 0 and min(a, b) * factor < max(a, b):
            out.append((seed, a, b))
    return out


def divergent_line(seed: int, ours: float, theirs: float) -> str:
    """:func:`divergent_seeds`'s finding in words, for a report."""
    return (
        f"seed {seed}: manetsim's flows received {ours:,.0f} packets, ns-2.35's "
        f"{theirs:,.0f}, under half the other's; --keep-traces DIR keeps both traces"
    )


def is_per_flow_metric(key: str) -> bool:
    """Whether a cross-check metric is one flow's (``flow3.delay_ms``), not all
    flows' together (``flows.delay_ms``) or a count."""
    head = key.split(".", 1)[0]
    return head.startswith("flow") and head[4:].isdigit()


def _json_number(value: float) -> float | None:
    return None if math.isnan(value) or math.isinf(value) else value


def first_seed(scenario: ScenarioLike, overrides: Overrides = None) -> int:
    """The scenario's ``seed`` after ``overrides``: the first a cross-check runs."""
    return int(load_config(scenario, overrides, None)["seed"])


def crosscheck_json(
    scenario: ScenarioLike,
    seeds: int,
    ours: Side,
    theirs: Side,
    rows: list[tuple[str, float, float, float]],
    notes: list[str],
    first: int = 1,
) -> dict[str, Any]:
    """The cross-check as one JSON-ready object: each simulator's per-seed
    figures and process times (``seeds`` seeds from ``first``, less those
    ``left_out``, which are listed with why), the ``rows`` of
    :func:`summarize_sides` (means and ratio) with each side's 95 %
    confidence half-width across seeds and whether the intervals overlap
    (:func:`intervals`; ``None`` with one seed), and the notes. NaN and
    infinite values become ``None``, so that the output is strict JSON."""
    keep = {row[0] for row in rows}

    def side(s: Side) -> dict[str, Any]:
        return {
            "per_seed": [
                {k: _json_number(v) for k, v in seed.items() if k in keep} for seed in s.per_seed
            ],
            "wall_s": [_json_number(v) for v in s.wall_s],
            "cpu_s": [_json_number(v) for v in s.cpu_s],
        }

    manetsim_side = side(ours)
    manetsim_side["core_s"] = [_json_number(v) for v in ours.core_s]
    compared = compared_seeds(seeds, first, ours.left_out)
    return {
        "scenario": str(scenario) if isinstance(scenario, (str, os.PathLike)) else None,
        "seeds": compared,
        "left_out": [{"seed": seed, "why": why} for seed, why in ours.left_out],
        "divergent": [
            {"seed": seed, "manetsim_received": a, "ns2_received": b}
            for seed, a, b in divergent_seeds(ours, theirs, compared)
        ],
        "manetsim": manetsim_side,
        "ns2": side(theirs),
        "summary": [
            {
                "metric": metric,
                "manetsim": _json_number(a),
                "ns2": _json_number(b),
                "ratio": _json_number(ratio),
                "manetsim_ci95": _json_number(ci[0]),
                "ns2_ci95": _json_number(ci[1]),
                "overlap": ci[2],
            }
            for metric, a, b, ratio in rows
            for ci in [intervals(ours, theirs, metric)]
        ],
        "notes": notes,
    }


def _mean(values: list[float]) -> float:
    clean = [v for v in values if not math.isnan(v)]
    return statistics.fmean(clean) if clean else float("nan")


def version_line() -> str:
    """manetsim's version, for reports."""
    return json.dumps({"manetsim": _core.__version__})
