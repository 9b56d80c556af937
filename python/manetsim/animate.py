"""A run as one self-contained HTML animation (``manetsim animate``).

The page shows the nodes moving as the run moved them, the links between
nodes in receive range, every frame put on the air (a disc of the receive
range around its sender, coloured by what it carries), every drop, and each
flow's packets delivered so far; it plays, pauses, seeks and changes speed.
It needs no network and no server: the data and the script are inside the
file.

Where the data comes from:

- positions: the scenario's movements as an ns-2 movement file
  (:func:`manetsim.movements_ns2`, which moves nodes exactly as the run
  does), turned into straight legs here;
- frames, drops and deliveries: the run's ns-2 trace (``[output]
  ns2_trace``), written to a temporary folder and read here: ``s … MAC``
  lines, the ``D`` lines of packets dropped (not the MAC's discards of
  frames), and ``r … AGT`` lines of the flows' packets;
- the ranges: the radio model's receive and carrier-sense ranges.
"""

from __future__ import annotations

import json
import math
import re
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from manetsim import _core
from manetsim.run import (
    Overrides,
    ScenarioLike,
    movements_ns2,
    override_pairs,
    resolved_toml,
    scenario_text,
)
from manetsim.run import run as run_scenario

if TYPE_CHECKING:
    from collections.abc import Iterable

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.9 and 3.10
    import tomli as tomllib

TEMPLATE = Path(__file__).with_name("animate.html")

#: What a frame carries, as the page colours it.
KINDS = ("data", "routing", "mac", "arp")
_KIND_OF_TYPE = {
    "tcp": 0,
    "ack": 0,
    "cbr": 0,
    "exp": 0,
    "pareto": 0,
    "tcpFriend": 0,
    "tcpFriendCtl": 0,
    "sctp": 0,
    "AODV": 1,
    "AOMDV": 1,
    "DSR": 1,
    "message": 1,
    "OLSR": 1,
    "RTS": 2,
    "CTS": 2,
    "ACK": 2,
    "MAC": 2,
    "ARP": 3,
}
#: Data packets at a flow's sink (a TCP sender's `r … AGT … ack` lines are
#: its ACKs coming back, and TFRC's `tcpFriendCtl` its feedback: not
#: deliveries). Every SCTP packet is `sctp`; a DATA chunk's tail is
#: `[1 D TSN 0 SSN]`, as ns-2 writes it. On-off sources' UDP packets are
#: `exp` or `pareto`, after ns-2's traffic generators.
_DELIVERED_TYPES = {"tcp", "cbr", "exp", "pareto", "tcpFriend"}
#: The trace's codes for packets dropped (the result's `drops`), and a
#: full interface queue's `D … IFQ  ---` (ns-2.35's `PriQueue` gives no
#: code; DSR's queue writes `IFQ`). The MAC's discards of frames (`COL`,
#: `BSY`, `STA`, `DUP`) and its `RET` lines (the routing agent may still
#: save the packet; if not, its `CBK` line is the drop) are not drops of
#: packets, nor is `END`: a packet still queued when the run ends.
PACKET_DROPS = {"IFQ", "ARP", "CBK", "NRTE", "HELO", "TTL", "TOUT", "ERR", "EGY"}

_SET = re.compile(r"^\$node_\((\d+)\) set ([XY])_ (\S+)$")
_SETDEST = re.compile(r'^\$ns_ at (\S+) "\$node_\((\d+)\) setdest (\S+) (\S+) (\S+)"$')


def _packet_drop(t: list[str]) -> bool:
    """Whether a drop line is a drop of the result's (:data:`PACKET_DROPS`)."""
    if t[3] == "IFQ" and t[4] == "---":
        return True
    return t[4] in PACKET_DROPS and not _expired_request(t)


def _expired_request(t: list[str]) -> bool:
    """Whether a drop line is a broadcast request whose TTL ran out at a
    receiver (`D … RTR TTL` with IP destination -1, as ns-2.35's AODV and
    AOMDV write it): its broadcast was counted once, as sent, and the copy
    is no drop of the result's."""
    if t[4] != "TTL" or "-------" not in t:
        return False
    ip = t.index("-------") + 2
    return ip < len(t) and t[ip].startswith("-1:")


class AnimationError(ValueError):
    """A movement file or trace this module cannot read."""


@dataclass
class Track:
    """One node's motion: where it starts, and its legs ``(t0, x0, y0, t1, x1,
    y1)``, in time order; between legs and after the last it stands still."""

    x: float = 0.0
    y: float = 0.0
    legs: list[tuple[float, float, float, float, float, float]] = field(default_factory=list)

    def position(self, t: float) -> tuple[float, float]:
        """Where the node is at ``t`` seconds."""
        x, y = self.x, self.y
        for t0, x0, y0, t1, x1, y1 in self.legs:
            if t < t0:
                break
            if t >= t1:
                x, y = x1, y1
            else:
                f = (t - t0) / (t1 - t0)
                return x0 + f * (x1 - x0), y0 + f * (y1 - y0)
        return x, y


