"""Extreme values for every numeric key: a run completes or is refused in one line.

Each key of a small scenario (static, AODV, DSR, DSDV and OLSR routing; UDP
and TCP) is set in turn to zero, a negative, a huge, a tiny and a
non-number value. Whatever the value, ``manetsim.run`` must either finish or
raise :class:`manetsim.ScenarioError` with a one-line message naming a key:
never another exception, a panic or a run that never ends (a period shorter
than the clock's 1 ns, or one that wraps the clock, once held a run at one
instant).
"""

from __future__ import annotations

from typing import Any

import pytest

import manetsim

from helpers import SMALL_CHAIN

VALUES = ("0", "-1", "1e300", "1e-300", "nan", "inf", "4294967296", '"x"', "true")

COMMON_KEYS = (
    "duration_s",
    "seed",
    "nodes.count",
    "nodes.spacing_m",
    "area.width_m",
    "area.height_m",
    "radio.tx_power_w",
    "radio.frequency_hz",
    "radio.antenna_height_m",
    "radio.rx_threshold_w",
    "radio.cs_threshold_w",
    "radio.capture_threshold_db",
    "radio.system_loss",
    "mac.data_rate_bps",
    "mac.basic_rate_bps",
    "mac.rts_threshold_bytes",
    "mac.short_retry_limit",
    "mac.long_retry_limit",
    "mac.queue_packets",
    "mac.ll_delay_s",
    "flows.0.src",
    "flows.0.dst",
    "flows.0.start_s",
    "flows.0.stop_s",
    "flows.0.packet_size_bytes",
    "flows.0.start_jitter_s",
)

UDP_KEYS = ("flows.0.rate_bps", "flows.0.interval_s")

TCP_KEYS = (
    "flows.0.transfer_bytes",
    "flows.0.tcp.window_packets",
    "flows.0.tcp.initial_window_packets",
    "flows.0.tcp.min_rto_s",
    "flows.0.tcp.vegas_alpha",
)

ROUTING_KEYS = {
    "static": (),
    "aodv": ("routing.aodv.hello_interval_s", "routing.aodv.active_route_timeout_s"),
    "dsr": (),
    "dsdv": ("routing.dsdv.periodic_update_interval_s", "routing.dsdv.min_update_periods"),
    "olsr": (
        "routing.olsr.hello_interval_s",
        "routing.olsr.tc_interval_s",
        "routing.olsr.willingness",
    ),
}

TCP = {"transport": "tcp", "app": "ftp", "tcp": {"variant": "newreno"}}


def base(protocol: str, tcp: bool) -> dict[str, Any]:
    scenario: dict[str, Any] = {**SMALL_CHAIN, "duration_s": 3.0}
    scenario["routing"] = {"protocol": protocol}
    flow = {**SMALL_CHAIN["flows"][0], "stop_s": 3.0}
    if tcp:
        flow = {k: v for k, v in flow.items() if k != "rate_bps"} | TCP
    scenario["flows"] = [flow]
    return scenario


CASES = [
    (protocol, tcp, key)
    for protocol, own in ROUTING_KEYS.items()
    for tcp in (False, True)
    for key in (*COMMON_KEYS, *(TCP_KEYS if tcp else UDP_KEYS), *own)
    # The common keys once per transport, over static routes and AODV.
    if protocol in ("static", "aodv") or key not in COMMON_KEYS
]


@pytest.mark.parametrize(
    ("protocol", "tcp", "key"),
    CASES,
    ids=[f"{p}-{'tcp' if t else 'udp'}-{k}" for p, t, k in CASES],
)
def test_a_value_runs_or_is_refused_in_one_line(protocol: str, tcp: bool, key: str):
    scenario = base(protocol, tcp)
    for value in VALUES:
        outcome = run_or_refuse(scenario, key, value)
        if isinstance(outcome, manetsim.ScenarioError):
            message = str(outcome)
            assert message, (key, value)
            assert "\n" not in message, (key, value, message)
            assert outcome.key, (key, value, message)
        else:
            assert outcome.ledger["balanced"], (key, value)


def run_or_refuse(scenario: dict[str, Any], key: str, value: str) -> Any:
    """The run's result, or the ScenarioError that refused it."""
    try:
        return manetsim.run(scenario, overrides=[(key, value)])
    except manetsim.ScenarioError as error:
        return error
