"""`manetsim animate`: the page's data checked against the run it animates,
its parsers on hand-built input, and (where Chromium is installed) the page
itself running in a browser."""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

import manetsim
from manetsim import animate

from helpers import EXAMPLES, MOBILE_TCP_UDP, assert_clean_error, cli, scenario

QUICKSTART = EXAMPLES / "quickstart.toml"

MOBILE = scenario(MOBILE_TCP_UDP, name="animated")


def embedded(html: str) -> dict[str, Any]:
    """The data a page carries."""
    m = re.search(r"const DATA = (.*?);\n", html)
    assert m is not None
    return json.loads(m[1])


def test_tracks_follow_ns2s_setdest():
    moves = "\n".join(
        [
            "# a comment",
            "$node_(0) set X_ 0",
            "$node_(0) set Y_ 0",
            "$node_(0) set Z_ 0",
            "$node_(1) set X_ 10",
            "$node_(1) set Y_ 20",
            # Node 0 heads east at 10 m/s, arriving at 10 s.
            '$ns_ at 0.000000000 "$node_(0) setdest 100 0 10"',
            # At 5 s, half way, it turns north at 5 m/s: 50 m to go, 10 s.
            '$ns_ at 5.000000000 "$node_(0) setdest 50 50 5"',
            # Node 1 is told to stay.
            '$ns_ at 3.000000000 "$node_(1) setdest 90 90 0"',
        ]
    )
    t0, t1 = animate.tracks(moves, 2)
    assert t0.legs == [(0.0, 0.0, 0.0, 5.0, 50.0, 0.0), (5.0, 50.0, 0.0, 15.0, 50.0, 50.0)]
    assert t0.position(-1.0) == (0.0, 0.0)
    assert t0.position(2.5) == (25.0, 0.0)
    assert t0.position(10.0) == (50.0, 25.0)
    assert t0.position(100.0) == (50.0, 50.0)
    assert t1.position(50.0) == (10.0, 20.0)


@pytest.mark.parametrize(
    ("line", "error"),
    [
        ("$node_(5) set X_ 1", "node 5 does not exist"),
        ('$ns_ at x "$node_(0) setdest 1 1 1"', "could not convert string to float: 'x'"),
        ("$node_(0) set X_ nan-ish", "movement line 1"),
        ("hello", "not a position or setdest"),
    ],
)
def test_a_movement_line_it_cannot_read_is_named(line: str, error: str):
    with pytest.raises(animate.AnimationError, match=re.escape(error)):
        animate.tracks(line, 2)


