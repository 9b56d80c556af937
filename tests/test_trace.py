"""ns-2 trace output (`[output] ns2_trace`): read back by the project's ns-2
trace parser, it gives the run's own figures."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

import manetsim
from manetsim import ns2

from helpers import EXAMPLES, MOBILE_TCP_UDP, REPO, TCP_UDP_CHAIN, cli, scenario

QUICKSTART = EXAMPLES / "quickstart.toml"

CHAIN = TCP_UDP_CHAIN


@pytest.mark.parametrize("routing", ["aodv", "aodv/ns2", "dsr", "dsdv", "aomdv", "aomdv/hello"])
def test_the_trace_parsed_as_ns2s_gives_the_results_figures(tmp_path: Path, routing: str):
    path = tmp_path / "run.tr"
    protocol, _, preset = routing.partition("/")
    overrides: dict[str, object] = {"routing.protocol": protocol}
    if preset == "hello":
        # ns-2.35's AOMDV finds links lost by missing HELLOs (its only way).
        overrides["routing.aomdv.link_detection"] = "hello"
    elif preset:
        overrides[f"routing.{protocol}.preset"] = preset
    if routing == "dsdv":
        # DSDV's tables take a while to span the chain; TCP backs off meanwhile.
        overrides["duration_s"] = 120.0
    if routing in ("aodv/ns2", "dsr"):
        # ns-2.35's one-way start: a SYN, counted by neither side.
        overrides["flows.0.tcp.start_rule"] = "ns2"
    result = manetsim.run(CHAIN, overrides=overrides, ns2_trace=path)
    stats = ns2.parse_trace(path)
    assert not list(tmp_path.glob(".*partial"))
    flows = result.json["flows"]
    assert set(stats.flows) == {(0, 0), (4, 1)}
    for i, flow in enumerate(flows):
        traced = stats.flows[(flow["src"], i)]
        assert (traced.sent, traced.received) == (flow["sent"], flow["received"]), routing
        assert flow["received"] > 0
        assert math.isclose(traced.throughput_kbps, flow["throughput_kbps"], rel_tol=1e-9)
        assert math.isclose(traced.delay_ms, flow["delay_ms"], rel_tol=1e-9)
        assert math.isclose(traced.jitter_ms, flow["jitter_ms"], rel_tol=1e-9)
    assert stats.flows[(0, 0)].retransmissions == flows[0]["retransmissions"]
    routing_json = result.json["routing"]
    assert stats.routing_packets == routing_json["packets_sent"] > 0
    folded: dict[str, int] = {}
    for message, figures in routing_json["by_message"].items():
        name = ns2.ROUTING_MESSAGES.get(message, message)
        folded[name] = folded.get(name, 0) + figures["packets"]
    if routing != "dsdv" or stats.routing_by_message:
        assert stats.routing_by_message == folded
    # The packets relayed for another node, where ns-2's trace tells them.
    # With the RFC preset manetsim's AODV passes a RREP on with its own IP
    # source, as a new packet (RFC 3561 leaves it open), so its trace reads
    # `s`, not `f`, on those lines; the ns2 preset keeps the source of the
    # node that answered, as ns-2.35 does.
    relayed: dict[str, int] = {}
    for message, figures in routing_json["by_message"].items():
        name = ns2.ROUTING_MESSAGES.get(message, message)
        relayed[name] = relayed.get(name, 0) + figures["forwarded"]
    # AODV's RFC preset, and AOMDV finding links broken by the MAC, also take
    # a failed packet back rather than dropping it, so an error they
    # originate need not share its instant with a drop (or a HELLO tick),
    # which is how the parser tells ns-2.35's originated errors.
    told = {
        m: n
        for m, n in stats.routing_forwarded_by_message.items()
        if not math.isnan(n)
        and not (routing == "aodv" and m in ("rrep", "rerr"))
        and not (routing == "aomdv" and m == "rerr")
    }
    assert told == {m: relayed[m] for m in told}, routing
    if protocol in ("aodv", "dsr", "aomdv"):
        assert told["rreq"] > 0
    if routing in ("aodv/ns2", "aomdv", "aomdv/hello"):
        assert told["rrep"] > 0


def test_dsr_flow_state_lines_in_the_trace_give_the_results_counts(tmp_path: Path):
    # With the ns2 preset, DSR writes ns-2.35's flow-state lines (`SFESTs`,
    # `SFs`, `SFf`, `SFErr`, `SFEr`); read as ns-2's, they give the result's
    # counts, relays that did not know a flow and flows opened included.
    path = tmp_path / "flows.tr"
    overrides = {
        "routing.protocol": "dsr",
        "routing.dsr.preset": "ns2",
        "duration_s": 150.0,
        "output.ns2_trace": True,
    }
    rwp50 = REPO / "python/manetsim/benchmarks/rwp50.toml"
    result = manetsim.run(rwp50, overrides=overrides, ns2_trace=path)
    del overrides["output.ns2_trace"]
    plain = manetsim.run(rwp50, overrides=overrides)
    for part in ("flows", "routing", "mac", "drops"):
        assert plain.json[part] == result.json[part], f"the trace changed {part}"
    counts = result.json["routing"]["flow_state"]
    assert all(counts[k] > 0 for k in ("established", "by_flow", "forwarded", "unknown", "opened"))
    assert ns2.parse_trace(path).flow_state == counts
    heard = [
        line for line in path.read_text(encoding="utf-8").splitlines() if line.startswith("SFEr ")
    ]
    # A source told of an unknown flow: `from relay re dst : id [count]`.
    assert heard
    assert all(line.split()[3] == "from" for line in heard)


@pytest.mark.parametrize("protocol", ["aodv", "dsr", "aomdv"])
def test_a_relayed_request_and_reply_keep_their_uid_from_hop_to_hop(tmp_path: Path, protocol: str):
    # ns-2.35 forwards the packet it received, so its trace follows one
    # route request, and one reply, by a single uid across the chain.
    path = tmp_path / "uids.tr"
    manetsim.run(CHAIN, overrides={"routing.protocol": protocol}, ns2_trace=path)
    hops: dict[tuple[str, str], set[str]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        t = line.split()
        if t[0] in "sf" and t[3] == "RTR" and t[6] in ("AODV", "AOMDV", "DSR"):
            # DSR's tail: `n [q id] [p id len src->dst] [e n tell from->to]`.
            request = "(REQUEST)" in t or (t[6] == "DSR" and t[-10] == "[1")
            reply = "(REPLY)" in t or (t[6] == "DSR" and t[-8] == "[1")
            if request or reply:
                key = ("request" if request else "reply", t[5])
                hops.setdefault(key, set()).add(t[2])
    # The first request from node 0 for node 5 crossed the chain, under
    # one uid; so did the reply that came back.
    widest = {
        kind: max(len(n) for (k, _), n in hops.items() if k == kind)
        for kind in ("request", "reply")
    }
    assert widest["request"] >= 4, (protocol, widest)
    assert widest["reply"] >= 4, (protocol, widest)


def _flooded_chain(path: Path, extra: dict[str, object]) -> tuple[manetsim.Result, ns2.TraceStats]:
    """The chain with 3-packet queues and a 600 kbit/s flow, traced to `path`."""
    overrides = {"mac.queue_packets": 3, "flows.1.rate_bps": 600000, **extra}
    result = manetsim.run(CHAIN, overrides=overrides, ns2_trace=path)
    return result, ns2.parse_trace(path)


def test_drops_are_traced_with_ns2s_codes(tmp_path: Path):
    result, stats = _flooded_chain(tmp_path / "drops.tr", {"mac.arp": "ns2"})
    drops = result.json["drops"]
    assert drops["queue_full"] > 0
    # ns-2.35's PriQueue (under AODV) drops with no code; DSR's CMUPriQueue
    # writes "IFQ".
    assert stats.drops.get("IFQ:---", 0) == drops["queue_full"]
    assert "IFQ:IFQ" not in stats.drops
    assert stats.drops.get("IFQ:ARP", 0) == drops["arp"]
    assert stats.drops.get("RTR:NRTE", 0) == drops["no_route"]
    over_dsr, dsr_stats = _flooded_chain(tmp_path / "dsr.tr", {"routing.protocol": "dsr"})
    assert over_dsr.json["drops"]["queue_full"] > 0
    assert dsr_stats.drops.get("IFQ:IFQ", 0) == over_dsr.json["drops"]["queue_full"]
    assert "IFQ:---" not in dsr_stats.drops


def test_aomdv_traces_a_lost_neighbours_queue_as_ns2s_hello_drops(tmp_path: Path):
    # With HELLO detection, what the queue held for a neighbour whose HELLOs
    # stopped, and that cannot go another way, is dropped as ns-2.35's
    # AOMDV `nb_delete` drops it: `D … RTR HELO`, with the lost neighbour as
    # next hop; the results count it as `no_route`, with the `NRTE` lines.
    path = tmp_path / "aomdv.tr"
    rwp50 = REPO / "python/manetsim/benchmarks/rwp50.toml"
    overrides = {
        "routing.protocol": "aomdv",
        "routing.aomdv.link_detection": "hello",
        "mac.arp": "ns2",
        "duration_s": 60.0,
        "output.ns2_trace": True,
    }
    result = manetsim.run(rwp50, overrides=overrides, ns2_trace=path)
    drops = ns2.parse_trace(path).drops
    assert drops.get("RTR:HELO", 0) > 20
    assert drops["RTR:HELO"] + drops.get("RTR:NRTE", 0) == result.json["drops"]["no_route"]
    arp_drops = 0
    for line in path.read_text(encoding="utf-8").splitlines():
        t = line.split()
        if t[0] == "D" and t[4] == "HELO":
            # `[duration next_hop node 800] ------- [src:port dst:port ttl next_hop]`
            next_hop = int(t[16].rstrip("]"))
            assert t[9] == f"{next_hop:x}", line
            assert t[10] == f"{int(t[2].strip('_')):x}", line
            # The duration is what a relayed packet arrived with (SIFS and
            # the ACK, 314 us), 0 on one the node made, as in ns-2.35.
            made_here = t[13].lstrip("[").split(":")[0] == t[2].strip("_")
            assert t[8] == ("[0" if made_here else "[13a"), line
        if t[0] == "D" and t[4] == "ARP" and t[6] == "cbr":
            # ARP gave up before resolving the next hop: ns-2.35's header
            # still has the receiver and duration a forwarded packet arrived
            # with (the node itself), 0 on one the node made; the node as
            # transmitter.
            node = f"{int(t[2].strip('_')):x}"
            made_here = t[13].lstrip("[").split(":")[0] == t[2].strip("_")
            assert (t[9], t[10]) == ("0" if made_here else node, node), line
            assert t[8] == ("[0" if made_here else "[13a"), line
            arp_drops += 1
    assert arp_drops > 10


def test_the_trace_lines_have_ns2s_fields(tmp_path: Path):
    path = tmp_path / "fields.tr"
    manetsim.run(QUICKSTART, overrides={"output.ns2_trace": True}, ns2_trace=path)
    lines = path.read_text(encoding="utf-8").splitlines()
    first = lines[0].split()
    # s 1.000000000 _0_ AGT --- 0 cbr 512 [0 0 0 0] ------- [0:0 5:0 32 0] [0] 0 0
    assert first[:8] == ["s", "1.000000000", "_0_", "AGT", "---", "0", "cbr", "512"]
    assert "[0:0" in first
    assert "5:0" in first
    layers = {line.split()[3] for line in lines}
    assert layers == {"AGT", "RTR", "MAC"}
    kinds = {line.split()[6] for line in lines if line.split()[3] == "MAC"}
    assert {"RTS", "CTS", "ACK", "cbr"} <= kinds
    times = [float(line.split()[1]) for line in lines]
    assert times == sorted(times)


def test_a_received_packets_lines_show_its_frames_mac_header(tmp_path: Path):
    # A received packet's `r` lines (MAC, routing and agent) show its frame's
    # MAC header as ns-2's do: the duration field as sent (an ACK's time and
    # SIFS for unicast data, 0 for a broadcast) and the receiver address,
    # `ffffffff` for a broadcast.
    path = tmp_path / "chain.tr"
    manetsim.run(CHAIN, ns2_trace=path)
    lines = path.read_text(encoding="utf-8").splitlines()
    sent: dict[tuple[str, str], str] = {}
    checked = {"unicast": 0, "broadcast": 0, "agent": 0}
    for line in lines:
        t = line.split()
        if t[3] not in ("MAC", "RTR", "AGT") or t[6] in ("RTS", "CTS", "ACK") or t[0] not in "sr":
            continue
        if t[3] != "MAC" and (t[0] == "s" or t[8:12] == ["[0", "0", "0", "0]"]):
            continue  # a send, or a packet its own agent handed down (no frame)
        checked["agent"] += t[3] == "AGT"
        header = " ".join(t[8:12])
        if t[0] == "s":
            sent[(t[5], t[10].rstrip("]"))] = header
        elif t[0] == "r":
            assert sent[(t[5], t[10].rstrip("]"))] == header, line
            checked["broadcast" if t[9] == "ffffffff" else "unicast"] += 1
            if t[9] != "ffffffff":
                assert t[8] == "[13a", line
    assert min(checked.values()) > 10, checked


@pytest.mark.parametrize("protocol", ["aodv", "dsr", "aomdv"])
def test_data_for_a_node_reaches_its_agent_as_in_ns2s_nodes(tmp_path: Path, protocol: str):
    # ns-2.35's DSR agent is its node's entry: data for the node has an
    # `r … RTR` line before its `r … AGT` line. AODV's, AOMDV's and DSDV's
    # nodes hand it from their address classifier to the agent: no RTR line.
    path = tmp_path / "chain.tr"
    manetsim.run(CHAIN, overrides={"routing.protocol": protocol}, ns2_trace=path)
    lines = [line.split() for line in path.read_text(encoding="utf-8").splitlines()]
    agent = {(t[2], t[5]) for t in lines if t[0] == "r" and t[3] == "AGT"}
    routed = {(t[2], t[5]) for t in lines if t[0] == "r" and t[3] == "RTR"}
    assert len(agent) > 100
    assert (agent <= routed) == (protocol == "dsr")
    assert bool(agent & routed) == (protocol == "dsr")


def test_each_accepted_rts_cts_and_ack_has_an_r_line_as_ns2s_mac_log(tmp_path: Path):
    # ns-2.35's MAC logs the RTS it answers, the CTS to its RTS and the ACK
    # of its DATA (`mac_log`), at the frame's end.
    path = tmp_path / "chain.tr"
    manetsim.run(CHAIN, ns2_trace=path)
    counts: dict[tuple[str, str], int] = {}
    rts_accepted: set[tuple[int, str]] = set()
    cts_sent: list[tuple[int, str]] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        t = line.split()
        if t[3] != "MAC" or t[6] not in ("RTS", "CTS", "ACK") or t[0] not in "sr":
            continue
        counts[(t[0], t[6])] = counts.get((t[0], t[6]), 0) + 1
        at_ns = round(float(t[1]) * 1e9)
        if t[0] == "r":
            # The frame names this node as its receiver (`[dur ra ta 0]`).
            assert int(t[9], 16) == int(t[2].strip("_")), line
            if t[6] == "RTS":
                rts_accepted.add((at_ns, t[2]))
        elif t[6] == "CTS":
            cts_sent.append((at_ns, t[2]))
    assert counts[("r", "RTS")] > 100
    # Each CTS goes SIFS (10 µs) after the RTS it answers; an accepted RTS
    # whose CTS the medium held back has no CTS.
    assert all((at_ns - 10_000, node) in rts_accepted for at_ns, node in cts_sent)
    assert counts[("s", "CTS")] < counts[("r", "RTS")]
    # Nearly every CTS and ACK reaches the node that waits for it.
    for kind in ("CTS", "ACK"):
        assert 0.95 * counts[("s", kind)] < counts[("r", kind)] <= counts[("s", kind)]


def test_each_packet_an_agent_sends_has_its_routing_agents_r_line(tmp_path: Path):
    # ns-2 writes `r … RTR` as a node's routing agent takes a packet from
    # its transport agent: the same fields as the `s … AGT` line just before.
    path = tmp_path / "chain.tr"
    manetsim.run(CHAIN, ns2_trace=path)
    lines = path.read_text(encoding="utf-8").splitlines()
    sent = [i for i, line in enumerate(lines) if line.startswith("s ") and " AGT " in line]
    assert len(sent) > 100
    for i in sent:
        assert lines[i + 1] == "r" + lines[i][1:].replace(" AGT ", " RTR ", 1), lines[i]


def test_a_one_way_syn_is_traced_as_ns2s_first_tcp_packet(tmp_path: Path):
    # ns-2.35's one-way agents (syn_ true): `tcp 40` with sequence number 0,
    # its ACK `[0 0]`, then data numbered from 1 and ACKs that follow them.
    path = tmp_path / "chain.tr"
    result = manetsim.run(CHAIN, overrides={"flows.0.tcp.start_rule": "ns2"}, ns2_trace=path)
    agt = [
        t
        for t in (line.split() for line in path.read_text(encoding="utf-8").splitlines())
        if t[3] == "AGT" and t[6] in ("tcp", "ack")
    ]
    seqs = [(t[0], t[2], t[6], int(t[7]), t[-4] + " " + t[-3]) for t in agt]
    assert seqs[:4] == [
        ("s", "_0_", "tcp", 40, "[0 0]"),
        ("r", "_5_", "tcp", 40, "[0 0]"),
        ("s", "_5_", "ack", 40, "[0 0]"),
        ("r", "_0_", "ack", 40, "[0 0]"),
    ]
    assert seqs[4] == ("s", "_0_", "tcp", 552, "[1 0]")
    assert seqs[5][4] == "[2 0]"
    first_ack = next(x for x in seqs[4:] if x[2] == "ack")
    assert first_ack[4] == "[1 0]"
    # The SYN is no data: the flow counts every data packet it sent (its
    # retransmissions too) and nothing else.
    flow = result.json["flows"][0]
    data_sent = [x[4] for x in seqs if x[0] == "s" and x[2] == "tcp"]
    assert flow["sent"] == len(data_sent) - 1
    assert flow["retransmissions"] == len(data_sent) - len(set(data_sent)) > 0


def test_frames_lost_to_collisions_have_col_lines_where_ns2s_mac_writes_them(tmp_path: Path):
    # ns-2.35's MAC writes `D … MAC COL` for a frame lost to a collision
    # only at its addressee (an RTS also at its sender), or for broadcast
    # data; one collision discards at most two frames.
    path = tmp_path / "chain.tr"
    result = manetsim.run(CHAIN, ns2_trace=path)
    per_node: dict[int, int] = {}
    kinds: set[str] = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        t = line.split()
        if t[0] != "D" or t[3] != "MAC" or t[4] != "COL":
            continue
        node = int(t[2].strip("_"))
        ra, ta = (int(x, 16) for x in (t[9], t[10].rstrip("]")))
        kinds.add(t[6])
        if t[6] == "RTS":
            assert node in (ra, ta), line
        elif t[6] in ("CTS", "ACK"):
            assert ra == node, line
        else:
            assert t[9] == "ffffffff" or node in (ra, ta), line
        per_node[node] = per_node.get(node, 0) + 1
    assert sum(per_node.values()) > 20
    assert "RTS" in kinds
    for n in result.json["nodes"]:
        assert per_node.get(n["id"], 0) <= 2 * n["mac_collisions"]


def test_cli_run_writes_the_trace_into_the_output_directory(tmp_path: Path):
    out = tmp_path / "out"
    proc = cli("run", QUICKSTART, "--set", "output.ns2_trace=true", "-o", out)
    assert proc.returncode == 0, proc.stderr
    assert (out / "trace.tr").stat().st_size > 0
    assert "trace.tr" in proc.stderr
    assert sorted(p.name for p in out.iterdir() if p.name.startswith(".")) == []


def test_cli_run_without_out_writes_name_tr_in_the_current_directory(tmp_path: Path):
    proc = cli(
        *("run", QUICKSTART, "--set", "output.ns2_trace=true", "--set", "duration_s=5"),
        *("--set", "flows.0.stop_s=5"),
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["quickstart.tr"]


def test_a_trace_that_cannot_be_written_is_a_clear_error(tmp_path: Path):
    missing = tmp_path / "no" / "such" / "dir" / "x.tr"
    with pytest.raises(manetsim.SimulationError, match=r"x\.tr"):
        manetsim.run(QUICKSTART, overrides={"output.ns2_trace": True}, ns2_trace=missing)


@pytest.mark.parametrize("frames", ["standard", "ns2"])
def test_a_tfrc_flows_trace_parsed_as_ns2s_gives_its_figures(tmp_path: Path, frames: str):
    # The sending agent's lines count TFRC's packets as ns-2.35's agent does
    # (payload + 32 bytes), which the parser turns back into manetsim's.
    scenario = {
        **CHAIN,
        "flows": [
            {
                "src": 0,
                "dst": 5,
                "transport": "tfrc",
                "app": "cbr",
                "start_s": 1.0,
                "packet_size_bytes": 1000,
                "rate_bps": 40000,
            }
        ],
        "mac": {"frames": frames},
    }
    path = tmp_path / "run.tr"
    result = manetsim.run(scenario, ns2_trace=path)
    flow = result.json["flows"][0]
    traced = ns2.parse_trace(path).flows[(0, 0)]
    assert flow["received"] > 0
    assert (traced.sent, traced.received) == (flow["sent"], flow["received"])
    assert math.isclose(traced.throughput_kbps, flow["throughput_kbps"], rel_tol=1e-9)
    sizes = {
        line.split()[7]
        for line in path.read_text().splitlines()
        if " AGT " in line and " tcpFriend " in line and line[0] == "s"
    }
    assert sizes == {"1032"}


@pytest.mark.parametrize("protocol", ["aodv", "dsr"])
def test_a_routing_agents_drop_shows_the_mac_header_the_packet_last_had(
    tmp_path: Path, protocol: str
):
    # As ns-2.35's packet keeps its header: `RTR CBK` (and `NRTE` of a
    # packet that found no other route) the header of the frame that failed,
    # from this node to the next hop the IP field names; `NRTE` and `TTL`
    # of a relayed packet the header it arrived with, to this node.
    path = tmp_path / "mobile.tr"
    moving = scenario(MOBILE_TCP_UDP, routing={"protocol": protocol}, output={"ns2_trace": True})
    manetsim.run(moving, ns2_trace=path)
    checked = {"failed": 0, "arrived": 0, "failed_nrte": 0}
    for line in path.read_text(encoding="utf-8").splitlines():
        t = line.split()
        if t[0] != "D" or t[3] != "RTR" or t[4] not in ("CBK", "NRTE", "TTL"):
            continue
        node = int(t[2].strip("_"))
        duration, ra, ta = t[8].lstrip("["), int(t[9], 16), int(t[10], 16)
        next_hop = int(t[16].rstrip("]"))
        if (duration, ra, ta) == ("0", 0, 0):
            assert t[4] != "CBK", line  # a CBK always has a frame
            continue
        if ra == 0xFFFFFFFF:
            # A request whose TTL ran out: the broadcast it arrived in.
            assert (t[4], next_hop) == ("TTL", 0), line
            assert ta != node, line
        elif ta == node:
            assert ra == next_hop, line
            checked["failed"] += 1
            checked["failed_nrte"] += t[4] == "NRTE"
        else:
            assert ra == node == next_hop, line
            checked["arrived"] += 1
    assert checked["failed"] > 0, checked
    if protocol == "aodv":
        # The RFC preset's failed packets that find no route after the break.
        assert checked["failed_nrte"] > 0, checked
