"""`manetsim bench`: the reference scenarios run and report their figures."""

from __future__ import annotations

import json
import shutil

import pytest

from manetsim import bench

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


def test_bench_refuses_what_it_cannot_compare():
    line = assert_clean_error(cli("bench", "chain6", "--against", "ns4"))
    assert "unknown simulator" in line
    line = assert_clean_error(cli("bench", "nosuch"))
    assert "no such reference scenario" in line


@pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2 (Debian ns2) is not installed")
def test_bench_against_ns2_measures_both_in_one_run():
    rows = bench.run_bench(["chain6"], against="ns2")
    assert rows[0].ns2_wall_s is not None
    assert rows[0].ns2_wall_s > 0
    assert rows[0].as_dict()["speedup_wall"] > 0
