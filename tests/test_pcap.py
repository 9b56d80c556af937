"""Packet captures (`[output] pcap`): one pcap file per node, read back here
with a small reader of our own and, where tshark is installed, by Wireshark's
dissectors."""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

import pytest

import manetsim

from helpers import EXAMPLES, TCP_UDP_CHAIN, assert_clean_error, cli, scenario, tshark

QUICKSTART = EXAMPLES / "quickstart.toml"

CHAIN = scenario(TCP_UDP_CHAIN, name="captured-chain", mac={"arp": "ns2"}, output={"pcap": True})
NODES = TCP_UDP_CHAIN["nodes"]["count"]


def records(path: Path, linktype: int = 105) -> list[tuple[int, bytes]]:
    """Each record's time in nanoseconds and frame (radiotap header included)."""
    data = path.read_bytes()
    head = struct.unpack_from("<IHHiIII", data)
    assert (*head[:3], *head[5:]) == (0xA1B23C4D, 2, 4, 65535, linktype)
    out = []
    at = 24
    while at < len(data):
        sec, nsec, incl, orig = struct.unpack_from("<IIII", data, at)
        assert incl == orig
        out.append((sec * 1_000_000_000 + nsec, data[at + 16 : at + 16 + incl]))
        at += 16 + incl
    assert at == len(data)
    return out


def mac(node: int) -> bytes:
    return bytes([2, 0]) + node.to_bytes(4, "big")


def test_each_node_captures_what_it_sent_and_was_sent(tmp_path: Path):
    result = manetsim.run(CHAIN, pcap=tmp_path / "run")
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"run-{n}.pcap" for n in range(NODES)]
    sent = 0
    tcp_at_sink = 0
    for n in range(NODES):
        last = 0
        for t, frame in records(tmp_path / f"run-{n}.pcap"):
            assert t >= last
            last = t
            fc, ra = frame[0], frame[4:10]
            by_me = frame[10:16] == mac(n) if fc in (0xB4, 0x08) else ra != mac(n)
            sent += by_me
            if not by_me:
                assert ra in (mac(n), b"\xff" * 6)
            is_ip = fc == 0x08 and frame[30:32] == b"\x08\x00"
            if n == NODES - 1 and not by_me and is_ip and frame[32 + 9] == 6:
                ip = frame[32:]
                tcp = ip[20:]
                assert struct.unpack_from(">HH", tcp) == (49152, 49152)
                tcp_at_sink += 1
    assert sent == result.json["mac"]["frames_sent"]
    assert tcp_at_sink >= result.json["flows"][0]["received"] > 100


def test_a_capture_changes_no_result(tmp_path: Path):
    plain = dict(CHAIN, output={"pcap": False})
    a = manetsim.run(plain).json
    b = manetsim.run(CHAIN, pcap=tmp_path / "run").json
    for r in (a, b):
        r.pop("wall_s")
        r.pop("events_per_s")
    assert a == b


def test_cli_run_writes_the_captures_into_the_output_directory(tmp_path: Path):
    out = tmp_path / "out"
    proc = cli("run", QUICKSTART, "--set", "output.pcap=true", "-o", out)
    assert proc.returncode == 0, proc.stderr
    names = sorted(p.name for p in out.glob("*.pcap"))
    assert names == sorted(f"quickstart-{n}.pcap" for n in range(6))
    assert "quickstart-0.pcap to" in proc.stderr
    assert not [p for p in out.iterdir() if p.name.startswith(".")]


def test_cli_run_without_out_writes_name_n_pcap_in_the_current_directory(tmp_path: Path):
    proc = cli(
        *("run", QUICKSTART, "--set", "output.pcap=true", "--set", "duration_s=5"),
        *("--set", "flows.0.stop_s=5"),
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"quickstart-{n}.pcap" for n in range(6)]


def test_a_name_that_is_not_a_file_name_is_a_clear_error(tmp_path: Path):
    path = tmp_path / "s.toml"
    path.write_text(
        QUICKSTART.read_text(encoding="utf-8").replace(
            'name = "quickstart"', 'name = "../quickstart"'
        )
        + "\n[output]\npcap = true\n",
        encoding="utf-8",
    )
    line = assert_clean_error(cli("run", path, "-o", tmp_path / "out"))
    assert "key `name`" in line
    assert "NAME-N.pcap" in line
    assert not (tmp_path / "out").exists()


