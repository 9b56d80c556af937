"""`manetsim plot` and `manetsim.plots`: a run's figures from its own series."""

from __future__ import annotations

from pathlib import Path

import pytest

import manetsim
from manetsim import plots

from helpers import EXAMPLES, MOBILE_TCP_UDP, assert_clean_error, cli, scenario

QUICKSTART = EXAMPLES / "quickstart.toml"
PNG = b"\x89PNG\r\n\x1a\n"

MOBILE = scenario(MOBILE_TCP_UDP, name="plotted", energy={"initial_j": 20.0})


@pytest.fixture(scope="module")
def mobile() -> manetsim.Result:
    return manetsim.run(MOBILE)


@pytest.mark.parametrize("bin_s", [1.0, 0.7, 30.0])
def test_delivered_bins_add_up_to_what_each_sink_received(mobile: manetsim.Result, bin_s: float):
    series = plots.delivered_series(mobile, bin_s)
    flows = mobile.flows
    for flow in flows.itertuples():
        part = series[series["flow"] == flow.id]
        assert len(part) == -(-30.0 // bin_s)
        assert part["t_s"].iloc[0] == 0.0
        assert (part["kbps"] * bin_s * 1000 / 8).sum() == pytest.approx(flow.received_bytes)
        assert flow.received_bytes > 0
    # Nothing arrives before a flow starts.
    assert series[(series["flow"] == 1) & (series["t_s"] + bin_s <= 2.0)]["kbps"].sum() == 0
    with pytest.raises(ValueError, match="bin_s"):
        plots.delivered_series(mobile, 0.0)


def test_every_figure_of_a_mobile_tcp_run_with_energy(mobile: manetsim.Result, tmp_path: Path):
    written = plots.write_figures(mobile, tmp_path)
    # No TFRC or SCTP flow.
    wanted = [name for name in plots.FIGURES if name not in ("rate", "sctp_cwnd")]
    assert [p.name for p in written] == [f"{name}.png" for name in wanted]
    for path in written:
        assert path.read_bytes().startswith(PNG)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in written)


def test_only_the_figures_a_run_has_data_for(tmp_path: Path):
    static_udp = manetsim.run(QUICKSTART, overrides={"duration_s": 10, "flows.0.stop_s": 10})
    written = plots.write_figures(static_udp, tmp_path)
    assert [p.name for p in written] == ["delivered.png", "hops.png"]
    assert plots.figure(static_udp, "cwnd") is None
    with pytest.raises(ValueError, match="unknown figure"):
        plots.figure(static_udp, "nope")


def test_cli_plot_runs_a_scenario_or_reads_a_results_folder(tmp_path: Path):
    proc = cli(
        "plot", QUICKSTART, "--set", "duration_s=10", "--set", "flows.0.stop_s=10", cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in (tmp_path / "quickstart-figures").iterdir()) == [
        "delivered.png",
        "hops.png",
    ]
    out = tmp_path / "run"
    proc = cli("run", QUICKSTART, "--out", out)
    assert proc.returncode == 0, proc.stderr
    proc = cli("plot", out)
    assert proc.returncode == 0, proc.stderr
    assert (out / "delivered.png").read_bytes().startswith(PNG)
    assert f"to {out}" in proc.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("no-such.toml",), "no-such.toml"),
        (("{empty}",), "no result.json"),
        (("{empty}", "--seed", "3"), "not to a results folder"),
        (("{broken}",), "not a manetsim result"),
        (("{foreign}",), "not a manetsim result"),
        ((str(QUICKSTART), "--set", "name=../x"), "key `name`"),
    ],
)
def test_cli_plot_refuses_bad_sources_clearly(tmp_path: Path, args: tuple[str, ...], message: str):
    for name, text in [("empty", None), ("broken", "{"), ("foreign", '{"a": 1}')]:
        (tmp_path / name).mkdir()
        if text is not None:
            (tmp_path / name / "result.json").write_text(text, encoding="utf-8")
    argv = [a.format(**{n: tmp_path / n for n in ("empty", "broken", "foreign")}) for a in args]
    line = assert_clean_error(cli("plot", *argv, cwd=tmp_path))
    assert message in line
    assert list((tmp_path / "empty").iterdir()) == []
