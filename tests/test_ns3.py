"""`manetsim bench --against ns3`: the ns-3 program's inputs, build and refusals.

CI has no ns-3: everything here but the last two tests runs without it (the
compiler, pkg-config and ns-3 install trees are faked where a test needs them).
"""

from __future__ import annotations

import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from manetsim import bench, ns3, run
from manetsim.run import load_config, movements_ns2

from helpers import REPO, SMALL_CHAIN, assert_clean_error, bench_module, scenario, write_toml

SOURCE = REPO / "benches" / "ns3" / "manetsim_bench.cc"


@pytest.fixture(autouse=True)
def _only_debian_ns3(request, monkeypatch):
    """Tests see Debian's ns-3 path unless they ask for an install prefix
    (a developer's $MANETSIM_NS3_PREFIX or PyPI ns3 package must not leak in)."""
    if "real_ns3" in request.keywords:
        return
    monkeypatch.delenv(ns3.PREFIX_ENV, raising=False)
    monkeypatch.setattr(ns3, "pypi_prefix", lambda: None)


def _fake_prefix(root: Path, version: str = "3.44", lib: str = "lib64") -> Path:
    """An ns-3 install tree with empty files where the build looks."""
    (root / "include" / "ns3").mkdir(parents=True)
    (root / "include" / "ns3" / "core-module.h").write_text("")
    libdir = root / lib
    (libdir / "cmake" / "ns3").mkdir(parents=True)
    for module in ns3.PKG_MODULES:
        (libdir / f"libns{version}-{module.removeprefix('ns3-')}.so").write_text("")
    (libdir / "cmake" / "ns3" / "ns3Targets.cmake").write_text(
        "set_target_properties(ns3::libcore PROPERTIES\n"
        '  INTERFACE_COMPILE_DEFINITIONS "PROJECT_SOURCE_PATH=\\"/b\\";__LINUX__;'
        'NS3_BUILD_PROFILE_RELEASE;HAVE_GSL;NS3_LOG_ENABLE;NS3_ASSERT_ENABLE"\n)\n'
    )
    return root


def _ns3_installed() -> bool:
    try:
        ns3.installation()
    except FileNotFoundError:
        return False
    return True


# A test that runs the ns-3 program: only where ns-3 and g++ are installed.
needs_ns3 = pytest.mark.skipif(
    not _ns3_installed() or shutil.which("g++") is None,
    reason="ns-3 (Debian libns3-dev or PyPI ns3) is not installed",
)


def _cli(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "manetsim.cli", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, **env},
    )


# -- refusals ---------------------------------------------------------------------------


def test_missing_compiler_is_refused_with_the_install_hint(monkeypatch):
    monkeypatch.setattr(ns3.shutil, "which", lambda name: None)

    def no_run(*args, **kwargs):
        raise AssertionError("nothing may run when ns-3 cannot be built")

    monkeypatch.setattr(bench.subprocess, "run", no_run)
    with pytest.raises(FileNotFoundError, match=r"apt-get install -y libns3-dev") as err:
        bench.run_bench(["chain6"], against="ns3")
    assert "missing: g++, pkg-config" in str(err.value)


def test_missing_ns3_libraries_are_refused_with_the_install_hint(monkeypatch):
    monkeypatch.setattr(ns3.shutil, "which", lambda name: f"/usr/bin/{name}")
    calls = []

    def fake_run(command, **kwargs):
        calls.append(command)
        return subprocess.CompletedProcess(command, 1, "", "Package ns3-core was not found")

    monkeypatch.setattr(ns3.subprocess, "run", fake_run)
    with pytest.raises(FileNotFoundError, match=r"libns3-dev.*pkg-config finds no ns3-core"):
        ns3.build()
    assert calls == [["pkg-config", "--exists", *ns3.PKG_MODULES]]


def test_cli_without_ns3_fails_cleanly():
    line = assert_clean_error(
        _cli("bench", "chain6", "--against", "ns3", CXX="no-such-compiler-for-manetsim")
    )
    assert "ns-3 is not installed" in line
    assert "apt-get install -y libns3-dev" in line
    assert "no-such-compiler-for-manetsim" in line


def test_unknown_simulator_is_refused():
    line = assert_clean_error(_cli("bench", "chain6", "--against", "ns4"))
    assert "unknown simulator (available: ns2, ns3)" in line


def test_what_ns3_cannot_express_is_refused_naming_the_key(tmp_path):
    dsdv = write_toml(tmp_path / "dsdv.toml", scenario(SMALL_CHAIN, routing={"protocol": "dsdv"}))
    # Refused before anything is built: the same message with or without ns-3.
    line = assert_clean_error(_cli("bench", str(dsdv), "--against", "ns3"))
    assert "cannot run on ns-3: key `routing.protocol`" in line
    assert "AODV only" in line

    cases = {
        "mac.data_rate_bps": {"mac": {"data_rate_bps": 54_000_000}},
        "mac.rate_control": {"mac": {"standard": "802.11g", "rate_control": "arf"}},
        "mac.preamble": {"mac": {"standard": "802.11b", "preamble": "short"}},
        # ns-3 answers a frame slower than the basic rate at a mandatory rate.
        "mac.basic_rate_bps": {
            "mac": {"standard": "802.11b", "data_rate_bps": 1_000_000, "basic_rate_bps": 2_000_000}
        },
        "flows.0.tcp.variant": {
            "flows": [
                {
                    "src": 0,
                    "dst": 2,
                    "transport": "tcp",
                    "app": "ftp",
                    "start_s": 1.0,
                    "tcp": {"variant": "vegas"},
                }
            ]
        },
    }
    for key, changes in cases.items():
        doc = scenario(SMALL_CHAIN, routing={"protocol": "aodv"}, **changes)
        with pytest.raises(ns3.Ns3Error) as err:
            ns3.check_expressible(load_config(doc))
        assert err.value.key == key
        assert str(err.value).startswith(f"cannot run on ns-3: key `{key}`")


def test_rate_control_is_ns3s_manager_answering_at_either_rule(tmp_path):
    for kind in ("constant", "arf", "aarf", "minstrel"):
        for response in ("basic", "standard"):
            mac = {
                "standard": "802.11a",
                "rate_control": kind,
                "basic_rate_bps": 6_000_000,
                "data_rate_bps": 54_000_000,
                "response_rate": response,
            }
            doc = scenario(SMALL_CHAIN, routing={"protocol": "aodv"}, mac=mac)
            command = ns3.prepare(doc, tmp_path, "bench")
            args = _program_args(command)
            assert (args["rateControl"], args["responseRate"]) == (kind, response)


def test_response_rates_ns3_cannot_mirror_are_refused_naming_the_basic_rate():
    def refused(**mac: object) -> str:
        doc = scenario(
            SMALL_CHAIN, routing={"protocol": "aodv"}, mac={"standard": "802.11a", **mac}
        )
        with pytest.raises(ns3.Ns3Error) as err:
            ns3.check_expressible(load_config(doc))
        assert err.value.key == "mac.basic_rate_bps"
        return str(err.value)

    # ARF starts at 6 Mb/s, below a 12 Mb/s basic rate: ns-3 would answer
    # those frames at 6.
    assert '"arf" starts' in refused(
        rate_control="arf", basic_rate_bps=12_000_000, data_rate_bps=54_000_000
    )
    # ns-3's basic rate set under the standard's rule is the mandatory
    # rates; 9 Mb/s is not one of them.
    assert "mandatory rates" in refused(
        response_rate="standard", basic_rate_bps=9_000_000, data_rate_bps=54_000_000
    )


