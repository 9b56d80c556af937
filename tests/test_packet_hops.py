"""`benches/packet_hops.py`: where delivered packets spend their time."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import bench_module

packet_hops = bench_module("packet_hops")

IP = "[0 0 0 0] ------- [0:0 3:0 32 1] [0] 0 0"


def _hops(tmp_path: Path, lines: list[str]) -> packet_hops.Hops:
    """The readings of a trace made of ``lines`` (CBR packets followed)."""
    trace = tmp_path / "t.tr"
    trace.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return packet_hops.read(trace, "cbr")


def _line(op: str, t: float, node: int, layer: str, uid: int, kind: str = "cbr") -> str:
    return f"{op} {t:.9f} _{node}_ {layer}  --- {uid} {kind} 532 {IP}"


def test_a_packet_relayed_twice_with_a_salvage_wait(tmp_path: Path):
    # Packet 7: sent at 1.0 by node 0, which routes it at 1.1 (a 100 ms
    # wait at the source); node 1 receives it at 1.2 and forwards it at
    # 1.25; node 2 receives it at 1.3, forwards it at 1.4, and again at
    # 1.6 after a failed attempt; node 3 receives it at 1.7. Packet 8 is
    # never delivered and counts nowhere.
    lines = [
        _line("s", 1.0, 0, "AGT", 7),
        _line("s", 1.1, 0, "RTR", 7),
        _line("r", 1.2, 1, "RTR", 7),
        _line("f", 1.25, 1, "RTR", 7),
        _line("r", 1.3, 2, "RTR", 7),
        _line("f", 1.4, 2, "RTR", 7),
        _line("f", 1.6, 2, "RTR", 7),
        _line("r", 1.7, 3, "RTR", 7),
        _line("r", 1.7, 3, "AGT", 7),
        _line("s", 2.0, 0, "AGT", 8),
        _line("s", 2.0, 0, "RTR", 8),
        # A DSR request originated by node 5 (id 4) and relayed twice, and
        # one by node 6 nobody relays.
        "s 3.0 _5_ RTR  --- 9 DSR 32 [0 0 0 0] ------- [5:255 9:255 32 0] 1 [1 4] [0 4 0 0->0]",
        "f 3.1 _1_ RTR  --- 9 DSR 48 [0 0 0 0] ------- [5:255 9:255 32 0] 2 [1 4] [0 4 0 0->0]",
        "f 3.2 _2_ RTR  --- 9 DSR 48 [0 0 0 0] ------- [5:255 9:255 32 0] 2 [1 4] [0 4 0 0->0]",
        "s 3.0 _6_ RTR  --- 10 DSR 32 [0 0 0 0] ------- [6:255 9:255 32 0] 1 [1 1] [0 1 0 0->0]",
    ]
    h = _hops(tmp_path, lines)
    assert h.delays_s == [pytest.approx(0.7)]
    assert h.source_waits_s == [pytest.approx(0.1)]
    # Held at node 1 for 50 ms, at node 2 for 100 and then 300 ms.
    assert h.held_s == pytest.approx(0.05 + 0.1 + 0.3)
    # Links 0 -> 1, 1 -> 2 and 2 -> 3 (from its last forward).
    assert h.links_s == [pytest.approx(0.1), pytest.approx(0.05), pytest.approx(0.1)]
    assert (h.relays, h.relay_lines) == ([2], [3])
    assert (h.requests, h.requests_relayed, h.request_relay_lines) == (2, 1, 2)


def test_a_folder_without_traces_is_refused_with_one_line(tmp_path: Path, capsys):
    assert packet_hops.main([str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: no trace at ")
    assert len(err.strip().splitlines()) == 1


def _mac(t: float, node: int, uid: int, kind: str) -> str:
    mac = "[13a 1 0 800] ------- [0:0 3:0 32 1] [0] 0 0"
    return f"s {t:.9f} _{node}_ MAC  --- {uid} {kind} 590 {mac}"


def test_with_the_macs_lines_each_link_splits_at_its_first_data_frame(tmp_path: Path):
    # Packet 7 over 0 -> 1 -> 2 -> 3. Link 0 -> 1: routed at 1.1; node 0
    # sends another packet's frame (1.12), a CTS and an ACK (not frames
    # ahead), an RTS (1.13), packet 7's frame (1.15) and its retry (1.17);
    # node 1 has it at 1.2. Link 1 -> 2: an RTS, the frame at 1.27, received
    # at 1.3: nothing ahead, one RTS. Link 2 -> 3: a frame at 1.45 for the
    # forward at 1.4 that failed; the second forward's frame at 1.62, with
    # no RTS (a short frame), received at 1.7.
    lines = [
        _line("s", 1.0, 0, "AGT", 7),
        _line("s", 1.1, 0, "RTR", 7),
        _mac(1.12, 0, 99, "cbr"),
        _mac(1.125, 0, 0, "CTS"),
        _mac(1.126, 0, 0, "ACK"),
        _mac(1.13, 0, 0, "RTS"),
        _mac(1.15, 0, 7, "cbr"),
        _mac(1.17, 0, 7, "cbr"),
        _line("r", 1.2, 1, "RTR", 7),
        _line("f", 1.25, 1, "RTR", 7),
        _mac(1.26, 1, 0, "RTS"),
        _mac(1.27, 1, 7, "cbr"),
        _line("r", 1.3, 2, "RTR", 7),
        _line("f", 1.4, 2, "RTR", 7),
        _mac(1.45, 2, 7, "cbr"),
        _line("f", 1.6, 2, "RTR", 7),
        _mac(1.62, 2, 7, "cbr"),
        _line("r", 1.7, 3, "RTR", 7),
        _line("r", 1.7, 3, "AGT", 7),
    ]
    h = _hops(tmp_path, lines)
    assert h.mac_waits_s == [pytest.approx(0.05), pytest.approx(0.02), pytest.approx(0.02)]
    assert h.mac_after_s == [pytest.approx(0.05), pytest.approx(0.03), pytest.approx(0.08)]
    # Node 0's other packet went ahead; the failed attempt at node 2 is not
    # ahead of the second forward.
    assert h.mac_ahead == [1, 0, 0]
    assert h.mac_rts == [1, 1, 0]
    assert h.clean_waits_s() == [pytest.approx(0.02)]
    labels = dict(packet_hops.rows(h))
    assert labels["frames the sender sent before it (queued ahead), mean"] == "0.33 (2 none)"


def test_without_the_macs_lines_the_split_is_dashes(tmp_path: Path):
    lines = [
        _line("s", 1.0, 0, "AGT", 7),
        _line("s", 1.1, 0, "RTR", 7),
        _line("r", 1.2, 1, "RTR", 7),
        _line("r", 1.2, 1, "AGT", 7),
    ]
    h = _hops(tmp_path, lines)
    assert h.links_s == [pytest.approx(0.1)]
    assert h.mac_waits_s == []
    assert [v for label, v in packet_hops.rows(h) if label.startswith("of a link")] == ["-", "-"]


def test_packets_fall_in_windows_by_the_time_they_were_sent(tmp_path: Path):
    # Packet 7 sent at 1.0 and delivered at 1.7; packet 8 sent at 2.0 and
    # lost; packet 9 sent at 2.5 and delivered at 2.6.
    lines = [
        _line("s", 1.0, 0, "AGT", 7),
        _line("r", 1.7, 3, "AGT", 7),
        _line("s", 2.0, 0, "AGT", 8),
        _line("s", 2.5, 0, "AGT", 9),
        _line("r", 2.6, 3, "AGT", 9),
    ]
    h = _hops(tmp_path, lines)
    assert h.sends == [(1.0, pytest.approx(0.7)), (2.0, None), (2.5, pytest.approx(0.1))]
    w = packet_hops.windows(h, 1.0)
    assert sorted(w) == [1, 2]
    assert (w[1].start_s, w[1].sent, w[1].delivered) == (1.0, 1, 1)
    assert w[1].mean_delay_ms() == pytest.approx(700.0)
    assert (w[2].start_s, w[2].sent, w[2].delivered) == (2.0, 2, 1)
    assert w[2].mean_delay_ms() == pytest.approx(100.0)
    # Three seconds a window: all three in the first.
    assert [(x.sent, x.delivered) for x in packet_hops.windows(h, 3.0).values()] == [(3, 2)]


def test_the_windows_that_differ_most_either_way_come_first():
    ours = packet_hops.Hops(sends=[(0.5, 0.1), (1.5, 2.0), (2.5, 0.2), (3.5, 0.3)])
    # ns-2.35: 4 s more summed delay from 0 s, 1.5 s less from 1 s, and a
    # window (4 s) manetsim never sent in.
    theirs = packet_hops.Hops(sends=[(0.5, 4.1), (1.5, 0.5), (2.5, 0.2), (4.5, 0.25)])
    total, top = packet_hops.largest_gaps(
        packet_hops.windows(ours, 1.0), packet_hops.windows(theirs, 1.0)
    )
    assert total == pytest.approx(4.0 - 1.5 - 0.3 + 0.25)
    assert [start for start, _ in top] == [0.0, 1.0, 3.0]
    assert [gap for _, gap in top] == [pytest.approx(4.0), pytest.approx(-1.5), pytest.approx(-0.3)]


def test_the_window_table_is_printed_after_the_rows(tmp_path: Path, capsys):
    for name, delivered_at in (("manetsim.tr", 1.2), ("ns2.tr", 1.5)):
        (tmp_path / name).write_text(
            "\n".join([_line("s", 1.0, 0, "AGT", 7), _line("r", delivered_at, 3, "AGT", 7)]) + "\n",
            encoding="utf-8",
        )
    assert packet_hops.main([str(tmp_path), "--window-s", "10"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-3].split()[:3] == ["sent", "from,", "s"]
    assert out[-2].split() == ["0", "1/1", "200", "1/1", "500"]
    assert out[-1] == (
        "summed delay, ns-2.35 less manetsim: +0 s; the windows that differ most: from 0 s +0 s"
    )


def test_a_window_that_is_not_positive_is_refused(tmp_path: Path, capsys):
    with pytest.raises(SystemExit) as e:
        packet_hops.main([str(tmp_path), "--window-s", "0"])
    assert e.value.code == 2
    assert "--window-s must be a positive number of seconds, not 0" in capsys.readouterr().err