def test_the_trace_reader_keeps_frames_packet_drops_and_deliveries():
    lines = [
        "s 1.000000000 _0_ AGT  --- 0 cbr 512 [0 0 0 0] ------- [0:1 5:1 32 0] [0] 0 0",
        "s 1.000110000 _0_ MAC  --- 1 AODV 80 [0 ffffffff 0 800] ------- [0:255 -1:255 1 -1]",
        "s 1.000200000 _1_ MAC  --- 0 RTS 44 [2fe 0 1 0]",
        "s 1.000300000 _0_ MAC  --- 0 cbr 600 [13a 1 0 800] ------- [0:1 5:1 32 1] [0] 0 0",
        "s 1.000400000 _2_ MAC  --- 3 ARP 80 [0 ffffffff 2 806] ------- [REQUEST 2/2 0/1]",
        "D 1.100000000 _1_ MAC  COL 0 cbr 600 [13a 1 0 800] ------- [0:1 5:1 32 1] [0] 0 0",
        "D 1.200000000 _1_ MAC  RET 0 cbr 600 [13a 1 0 800] ------- [0:1 5:1 32 1] [0] 0 0",
        "D 1.300000000 _1_ IFQ  IFQ 12 cbr 540 [0 2 1 800] ------- [0:1 1:1 32 2] [17] 2 0",
        "D 1.310000000 _1_ IFQ  --- 13 cbr 540 [0 2 1 800] ------- [0:1 1:1 32 2] [18] 2 0",
        "D 1.320000000 _1_ RTR  --- 14 cbr 540 [0 2 1 800] ------- [0:1 1:1 32 2] [19] 2 0",
        "SFESTs 1.4 _1_ 4 [0 -> 5] 1(1) to 2 [0 |1 2 5 ]",
        "r 1.500000000 _5_ AGT  --- 0 cbr 512 [13a 5 4 800] ------- [0:1 5:1 28 5] [0] 4 0",
        "r 1.600000000 _5_ AGT  --- 8 tcp 552 [13a 5 4 800] ------- [0:0 5:0 28 5] [1 0] 4 0",
        "r 1.700000000 _0_ AGT  --- 9 ack 40 [13a 0 1 800] ------- [5:0 0:0 28 0] [1 0] 4 0",
        "s 9.000000000 _0_ MAC  --- 9 cbr 600 [13a 1 0 800] ------- [0:1 5:1 32 1] [9] 0 0",
    ]
    events = animate.read_trace(lines, until_s=2.0)
    assert events.frames == (
        [1_000_110, 1_000_200, 1_000_300, 1_000_400],
        [0, 1, 0, 2],
        [1, 2, 0, 3],
    )
    assert events.drops == ([1_300_000, 1_310_000], [1, 1])
    assert events.delivered == {1: [1_500_000], 0: [1_600_000]}
    # What a queue still holds when the run ends is no drop.
    end = "D 2.000000000 _1_ IFQ  END 15 cbr 540 [0 2 1 800] ------- [0:1 1:1 32 2] [20] 2 0"
    assert animate.read_trace([end]).drops == ([], [])
    with pytest.raises(animate.AnimationError, match="trace line 1"):
        animate.read_trace(["s soon _0_ MAC --- 1 cbr 600"])


def test_the_page_shows_what_the_run_did(tmp_path: Path):
    data = animate.animation_data(MOBILE)
    result = manetsim.run(MOBILE).json
    assert len(data["nodes"]) == 15
    assert data["receive_range_m"] == pytest.approx(250.0, abs=0.5)
    assert data["sense_range_m"] == pytest.approx(550.0, abs=1.0)
    assert data["result"]["frames_sent"] == result["mac"]["frames_sent"]
    assert len(data["frames"]["t_us"]) == result["mac"]["frames_sent"]
    assert data["frames"]["t_us"] == sorted(data["frames"]["t_us"])
    assert set(data["frames"]["kind"]) == {0, 1, 2, 3}, "data, routing, RTS/CTS/ACK and ARP"
    assert len(data["drops"]["t_us"]) == sum(result["drops"].values()) > 0
    udp, tcp = data["delivered_us"]
    assert len(udp) == result["flows"][0]["received"] > 0
    # TCP may deliver a segment twice; the result counts it once.
    assert result["flows"][1]["received"] <= len(tcp) <= result["flows"][1]["sent"]
    assert result["flows"][1]["received"] > 0
    # Positions: the links in receive range each second give the degree
    # manetsim's own mobility metrics measured.
    tracks = [
        animate.Track(n["x"], n["y"], [tuple(leg) for leg in n["legs"]]) for n in data["nodes"]
    ]
    series = result["timeseries"]["mobility"]
    r = data["receive_range_m"]
    for t, degree in zip(series["t_s"], series["mean_degree"]):
        pos = [track.position(t) for track in tracks]
        links = sum(math.dist(pos[i], pos[j]) <= r for i in range(15) for j in range(i + 1, 15))
        assert 2 * links / 15 == pytest.approx(degree), t


def test_until_runs_only_what_the_page_shows_and_shows_what_the_whole_run_did():
    whole = animate.animation_data(MOBILE)
    data = animate.animation_data(MOBILE, until_s=10.0)
    assert (data["duration_s"], data["run_s"], whole["run_s"]) == (10.0, 10.0, 30.0)
    assert all(leg[0] <= 10.0 for n in data["nodes"] for leg in n["legs"])
    # The first 10 s of a 10-second run are those of the 30-second one.
    cut = 10_000_000
    for key in ("frames", "drops"):
        n = sum(t <= cut for t in whole[key]["t_us"])
        assert n > 0
        assert data[key] == {k: v[:n] for k, v in whole[key].items()}, key
    for mine, theirs in zip(data["delivered_us"], whole["delivered_us"]):
        assert mine == [t for t in theirs if t <= cut]
    # A flow that starts after the cut: the run goes on to its end.
    late = animate.animation_data(MOBILE, {"flows.1.start_s": 12.0}, until_s=10.0)
    assert late["run_s"] == 30.0
    assert max(late["frames"]["t_us"]) <= cut