def test_802_11a_over_free_space_is_expressible(tmp_path):
    doc = scenario(
        SMALL_CHAIN,
        routing={"protocol": "aodv"},
        radio={"propagation": "free_space", "frequency_hz": 5.18e9},
        mac={"standard": "802.11a", "data_rate_bps": 54_000_000, "basic_rate_bps": 6_000_000},
    )
    ns3.check_expressible(load_config(doc))
    command = ns3.prepare(doc, tmp_path, "bench")
    args = _program_args(command)
    assert (args["standard"], args["propagation"]) == ("80211a", "freeSpace")
    assert (args["dataRateBps"], args["basicRateBps"]) == ("54000000", "6000000")


def test_802_11b_with_the_long_preamble_is_expressible():
    doc = scenario(
        SMALL_CHAIN,
        routing={"protocol": "aodv"},
        mac={"standard": "802.11b", "data_rate_bps": 11_000_000},
    )
    ns3.check_expressible(load_config(doc))


def test_reference_scenarios_are_expressible():
    for name in ("chain6", "rwp50", "rwp1000", "rwp10000"):
        ns3.check_expressible(load_config(bench.reference_path(name)))


def test_against_accepts_both_simulators():
    assert bench.parse_against(None) == []
    assert bench.parse_against("ns3") == ["ns3"]
    assert bench.parse_against("ns2,ns3") == ["ns2", "ns3"]
    assert bench.parse_against(["ns3", "ns2", "ns3"]) == ["ns3", "ns2"]
    with pytest.raises(ValueError, match="unknown simulator"):
        bench.parse_against(["ns2", "omnet"])


# -- what bench.py hands to the program ----------------------------------------------------


def _accepted_options() -> set[str]:
    return set(
        re.findall(r'cmd\.AddValue\("([A-Za-z][A-Za-z0-9]*)"', SOURCE.read_text(encoding="utf-8"))
    )


def _program_args(command: list[str]) -> dict[str, str]:
    """The program's options in `command` (after the executable), each one
    the program declares and given once."""
    args = dict(arg[2:].split("=", 1) for arg in command[1:])
    assert len(args) == len(command) - 1
    assert set(args) <= _accepted_options()
    return args


def _flow_rows(args: dict[str, str]) -> list[list[str]]:
    """The fields of each flow in the flows file the program's `args` name."""
    text = Path(args["flows"]).read_text(encoding="utf-8")
    return [line.split() for line in text.splitlines() if not line.startswith("#")]


def test_rwp50_command_line(tmp_path):
    path = bench.reference_path("rwp50")
    command = ns3.prepare(path, tmp_path, "/cache/manetsim_bench-x")
    assert command[0] == "/cache/manetsim_bench-x"
    args = _program_args(command)
    assert args["scenario"] == "rwp50"
    assert args["nodes"] == "50"
    assert float(args["duration"]) == 500.0
    assert args["seed"] == "1"
    # ns-2's defaults as manetsim resolves them: 2 Mb/s data, 1 Mb/s basic,
    # RTS/CTS always, the 250 m / 550 m two-ray thresholds.
    assert args["dataRateBps"] == "2000000"
    assert args["basicRateBps"] == "1000000"
    assert args["rtsThresholdBytes"] == "0"
    assert float(args["txPowerW"]) == pytest.approx(0.28183815)
    assert float(args["rxThresholdW"]) == pytest.approx(3.652e-10)
    assert float(args["csThresholdW"]) == pytest.approx(1.559e-11)
    assert float(args["frequencyHz"]) == 914e6
    assert float(args["antennaHeightM"]) == 1.5
    assert args["queuePackets"] == "50"
    assert args["shortRetryLimit"] == "7"
    assert args["longRetryLimit"] == "4"
    assert args["tcpInitialWindow"] == "2"
    assert float(args["tcpMinRtoS"]) == 0.2
    assert args["tcpDelayedAck"] == "false"
    # manetsim's limited transmit is off unless asked for; ns-3's is on.
    assert args["tcpLimitedTransmit"] == "false"
    # ns-2's window_ of 20 segments of 512 bytes, advertised by ns-3's
    # receiver.
    assert args["tcpWindowBytes"] == "10240"
    assert Path(args["mobility"]).parent == tmp_path
    assert Path(args["flows"]).parent == tmp_path
    # No fading: no Nakagami model after two-ray ground.
    assert not any(key.startswith("nakagami") for key in args)


def test_fading_is_ns3s_nakagami_model_after_two_ray_ground(tmp_path):
    path = bench.reference_path("rwp50")
    cases = {
        "rayleigh": (["1.0", "1.0", "1.0"], ["0.0", "0.0"]),
        "nakagami": (["3.0", "0.75", "0.75"], ["80.0", "250.0"]),
    }
    for fading, (m, distances) in cases.items():
        overrides = [
            f"radio.fading={fading}",
            "radio.nakagami_m0=3",
            "radio.nakagami_distance2_m=250",
        ]
        command = ns3.prepare(path, tmp_path, "bench", overrides=overrides)
        args = _program_args(command)
        assert args["nakagami"] == "true"
        assert [args[f"nakagamiM{i}"] for i in range(3)] == m
        assert [args["nakagamiDistance1M"], args["nakagamiDistance2M"]] == distances


def test_shadowing_is_ns3s_log_distance_model_and_a_normal_draw(tmp_path):
    path = bench.reference_path("rwp50")
    overrides = [
        "radio.propagation=shadowing",
        "radio.path_loss_exponent=2.7",
        "radio.shadowing_std_db=6",
        "radio.reference_distance_m=2",
    ]
    command = ns3.prepare(path, tmp_path, "bench", overrides=overrides)
    args = _program_args(command)
    assert args["propagation"] == "shadowing"
    assert (args["pathLossExponent"], args["shadowingStdDb"], args["referenceDistanceM"]) == (
        "2.7",
        "6.0",
        "2.0",
    )
    # The other models take none of shadowing's arguments.
    command = ns3.prepare(path, tmp_path, "bench")
    args = _program_args(command)
    assert not {"pathLossExponent", "shadowingStdDb", "referenceDistanceM"} & set(args)


def test_bit_errors_are_ns3s_error_rate_model_at_the_noise_figure(tmp_path):
    path = bench.reference_path("rwp50")
    command = ns3.prepare(path, tmp_path, "bench")
    args = _program_args(command)
    assert not {"bitErrors", "noiseFigureDb", "interferenceThresholdW"} & set(args)
    overrides = ["radio.error_model=awgn", "radio.noise_figure_db=9"]
    command = ns3.prepare(path, tmp_path, "bench", overrides=overrides)
    args = _program_args(command)
    assert (args["bitErrors"], args["noiseFigureDb"]) == ("true", "9.0")
    assert "interferenceThresholdW" not in args
    overrides.append("radio.interference_threshold_w=7.9e-14")
    command = ns3.prepare(path, tmp_path, "bench", overrides=overrides)
    args = _program_args(command)
    assert args["interferenceThresholdW"] == "7.9e-14"


