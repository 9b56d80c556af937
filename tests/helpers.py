"""Shared test helpers: small scenarios and a way to run the CLI in a subprocess."""

from __future__ import annotations

import copy
import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"
BAD_SCENARIOS = Path(__file__).resolve().parent / "bad_scenarios"


def bench_module(name: str) -> ModuleType:
    """A script of ``benches/`` (not a package) loaded as module ``name``."""
    spec = importlib.util.spec_from_file_location(name, REPO / "benches" / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    # Registered before it runs, as dataclasses look their module up.
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


# A 3-node chain carrying one UDP CBR flow for 5 simulated seconds.
SMALL_CHAIN: dict[str, Any] = {
    "name": "small-chain",
    "duration_s": 5.0,
    "seed": 1,
    "area": {"width_m": 600.0, "height_m": 100.0},
    "nodes": {"count": 3, "placement": "chain", "spacing_m": 200.0},
    "routing": {"protocol": "static"},
    "flows": [
        {
            "src": 0,
            "dst": 2,
            "transport": "udp",
            "app": "cbr",
            "start_s": 0.5,
            "stop_s": 5.0,
            "packet_size_bytes": 512,
            "rate_bps": 64000.0,
        }
    ],
}

# Four stations sending to a receiver one hop away: MAC contention makes the
# figures depend on the seed (backoff draws).
CONTENTION: dict[str, Any] = {
    "name": "contention",
    "duration_s": 5.0,
    "seed": 1,
    "area": {"width_m": 200.0, "height_m": 200.0},
    "nodes": {
        "count": 5,
        "placement": "explicit",
        "positions": [[100.0, 100.0], [150.0, 100.0], [100.0, 150.0], [50.0, 100.0], [100.0, 50.0]],
    },
    "routing": {"protocol": "static"},
    "flows": [
        {
            "src": src,
            "dst": 0,
            "transport": "udp",
            "app": "cbr",
            "start_s": 0.5,
            "stop_s": 5.0,
            "packet_size_bytes": 512,
            "rate_bps": 400000.0,
        }
        for src in range(1, 5)
    ],
}

# What every result must hold (SCENARIO.md, "Result JSON").
RESULT_KEYS = {
    "version",
    "scenario",
    "seed",
    "duration_s",
    "events",
    "wall_s",
    "flows",
    "drops",
    "routing",
    "mac",
    "energy",
}
FLOW_KEYS = {
    "id",
    "src",
    "dst",
    "transport",
    "variant",
    "sent",
    "received",
    "throughput_kbps",
    "goodput_kbps",
    "delay_ms",
    "jitter_ms",
    "loss_pct",
    "retransmissions",
}


#: A 6-node AODV chain with a TCP flow end to end and a UDP flow back
#: across three hops, traced as ns-2 traces.
TCP_UDP_CHAIN: dict[str, Any] = {
    "name": "traced-chain",
    "duration_s": 40.0,
    "seed": 3,
    "nodes": {"count": 6, "placement": "chain", "spacing_m": 200.0},
    "routing": {"protocol": "aodv"},
    "flows": [
        {
            "src": 0,
            "dst": 5,
            "transport": "tcp",
            "app": "ftp",
            "start_s": 1.0,
            "packet_size_bytes": 512,
            "tcp": {"variant": "newreno", "handshake": False},
        },
        {
            "src": 4,
            "dst": 1,
            "transport": "udp",
            "app": "cbr",
            "start_s": 2.0,
            "packet_size_bytes": 256,
            "rate_bps": 64000,
        },
    ],
    "output": {"ns2_trace": True},
}


#: 15 nodes moving in 800 m by 500 m over AODV with ARP and a short queue, a
#: UDP and a TCP flow: 30 s with drops of every common kind.
MOBILE_TCP_UDP: dict[str, Any] = {
    "name": "mobile-tcp-udp",
    "duration_s": 30.0,
    "seed": 4,
    "area": {"width_m": 800.0, "height_m": 500.0},
    "nodes": {"count": 15},
    "mobility": {
        "model": "random_waypoint",
        "min_speed_mps": 1.0,
        "max_speed_mps": 15.0,
        "pause_s": 1.0,
    },
    "mac": {"arp": "ns2", "queue_packets": 5},
    "routing": {"protocol": "aodv"},
    "flows": [
        {
            "src": 0,
            "dst": 1,
            "transport": "udp",
            "app": "cbr",
            "start_s": 1.0,
            "rate_bps": 300000.0,
            "packet_size_bytes": 512,
        },
        {
            "src": 2,
            "dst": 3,
            "transport": "tcp",
            "app": "ftp",
            "start_s": 2.0,
            "packet_size_bytes": 512,
        },
    ],
}


def scenario(base: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """A deep copy of ``base`` with top-level keys replaced."""
    copied = copy.deepcopy(base)
    copied.update(changes)
    return copied


def write_toml(path: Path, document: dict[str, Any]) -> Path:
    from manetsim._toml import dumps

    path.write_text(dumps(document), encoding="utf-8")
    return path


def load_toml(text: str) -> dict[str, Any]:
    return tomllib.loads(text)


def cli(
    *args: str | Path, timeout: float = 120, cwd: Path = REPO
) -> subprocess.CompletedProcess[str]:
    """Runs ``python -m manetsim.cli ARGS`` in ``cwd`` (the repository root)."""
    return subprocess.run(
        [sys.executable, "-m", "manetsim.cli", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def tshark(capture: Path, *args: str) -> str:
    """What ``tshark -r CAPTURE ARGS`` prints (it must succeed)."""
    return subprocess.run(
        ["tshark", "-r", str(capture), *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout


def assert_clean_error(proc: subprocess.CompletedProcess[str], status: int = 2) -> str:
    """A failed command: given status, nothing on stdout, one `error:` line on stderr."""
    assert proc.returncode == status, (proc.returncode, proc.stderr)
    assert proc.stdout == ""
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("error: "), lines[0]
    return lines[0]
