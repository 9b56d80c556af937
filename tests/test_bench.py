"""`manetsim bench`: the reference scenarios run and report their figures."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest

import manetsim
from manetsim import bench, ns2

from helpers import assert_clean_error, cli


def test_reference_scenarios_ship_with_the_package():
    for name in bench.REFERENCE:
        assert bench.reference_path(name).is_file()


def test_bench_chain6_reports_events_time_and_memory():
    proc = cli("bench", "chain6", "--json")
    assert proc.returncode == 0, proc.stderr
    row = json.loads(proc.stdout.splitlines()[0])
    assert row["scenario"] == "chain6"
    assert row["nodes"] == 6
    assert row["events"] > 1_000_000
    assert 0 < row["core_s"] <= row["wall_s"]
    assert row["events_per_s"] == pytest.approx(row["events"] / row["core_s"])
    assert row["maxrss_mib"] > 1
    assert row["idle_bytes_per_node"] >= 0
    # How the measured core was compiled, read in the measured process.
    assert row["build"] == manetsim._core.build()


def test_bench_overrides_apply_to_every_scenario():
    # rwp1000 cut to 12 s (its flows start by 11 s): a minute, not hours.
    proc = cli("bench", "chain6", "rwp1000", "--set", "duration_s=12", "--json")
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [r["scenario"] for r in rows] == ["chain6", "rwp1000"]
    assert rows[1]["nodes"] == 1000
    full = json.loads(cli("bench", "chain6", "--json").stdout)
    # A thirtieth of chain6's 360 s has a thirtieth of its events, roughly.
    assert rows[0]["events"] < full["events"] // 10


def test_bench_names_a_bad_override():
    line = assert_clean_error(cli("bench", "chain6", "--set", "nosuch=1"))
    assert "nosuch" in line


def test_the_idle_run_keeps_the_nodes_and_drops_the_traffic():
    path = bench.reference_path("chain6")
    loaded = bench._manetsim(path)[0]
    idle = bench._manetsim(path, idle=True)[0]
    assert idle["nodes"] == loaded["nodes"] == 6
    assert idle["balanced"]
    # Without the FTP flow almost nothing happens in 360 s of a static chain.
    assert idle["events"] < loaded["events"] // 100


def test_memory_is_the_childs_own_not_its_parents(tmp_path: Path):
    # Linux carries a process's peak memory across fork and exec into its
    # child's `ru_maxrss`: a child of a parent holding 256 MiB would report
    # 256 MiB for a two-node run. The child reads its own high-water mark.
    held = bytes(range(256)) * (1 << 20)
    tiny = tmp_path / "tiny.toml"
    tiny.write_text(bench._TINY, encoding="utf-8")
    two_kib = bench._manetsim(tiny)[0]["maxrss_kib"]
    assert len(held) == 256 << 20
    assert 1024 < two_kib < 200 * 1024
    # An idle rwp10000, 10,000 nodes with no traffic, takes about 1.7 KB a
    # node more than the two-node run (the goal: under 2 KB).
    idle = bench._manetsim(bench.reference_path("rwp10000"), idle=True)[0]
    assert idle["nodes"] == 10_000
    assert idle["events"] == 0
    assert 10_000 < idle["maxrss_kib"] - two_kib < 2 * 10_000


def test_bench_refuses_what_it_cannot_compare():
    line = assert_clean_error(cli("bench", "chain6", "--against", "ns4"))
    assert "unknown simulator" in line
    line = assert_clean_error(cli("bench", "nosuch"))
    assert "no such reference scenario" in line
    # A scenario after an option is a scenario too (all are checked before
    # anything runs).
    line = assert_clean_error(cli("bench", "chain6", "--repeat", "1", "nosuch"))
    assert line.startswith("error: nosuch: no such reference scenario"), line


@pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2 (Debian ns2) is not installed")
def test_bench_against_ns2_measures_both_in_one_run():
    steps: list[str] = []
    rows = bench.run_bench(["chain6"], against="ns2", status=steps.append)
    # Each step is told as it starts (the CLI shows it on a terminal).
    assert steps == ["chain6: manetsim", "chain6: manetsim, idle memory", "chain6: ns-2.35"]
    assert rows[0].ns2_wall_s is not None
    assert rows[0].ns2_wall_s > 0
    assert rows[0].as_dict()["speedup_wall"] > 0


def test_bench_stops_an_ns2_whose_clock_stands_still(tmp_path: Path):
    # ns-2.35's DSDV can loop for ever at one instant; ns-2 runs untraced
    # here, so its script prints its clock, and a clock that stands still
    # for --ns-stall-s stops the run. The row says why it has no times.
    fake = tmp_path / "hanging-ns"
    fake.write_text(
        "#!/bin/sh\n"
        "grep -q '^proc manetsim_clock' \"$1\" || exit 3\n"
        "echo 'manetsim-clock 0'\necho 'manetsim-clock 1.0'\n"
        "exec sleep 60\n"
    )
    fake.chmod(0o755)
    short = ["--set", "duration_s=5"]
    start = time.monotonic()
    proc = cli("bench", "chain6", "--against", "ns2", "--ns", fake, "--ns-stall-s", "1", *short)
    assert time.monotonic() - start < 40
    assert proc.returncode == 0, proc.stderr
    text = " ".join(proc.stdout.split())
    assert (
        "chain6: ns-2 hung: its clock stopped at 1.0 s and did not move for 1 s "
        "(--ns-stall-s), so it was stopped" in text
    )
    rows = bench.run_bench(
        ["chain6"], "ns2", overrides=["duration_s=5"], ns_command=str(fake), ns_stall_s=1.0
    )
    assert rows[0].ns2_wall_s is None
    assert rows[0].ns2_note.startswith("chain6: ns-2 hung")
    assert "speedup_wall" not in rows[0].as_dict()
    bad = cli("bench", "chain6", "--against", "ns2", "--ns-stall-s", "-1")
    assert "--ns-stall-s" in assert_clean_error(bad)


def test_a_long_set_up_and_slow_steps_are_not_a_hang(tmp_path: Path):
    # rwp10000's ns-2 can set up for minutes before its clock starts, and
    # take longer per simulated second than --ns-stall-s: the watchdog
    # counts clock lines from the first, and allows ten times the slowest
    # step so far, and the first step as long as the set-up took.
    script = (
        "echo 'num_nodes is set 6'; sleep 2\n"
        "for t in 0 1 2 3; do echo manetsim-clock $t; sleep 0.6; done\n"
    )
    fake = tmp_path / "slow-ns"
    fake.write_text(f"#!/bin/sh\n{script}echo 'NS EXITING...'\n")
    fake.chmod(0o755)
    rows = bench.run_bench(
        ["chain6"], "ns2", overrides=["duration_s=5"], ns_command=str(fake), ns_stall_s=0.5
    )
    assert rows[0].ns2_note is None
    assert rows[0].ns2_wall_s is not None
    assert rows[0].ns2_wall_s > 4
    # The same steps, then a clock that stands still: stopped, ten of its
    # slowest steps later.
    hung = tmp_path / "hung-ns"
    hung.write_text(f"#!/bin/sh\n{script}exec sleep 60\n")
    hung.chmod(0o755)
    start = time.monotonic()
    rows = bench.run_bench(
        ["chain6"], "ns2", overrides=["duration_s=5"], ns_command=str(hung), ns_stall_s=0.5
    )
    assert time.monotonic() - start < 40
    assert rows[0].ns2_note is not None
    assert "its clock stopped at 3 s" in rows[0].ns2_note


def test_bench_names_the_error_ns2_printed(tmp_path: Path):
    fake = tmp_path / "failing-ns"
    fake.write_text("#!/bin/sh\necho 'ns: _o104 setdest 800 200 20: '\nexit 1\n")
    fake.chmod(0o755)
    proc = cli("bench", "chain6", "--against", "ns2", "--ns", fake, "--set", "duration_s=5")
    line = assert_clean_error(proc, status=1)
    assert "ns-2 failed (exit status 1): ns: _o104 setdest 800 200 20:" in line


def test_the_clock_goes_before_the_run_and_is_read_back():
    tcl = ns2.export_tcl(bench.reference_path("chain6"), tracing=False)
    timed = ns2.with_clock(tcl, 1.0)
    assert timed.startswith(tcl.rsplit("\n$ns_ run\n", 1)[0])
    assert timed.endswith('$ns_ at 0.0 "manetsim_clock 1.0"\n$ns_ run\n')
    assert timed.count("manetsim_clock") == 3
    assert ns2.last_clock("x\nmanetsim-clock 3.0\nmanetsim-clock 4.0\nNS EXITING...\n") == "4.0"
    assert ns2.last_clock("") == "0"
    with pytest.raises(ValueError, match="no '\\$ns_ run' line"):
        ns2.with_clock("puts hi\n", 1.0)
    with pytest.raises(ValueError, match="step_s"):
        ns2.with_clock(tcl, 0.0)