def test_rwp50_mobility_file_is_manetsims_movements(tmp_path):
    path = bench.reference_path("rwp50")
    command = ns3.prepare(path, tmp_path)
    args = _program_args(command)
    text = Path(args["mobility"]).read_text(encoding="utf-8")
    lines = text.splitlines()
    # The same lines as `manetsim export ns2` sources, comments and blanks dropped.
    expected = [
        line
        for line in movements_ns2(path).splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert lines == expected
    assert not any(line.startswith("#") for line in lines)
    initial = [line for line in lines if re.fullmatch(r"\$node_\(\d+\) set [XYZ]_ \S+", line)]
    assert len(initial) == 150
    legs = [line for line in lines if "setdest" in line]
    assert legs, "random waypoint moves the nodes"
    pattern = re.compile(
        r'\$ns_ at ([\d.]+) "\$node_\((\d+)\) setdest ([\d.e-]+) ([\d.e-]+) ([\d.e-]+)"'
    )
    for line in legs:
        match = pattern.fullmatch(line)
        assert match, line
        at, node, x, y, speed = (float(g) for g in match.groups())
        assert 0 <= at < 500
        assert 0 <= node < 50
        assert 0 <= x <= 1000
        assert 0 <= y <= 1000
        assert 0 <= speed <= 20


def test_rwp50_flows_file(tmp_path):
    path = bench.reference_path("rwp50")
    command = ns3.prepare(path, tmp_path)
    args = _program_args(command)
    rows = _flow_rows(args)
    config = load_config(path)
    assert len(rows) == len(config["flows"]) == 11
    assert [r[0] for r in rows] == ["tcp"] + ["udp"] * 10
    assert rows[0] == ["tcp", "31", "17", "2.89", "500.0", "512", "0.0"]
    for row, flow in zip(rows, config["flows"]):
        kind, src, dst, start, stop, size, rate = row
        assert (int(src), int(dst)) == (flow["src"], flow["dst"])
        assert float(start) == flow["start_s"]
        assert float(stop) == flow["stop_s"] == 500.0
        assert int(size) == 512
        if kind == "udp":
            # CBR of 512 B at 4 packets/s.
            assert float(rate) == 16384.0
            assert int(size) * 8 / float(rate) == 0.25


ONOFF_PAIR: dict = {
    "name": "onoff_pair",
    "duration_s": 200.0,
    "area": {"width_m": 300.0, "height_m": 10.0},
    "nodes": {"count": 2, "placement": "explicit", "positions": [[0.0, 0.0], [100.0, 0.0]]},
    "routing": {"protocol": "aodv"},
    "flows": [
        {
            "src": 0,
            "dst": 1,
            "transport": "udp",
            "app": "onoff",
            "start_s": 1.0,
            "packet_size_bytes": 512,
            "rate_bps": 64000.0,
            "onoff": {"on_s": 1.0, "off_s": 3.0},
        }
    ],
}


def test_on_off_and_cbr_by_interval_reach_the_flows_file(tmp_path):
    doc = dict(ONOFF_PAIR)
    pareto = {**ONOFF_PAIR["flows"][0], "onoff": {"distribution": "pareto", "shape": 1.8}}
    by_interval = {"src": 1, "dst": 0, "transport": "udp", "app": "cbr", "interval_s": 0.5}
    doc["flows"] = [ONOFF_PAIR["flows"][0], pareto, by_interval]
    args = _program_args(ns3.prepare(doc, tmp_path))
    rows = _flow_rows(args)
    assert rows == [
        ["onoff", "0", "1", "1.0", "200.0", "512", "64000.0", "1.0", "3.0", "exponential", "1.5"],
        ["onoff", "0", "1", "1.0", "200.0", "512", "64000.0", "0.5", "0.5", "pareto", "1.8"],
        # 512 bytes every 0.5 s.
        ["udp", "1", "0", "0.0", "200.0", "512", "8192.0"],
    ]


@pytest.mark.real_ns3
@needs_ns3
def test_ns3s_on_off_source_sends_what_manetsims_does():
    # 64 kbit/s in bursts of 1 s mean every 4 s, exponential, 199 s, five
    # seeds: 3,887 packets expected; manetsim sent 3,828, ns-3 3,877, each
    # delivering every one over 100 m.
    binary = ns3.build()
    ours, theirs = [0, 0], [0, 0]
    for seed in range(1, 6):
        flow = run(ONOFF_PAIR, seed=seed).flows.iloc[0]
        ours[0] += int(flow["sent"])
        ours[1] += int(flow["received"])
        with tempfile.TemporaryDirectory() as folder:
            command = ns3.prepare(ONOFF_PAIR, Path(folder), binary, seed=seed)
            out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
        totals = ns3.parse_result(out)
        theirs[0] += int(totals["udp_tx_packets"])
        theirs[1] += int(totals["udp_rx_packets"])
    expected = 64000 / (512 * 8) * 199 / 4 * 5
    for sent, received in (ours, theirs):
        assert sent == pytest.approx(expected, rel=0.08)
        assert received >= 0.99 * sent


def test_chain6_is_six_static_nodes_200_m_apart(tmp_path):
    command = ns3.prepare(bench.reference_path("chain6"), tmp_path)
    args = _program_args(command)
    lines = Path(args["mobility"]).read_text(encoding="utf-8").splitlines()
    xs = [float(line.split()[-1]) for line in lines if " set X_ " in line]
    assert xs == [0.0, 200.0, 400.0, 600.0, 800.0, 1000.0]
    assert not any("setdest" in line for line in lines)
    flows = Path(args["flows"]).read_text(encoding="utf-8").splitlines()[1:]
    assert flows == ["tcp 0 5 1.0 360.0 512 0.0"]


# -- the build ---------------------------------------------------------------------------------


def test_debian_pkg_config_output_is_cleaned(tmp_path):
    real = tmp_path / "libsqlite3.so"
    real.write_text("")
    text = (
        r"-I/usr\; -I/usr/include/libxml2 -lns3-core -lns3-core -lns3-aodv "
        f"{real} /nonexistent/libgsl.so -lns3-core"
    )
    assert ns3.clean_flags(text) == [
        "-I/usr/include/libxml2",
        "-lns3-core",
        "-lns3-aodv",
        str(real),
    ]


def test_an_install_prefix_gives_its_version_headers_libraries_and_macros(tmp_path):
    prefix = _fake_prefix(tmp_path / "ns3")
    found = ns3.prefix_installation(prefix, "somewhere")
    assert found.version == "3.44"
    assert found.std == "c++20"
    libdir = prefix / "lib64"
    assert found.flags == (
        "-DNS3_BUILD_PROFILE_RELEASE",
        "-DNS3_LOG_ENABLE",
        "-DNS3_ASSERT_ENABLE",
        f"-I{prefix / 'include'}",
        f"-L{libdir}",
        f"-Wl,-rpath,{libdir}",
        *(f"-lns3.44-{m.removeprefix('ns3-')}" for m in ns3.PKG_MODULES),
    )
    # A prefix with lib/ instead of lib64/ and no CMake export: no macros.
    other = _fake_prefix(tmp_path / "other", version="3.41", lib="lib")
    (other / "lib" / "cmake" / "ns3" / "ns3Targets.cmake").unlink()
    found = ns3.prefix_installation(other, "elsewhere")
    assert found.version == "3.41"
    assert found.flags[0] == f"-I{other / 'include'}"


def test_an_incomplete_install_prefix_is_refused_naming_what_is_missing(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"^somewhere: no ns-3 headers"):
        ns3.prefix_installation(tmp_path, "somewhere")
    prefix = _fake_prefix(tmp_path / "ns3")
    (prefix / "lib64" / "libns3.44-aodv.so").unlink()
    with pytest.raises(FileNotFoundError, match=r"^somewhere: libns3.44-aodv.so is missing"):
        ns3.prefix_installation(prefix, "somewhere")
    for lib in (prefix / "lib64").glob("*.so"):
        lib.unlink()
    with pytest.raises(FileNotFoundError, match=r"no ns-3 libraries \(libns3.\*-core.so\)"):
        ns3.prefix_installation(prefix, "somewhere")


def test_the_prefix_variable_comes_before_pypi_and_debian(tmp_path, monkeypatch):
    env = _fake_prefix(tmp_path / "env", version="3.45")
    pypi = _fake_prefix(tmp_path / "pypi", version="3.44")
    monkeypatch.setattr(ns3.shutil, "which", lambda name: f"/usr/bin/{name}")

    def no_pkg_config(*args, **kwargs):
        raise AssertionError("pkg-config is not asked when an install prefix is found")

    monkeypatch.setattr(ns3.subprocess, "run", no_pkg_config)
    monkeypatch.setattr(ns3, "pypi_prefix", lambda: pypi)
    monkeypatch.setenv(ns3.PREFIX_ENV, str(env))
    found = ns3.installation()
    assert (found.version, found.origin) == ("3.45", f"${ns3.PREFIX_ENV}={env}")
    monkeypatch.delenv(ns3.PREFIX_ENV)
    found = ns3.installation()
    assert found.version == "3.44"
    assert found.origin.startswith("PyPI's ns3 package")
    monkeypatch.setenv(ns3.PREFIX_ENV, str(tmp_path / "nothing"))
    with pytest.raises(FileNotFoundError, match=r"MANETSIM_NS3_PREFIX=.*no ns-3 headers"):
        ns3.installation()


def test_build_is_cached_by_source_hash(tmp_path, monkeypatch):
    source = tmp_path / "prog.cc"
    source.write_text("int main() { return 0; }\n")
    monkeypatch.setenv(ns3.SOURCE_ENV, str(source))
    monkeypatch.setattr(ns3, "check_installed", lambda: None)
    monkeypatch.setattr(ns3, "build_flags", lambda: ["-lns3-core"])
    monkeypatch.setattr(ns3, "pkg_config_version", lambda: "3.37")
    compiles = []

    def fake_compile(command, **kwargs):
        compiles.append(command)
        out = Path(command[command.index("-o") + 1])
        out.write_text("#!/bin/sh\n")
        return subprocess.CompletedProcess(command, 0, "", "")

    monkeypatch.setattr(ns3.subprocess, "run", fake_compile)
    cache = tmp_path / "cache"
    first = ns3.build(cache)
    assert first.parent == cache
    assert first.name.startswith("manetsim_bench-")
    assert ns3.build(cache) == first
    assert len(compiles) == 1
    assert compiles[0][:4] == [ns3.compiler(), "-O2", "-std=c++17", "-o"]
    assert str(source) in compiles[0]
    assert compiles[0][-1] == "-lns3-core"
    # The program learns ns-3's version: it mirrors TCP's window from 3.44.
    assert "-DMANETSIM_NS3_MINOR=37" in compiles[0]
    source.write_text("int main() { return 1; }\n")
    second = ns3.build(cache)
    assert second != first
    assert len(compiles) == 2
    assert sorted(p.name for p in cache.iterdir()) == sorted([first.name, second.name])


def test_source_is_kept_in_benches(tmp_path, monkeypatch):
    monkeypatch.delenv(ns3.SOURCE_ENV, raising=False)
    monkeypatch.chdir(REPO)
    assert ns3.source_path().resolve() == SOURCE.resolve()
    monkeypatch.setenv(ns3.SOURCE_ENV, str(tmp_path / "missing.cc"))
    with pytest.raises(FileNotFoundError, match="MANETSIM_NS3_SOURCE names no file"):
        ns3.source_path()
    monkeypatch.delenv(ns3.SOURCE_ENV)
    text = SOURCE.read_text(encoding="utf-8")
    for needed in ("Ns2MobilityHelper", "AodvHelper", "TcpNewReno", "ns3-result"):
        assert needed in text


def test_result_line_is_parsed():
    out = (
        "ns3-flow 0 tcp 0 5 rx_bytes=1024 goodput_kbps=1.000\n"
        "ns3-result scenario=chain6 nodes=6 events=12 tcp_flows=1 tcp_rx_bytes=1024 "
        "udp_flows=0 udp_tx_packets=0 udp_rx_packets=0 udp_delivery_pct=0.000\n"
    )
    assert ns3.parse_result(out) == {
        "scenario": "chain6",
        "nodes": 6,
        "events": 12,
        "tcp_flows": 1,
        "tcp_rx_bytes": 1024,
        "udp_flows": 0,
        "udp_tx_packets": 0,
        "udp_rx_packets": 0,
        "udp_delivery_pct": 0.0,
    }
    with pytest.raises(RuntimeError, match="no `ns3-result` line"):
        ns3.parse_result("NS EXITING\n")


def test_flow_lines_are_parsed_in_flow_order():
    out = (
        "ns3-flow 1 cbr 2 3 rx_bytes=512 goodput_kbps=0.5\n"
        "ns3-flow 0 tcp 0 5 rx_bytes=1024 goodput_kbps=1.000 segments_sent=9 retransmitted=2 "
        "loss_episodes=1 recovery_episodes=0 rtt_mean_ms=401.374 loss_from_recovery=0 "
        "ack_gap_at_timeout_mean_ms=73.071\n"
        "ns3-result scenario=x nodes=6\n"
    )
    flows = ns3.parse_flows(out)
    assert flows[0] == {
        "kind": "tcp",
        "src": 0,
        "dst": 5,
        "rx_bytes": 1024,
        "goodput_kbps": 1.0,
        "segments_sent": 9,
        "retransmitted": 2,
        "loss_episodes": 1,
        "recovery_episodes": 0,
        "rtt_mean_ms": 401.374,
        "loss_from_recovery": 0,
        "ack_gap_at_timeout_mean_ms": 73.071,
    }
    assert flows[1] == {"kind": "cbr", "src": 2, "dst": 3, "rx_bytes": 512, "goodput_kbps": 0.5}
    assert ns3.parse_flows("NS EXITING\n") == []


def test_chain6_beside_ns3_rows_for_manetsim_and_their_table():
    # The script's manetsim rows need no ns-3: seed 1 of chain6 under
    # ns-2.35's rules and under ns-3's MAC rules (docs/fidelity.md, "chain6
    # beside ns-3": 105.1 against 176.6 kbit/s, 112 against 3 timeouts).
    chain = bench_module("chain6_ns3")
    (_, ns2_rules), (_, ns3_mac), (_, ns3_timer) = chain.MANETSIM_ROWS
    ns2s = chain.ours("ns-2.35's rules", ns2_rules, 1)
    ns3s = chain.ours("ns-3's MAC rules", ns3_mac, 1)
    assert 95.0 < ns2s.goodput_kbps < 115.0, ns2s
    assert ns3s.goodput_kbps > 1.5 * ns2s.goodput_kbps, (ns2s, ns3s)
    assert ns3s.arrived > 1.5 * ns2s.arrived
    assert ns2s.timeouts > 50, ns2s
    assert ns3s.timeouts < 20, ns3s
    assert ns2s.duplicates == 0
    assert ns3s.duplicates == 0
    assert ns3s.link_failures < ns2s.link_failures / 3
    assert ns3_timer["flows.0.tcp.rto_rule"] == "ns3"
    lines = chain.table([(1, ns2s), (1, ns3s)]).splitlines()
    assert len(lines) == 4
    assert all(line.count("|") == 12 for line in lines)
    assert lines[2].startswith("| 1 | ns-2.35's rules | ")
    assert "| - | - |" in lines[2]


# -- with ns-3 installed -----------------------------------------------------------------------


@pytest.mark.real_ns3
@needs_ns3
def test_small_scenario_runs_on_ns3(tmp_path):
    doc = scenario(
        SMALL_CHAIN,
        duration_s=10.0,
        routing={"protocol": "aodv"},
        flows=[
            {**SMALL_CHAIN["flows"][0], "rate_bps": 16384.0, "stop_s": 10.0},
            {"src": 2, "dst": 0, "transport": "tcp", "app": "ftp", "start_s": 1.0},
        ],
    )
    path = write_toml(tmp_path / "small.toml", doc)
    rows = bench.run_bench([str(path)], against="ns3")
    row = rows[0]
    assert row.ns3_cpu_s is not None
    assert row.ns3_cpu_s > 0
    assert row.as_dict()["speedup_ns3_cpu"] > 0
    result = row.ns3_result
    assert result is not None
    assert result["nodes"] == 3
    assert result["tcp_flows"] == 1
    assert result["udp_flows"] == 1
    assert result["tcp_rx_bytes"] > 100_000
    assert result["udp_tx_packets"] == 38  # 0.5 s to 10 s at 4 packets/s
    assert result["udp_rx_packets"] >= 30


@pytest.mark.real_ns3
@needs_ns3
def test_ns3_range_is_ns2s_250_m(tmp_path):
    binary = ns3.build()
    delivered = {}
    for distance in (249.0, 251.0):
        doc = scenario(
            SMALL_CHAIN,
            nodes={"count": 2, "placement": "explicit", "positions": [[0.0, 0.0], [distance, 0.0]]},
            routing={"protocol": "aodv"},
            flows=[{**SMALL_CHAIN["flows"][0], "dst": 1, "rate_bps": 16384.0}],
        )
        folder = tmp_path / str(distance)
        folder.mkdir()
        command = ns3.prepare(doc, folder, binary)
        proc = subprocess.run(command, capture_output=True, text=True, check=True, timeout=120)
        delivered[distance] = ns3.parse_result(proc.stdout)["udp_rx_packets"]
    assert delivered[249.0] == 18  # 0.5 s to 5 s at 4 packets/s, all received
    assert delivered[251.0] == 0


@pytest.mark.real_ns3
@needs_ns3
def test_ns3_counts_the_packets_a_full_interface_queue_turns_away(tmp_path):
    # One hop offered 4 Mb/s of CBR where 2 Mb/s DSSS carries about 1: ns-3
    # turns the excess away at its traffic-control layer once the MAC's
    # 50-packet queue stops the device (8,790 sent = 2,332 received + 6,394
    # turned away + 14 ARP + 50 queued), as manetsim's full queue does
    # (2,359 delivered, 6,382 `queue_full`).
    doc = scenario(
        SMALL_CHAIN,
        duration_s=10.0,
        nodes={"count": 2, "placement": "chain", "spacing_m": 200.0},
        routing={"protocol": "aodv"},
        flows=[{**SMALL_CHAIN["flows"][0], "dst": 1, "rate_bps": 4_000_000.0, "stop_s": 10.0}],
    )
    ours = run(doc, seed=1)
    command = ns3.prepare(doc, tmp_path, ns3.build(), seed=1)
    command.append("--frameCounts=true")
    proc = subprocess.run(command, capture_output=True, text=True, check=True, timeout=120)
    result = ns3.parse_result(proc.stdout)
    source = ns3.parse_frames(proc.stdout)[0]
    turned_away = source["data_mac_queue_full"]
    queue_full = int(ours.drops.set_index("reason")["packets"]["queue_full"])
    assert turned_away == pytest.approx(queue_full, rel=0.05)
    assert result["udp_rx_packets"] == pytest.approx(int(ours.flows["received"][0]), rel=0.05)
    # Every packet sent is received, turned away, lost to ARP or still queued.
    unaccounted = result["udp_tx_packets"] - result["udp_rx_packets"] - turned_away
    assert 0 <= unaccounted - source.get("data_arp", 0) <= 50


def test_frame_lines_are_parsed():
    out = (
        "ns3-node 1 frames_sent=4 frames_received=7 acks_at_1000000_bps=2\n"
        "ns3-node 0 frames_sent=9 frames_received=3\n"
        "ns3-result scenario=pair nodes=2 events=12\n"
    )
    assert ns3.parse_frames(out) == [
        {"frames_sent": 9, "frames_received": 3},
        {"frames_sent": 4, "frames_received": 7, "acks_at_1000000_bps": 2},
    ]
    with pytest.raises(RuntimeError, match="no `ns3-node` line"):
        ns3.parse_frames("ns3-result scenario=pair\n")


def test_the_fading_comparisons_model_is_the_gamma_tail():
    fading = bench_module("fading_ns3")
    for x in (0.1, 0.5, 1.0, 2.5):
        assert fading.gamma_q(1.0, x) == pytest.approx(math.exp(-x), rel=1e-12)
        assert fading.gamma_q(3.0, x) == pytest.approx(
            (1 + x + x * x / 2) * math.exp(-x), rel=1e-12
        )
    # Where two-ray ground's mean power is twice the threshold, e^-0.5.
    distance = fading.TWICE_THRESHOLD_M
    doc = fading.scenario(distance)
    rayleigh = fading.expected(doc, {"radio.fading": "rayleigh"}, distance, 1.0)
    assert rayleigh == pytest.approx(math.exp(-0.5), abs=2e-3)
    # manetsim alone (no ns-3 binary): its fractions match the model.
    ours, theirs = fading.measure("rayleigh", distance, {}, 1, None)
    assert theirs is None
    forward, backward, delivered = ours.fractions()
    assert forward == pytest.approx(rayleigh, abs=0.03)
    assert backward == pytest.approx(rayleigh, abs=0.03)
    assert delivered > 0.8


@pytest.mark.real_ns3
@needs_ns3
def test_ns3s_shadowing_draws_frames_as_manetsim_does():
    # ns-2's defaults (β = 2, 4 dB) at 600 m: 66 % of frames drawn over the
    # receive threshold in the model, both simulators within 0.03.
    fading = bench_module("fading_ns3")
    binary = ns3.build()
    extra = fading.shadowing_overrides(2.0, 4.0)
    want = fading.expected_shadowing(fading.scenario(600.0), extra, 600.0)
    assert want == pytest.approx(0.6596, abs=1e-4)
    ours, theirs = fading.measure("none", 600.0, extra, 2, binary)
    assert theirs is not None
    for got in (*ours.fractions()[:2], *theirs.fractions()[:2]):
        assert got == pytest.approx(want, abs=0.03)


def test_a_doppler_frequency_is_ns3s_jakes_model(tmp_path):
    path = bench.reference_path("rwp50")
    overrides = ["radio.fading=rayleigh", "radio.fading_doppler_hz=20"]
    command = ns3.prepare(path, tmp_path, "bench", overrides=overrides)
    args = _program_args(command)
    assert args["jakesDopplerHz"] == "20.0"
    assert "nakagami" not in args


@pytest.mark.real_ns3
@needs_ns3
def test_ns3s_jakes_model_correlates_a_links_fades_as_manetsims_does():
    # Rayleigh fading at 20 Hz where the mean power is twice the threshold:
    # an ACK, sent a data frame's length after a frame that got through,
    # gets through 93 % of the time in both (0.9337 and 0.9346 over ten
    # seeds), against 61 % if each frame faded afresh.
    fading = bench_module("fading_ns3")
    binary = ns3.build()
    distance = fading.TWICE_THRESHOLD_M
    ours, theirs = fading.measure(
        "rayleigh", distance, {"radio.fading_doppler_hz": 20.0}, 2, binary
    )
    assert theirs is not None
    ack_ours, ack_theirs = ours.fractions()[1], theirs.fractions()[1]
    assert 0.9 < ack_ours < 0.96, ack_ours
    assert ack_theirs == pytest.approx(ack_ours, abs=0.02)


@pytest.mark.real_ns3
@needs_ns3
def test_ns3s_aodv_source_sends_into_a_slow_fade_as_a_static_route_does():
    # At 2 Hz a fade outlasts the MAC's retries. ns-3's AODV without HELLOs
    # never takes a source's route down when its MAC gives a packet up, so
    # it loses what manetsim loses over a static route (0.698 and 0.704
    # delivered over five seeds, 1,821 and 1,802 packets given up), where
    # manetsim's AODV rediscovers, holds the packets and delivers 0.97.
    fading = bench_module("fading_ns3")
    binary = ns3.build()
    distance = fading.TWICE_THRESHOLD_M
    extra = {"radio.fading_doppler_hz": 2.0}
    aodv, theirs = fading.measure("rayleigh", distance, extra, 2, binary)
    static, _ = fading.measure("rayleigh", distance, extra, 2, None, routing="static")
    assert theirs is not None
    assert static.given_up > 500, static.given_up
    assert theirs.given_up == pytest.approx(static.given_up, rel=0.1)
    assert theirs.fractions()[2] == pytest.approx(static.fractions()[2], abs=0.04)
    assert aodv.fractions()[2] > static.fractions()[2] + 0.15
    assert theirs.arp_dropped < 50, theirs.arp_dropped


@pytest.mark.real_ns3
@needs_ns3
def test_ns3s_nakagami_model_fades_frames_as_manetsim_does():
    fading = bench_module("fading_ns3")
    binary = ns3.build()
    distance = fading.TWICE_THRESHOLD_M
    doc = fading.scenario(distance)
    for kind, m in (("rayleigh", 1.0), ("nakagami", 0.75)):
        want = fading.expected(doc, {"radio.fading": kind}, distance, m)
        ours, theirs = fading.measure(kind, distance, {}, 2, binary)
        assert theirs is not None
        for got in (*ours.fractions()[:2], *theirs.fractions()[:2]):
            assert got == pytest.approx(want, abs=0.03), kind


@pytest.mark.real_ns3
@needs_ns3
def test_ns3s_dbpsk_loses_frames_where_manetsims_does():
    # 1 Mb/s DBPSK, the same textbook formula in both: at 250 m half the
    # frames fail in manetsim and a quarter in ns-3, which computes the
    # noise as if 0.4 dB lower (docs/fidelity.md, "Bit errors beside ns-3").
    awgn = bench_module("awgn_ns3")
    fading = bench_module("fading_ns3")
    binary = ns3.build()
    ours, theirs = fading.measure("none", 250.0, awgn.overrides("802.11b", 1_000_000), 1, binary)
    assert theirs is not None
    a, b = ours.fractions()[0], theirs.fractions()[0]
    assert 0.4 < a < 0.65, a
    assert 0.6 < b < 0.9, b
    assert a < b


@pytest.mark.real_ns3
@needs_ns3
def test_ns3_counts_frames_too_weak_to_sense_as_manetsim_does():
    # A pair out of carrier-sense range, 4 dB below the sender at its
    # receiver: with interference_threshold_w (ns-3's RxSensitivity) about
    # 7.6 % of the sender's frames are lost in both, none without.
    awgn = bench_module("awgn_ns3")
    binary = ns3.build()
    for floor in (False, True):
        doc, extra = awgn.faint_pair(floor)
        ours = awgn.decoded_in(doc, extra, None, "")
        theirs = awgn.decoded_in(doc, extra, binary, "ns3::YansErrorRateModel")
        if floor:
            assert 0.90 < ours < 0.95, ours
            assert theirs == pytest.approx(ours, abs=0.015)
        else:
            assert ours == theirs == 1.0


@pytest.mark.real_ns3
@needs_ns3
def test_ns3s_rate_controls_carry_what_manetsims_do_where_every_rate_is_clean():
    # A saturated 802.11a pair 100 m apart: ARF and Minstrel climb to 54
    # Mb/s in both simulators (24.47 and 24.23 Mb/s against ns-3's 24.44
    # and 24.17).
    awgn = bench_module("awgn_ns3")
    binary = ns3.build()
    doc = awgn.saturated_pair(100.0)
    for kind in ("arf", "minstrel"):
        extra = {
            **awgn.overrides("802.11a", 54_000_000),
            "radio.tx_power_w": 0.1,
            "mac.rate_control": kind,
            "mac.response_rate": "standard",
        }
        ours = int(run(doc, seed=1, overrides=extra).flows["received"][0])
        with tempfile.TemporaryDirectory() as folder:
            command = ns3.prepare(doc, Path(folder), binary, overrides=extra, seed=1)
            proc = subprocess.run(command, capture_output=True, text=True, check=True)
        theirs = int(ns3.parse_result(proc.stdout)["udp_rx_packets"])
        assert ours * 8000 / 10.0 > 24e6, kind
        assert theirs == pytest.approx(ours, rel=0.01), kind


@pytest.mark.real_ns3
@needs_ns3
def test_ns3_answers_at_the_basic_rate_or_the_standards_as_manetsim_does():
    # A saturated 802.11a pair 100 m apart at a constant rate, with the
    # 8 bytes of LLC/SNAP ns-3 sends: at 54 Mb/s the ACK goes at 6 Mb/s
    # (23.40 Mb/s against ns-3's 23.37) or at 24 (24.55 against 24.52);
    # at 36 Mb/s the frame's size decides one symbol.
    awgn = bench_module("awgn_ns3")
    binary = ns3.build()
    doc = awgn.saturated_pair(100.0)
    got = {}
    for rate_bps in (54_000_000, 36_000_000):
        for response in ("basic", "standard"):
            extra = {
                **awgn.overrides("802.11a", rate_bps),
                "radio.tx_power_w": 0.1,
                "mac.frames": "llc_snap",
                "mac.response_rate": response,
            }
            ours = int(run(doc, seed=1, overrides=extra).flows["received"][0])
            with tempfile.TemporaryDirectory() as folder:
                command = ns3.prepare(doc, Path(folder), binary, overrides=extra, seed=1)
                command.append("--frameCounts=true")
                proc = subprocess.run(command, capture_output=True, text=True, check=True)
            theirs = int(ns3.parse_result(proc.stdout)["udp_rx_packets"])
            assert theirs == pytest.approx(ours, rel=0.005), (rate_bps, response)
            got[rate_bps, response] = ours
            # Every ACK the receiver sent, at the one rate the rule gives.
            acks = {k: v for k, v in ns3.parse_frames(proc.stdout)[1].items() if "acks" in k}
            want = 6_000_000 if response == "basic" else 24_000_000
            assert list(acks) == [f"acks_at_{want}_bps"], (rate_bps, response, acks)
            assert acks[f"acks_at_{want}_bps"] >= theirs
    # The ACK at 24 Mb/s rather than 6 saves 16 µs an exchange.
    assert got[54_000_000, "standard"] > got[54_000_000, "basic"] * 1.04


def test_802_11g_is_ns3s_erp_standard_at_a_constant_rate(tmp_path):
    mac = {"standard": "802.11g", "data_rate_bps": 54_000_000, "basic_rate_bps": 1_000_000}
    doc = scenario(SMALL_CHAIN, routing={"protocol": "aodv"}, mac=mac)
    command = ns3.prepare(doc, tmp_path, "bench")
    args = _program_args(command)
    assert (args["standard"], args["dataRateBps"], args["basicRateBps"]) == (
        "80211g",
        "54000000",
        "1000000",
    )
    # An ERP-OFDM basic rate above HR/DSSS data: ns-3 would answer the data
    # at a mandatory DSSS rate, not at 6 Mb/s.
    doc["mac"].update(data_rate_bps=5_500_000, basic_rate_bps=6_000_000)
    with pytest.raises(ns3.Ns3Error) as err:
        ns3.check_expressible(load_config(doc))
    assert err.value.key == "mac.basic_rate_bps"


@pytest.mark.real_ns3
@needs_ns3
def test_ns3s_802_11g_carries_what_manetsims_does():
    # A saturated 802.11g pair 100 m apart: ERP-OFDM at 54 Mb/s answered
    # in ERP-OFDM or at 1 Mb/s DSSS, and HR/DSSS at 11 Mb/s (17.94, 11.44
    # and 5.80 Mb/s against ns-3's 17.92, 11.42 and 5.79); and 54 Mb/s with
    # the short slot, which the program gives ns-3's PHY (23.40 against
    # 23.37).
    awgn = bench_module("awgn_ns3")
    binary = ns3.build()
    doc = awgn.saturated_pair(100.0)
    for rate_bps, basic_bps, response, ack_bps, slot in (
        (54_000_000, 6_000_000, "basic", 6_000_000, "long"),
        (54_000_000, 1_000_000, "basic", 1_000_000, "long"),
        (11_000_000, 1_000_000, "standard", 11_000_000, "long"),
        (54_000_000, 6_000_000, "basic", 6_000_000, "short"),
    ):
        extra = {**awgn.erp_overrides(rate_bps, basic_bps, response), "mac.slot": slot}
        ours = int(run(doc, seed=1, overrides=extra).flows["received"][0])
        with tempfile.TemporaryDirectory() as folder:
            command = ns3.prepare(doc, Path(folder), binary, overrides=extra, seed=1)
            command.append("--frameCounts=true")
            proc = subprocess.run(command, capture_output=True, text=True, check=True)
        theirs = int(ns3.parse_result(proc.stdout)["udp_rx_packets"])
        assert theirs == pytest.approx(ours, rel=0.005), (rate_bps, basic_bps, response, slot)
        acks = [k for k in ns3.parse_frames(proc.stdout)[1] if k.startswith("acks_at_")]
        assert acks == [f"acks_at_{ack_bps}_bps"], (rate_bps, response, acks)


def test_the_tcp_variant_reaches_the_program_and_mixed_variants_are_refused(tmp_path):
    cubic = {"src": 0, "dst": 2, "transport": "tcp", "app": "ftp", "start_s": 1.0}
    cubic["tcp"] = {"variant": "cubic"}
    doc = scenario(SMALL_CHAIN, routing={"protocol": "aodv"}, flows=[cubic])
    args = _program_args(ns3.prepare(doc, tmp_path))
    assert args["tcpVariant"] == "cubic"
    newreno = {**cubic, "src": 2, "dst": 0, "tcp": {"variant": "newreno"}}
    mixed = scenario(SMALL_CHAIN, routing={"protocol": "aodv"}, flows=[cubic, newreno])
    with pytest.raises(ns3.Ns3Error) as err:
        ns3.check_expressible(load_config(mixed))
    assert err.value.key == "flows.tcp.variant"


def test_the_tcp_window_is_advertised_by_ns3s_receiver_or_refused(tmp_path):
    flow = {"src": 0, "dst": 2, "transport": "tcp", "app": "ftp", "start_s": 1.0}

    def chain(*flows: dict) -> dict:
        return scenario(SMALL_CHAIN, routing={"protocol": "aodv"}, flows=list(flows))

    # Up to 65,535 bytes without window scaling; 256 segments of 512 bytes
    # are ns-3's whole 128 KiB receive buffer, its default: no argument.
    for window, given in ((20, "10240"), (127, "65024"), (256, None)):
        doc = chain({**flow, "tcp": {"window_packets": window}})
        args = _program_args(ns3.prepare(doc, tmp_path))
        assert args.get("tcpWindowBytes") == given, window
    for flows, key in (
        ([{**flow, "tcp": {"window_packets": 128}}], "flows.0.tcp.window_packets"),
        ([{**flow, "tcp": {"window_packets": 1000}}], "flows.0.tcp.window_packets"),
        (
            [
                {**flow, "tcp": {"window_packets": 20}},
                {**flow, "src": 2, "dst": 0, "tcp": {"window_packets": 30}},
            ],
            "flows.tcp.window_packets",
        ),
    ):
        with pytest.raises(ns3.Ns3Error) as err:
            ns3.check_expressible(load_config(chain(*flows)))
        assert err.value.key == key


@pytest.mark.real_ns3
@needs_ns3
def test_ns3_mirrors_the_tcp_window_from_ns_3_44(tmp_path):
    # chain6 (window 20): ns-3.44 advertises 10,240 bytes and carried
    # 7,057,920 bytes with it (5,592,576 with its 128 KiB buffer, losing
    # what overflowed the source's 50-packet queue); ns-3.37, which crashes
    # with the window capped, keeps its buffer and says so.
    doc = bench.reference_path("chain6")
    command = ns3.prepare(doc, tmp_path, ns3.build(), overrides={"duration_s": 60.0})
    proc = subprocess.run(command, capture_output=True, text=True, check=True, timeout=300)
    result = ns3.parse_result(proc.stdout)
    mirrored = ns3.minor_version(ns3.installation().version) >= 44
    assert result["tcp_window_bytes"] == (10240 if mirrored else 0)
    assert result["tcp_rx_bytes"] > 500_000


def test_hystart_reaches_the_program_with_cubic_only_and_frto_is_refused(tmp_path):
    cubic = {"src": 0, "dst": 2, "transport": "tcp", "app": "ftp", "start_s": 1.0}
    cubic["tcp"] = {"variant": "cubic", "slow_start": "hystart"}

    def chain(*flows: dict) -> dict:
        return scenario(SMALL_CHAIN, routing={"protocol": "aodv"}, flows=list(flows))

    doc = chain(cubic)
    args = _program_args(ns3.prepare(doc, tmp_path))
    assert args["hystart"] == "true"
    standard = {**cubic, "tcp": {"variant": "cubic"}}
    args = _program_args(ns3.prepare(chain(standard), tmp_path))
    assert "hystart" not in args
    for tcp, key in (
        ({"variant": "newreno", "slow_start": "hystart"}, "flows.0.tcp.slow_start"),
        ({"variant": "cubic", "slow_start": "hystart++"}, "flows.0.tcp.slow_start"),
        ({"variant": "newreno", "frto": True}, "flows.0.tcp.frto"),
    ):
        with pytest.raises(ns3.Ns3Error) as err:
            ns3.check_expressible(load_config(chain({**cubic, "tcp": tcp})))
        assert err.value.key == key
    mixed = chain(cubic, {**standard, "src": 2, "dst": 0})
    with pytest.raises(ns3.Ns3Error) as err:
        ns3.check_expressible(load_config(mixed))
    assert err.value.key == "flows.tcp.slow_start"


@pytest.mark.real_ns3
@needs_ns3
def test_ns3s_cubic_with_hystart_carries_what_manetsims_does_over_three_hops(tmp_path):
    # The chain below with HyStart on both sides (ns-3's delay bound set to
    # Linux's 16 ms), seed 1: manetsim 161.6 kbit/s, ns-3.44 185.6 (0.87).
    # Without it, 163.2 and 169.3.
    doc = _cubic_chain(slow_start="hystart")
    _assert_goodput_within_a_fifth_of_ns3s(doc, tmp_path)


def _assert_goodput_within_a_fifth_of_ns3s(doc: dict, folder: Path) -> None:
    """The first flow's goodput in manetsim within 20 % of ns-3's, over the
    59 s after its start."""
    ours = run(doc).flows.iloc[0]
    command = ns3.prepare(doc, folder, ns3.build())
    proc = subprocess.run(command, capture_output=True, text=True, check=True, timeout=300)
    theirs_kbps = ns3.parse_result(proc.stdout)["tcp_rx_bytes"] * 8 / 59.0 / 1000.0
    assert theirs_kbps > 50.0
    assert float(ours["goodput_kbps"]) == pytest.approx(theirs_kbps, rel=0.2)


def _cubic_chain(**tcp: object) -> dict:
    """A bulk CUBIC transfer over a static 3-hop chain over AODV for 60 s,
    manetsim's window as large as ns-3's 128 KiB receive buffer (256
    segments of 512 bytes)."""
    return scenario(
        SMALL_CHAIN,
        duration_s=60.0,
        nodes={"count": 4, "placement": "chain", "spacing_m": 200.0},
        area={"width_m": 601.0, "height_m": 10.0},
        routing={"protocol": "aodv"},
        flows=[
            {
                "src": 0,
                "dst": 3,
                "transport": "tcp",
                "app": "ftp",
                "start_s": 1.0,
                "tcp": {"variant": "cubic", "window_packets": 256, **tcp},
            }
        ],
    )


@pytest.mark.real_ns3
@needs_ns3
def test_ns3s_cubic_carries_what_manetsims_does_over_three_hops(tmp_path):
    # A bulk CUBIC transfer over a static 3-hop chain for 60 s, both without
    # HyStart, manetsim's window as large as ns-3's 128 KiB receive buffer
    # (256 segments of 512 bytes; at ns-2's 20 the window caps CUBIC and
    # NewReno alike, with no loss): manetsim 163.2 kbit/s, ns-3.44's
    # TcpCubic 169.3 (0.96), ns-3.37's 171.3.
    doc = _cubic_chain()
    _assert_goodput_within_a_fifth_of_ns3s(doc, tmp_path)


def test_cbr_and_on_off_into_tcp_reach_the_flows_file(tmp_path):
    bursts = {**ONOFF_PAIR["flows"][0], "transport": "tcp"}
    steady = {**bursts, "app": "cbr", "rate_bps": 16384.0, "onoff": None}
    doc = {**ONOFF_PAIR, "flows": [bursts, steady]}
    args = _program_args(ns3.prepare(doc, tmp_path))
    rows = _flow_rows(args)
    assert rows == [
        [
            "tcponoff",
            "0",
            "1",
            "1.0",
            "200.0",
            "512",
            "64000.0",
            "1.0",
            "3.0",
            "exponential",
            "1.5",
        ],
        ["tcpcbr", "0", "1", "1.0", "200.0", "512", "16384.0"],
    ]


@pytest.mark.real_ns3
@needs_ns3
def test_ns3s_tcp_on_off_and_cbr_sources_deliver_what_manetsims_do():
    # Over one hop of 100 m, five seeds of 199 s: an on-off source (64
    # kbit/s in bursts of 1 s every 4 s, exponential) and a 16 kbit/s CBR
    # source, each feeding a TCP connection that keeps up. Expected: 3,887
    # packets on-off, 3,980 CBR (4 a second).
    binary = ns3.build()
    bursts = {**ONOFF_PAIR["flows"][0], "transport": "tcp"}
    steady = {**bursts, "app": "cbr", "rate_bps": 16384.0, "onoff": None}
    for flow, expected in ((bursts, 3887), (steady, 3980)):
        doc = {**ONOFF_PAIR, "flows": [flow]}
        ours = theirs = 0
        for seed in range(1, 6):
            ours += int(run(doc, seed=seed).flows.iloc[0]["received"])
            with tempfile.TemporaryDirectory() as folder:
                command = ns3.prepare(doc, Path(folder), binary, seed=seed)
                out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
            theirs += ns3.parse_result(out)["tcp_rx_bytes"] // 512
        assert ours == pytest.approx(expected, rel=0.08), flow["app"]
        assert theirs == pytest.approx(expected, rel=0.08), flow["app"]


@pytest.mark.real_ns3
@needs_ns3
def test_ns3s_rules_carry_over_a_chain_what_ns3_carries(tmp_path):
    # A TCP flow over four hops, 200 m apart, for 60 s, bit errors on.
    # Under ns-3's reception and MAC rules manetsim's sink receives about
    # the segments ns-3's does (docs/fidelity.md, "chain6 beside ns-3");
    # under ns-2.35's far fewer: a node sensing a hidden sender's frame
    # loses the RTS that arrives meanwhile, and stays silent. ns-3.44
    # 3,098 segments (3,060 with its own limited transmit on), manetsim
    # 2,787 and 1,626 (seed 1).
    doc = scenario(
        SMALL_CHAIN,
        duration_s=60.0,
        nodes={"count": 5, "placement": "chain", "spacing_m": 200.0},
        area={"width_m": 1000.0, "height_m": 200.0},
        radio={"error_model": "awgn"},
        routing={"protocol": "aodv"},
        flows=[
            {
                "src": 0,
                "dst": 4,
                "transport": "tcp",
                "app": "ftp",
                "start_s": 1.0,
                "packet_size_bytes": 512,
                "tcp": {"variant": "newreno", "handshake": False},
            }
        ],
    )
    ns3_rules = {
        "radio.capture_rule": "sinr",
        "mac.cts_rule": "standard",
        "mac.eifs_rule": "standard",
        "mac.nav_reset": "true",
    }
    theirs_rules = run(doc, seed=1, overrides=ns3_rules)
    ns2_rules = run(doc, seed=1)
    command = ns3.prepare(doc, tmp_path, ns3.build(), seed=1)
    command.append("--frameCounts=true")
    proc = subprocess.run(command, capture_output=True, text=True, check=True, timeout=300)
    if ns3.parse_result(proc.stdout)["tcp_window_bytes"] == 0:
        # ns-3.37 keeps its 128 KiB window (docs/fidelity.md): not like
        # with like (it delivered 2,352 segments here).
        pytest.skip("this ns-3 cannot give its receiver ns-2's window")
    arrived = ns3.parse_frames(proc.stdout)[4]["ip_data_delivered"]
    ours = int(theirs_rules.flows["received"][0])
    ours_ns2 = int(ns2_rules.flows["received"][0])
    print(f"segments at the sink: ns-3 {arrived}, ns-3's rules {ours}, ns-2.35's {ours_ns2}")
    assert ours == pytest.approx(arrived, rel=0.15)
    assert ours_ns2 < 0.8 * arrived


@pytest.mark.real_ns3
@needs_ns3
def test_ns3s_chain6_timeouts_strike_in_its_fast_recoveries():
    # benches/chain6_ns3.py's ns-3 row, seed 1: ns-3.44's sink receives
    # about the segments manetsim's does under ns-3's MAC rules, but a
    # fifth of them are duplicates, and nearly every timeout struck in a
    # fast recovery (docs/fidelity.md, "chain6 beside ns-3": 15,733
    # against 15,477 segments, 3,111 duplicates, 68 of 71 timeouts).
    if ns3.minor_version(ns3.installation().version) < 44:
        pytest.skip("this ns-3 cannot give its receiver ns-2's window")
    chain = bench_module("chain6_ns3")
    as_the_scenario_says = dict(chain.NS3_ROWS)["ns-3"]
    label, ns3_mac = chain.MANETSIM_ROWS[1]
    theirs = chain.theirs("ns-3", as_the_scenario_says, 1, ns3.build())
    ours = chain.ours(label, ns3_mac, 1)
    print(theirs, ours)
    assert theirs.arrived == pytest.approx(ours.arrived, rel=0.1)
    assert theirs.duplicates > 0.05 * theirs.arrived
    assert theirs.timeouts > 3 * ours.timeouts
    assert theirs.in_recovery is not None
    assert theirs.in_recovery >= 0.8 * theirs.timeouts
    assert theirs.recoveries is not None
    assert theirs.recoveries > theirs.timeouts
