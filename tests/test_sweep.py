"""Sweeps: expansion, storage, resuming after SIGKILL, executors."""

from __future__ import annotations

import math
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import manetsim
from manetsim import study, sweep

from helpers import EXAMPLES, REPO, assert_clean_error, cli

BASE = """\
name = "sweep-base"
duration_s = 8.0
seed = 1

[nodes]
count = 4
placement = "chain"
spacing_m = 200.0

[routing]
protocol = "static"

[[flows]]
src = 0
dst = 3
transport = "udp"
app = "cbr"
start_s = 1.0
stop_s = 8.0
packet_size_bytes = 512
rate_bps = 64000

[[flows]]
src = 3
dst = 0
transport = "udp"
app = "cbr"
start_s = 1.0
stop_s = 8.0
packet_size_bytes = 512
rate_bps = 64000
"""

SWEEP = """\
[sweep]
name = "demo"
scenario = "base.toml"
seeds = 2

[sweep.axes]
"flows.*.rate_bps" = [32000, 128000]
routing.protocol = ["static", "aodv"]
"""


def _write(folder: Path, sweep_text: str = SWEEP, base: str = BASE) -> Path:
    (folder / "base.toml").write_text(base, encoding="utf-8")
    path = folder / "sweep.toml"
    path.write_text(sweep_text, encoding="utf-8")
    return path


def _rows(out: Path) -> list[dict]:
    """The runs' rows, comparable: NaN (a UDP flow's mean cwnd) made None."""
    frame = sweep.load(out).drop(columns=["wall_s"])
    frame = frame.sort_values("key").reset_index(drop=True)
    return [
        {k: None if isinstance(v, float) and math.isnan(v) else v for k, v in row.items()}
        for row in frame.to_dict("records")
    ]


def test_runs_are_the_product_of_axes_and_seeds(tmp_path: Path):
    spec = sweep.parse(_write(tmp_path))
    runs = spec.runs()
    assert len(runs) == 2 * 2 * 2
    assert len({r.key for r in runs}) == 8
    # `*` expands to every flow.
    first = runs[0]
    assert ("flows.0.rate_bps", "32000") in first.overrides
    assert ("flows.1.rate_bps", "32000") in first.overrides
    assert first.point == {"flows.*.rate_bps": 32000, "routing.protocol": "static"}
    # The key is stable: parsing again gives the same keys.
    assert [r.key for r in sweep.parse(tmp_path / "sweep.toml").runs()] == [r.key for r in runs]


def test_sweep_stores_one_row_per_run_and_skips_finished_keys(tmp_path: Path):
    spec = sweep.parse(_write(tmp_path))
    out = tmp_path / "out"
    first = sweep.run_sweep(spec, out, workers=2)
    assert (first.total, first.ran, first.skipped) == (8, 8, 0)
    frame = sweep.load(out)
    assert len(frame) == 8
    assert frame["balanced"].all()
    assert set(frame["routing.protocol"]) == {"static", "aodv"}
    # 128 kbit/s in, about 128 kbit/s of payload out per flow (two flows).
    fast = frame[(frame["flows.*.rate_bps"] == 128000) & (frame["routing.protocol"] == "static")]
    assert fast["goodput_kbps"].between(2 * 120, 2 * 130).all(), fast["goodput_kbps"]
    flows = sweep.load_flows(out)
    assert len(flows) == 16
    again = sweep.run_sweep(spec, out, workers=2)
    assert (again.ran, again.skipped) == (0, 8)
    assert len(sweep.load(out)) == 8


def test_a_sweep_runs_again_after_the_simulators_sources_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    # The key names the build's sources: results of another build are
    # never taken for this one's (the version string alone stays 0.1.0
    # from commit to commit).
    fingerprint = manetsim._core.source_hash()
    assert re.fullmatch(r"[0-9a-f]{16}", fingerprint)
    spec = sweep.parse(_write(tmp_path))
    out = tmp_path / "out"
    spec_runs = spec.runs()[:1]
    monkeypatch.setattr(spec, "runs", lambda: spec_runs)
    assert sweep.run_sweep(spec, out, workers=1).ran == 1
    assert sweep.run_sweep(spec, out, workers=1).skipped == 1
    key = spec_runs[0].key
    monkeypatch.setattr(sweep._core, "source_hash", lambda: "0" * 16)
    assert sweep.run_key("x") != key
    changed = sweep.parse(_write(tmp_path))
    assert changed.runs()[0].key != key
    # A Dask worker of another build (here: the patched one) refuses the run
    # instead of filing its result under the sweep's key.
    run = changed.runs()[0]
    with pytest.raises(RuntimeError, match=f"sources 0{{16}}, the sweep's machine {fingerprint}"):
        sweep.execute_as(fingerprint, run.text, run.source, run.overrides, run.seed)


