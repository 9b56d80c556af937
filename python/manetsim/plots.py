"""Figures of one run (``manetsim plot``, :func:`write_figures`), with matplotlib.

Each figure is drawn from the run's own time series, and only when the run
has them:

- ``delivered``: the data each flow's sink received, in kbit/s per second
  (from the ``hops`` series: one row per delivered packet);
- ``cwnd``: each TCP flow's congestion window and slow-start threshold over
  time (the ``tcp`` series);
- ``sctp_cwnd``: each SCTP association's congestion window and slow-start
  threshold in bytes over time (the ``sctp`` series);
- ``rate``: each TFRC flow's allowed sending rate over time, with the loss
  event rate beside it (the ``tfrc`` series);
- ``hops``: the hop count of every delivered packet over time;
- ``energy``: each node's remaining energy (with ``[energy]``);
- ``mobility``: the mean node degree and the links that appeared or vanished
  each sample (mobile scenarios).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from manetsim.results import Result, _write_atomic

if TYPE_CHECKING:
    from matplotlib.figure import Figure

FIGURES = ("delivered", "cwnd", "sctp_cwnd", "rate", "hops", "energy", "mobility")

#: Flows drawn each with a line and a legend entry, at most.
_LEGEND_MAX = 12


def delivered_series(result: Result, bin_s: float = 1.0) -> pd.DataFrame:
    """Data delivered to each flow's sink per ``bin_s``: columns ``flow``,
    ``t_s`` (the bin's start) and ``kbps`` (payload bits per second / 1000).

    Each flow's packets are counted in the bin they arrived in and weighed
    by the flow's bytes per delivered packet (``received_bytes`` /
    ``received``), so the bins add up to ``received_bytes``.
    """
    if not bin_s > 0:
        raise ValueError(f"bin_s: expected a duration above 0, got {bin_s}")
    hops = result.timeseries("hops")
    flows = result.flows
    bins = max(1, math.ceil(result.duration_s / bin_s - 1e-9))
    edges = np.arange(bins + 1) * bin_s
    rows = []
    for flow in flows.itertuples():
        times = hops.loc[hops["flow"] == flow.id, "t_s"].to_numpy()
        counts, _ = np.histogram(np.clip(times, 0, edges[-1]), bins=edges)
        per_packet = flow.received_bytes / flow.received if flow.received else 0.0
        kbps = counts * per_packet * 8 / bin_s / 1000
        rows.append(pd.DataFrame({"flow": flow.id, "t_s": edges[:-1], "kbps": kbps}))
    if not rows:
        return pd.DataFrame({"flow": [], "t_s": [], "kbps": []})
    return pd.concat(rows, ignore_index=True)


def figure(result: Result, name: str) -> Figure | None:
    """Figure ``name`` (one of :data:`FIGURES`) of ``result``, or ``None``
    when the run has nothing to draw in it."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    if name not in FIGURES:
        raise ValueError(f"unknown figure {name!r} (expected one of {', '.join(FIGURES)})")
    fig = Figure(figsize=(7.5, 3.8))
    ax = fig.add_subplot()
    flows = result.flows
    label = {f.id: f"flow {f.id}: {f.src} → {f.dst} {f.transport}" for f in flows.itertuples()}
    drawn = False
    if name == "delivered":
        series = delivered_series(result)
        for flow, part in series.groupby("flow"):
            # The last bin drawn to its end.
            t = [*part["t_s"], result.duration_s]
            kbps = [*part["kbps"], part["kbps"].iloc[-1]]
            ax.step(t, kbps, where="post", label=label[flow])
            drawn = True
        ax.set_ylabel("delivered (kbit/s, 1 s bins)")
    elif name == "cwnd":
        drawn = _windows(ax, _series(result, "tcp"), "packets", label)
        ax.set_ylabel("cwnd (packets); ssthresh dashed")
    elif name == "sctp_cwnd":
        drawn = _windows(ax, _series(result, "sctp"), "bytes", label)
        ax.set_ylabel("SCTP cwnd (bytes); ssthresh dashed")
    elif name == "rate":
        tfrc = _series(result, "tfrc")
        if tfrc is not None:
            p_ax = ax.twinx()
            for flow, part in tfrc.groupby("flow"):
                _paired_steps(ax, p_ax, part, "rate_kbps", "loss_event_rate", label[flow], ":")
                drawn = True
            p_ax.set_ylabel("loss event rate p (dotted)")
        ax.set_ylabel("TFRC allowed rate (kbit/s)")
    elif name == "hops":
        hops = result.timeseries("hops")
        for flow, part in hops.groupby("flow"):
            ax.plot(part["t_s"], part["hops"], ".", markersize=3, label=label[flow])
            drawn = True
        ax.set_ylabel("hops of each delivered packet")
    elif name == "energy":
        energy = result.timeseries("energy")
        for node, part in energy.groupby("node"):
            ax.plot(part["t_s"], part["remaining_j"], linewidth=0.8, label=f"node {node}")
            drawn = True
        ax.set_ylabel("remaining energy (J)")
    else:  # mobility
        mobility = result.timeseries("mobility")
        if len(mobility) > 1:
            ax.plot(mobility["t_s"], mobility["mean_degree"], label="mean degree")
            ax.set_ylabel("mean degree (neighbours in receive range)")
            changes = ax.twinx()
            changes.step(
                mobility["t_s"],
                mobility["links_up"] + mobility["links_down"],
                where="post",
                color="tab:red",
                alpha=0.5,
            )
            changes.set_ylabel("links up + down per sample", color="tab:red")
            drawn = True
    if not drawn:
        return None
    ax.set_xlabel("time (s)")
    ax.set_xlim(0, result.duration_s)
    ax.grid(alpha=0.3)
    handles, _ = ax.get_legend_handles_labels()
    if 1 < len(handles) <= _LEGEND_MAX:
        ax.legend(fontsize="small")
    fig.suptitle(f"{result.scenario} (seed {result.seed}): {name}")
    fig.tight_layout()
    return fig