def tracks(movements: str, nodes: int) -> list[Track]:
    """Each node's motion from an ns-2 movement file, as ns-2 moves it.

    ``setdest x y v`` at ``t`` sends the node from wherever it is at ``t``
    towards ``(x, y)`` at ``v`` m/s; it stops there, or turns when the next
    ``setdest`` comes first.
    """
    out = [Track() for _ in range(nodes)]
    for number, line in enumerate(movements.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            if m := _SET.match(line):
                node, axis, value = int(m[1]), m[2], float(m[3])
                track = _track(out, node, number)
                if axis == "X":
                    track.x = value
                else:
                    track.y = value
                continue
            if m := _SETDEST.match(line):
                t, node = float(m[1]), int(m[2])
                x, y, speed = float(m[3]), float(m[4]), float(m[5])
                _head(_track(out, node, number), t, x, y, speed)
                continue
        except ValueError as err:
            raise AnimationError(f"movement line {number}: {err}: {line!r}") from None
        if "set Z_" in line:
            continue
        raise AnimationError(f"movement line {number}: not a position or setdest: {line!r}")
    return out


def _track(tracks_: list[Track], node: int, number: int) -> Track:
    if not 0 <= node < len(tracks_):
        raise AnimationError(f"movement line {number}: node {node} does not exist")
    return tracks_[node]


def _at_last_leg(track: Track, t: float) -> tuple[float, float]:
    """Where the node is at ``t``, no earlier than its last leg's start (the
    movement lines come in time order)."""
    if not track.legs:
        return track.x, track.y
    t0, x0, y0, t1, x1, y1 = track.legs[-1]
    if t >= t1:
        return x1, y1
    if t <= t0:
        return x0, y0
    f = (t - t0) / (t1 - t0)
    return x0 + f * (x1 - x0), y0 + f * (y1 - y0)


def _head(track: Track, t: float, x: float, y: float, speed: float) -> None:
    """``setdest x y speed`` at ``t``: the leg in progress ends where the node
    is, and a new one starts."""
    here = _at_last_leg(track, t)
    if track.legs and track.legs[-1][3] > t:
        t0, x0, y0, _, _, _ = track.legs[-1]
        track.legs[-1] = (t0, x0, y0, t, *here)
    distance = math.hypot(x - here[0], y - here[1])
    if speed <= 0 or distance == 0:
        track.legs.append((t, *here, t, *here))
        return
    track.legs.append((t, *here, t + distance / speed, x, y))


@dataclass
class TraceEvents:
    """What the page shows of a run's ns-2 trace."""

    #: Frames put on the air: time (µs), sender, kind (an index of KINDS).
    frames: tuple[list[int], list[int], list[int]] = field(default_factory=lambda: ([], [], []))
    #: Packets dropped (:data:`PACKET_DROPS`): time (µs), node.
    drops: tuple[list[int], list[int]] = field(default_factory=lambda: ([], []))
    #: Packets delivered to each flow's sink: per flow, the times (µs).
    delivered: dict[int, list[int]] = field(default_factory=dict)


#: The most frames a page holds (about 20 MB of it): a browser plays it
#: smoothly, and a larger one is better cut with ``--until-s``.
MAX_FRAMES = 2_000_000


def read_trace(
    lines: Iterable[str], until_s: float = math.inf, max_frames: int = MAX_FRAMES
) -> TraceEvents:
    """The frames, drops and deliveries of an ns-2 trace, up to ``until_s``.

    Raises :class:`AnimationError` past ``max_frames`` frames.
    """
    events = TraceEvents()
    ft, fn, fk = events.frames
    dt, dn = events.drops
    for number, line in enumerate(lines, 1):
        t = line.split()
        if len(t) < 7 or t[0] not in ("s", "r", "D"):
            continue  # flow-state and other lines of the routing agents
        try:
            now = float(t[1])
            if now > until_s:
                break
            node = int(t[2].strip("_"))
        except ValueError:
            raise AnimationError(f"trace line {number}: {line.strip()!r}") from None
        us = round(now * 1e6)
        layer, kind = t[3], t[6]
        if t[0] == "s" and layer == "MAC":
            if len(ft) == max_frames:
                raise AnimationError(
                    f"the run puts more than {max_frames:,} frames on the air by {now:.3f} s, "
                    "too many for one page: show less with --until-s, or positions only "
                    "with --no-packets"
                )
            ft.append(us)
            fn.append(node)
            fk.append(_KIND_OF_TYPE.get(kind, 2))
        elif t[0] == "D" and _packet_drop(t):
            dt.append(us)
            dn.append(node)
        elif (
            t[0] == "r"
            and layer == "AGT"
            and (kind in _DELIVERED_TYPES or (kind == "sctp" and "D" in t[7:]))
        ):
            flow = _flow_of(t)
            if flow is not None:
                events.delivered.setdefault(flow, []).append(us)
    return events


def _flow_of(fields: list[str]) -> int | None:
    """The flow an agent line names: its IP header's source port."""
    for token in fields:
        if token.startswith("[") and ":" in token:
            port = token.split(":", 1)[1]
            return int(port) if port.isdigit() else None
    return None


def animation_data(
    scenario: ScenarioLike,
    overrides: Overrides = None,
    seed: int | None = None,
    until_s: float | None = None,
    packets: bool = True,
) -> dict[str, Any]:
    """Everything the page needs, as one JSON-ready dict."""
    pairs = override_pairs(overrides)
    config = tomllib.loads(resolved_toml(scenario, pairs, seed))
    nodes = int(config["nodes"]["count"])
    duration_s = float(config["duration_s"])
    end_s = duration_s if until_s is None else min(until_s, duration_s)
    text, source = scenario_text(scenario)
    with_seed = pairs if seed is None else [*pairs, ("seed", str(seed))]
    receive_m, sense_m = _core.radio_ranges(text, source, with_seed)
    moves = tracks(movements_ns2(scenario, pairs, seed), nodes)
    data: dict[str, Any] = {
        "name": config["name"],
        "seed": config["seed"],
        "routing": config["routing"]["protocol"],
        "duration_s": end_s,
        "area": [float(config["area"]["width_m"]), float(config["area"]["height_m"])],
        "receive_range_m": receive_m,
        "sense_range_m": sense_m,
        "nodes": [
            {"x": t.x, "y": t.y, "legs": [list(leg) for leg in t.legs if leg[0] <= end_s]}
            for t in moves
        ],
        "flows": [
            {"src": f["src"], "dst": f["dst"], "transport": f["transport"], "app": f["app"]}
            for f in config.get("flows", [])
        ],
        "kinds": list(KINDS),
        "packets": packets,
        "gateways": _gateways(config),
    }
    if packets:
        run_pairs = [*pairs, *_shortened(config, end_s)]
        data["run_s"] = end_s if len(run_pairs) > len(pairs) else duration_s
        with tempfile.TemporaryDirectory(prefix="manetsim-animate-") as folder:
            trace = Path(folder) / "run.tr"
            traced = [*run_pairs, ("output.ns2_trace", "true"), ("output.pcap", "false")]
            result = run_scenario(scenario, seed, traced, ns2_trace=trace)
            with trace.open(encoding="utf-8") as lines:
                events = read_trace(lines, end_s)
        data["frames"] = {"t_us": events.frames[0], "node": events.frames[1]}
        data["frames"]["kind"] = events.frames[2]
        data["drops"] = {"t_us": events.drops[0], "node": events.drops[1]}
        data["delivered_us"] = [events.delivered.get(i, []) for i in range(len(data["flows"]))]
        data["result"] = {
            "flows": [
                {k: f[k] for k in ("sent", "received", "throughput_kbps", "delay_ms")}
                for f in result.json["flows"]
            ],
            "frames_sent": result.json["mac"]["frames_sent"],
        }
    return data


def _gateways(config: dict[str, Any]) -> list[int]:
    """The scenario's gateway nodes (``[gateway] node``: one id or a list)."""
    gateway = config.get("gateway")
    if not gateway:
        return []
    node = gateway["node"]
    return [int(n) for n in node] if isinstance(node, list) else [int(node)]


def _shortened(config: dict[str, Any], end_s: float) -> list[tuple[str, str]]:
    """Overrides that end the run at ``end_s`` (each flow stopping by then), so
    that a page of the first ``end_s`` seconds does not wait for the rest; none
    when the run ends there anyway, or when a flow starts later (a run cannot
    hold a flow that starts at its end)."""
    flows = config.get("flows", [])
    if end_s >= float(config["duration_s"]) or any(float(f["start_s"]) >= end_s for f in flows):
        return []
    out = [("duration_s", repr(end_s))]
    for i, f in enumerate(flows):
        if float(f.get("stop_s", math.inf)) > end_s:
            out.append((f"flows.{i}.stop_s", repr(end_s)))
    return out


def page(data: dict[str, Any]) -> str:
    """The HTML page showing ``data``."""
    template = TEMPLATE.read_text(encoding="utf-8")
    # `</` would end the script element the data sits in.
    payload = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    marker = "/*MANETSIM_DATA*/null"
    if template.count(marker) != 1:
        raise AnimationError(f"{TEMPLATE}: the data marker is missing")
    return template.replace(marker, payload)


def animate(
    scenario: ScenarioLike,
    overrides: Overrides = None,
    seed: int | None = None,
    until_s: float | None = None,
    packets: bool = True,
) -> str:
    """The HTML page animating ``scenario``'s run (see the module's doc)."""
    return page(animation_data(scenario, overrides, seed, until_s, packets))