def test_one_worker_and_many_workers_give_identical_rows(tmp_path: Path):
    spec = sweep.parse(_write(tmp_path))
    sweep.run_sweep(spec, tmp_path / "one", workers=1)
    sweep.run_sweep(spec, tmp_path / "many", workers=4)
    assert _rows(tmp_path / "one") == _rows(tmp_path / "many")


def test_dask_executor_gives_the_same_rows_as_the_local_one(tmp_path: Path):
    distributed = pytest.importorskip("distributed")
    spec = sweep.parse(_write(tmp_path))
    sweep.run_sweep(spec, tmp_path / "local", workers=2)
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        summary = sweep.run_sweep(spec, tmp_path / "dask", executor="dask", scheduler=client)
    assert summary.ran == 8
    assert _rows(tmp_path / "local") == _rows(tmp_path / "dask")


SLOW_SWEEP = """\
[sweep]
name = "slow"
scenario = "base.toml"
seeds = 12

[sweep.set]
duration_s = 60.0
"flows.0.stop_s" = 60.0
"flows.1.stop_s" = 60.0

[sweep.axes]
routing.protocol = ["aodv"]
"""


def test_a_sweep_killed_with_sigkill_resumes_with_exactly_one_row_per_run(tmp_path: Path):
    path = _write(tmp_path, SLOW_SWEEP)
    out = tmp_path / "out"
    runs_dir = out / "runs"
    proc = subprocess.Popen(
        [sys.executable, "-m", "manetsim.cli", "sweep", str(path), "-o", str(out), "-j", "1"],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if runs_dir.is_dir() and len(list(runs_dir.glob("*.parquet"))) >= 3:
                break
            if proc.poll() is not None:
                break
            time.sleep(0.01)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the sweep finished before it could be killed"
    finished = len(list(runs_dir.glob("*.parquet")))
    assert 3 <= finished < 12
    resumed = cli("sweep", path, "-o", out, "-j", "2", timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert f"{12 - finished} runs done, {finished} already finished" in resumed.stderr
    frame = sweep.load(out)
    assert len(frame) == 12
    assert sorted(frame["seed"]) == list(range(1, 13))
    assert frame["key"].is_unique
    assert not list(runs_dir.glob(".*.tmp"))
    # The rows equal those of an uninterrupted sweep.
    sweep.run_sweep(sweep.parse(path), tmp_path / "clean", workers=2)
    assert _rows(out) == _rows(tmp_path / "clean")


def test_case_axes_and_generated_traffic(tmp_path: Path):
    text = """\
[sweep]
scenario = "base.toml"
seeds = [5]

[sweep.cases.load]
light = { traffic = { connections = 2, transport = "udp", app = "cbr", rate_bps = 8000, start_s = 1.0, start_spread_s = 2.0, stop_s = 8.0 } }
heavy = { traffic = { connections = 6, transport = "udp", app = "cbr", rate_bps = 8000, start_s = 1.0, start_spread_s = 2.0, stop_s = 8.0 } }
"""  # noqa: E501
    spec = sweep.parse(_write(tmp_path, text))
    sweep.run_sweep(spec, tmp_path / "out", workers=2)
    frame = sweep.load(tmp_path / "out").set_index("load")
    assert frame.loc["light", "flows"] == 2
    assert frame.loc["heavy", "flows"] == 6
    assert frame.loc["heavy", "seed"] == 5
    flows = sweep.generated_flows({"connections": 12, "seed": 3}, BASE, "base.toml")
    pairs = [(f["src"], f["dst"]) for f in flows]
    assert len(set(pairs)) == 12
    assert all(s != d and 0 <= s < 4 and 0 <= d < 4 for s, d in pairs)
    assert all(1.0 <= f["start_s"] < 181.0 for f in flows)
    assert flows == sweep.generated_flows({"connections": 12, "seed": 3}, BASE, "base.toml")


@pytest.mark.parametrize(
    ("entry", "key", "fragment"),
    [
        ("connections = -1", "connections", "an integer ≥ 1, got -1"),
        ('connections = "x"', "connections", "an integer ≥ 1, got 'x'"),
        ("connections = 2, seed = 1.5", "seed", "an integer ≥ 0"),
        ("connections = 2, start_spread_s = nan", "start_spread_s", "≥ 0, got nan"),
        ("connections = 2, tcp = 5", "tcp", "a table of [flows.tcp] keys"),
    ],
)
def test_bad_traffic_values_are_refused(tmp_path: Path, entry: str, key: str, fragment: str):
    text = f"""\
[sweep]
scenario = "base.toml"

[sweep.cases.load]
light = {{ traffic = {{ {entry} }} }}
"""
    path = _write(tmp_path, text)
    with pytest.raises(manetsim.ScenarioError, match=re.escape(fragment)) as caught:
        sweep.parse(path)
    assert caught.value.key == f"sweep.cases.load.light.traffic.{key}"
    line = assert_clean_error(cli("sweep", path, "-o", tmp_path / "out"))
    assert fragment in line
    assert not (tmp_path / "out").exists()


def test_case_axes_combine_a_topology_with_routing_options(tmp_path: Path):
    # One case axis picks the scenario file, the other the routing protocol
    # with its options table: a case that names no scenario keeps the other's.
    five = BASE.replace("count = 4", "count = 5").replace("sweep-base", "sweep-five")
    (tmp_path / "five.toml").write_text(five, encoding="utf-8")
    text = """\
[sweep]
scenario = "base.toml"

[sweep.cases.topology]
four = { scenario = "base.toml" }
five = { scenario = "five.toml" }

[sweep.cases."routing.protocol"]
aodv = { set = { "routing.protocol" = "aodv", "routing.aodv.preset" = "ns2" } }
dsr = { set = { "routing.protocol" = "dsr", "routing.dsr.preset" = "ns2" } }
"""
    spec = sweep.parse(_write(tmp_path, text))
    runs = spec.runs()
    assert len(runs) == 4
    for run in runs:
        assert run.source.endswith(f"{'base' if run.point['topology'] == 'four' else 'five'}.toml")
        protocol = run.point["routing.protocol"]
        assert (f"routing.{protocol}.preset", "ns2") in run.overrides
    sweep.run_sweep(spec, tmp_path / "out", workers=2)
    frame = sweep.load(tmp_path / "out")
    assert sorted(zip(frame["topology"], frame["routing.protocol"], frame["scenario"])) == [
        ("five", "aodv", "sweep-five"),
        ("five", "dsr", "sweep-five"),
        ("four", "aodv", "sweep-base"),
        ("four", "dsr", "sweep-base"),
    ]
    assert (frame["route_discoveries"] > 0).all()


@pytest.mark.parametrize(
    ("sweep_text", "fragment"),
    [
        ("[sweep]\nscenario = 'base.toml'\nsedes = 3\n", "unknown key `sedes`"),
        ("[sweep]\nscenario = 'missing.toml'\n", "`missing.toml` not found"),
        ("[sweep]\nscenario = 'base.toml'\nseeds = 0\n", "seeds must be from 1 to 1,000,000"),
        ("[sweep]\nscenario = 'base.toml'\n[sweep.axes]\nseed = []\n", "non-empty list"),
        ("[sweep]\nscenario = 'base.toml'\n[sweep.axes]\nx = [1, 1]\n", "value twice"),
        ("[sweep]\nscenario = 'base.toml'\n[sweep.axes]\n'nodes.*.x' = [1]\n", "not a list"),
        ("[sweep\n", "not valid TOML"),
        ("name = 'x'\n", "missing [sweep] table"),
    ],
)
def test_bad_sweep_files_get_one_clear_error(tmp_path: Path, sweep_text: str, fragment: str):
    path = _write(tmp_path, sweep_text)
    proc = cli("sweep", path, "-o", tmp_path / "out")
    line = assert_clean_error(proc)
    assert str(path) in line
    assert fragment in line


def test_a_bad_axis_value_names_the_scenario_key(tmp_path: Path):
    text = '[sweep]\nscenario = "base.toml"\n[sweep.axes]\nrouting.protocol = ["aodv", "ospf"]\n'
    line = assert_clean_error(cli("sweep", _write(tmp_path, text), "-o", tmp_path / "out"))
    assert "routing.protocol" in line
    assert "ospf" in line


def test_unknown_executor_is_refused(tmp_path: Path):
    proc = cli("sweep", _write(tmp_path), "--executor", "slurm")
    assert "unknown executor `slurm`" in assert_clean_error(proc)


# -- studies ------------------------------------------------------------------------


def test_mean_ci_matches_the_t_interval():
    mean, half, n = study.mean_ci([1.0, 2.0, 3.0, 4.0])
    assert (mean, n) == (2.5, 4)
    # sd = 1.29099, t(0.975, 3) = 3.182: 3.182 * 1.29099 / 2
    assert half == pytest.approx(2.0540, abs=1e-3)
    assert math.isnan(study.mean_ci([7.0])[1])
    assert study.mean_ci([])[2] == 0


def test_study_list_names_the_shipped_studies():
    proc = cli("study", "list")
    assert proc.returncode == 0, proc.stderr
    names = [line.split("\t")[0] for line in proc.stdout.splitlines()]
    shipped = {"chocheung2006", "oozothman2011", "zaini2012", "nordakkak2014", "karlssonkassler"}
    assert shipped <= set(names)


def test_unknown_study_is_a_clean_error():
    line = assert_clean_error(cli("study", "run", "nosuchstudy"))
    assert "no study `nosuchstudy`" in line


@pytest.mark.parametrize(
    ("name", "reports"),
    [
        (
            "chocheung2006",
            ["fig12_throughput.csv", "fig12_throughput.md", "fig12_throughput.png",
             "fig13_energy_efficiency.png", "findings.md"],
        ),
        (
            "oozothman2011",
            ["table1_loss_chain.csv", "table1_loss_chain.md", "table3_throughput_chain.md",
             "fig11_throughput_random.png", "findings.md"],
        ),
        (
            "zaini2012",
            ["table2_throughput_tfrc.csv", "table2_throughput_tfrc.md", "table7_delay_tcp.md",
             "fig1_throughput.png", "findings.md"],
        ),
        (
            "nordakkak2014",
            ["table2a_throughput.csv", "table2b_throughput_background.md",
             "table3b_delay_background.md", "fig5_delay_background.png", "findings.md"],
        ),
        (
            "karlssonkassler",
            ["fig3_chain5_throughput.csv", "fig7_chain5p1_throughput.md", "cwnd_chain5p1.md",
             "fig8_table2_goodput_hops.csv", "fig8_table2_goodput_hops.md",
             "fig8_table2_goodput_hops.png", "findings.md"],
        ),
    ],
)  # fmt: skip
def test_quick_study_writes_its_report(tmp_path: Path, name: str, reports: list[str]):
    proc = cli("study", "run", name, "--quick", "-o", tmp_path / name, timeout=300)
    assert proc.returncode == 0, proc.stderr
    report = tmp_path / name / "report"
    for file in reports:
        assert (report / file).stat().st_size > 0, file
    assert (report / reports[-1]).read_text().count("|") > 6
    index = (report / "README.md").read_text()
    assert "every ledger balanced: yes" in index
    assert f"sources {manetsim._core.source_hash()}" in index
    assert "the paper says" in proc.stdout


def test_study_figures_draw_case_labels_in_numeric_order():
    import pandas as pd

    summary = pd.DataFrame({"speed": ["10", "20", "5"], "mean": [2.0, 3.0, 1.0]})
    positions = study._x_positions(summary["speed"], 2.0)
    assert positions is not None
    drawn = study._by_x(summary, "speed", positions)
    assert list(drawn["__x"]) == [10.0, 20.0, 40.0]
    assert list(drawn["mean"]) == [1.0, 2.0, 3.0]
    # Labels that are not numbers are drawn evenly spaced, in their order.
    assert study._x_positions(["1flow", "manet"], 1.0) is None


def test_timeline_bins_give_goodput_hops_and_the_hop_changes():
    series = {
        "flow": [0, 0, 1, 0, 0, 0],
        "t_s": [0.2, 0.7, 0.8, 1.5, 2.1, 9.0],
        "hops": [2, 2, 5, 1, 2, 3],
    }
    bins, changes = study.timeline_bins({"timeseries": {"hops": series}}, 0, 3.0, 1.0, 1000)
    assert [b["delivered"] for b in bins] == [2, 1, 1]
    assert [b["goodput_kbps"] for b in bins] == [16.0, 8.0, 8.0]
    assert [b["hops_mean"] for b in bins] == [2.0, 1.0, 2.0]
    assert all(math.isnan(b["cwnd_packets"]) for b in bins)  # no TCP series
    # The delivery at 9 s is past until_s; flow 1's is another flow's.
    assert changes == [(0.2, 2), (1.5, 1), (2.1, 2)]


def test_the_cwnd_summary_is_a_time_average_of_the_first_flow():
    series = {
        "flow": [0, 1, 0, 0],
        "t_s": [1.0, 1.5, 2.0, 5.0],
        "cwnd_packets": [2.0, 50.0, 4.0, 1.0],
    }
    # 2 packets for 1 s, then 4 for 3 s, over 4 s: 3.5.
    assert sweep._cwnd_mean({"timeseries": {"tcp": series}}, 0) == pytest.approx(3.5)
    assert sweep._cwnd_mean({"timeseries": {"tcp": series}}, 1) == 50.0
    assert math.isnan(sweep._cwnd_mean({"timeseries": {}}, 0))


def test_study_csv_has_mean_ci_and_n(tmp_path: Path):
    folder = study.find("chocheung2006")
    definition = study.Study.load(folder, quick=True, seeds=2)
    study.run_study(definition, tmp_path, workers=2)
    import pandas as pd

    table = pd.read_csv(tmp_path / "report" / "fig12_throughput.csv")
    assert list(table.columns) == ["loss.0.rate", "flows.0.tcp.variant", "mean", "ci95", "n"]
    assert (table["n"] == 2).all()
    zero = table[table["loss.0.rate"] == 0.0]
    lossy = table[table["loss.0.rate"] == 0.1]
    # Injected loss costs every variant throughput.
    assert (zero["mean"].to_numpy() > lossy["mean"].to_numpy()).all()
    # The dataset behind it is a normal sweep dataset.
    assert len(sweep.load(tmp_path / "data" / "loss")) == 3 * 3 * 2
    assert manetsim.__version__ in set(sweep.load(tmp_path / "data" / "loss")["version"])


def test_only_keeps_the_named_sweeps_and_what_is_built_on_them():
    definition = study.Study.load(study.find("oozothman2011"), quick=True, only=["chain"])
    assert list(definition.sweeps) == ["chain"]
    assert {t["name"] for t in definition.tables} == {
        "table1_loss_chain",
        "table2_delay_chain",
        "table3_throughput_chain",
    }
    assert definition.figures == []
    assert all(f["sweep"] == "chain" for f in definition.findings)
    line = assert_clean_error(cli("study", "run", "oozothman2011", "--only", "nope"))
    assert "no sweep named `nope`" in line


@pytest.mark.parametrize(
    ("old", "new", "key", "words"),
    [
        (
            'routing.protocol = ["static", "aodv"]',
            '"seed" = [7, 8]',
            "sweep.axes.seed",
            "not an axis",
        ),
        ("seeds = 2", "seeds = 100000000000", "sweep.seeds", "from 1 to 1,000,000"),
        ('name = "demo"', 'name = "../../escaped"', "sweep.name", "results folder"),
    ],
)
def test_a_sweep_that_would_do_other_than_it_says_is_refused(
    tmp_path: Path, old: str, new: str, key: str, words: str
):
    assert old in SWEEP
    text = SWEEP.replace(old, new, 1)
    line = assert_clean_error(cli("sweep", _write(tmp_path, text), "-o", tmp_path / "out"))
    assert f"key `{key}`" in line
    assert words in line
    assert not (tmp_path / "out").exists()


STUDY = """\
[study]
title = "t"

[sweeps.s]
scenario = "base.toml"
seeds = 1
[sweeps.s.axes]
"flows.*.rate_bps" = [32000, 64000]

[[tables]]
name = "t1"
metric = "throughput_kbps"
rows = "flows.*.rate_bps"

[[findings]]
paper = "more is more"
metric = "throughput_kbps"
by = "flows.*.rate_bps"
kind = "ratio"
numerator = 64000
denominator = 32000
at_least = 1.5

[[timelines]]
name = "tl"
where = { "flows.*.rate_bps" = 64000 }
until_s = 20.0

[quick]
seeds = 1
"""


@pytest.mark.parametrize(
    ("old", "new", "key"),
    [
        ('metric = "throughput_kbps"\nrows', 'metric = "nope"\nrows', "tables.0.metric"),
        ('rows = "flows.*.rate_bps"\n', "", "tables.0.rows"),
        ('name = "t1"', 'name = "../../evil"', "tables.0.name"),
        ('kind = "ratio"\nnumerator = 64000\n', 'kind = "ratio"\n', "findings.0.numerator"),
        ("at_least = 1.5", 'at_least = "much"', "findings.0.at_least"),
        ('kind = "ratio"', 'kind = "ratio"\nwhere = { "nope" = 1 }', "findings.0.where"),
        ('kind = "ratio"', 'kind = "guess"', "findings.0.kind"),
        ("[quick]\nseeds = 1", "[quick]\nseeds = -1", "quick.seeds"),
        ('where = { "flows.*.rate_bps" = 64000 }', "where = {}", "timelines.0.where"),
        ("until_s = 20.0", "until_s = 0", "timelines.0.until_s"),
        ('name = "tl"', 'name = "a/b"', "timelines.0.name"),
    ],
)
def test_a_study_with_a_broken_report_is_refused_before_it_runs(
    tmp_path: Path, old: str, new: str, key: str
):
    folder = tmp_path / "mystudy"
    folder.mkdir()
    (folder / "base.toml").write_text(BASE, encoding="utf-8")
    assert old in STUDY
    (folder / "study.toml").write_text(STUDY.replace(old, new, 1), encoding="utf-8")
    proc = cli("study", "run", folder, "--quick", "-o", tmp_path / "out")
    line = assert_clean_error(proc)
    assert f"key `{key}`" in line, line
    assert "internal error" not in line
    assert not (tmp_path / "out" / "data").exists(), "nothing ran"


def test_the_study_fixture_itself_runs(tmp_path: Path):
    folder = tmp_path / "mystudy"
    folder.mkdir()
    (folder / "base.toml").write_text(BASE, encoding="utf-8")
    (folder / "study.toml").write_text(STUDY, encoding="utf-8")
    proc = cli("study", "run", folder, "--quick", "-o", tmp_path / "out")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "out" / "report" / "t1.csv").exists()
    # The timeline: one run's goodput per second, and its hop changes.
    timeline = (tmp_path / "out" / "report" / "tl.csv").read_text().splitlines()
    assert timeline[0] == "t_s,goodput_kbps,hops_mean,delivered,cwnd_packets"
    assert len(timeline) == 1 + 20
    assert "| time (s) | hops |" in (tmp_path / "out" / "report" / "tl.md").read_text()


def test_every_summary_metric_is_a_column_of_a_run(tmp_path: Path):
    spec = sweep.parse(_write(tmp_path))
    sweep.run_sweep(spec, tmp_path / "out", workers=1)
    frame = sweep.load(tmp_path / "out")
    assert set(sweep.SUMMARY_METRICS) <= set(frame.columns)


@pytest.mark.parametrize("key", ["ns2_trace", "pcap"])
def test_a_sweep_refuses_single_run_outputs_naming_the_key(tmp_path: Path, key: str):
    quickstart = EXAMPLES / "quickstart.toml"
    (tmp_path / "base.toml").write_text(
        quickstart.read_text(encoding="utf-8") + f"\n[output]\n{key} = true\n",
        encoding="utf-8",
    )
    sweep = tmp_path / "sweep.toml"
    sweep.write_text('[sweep]\nscenario = "base.toml"\nseeds = 1\n', encoding="utf-8")
    line = assert_clean_error(cli("sweep", sweep, "-o", tmp_path / "out"))
    assert f"output.{key}" in line
    assert str(sweep) in line
