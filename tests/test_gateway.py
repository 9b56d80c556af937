"""An Internet gateway with wired hosts through the Python API and the
command line."""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

import manetsim
from manetsim import animate

from helpers import assert_clean_error, cli, tshark, write_toml

CHAIN = {
    "name": "gateway",
    "duration_s": 30.0,
    "nodes": {"count": 4, "placement": "chain", "spacing_m": 200.0},
    "routing": {"protocol": "aodv"},
    "gateway": {"node": 3, "rate_bps": 756000.0, "delay_s": 0.025},
    "flows": [
        {"src": 0, "dst": 4, "start_s": 1.0, "packet_size_bytes": 512, "interval_s": 0.25},
        {"src": 4, "dst": 1, "start_s": 1.0, "packet_size_bytes": 512, "interval_s": 0.25},
    ],
}


def test_flows_to_and_from_a_host_are_delivered(tmp_path: Path):
    result = manetsim.run(write_toml(tmp_path / "g.toml", CHAIN))
    flows = result.flows
    assert list(flows["dst"]) == [4, 1]
    assert (flows["received"] == flows["sent"]).all()
    # Three wireless hops to the gateway, two from it to node 1.
    assert list(flows["hops_mean"]) == [3.0, 2.0]
    # Only the MANET's nodes have node results.
    assert len(result.nodes) == 4


def test_what_cannot_carry_a_gateway_says_so(tmp_path: Path):
    scenario = write_toml(tmp_path / "g.toml", CHAIN)
    line = assert_clean_error(cli("export", "ns2", scenario, "-o", tmp_path / "x.tcl"))
    # ns-2.35's base stations forward only DSDV's packets to their wired hosts.
    assert "key `routing.protocol`" in line
    assert "only over DSDV" in line
    assert not (tmp_path / "x.tcl").exists()


def test_captures_cover_the_tunnel_and_the_hosts_link(tmp_path: Path):
    scenario = write_toml(tmp_path / "g.toml", CHAIN)
    proc = cli("run", scenario, "--set", "output.pcap=true", "-o", tmp_path / "out")
    assert proc.returncode == 0, proc.stderr
    # Four nodes' 802.11 captures, then the host's link as bare IP.
    names = sorted(p.name for p in (tmp_path / "out").glob("*.pcap"))
    assert names == [f"gateway-{n}.pcap" for n in range(5)]
    assert "gateway-0.pcap to" in proc.stderr
    assert "gateway-4.pcap" in proc.stderr
    host = (tmp_path / "out" / "gateway-4.pcap").read_bytes()
    assert struct.unpack_from("<I", host, 20) == (101,)
    result = manetsim.run(scenario)
    at_host = result.flows.iloc[0]["received"]
    if shutil.which("tshark") is None:
        return
    # Wireshark reads the tunnel on the air and the datagrams on the wire.
    gw = tmp_path / "out" / "gateway-3.pcap"
    tunnelled = tshark(
        gw, "-Y", "ip.proto == 4 && ip.dst == 0.0.0.3 && udp", "-T", "fields", "-e", "ip.dst"
    )
    assert tunnelled.split("\n")[0] == "0.0.0.3,0.0.0.4"
    assert not tshark(gw, "-Y", "_ws.expert.severity == error")
    wired = tshark(tmp_path / "out" / "gateway-4.pcap", "-Y", "ip.dst == 0.0.0.4 && udp")
    assert len(wired.splitlines()) == at_host


def test_the_animation_draws_the_manet_and_counts_deliveries_at_it(tmp_path: Path):
    scenario = write_toml(tmp_path / "g.toml", CHAIN)
    result = manetsim.run(scenario)
    data = animate.animation_data(scenario)
    # Deliveries at node 1 (from the host) are in the trace the page reads.
    assert len(data["delivered_us"][1]) == result.flows.iloc[1]["received"] > 0
    # The page marks the gateway.
    assert data["gateways"] == [3]
    page = tmp_path / "g.html"
    proc = cli("animate", scenario, "-o", page)
    assert proc.returncode == 0, proc.stderr
    assert "Internet gateways" in page.read_text(encoding="utf-8")


def test_two_gateways_each_serve_the_nodes_nearest_them(tmp_path: Path):
    two = {
        **CHAIN,
        "nodes": {"count": 6, "placement": "chain", "spacing_m": 200.0},
        "routing": {"protocol": "aodv", "aodv": {"preset": "aodv_uu"}},
        "gateway": {"node": [0, 5]},
        "flows": [
            {"src": 1, "dst": 6, "start_s": 1.0, "interval_s": 0.25},
            {"src": 4, "dst": 6, "start_s": 1.0, "interval_s": 0.25},
        ],
    }
    result = manetsim.run(write_toml(tmp_path / "two.toml", two))
    flows = result.flows
    assert (flows["received"] == flows["sent"]).all()
    # One wireless hop each: node 1 through gateway 0, node 4 through 5.
    assert list(flows["hops_mean"]) == [1.0, 1.0]
    # Each gateway's share, in the node table.
    to_hosts = result.nodes.set_index("id")["to_hosts"]
    assert [to_hosts[0], to_hosts[5], to_hosts[2]] == [*flows["received"], 0]
    assert animate.animation_data(tmp_path / "two.toml", packets=False)["gateways"] == [0, 5]
    # The run's report shows each gateway's share.
    proc = cli("run", tmp_path / "two.toml")
    assert proc.returncode == 0, proc.stderr
    assert "Gateways: node 0: 116 to hosts, 0 from; node 5: 116 to hosts, 0 from" in proc.stdout
    # A list with a node twice names the key.
    bad = write_toml(tmp_path / "bad.toml", {**two, "gateway": {"node": [0, 0]}})
    line = assert_clean_error(cli("run", bad))
    assert "gateway.node" in line
    assert "listed twice" in line