def _series(result: Result, name: str) -> pd.DataFrame | None:
    """``timeseries.NAME`` as a frame, or ``None`` when it has no rows (or a
    result from before it existed lacks it)."""
    series = result.json["timeseries"].get(name, {})
    return result.timeseries(name) if series.get("t_s") else None


def _windows(ax: Any, frame: pd.DataFrame | None, unit: str, label: dict[int, str]) -> bool:
    """Each flow's ``cwnd_UNIT`` with its ``ssthresh_UNIT`` dashed; whether
    anything was drawn."""
    if frame is None:
        return False
    top = 0.0
    for flow, part in frame.groupby("flow"):
        _paired_steps(ax, ax, part, f"cwnd_{unit}", f"ssthresh_{unit}", label[flow], "--")
        top = max(top, float(part[f"cwnd_{unit}"].max()))
    ax.set_ylim(0, top * 1.25 + 1)
    return True


def _paired_steps(
    ax: Any, other: Any, part: pd.DataFrame, main: str, companion: str, label: str, style: str
) -> None:
    """``main`` over time as a step line on ``ax``, and ``companion`` in the
    same colour with line style ``style`` on ``other`` (the same axes or a
    twin)."""
    line = ax.step(part["t_s"], part[main], where="post", label=label)
    other.step(
        part["t_s"],
        part[companion],
        where="post",
        linestyle=style,
        color=line[0].get_color(),
        alpha=0.7,
    )


def write_figures(result: Result, out: str | Path, names: tuple[str, ...] = FIGURES) -> list[Path]:
    """Writes ``NAME.png`` in ``out`` for each figure the run has; returns the
    files written. Each file is written whole or not at all."""
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name in names:
        fig = figure(result, name)
        if fig is None:
            continue
        target = folder / f"{name}.png"
        _write_atomic(target, lambda path, f=fig: f.savefig(path, format="png", dpi=110))
        written.append(target)
    return written
