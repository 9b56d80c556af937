"""Confidence intervals across seeds (Student's t), for studies and cross-checks."""

from __future__ import annotations

import math

__all__ = ["intervals_overlap", "mean_ci", "t95"]

# Two-sided 95 % Student t quantiles, t(0.975, df), df = 1..30.
_T95 = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
]  # fmt: skip


def t95(df: int) -> float:
    """The 97.5 % quantile of Student's t with ``df`` degrees of freedom."""
    if df < 1:
        return float("nan")
    if df <= len(_T95):
        return _T95[df - 1]
    return 1.96 + 2.4 / df  # within 0.1 % of the exact value beyond df = 30


def mean_ci(values: list[float]) -> tuple[float, float, int]:
    """(mean, half-width of the 95 % confidence interval, n); NaN values skipped."""
    clean = [v for v in values if not math.isnan(v)]
    n = len(clean)
    if n == 0:
        return float("nan"), float("nan"), 0
    mean = sum(clean) / n
    if n == 1:
        return mean, float("nan"), 1
    var = sum((v - mean) ** 2 for v in clean) / (n - 1)
    return mean, t95(n - 1) * math.sqrt(var / n), n


#: Means this close, relative to the larger, are the same figure summed in
#: another order (ns-2.35 and manetsim add a node's energy in different
#: orders: 0.6664319999999861 J against 0.6664319999999994 J).
ROUNDING = 1e-9


def intervals_overlap(a: tuple[float, float], b: tuple[float, float]) -> bool | None:
    """Whether two (mean, half-width) intervals overlap, within floating-point
    rounding (:data:`ROUNDING`); None when either is unknown (NaN: one
    value, or none)."""
    (ma, ha), (mb, hb) = a, b
    if any(math.isnan(v) for v in (ma, ha, mb, hb)):
        return None
    slack = ROUNDING * max(abs(ma), abs(mb))
    return ma - ha <= mb + hb + slack and mb - hb <= ma + ha + slack