def test_a_page_of_too_many_frames_is_refused_with_advice():
    line = "s 1.000300000 _0_ MAC  --- 0 cbr 600 [13a 1 0 800] ------- [0:1 5:1 32 1] [0] 0 0"
    assert len(animate.read_trace([line] * 3, max_frames=3).frames[0]) == 3
    with pytest.raises(animate.AnimationError, match=r"more than 3 frames.*--until-s"):
        animate.read_trace([line] * 4, max_frames=3)


def test_no_packets_runs_nothing():
    bare = animate.animation_data(MOBILE, packets=False)
    assert "frames" not in bare
    assert bare["packets"] is False


def test_the_page_is_self_contained_and_carries_its_data_safely():
    data = animate.animation_data(QUICKSTART, overrides={"name": "a</script>b"}, packets=False)
    html = animate.page(data)
    assert "</script>b" not in html
    assert embedded(html)["name"] == "a</script>b"
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)
    assert html.count("<script>") == 1


def test_cli_animate_writes_name_html_or_the_output(tmp_path: Path):
    out = tmp_path / "page.html"
    proc = cli("animate", QUICKSTART, "--until-s", "5", "-o", out)
    assert proc.returncode == 0, proc.stderr
    assert f"wrote {out}" in proc.stderr
    data = embedded(out.read_text(encoding="utf-8"))
    assert data["name"] == "quickstart"
    assert data["duration_s"] == 5.0
    proc = cli("animate", QUICKSTART, "--no-packets", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "quickstart.html").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--until-s", "0"), "--until-s"),
        (("--until-s", "soon"), "expected seconds"),
        (("--set", "name=../up"), "key `name`"),
        (("--set", "nodes.count=0"), "nodes.count"),
    ],
)
def test_cli_animate_refuses_bad_arguments_clearly(
    tmp_path: Path, args: tuple[str, ...], message: str
):
    line = assert_clean_error(cli("animate", QUICKSTART, *args, cwd=tmp_path))
    assert message in line
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(shutil.which("chromium") is None, reason="chromium is not installed")
def test_the_page_runs_in_a_browser(tmp_path: Path):
    page = tmp_path / "page.html"
    page.write_text(animate.animate(MOBILE, until_s=12.0), encoding="utf-8")
    dom = subprocess.run(
        [
            "chromium",
            *("--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=3000"),
            "--dump-dom",
            f"{page.as_uri()}#t=10.5",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    assert 'data-ready="1"' in dom
    assert '<span id="clock">10.500 s</span>' in dom
    assert "<title>manetsim: animated</title>" in dom
    # The flows' deliveries up to 10.5 s, counted by the page's script.
    data = animate.animation_data(MOBILE, until_s=12.0)
    for i, times in enumerate(data["delivered_us"]):
        got = sum(t <= 10_500_000 for t in times)
        assert f'id="got{i}">{got}<' in dom


def test_a_request_whose_ttl_ran_out_is_no_drop_but_a_data_packets_is() -> None:
    from manetsim.animate import read_trace

    lines = [
        # ns-2.35's AODV: a relay's request with no TTL left (a copy of a
        # broadcast, which the result does not count as dropped).
        "D 9.534279792 _21_ RTR  TTL 0 AODV 48 [0 ffffffff 14 800] ------- "
        "[21:255 -1:255 0 0] [0x2 5 2 [22 7] [6 10]] (REQUEST)",
        # A data packet whose TTL ran out: a drop.
        "D 9.6 _3_ RTR  TTL 12 cbr 532 [13a 3 4 800] ------- [0:1 9:1 0 3] [4] 30 0",
    ]
    events = read_trace(lines)
    assert events.drops == ([9_600_000], [3])