def test_captures_that_cannot_be_written_are_a_clear_error(tmp_path: Path):
    missing = tmp_path / "no" / "such" / "dir" / "x"
    with pytest.raises(manetsim.SimulationError, match=r"x-0\.pcap"):
        manetsim.run(QUICKSTART, overrides={"output.pcap": True}, pcap=missing)


@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark is not installed")
@pytest.mark.parametrize("protocol", ["aodv", "dsr", "olsr"])
def test_wireshark_dissects_every_frame_with_valid_checksums(tmp_path: Path, protocol: str):
    overrides = {"routing.protocol": protocol}
    if protocol == "olsr":
        overrides["duration_s"] = 30.0
    manetsim.run(CHAIN, overrides=overrides, pcap=tmp_path / "run")
    checks = [
        *("-o", "ip.check_checksum:TRUE"),
        *("-o", "tcp.check_checksum:TRUE"),
        *("-o", "udp.check_checksum:TRUE"),
    ]
    protocols: set[str] = set()
    for n in range(NODES):
        path = tmp_path / f"run-{n}.pcap"
        protocols.update(tshark(path, *checks, "-T", "fields", "-e", "frame.protocols").split())
        errors = tshark(path, *checks, "-Y", "_ws.expert.severity == error")
        assert errors == "", f"node {n}:\n{errors}"
    seen = {p for stack in protocols for p in stack.split(":")}
    routing = {"aodv": "aodv", "dsr": "dsr", "olsr": "olsr"}[protocol]
    assert {"wlan", "llc", "ip", "tcp", "udp", "arp", routing} <= seen, seen


RATE_ADAPTATION = EXAMPLES / "rate_adaptation.toml"


def test_radiotap_headers_show_the_rates_arf_climbs_through(tmp_path: Path):
    overrides = {"output.pcap": True, "output.pcap_radiotap": True, "duration_s": 2.0}
    manetsim.run(RATE_ADAPTATION, overrides=overrides, pcap=tmp_path / "run")
    # Node 1 sends to the receiver, node 0: its data frames (0x08) climb
    # from 6 Mb/s to 54 (12 to 108 units of 500 kb/s); its RTSs go at 6.
    # The CTSs and ACKs it receives carry their power and, as the example
    # models bit errors, the noise (dBm, one byte each): kTB over 20 MHz
    # with the 7 dB noise figure, -94 dBm.
    rates: dict[int, set[int]] = {}
    signals: set[int] = set()
    for _, frame in records(tmp_path / "run-1.pcap", linktype=127):
        length, present = struct.unpack_from("<HI", frame, 2)
        assert struct.unpack_from("<HH", frame, 10) == (5180, 0x0140)
        kind = frame[length]
        rates.setdefault(kind, set()).add(frame[8])
        if kind in (0xC4, 0xD4):
            assert (length, present) == (16, 0x6C)
            signals.add(struct.unpack_from("<b", frame, 14)[0])
            assert struct.unpack_from("<b", frame, 15)[0] == -94
        else:
            assert (length, present) == (14, 0x0C)
    assert rates[0x08] == {12, 18, 24, 36, 48, 72, 96, 108}
    assert rates[0xB4] == {12}
    assert len(signals) == 1
    assert -100 < signals.pop() < -20
    if shutil.which("tshark") is not None:
        shown = tshark(tmp_path / "run-1.pcap", "-T", "fields", "-e", "wlan_radio.data_rate")
        assert {float(x) for x in shown.split()} >= {6.0, 54.0}
        noise = tshark(tmp_path / "run-1.pcap", "-T", "fields", "-e", "radiotap.dbm_antnoise")
        assert set(noise.split()) == {"-94"}


def test_radiotap_without_captures_is_a_clear_error():
    proc = cli("run", QUICKSTART, "--set", "output.pcap_radiotap=true")
    message = assert_clean_error(proc)
    assert "output.pcap_radiotap" in message
    assert "output.pcap = true" in message