def run_with_captures(scenario: Path, out: Path) -> None:
    """Runs ``scenario`` through the CLI with an ns-2 trace and captures in ``out``."""
    proc = cli(
        "run", scenario, "--set", "output.pcap=true", "--set", "output.ns2_trace=true", "-o", out
    )
    assert proc.returncode == 0, proc.stderr


def test_advertisements_are_counted_traced_and_dissected(tmp_path: Path):
    # Hybrid discovery with a 2-hop zone on the 4-node chain: the gateway's
    # advertisements reach nodes 2 and 1, not node 0, which seeks the host.
    hybrid = dict(CHAIN, duration_s=12.0)
    hybrid["routing"] = {"protocol": "aodv", "aodv": {"preset": "aodv_uu"}}
    hybrid["gateway"] = dict(CHAIN["gateway"], discovery="hybrid", advertisement_zone_hops=2)
    scenario = write_toml(tmp_path / "g.toml", hybrid)
    run_with_captures(scenario, tmp_path / "out")
    result = manetsim.run(scenario)
    messages = result.routing_messages.set_index("message")
    adverts = messages.loc["gwadv"]
    # At least two advertisements in 12 s (one within each 5 s), each sent
    # by the gateway and passed on by node 2 only: 54 bytes at the IP layer.
    assert adverts["packets"] >= 4
    assert adverts["packets"] % 2 == 0
    assert adverts["forwarded"] * 2 == adverts["packets"]
    assert adverts["bytes"] == 54 * adverts["packets"]
    assert messages.loc["rreq"]["packets"] > 0, "node 0 seeks the host"
    trace = (tmp_path / "out" / "trace.tr").read_text()
    lines = [line for line in trace.splitlines() if "(GWADV)" in line]
    sent = [line for line in lines if line[0] in "sf" and " RTR " in line]
    assert len(sent) == adverts["packets"]
    if shutil.which("tshark") is None:
        return
    # Wireshark reads them as route replies with an extension it does not
    # know, and finds nothing malformed.
    gw = tmp_path / "out" / "gateway-2.pcap"
    adverts_seen = "aodv.type == 2 && aodv.ext_type == 5"
    replies = tshark(gw, "-Y", adverts_seen, "-T", "fields", "-e", "aodv.dest_ip")
    assert replies
    assert set(replies.split()) == {"0.0.0.3"}
    assert not tshark(gw, "-Y", "_ws.expert.severity == error")


def test_olsr_gateways_announce_themselves_by_hna(tmp_path: Path):
    # OLSR on the 4-node chain: the gateway's HNAs, relayed by its MPR
    # (node 2) and node 2's (node 1), tell node 0 where the Internet is.
    olsr = dict(CHAIN, duration_s=12.0)
    olsr["routing"] = {"protocol": "olsr"}
    scenario = write_toml(tmp_path / "g.toml", olsr)
    run_with_captures(scenario, tmp_path / "out")
    result = manetsim.run(scenario)
    assert (result.flows["received"] > 0).all()
    hna = result.routing_messages.set_index("message").loc["hna"]
    # Two HNAs in 12 s (every 5 s less a jitter of up to 0.5 s): 52 bytes
    # at the IP layer each (IP 20, UDP 8, OLSR 4, message 12, network 8).
    sent = hna["packets"] - hna["forwarded"]
    assert sent == 2
    assert 0 < hna["forwarded"] <= 2 * sent
    assert hna["bytes"] == 52 * hna["packets"]
    trace = (tmp_path / "out" / "trace.tr").read_text()
    lines = [line for line in trace.splitlines() if "(HNA)" in line]
    assert len([line for line in lines if line[0] in "sf" and " RTR " in line]) == hna["packets"]
    # The interval is the gateway's advertisement interval; discovery is
    # AODV-UU's and refused, naming the key.
    bad = write_toml(
        tmp_path / "bad.toml", dict(olsr, gateway=dict(CHAIN["gateway"], discovery="proactive"))
    )
    line = assert_clean_error(cli("run", bad))
    assert "gateway.discovery" in line
    assert "HNA" in line
    if shutil.which("tshark") is None:
        return
    # Wireshark reads them as OLSR HNA messages for the default route, from
    # the gateway, with nothing malformed.
    gw = tmp_path / "out" / "gateway-1.pcap"
    fields = ["-e", "olsr.origin_addr", "-e", "olsr.network_addr", "-e", "olsr.netmask"]
    seen = tshark(gw, "-Y", "olsr.message_type == 4", "-T", "fields", *fields)
    rows = {tuple(row.split("\t")) for row in seen.splitlines()}
    assert rows == {("0.0.0.3", "0.0.0.0", "0.0.0.0")}
    assert not tshark(gw, "-Y", "_ws.expert.severity == error")
