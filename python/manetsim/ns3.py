"""ns-3: the benchmark's equivalent ns-3 program, built and run on demand.

The program is kept in the source tree as ``benches/ns3/manetsim_bench.cc``.
:func:`build` compiles it with ``g++`` against an installed ns-3 into a cache
folder keyed by a hash of the source and the build flags, so it is compiled
once. Which ns-3 (:func:`installation`), first found first:

1. the install prefix in ``$MANETSIM_NS3_PREFIX`` (``include/ns3/`` and
   ``lib64/`` or ``lib/`` holding ``libns3.<version>-core.so``);
2. PyPI's ``ns3`` package, which carries ns-3's headers and libraries
   (``pip install --no-deps ns3==3.44.post0`` gives ns-3.44, the version
   issue 8's speed goal names; ``--no-deps`` skips its Python bindings'
   cppyy, which the program does not use);
3. Debian's ``libns3-dev`` (ns-3.37), found through ``pkg-config``.
:func:`prepare` writes what the program reads for one scenario (manetsim's
movements as an ns-2 movement file, which ns-3 loads with its
``Ns2MobilityHelper``, and one line per flow) and returns its command line.
What the program cannot express is refused with an :class:`Ns3Error` naming
the key and the reason, never run approximately.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from manetsim.run import load_config, movements_ns2

if TYPE_CHECKING:
    from collections.abc import Mapping

    from manetsim.run import Overrides, ScenarioLike

__all__ = [
    "INSTALL_HINT",
    "Ns3Error",
    "build",
    "check_expressible",
    "installation",
    "parse_frames",
    "parse_result",
    "prepare",
    "source_path",
]

INSTALL_HINT = (
    "ns-3 is not installed: apt-get update && apt-get install -y libns3-dev g++ pkg-config "
    "(Debian's ns-3.37), or pip install --no-deps ns3==3.44.post0 (ns-3.44, with g++); "
    "`--against ns3` compiles benches/ns3/manetsim_bench.cc against it"
)

# The pkg-config modules the program links (Debian names them ns3-<module>).
PKG_MODULES = (
    "ns3-core",
    "ns3-network",
    "ns3-internet",
    "ns3-mobility",
    "ns3-propagation",
    "ns3-wifi",
    "ns3-aodv",
    "ns3-applications",
    "ns3-traffic-control",
)

SOURCE_ENV = "MANETSIM_NS3_SOURCE"
PREFIX_ENV = "MANETSIM_NS3_PREFIX"
_SOURCE = Path("benches") / "ns3" / "manetsim_bench.cc"

# 802.11b DSSS rates the program maps to ns-3's DsssRate modes.
DSSS_RATES = (1_000_000, 2_000_000, 5_500_000, 11_000_000)
# 802.11a OFDM rates, ns-3's OfdmRate modes.
OFDM_RATES = tuple(r * 1_000_000 for r in (6, 9, 12, 18, 24, 36, 48, 54))
# The mandatory rates ns-3 answers among: 802.11a's 6, 12 and 24 Mb/s, and
# every 802.11b rate; 802.11g has both.
OFDM_MANDATORY_RATES = (6_000_000, 12_000_000, 24_000_000)
# manetsim's standards and propagation models, as the program names them.
STANDARDS = {"802.11": "80211b", "802.11b": "80211b", "802.11a": "80211a", "802.11g": "80211g"}
PROPAGATION = {
    "two_ray_ground": "twoRayGround",
    "free_space": "freeSpace",
    "shadowing": "shadowing",
}
# manetsim's rate controls, each ns-3's manager of the same name.
RATE_CONTROL = ("constant", "arf", "aarf", "minstrel")


class Ns3Error(ValueError):
    """The scenario uses something the ns-3 program does not express."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"cannot run on ns-3: key `{key}`: {message}")
        self.key = key


# -- the program and its build ------------------------------------------------------


def source_path() -> Path:
    """The ns-3 program's source.

    ``$MANETSIM_NS3_SOURCE`` when set; else the source tree's
    ``benches/ns3/manetsim_bench.cc``, found beside the package (a source
    checkout or an editable install) or under the working folder (an installed
    package run from a checkout, as CI does).
    """
    env = os.environ.get(SOURCE_ENV)
    if env:
        path = Path(env)
        if not path.is_file():
            raise FileNotFoundError(f"${SOURCE_ENV} names no file: {path}")
        return path
    candidates = [Path(__file__).resolve().parents[2] / _SOURCE, Path.cwd() / _SOURCE]
    for path in candidates:
        if path.is_file():
            return path
    raise FileNotFoundError(
        f"the ns-3 program ({_SOURCE}) is not found: run from a manetsim source checkout "
        f"or set {SOURCE_ENV} to the file"
    )


def cache_dir() -> Path:
    """Where compiled programs are kept (``$XDG_CACHE_HOME/manetsim/ns3``)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "manetsim" / "ns3"


def compiler() -> str:
    return os.environ.get("CXX", "g++")


def check_installed() -> None:
    """Raises ``FileNotFoundError`` with the install hint when ns-3 cannot be built."""
    missing = [tool for tool in (compiler(), "pkg-config") if shutil.which(tool) is None]
    if missing:
        raise FileNotFoundError(f"{INSTALL_HINT} [missing: {', '.join(missing)}]")
    proc = subprocess.run(
        ["pkg-config", "--exists", *PKG_MODULES], capture_output=True, text=True, check=False
    )
    if proc.returncode != 0:
        raise FileNotFoundError(f"{INSTALL_HINT} [pkg-config finds no {' '.join(PKG_MODULES)}]")


def clean_flags(text: str) -> list[str]:
    """pkg-config's output as compiler arguments, minus what would break the build.

    Debian's ns-3.37 ``.pc`` files carry a stray ``-I/usr\\;`` and name static
    libraries (``libgsl.so``, ...) by path that only their ``-dev`` packages
    install; the ns-3 shared libraries link those themselves.
    """
    flags: list[str] = []
    for token in text.split():
        if "\\" in token or ";" in token:
            continue
        if token.startswith("/") and not Path(token).exists():
            continue
        if token.startswith("-l") and token in flags:
            continue
        flags.append(token)
    return flags


def build_flags() -> list[str]:
    proc = subprocess.run(
        ["pkg-config", "--cflags", "--libs", *PKG_MODULES],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise FileNotFoundError(f"{INSTALL_HINT} [{proc.stderr.strip()}]")
    return clean_flags(proc.stdout)


def pkg_config_version() -> str:
    """The version pkg-config gives for ``ns3-core`` (Debian's: 3.37), or "unknown"."""
    proc = subprocess.run(
        ["pkg-config", "--modversion", "ns3-core"], capture_output=True, text=True, check=False
    )
    return proc.stdout.strip() if proc.returncode == 0 and proc.stdout.strip() else "unknown"


@dataclass(frozen=True)
class Installation:
    """An ns-3 to compile the program against."""

    #: ns-3's version, e.g. ``"3.44"``.
    version: str
    #: Where it was found, for messages.
    origin: str
    #: Compiler and linker arguments (after the source file).
    flags: tuple[str, ...]
    #: The C++ standard it needs (ns-3.44's headers need C++20).
    std: str


# ns-3.44's core library is libns3.44-core.so: "ns" and the version.
_CORE_LIB = re.compile(r"libns(\d+(?:\.\d+)*)-core\.so")
# The macros ns-3's CMake export gives every user of its libraries, which
# change what its headers compile to (logging, asserts, the build profile).
_DEFINES = re.compile(r"\b(NS3_BUILD_PROFILE_[A-Z]+|NS3_LOG_ENABLE|NS3_ASSERT_ENABLE)\b")


def prefix_installation(prefix: Path, origin: str) -> Installation:
    """The ns-3 installed under ``prefix`` (``include/ns3``, ``lib64`` or ``lib``).

    Raises ``FileNotFoundError`` naming ``origin`` and what is missing.
    """
    include = prefix / "include"
    if not (include / "ns3" / "core-module.h").is_file():
        raise FileNotFoundError(f"{origin}: no ns-3 headers ({include / 'ns3' / 'core-module.h'})")
    for libdir in (prefix / "lib64", prefix / "lib"):
        cores = sorted(p for p in libdir.glob("libns3.*-core.so") if _CORE_LIB.fullmatch(p.name))
        if cores:
            break
    else:
        raise FileNotFoundError(f"{origin}: no ns-3 libraries (libns3.*-core.so) in lib64/ or lib/")
    match = _CORE_LIB.fullmatch(cores[-1].name)
    assert match is not None
    version = match.group(1)
    libs = []
    for module in PKG_MODULES:
        name = f"ns{version}-{module.removeprefix('ns3-')}"
        if not (libdir / f"lib{name}.so").is_file():
            raise FileNotFoundError(f"{origin}: lib{name}.so is missing from {libdir}")
        libs.append(f"-l{name}")
    defines: list[str] = []
    targets = libdir / "cmake" / "ns3" / "ns3Targets.cmake"
    if targets.is_file():
        for line in targets.read_text(encoding="utf-8", errors="replace").splitlines():
            if "INTERFACE_COMPILE_DEFINITIONS" in line:
                defines = [f"-D{m}" for m in dict.fromkeys(_DEFINES.findall(line))]
                break
    flags = (*defines, f"-I{include}", f"-L{libdir}", f"-Wl,-rpath,{libdir}", *libs)
    return Installation(version=version, origin=origin, flags=flags, std="c++20")


def pypi_prefix() -> Path | None:
    """The ns-3 tree inside PyPI's ``ns3`` package, when it is installed."""
    try:
        dist = importlib.metadata.distribution("ns3")
    except importlib.metadata.PackageNotFoundError:
        return None
    root = Path(str(dist.locate_file("ns3")))
    return root if (root / "include" / "ns3").is_dir() else None


def installation() -> Installation:
    """The ns-3 the program is built against (see the module's documentation).

    Raises ``FileNotFoundError`` with the install hint when there is none, or
    when the compiler is missing.
    """
    env = os.environ.get(PREFIX_ENV)
    pypi = None if env else pypi_prefix()
    if env or pypi is not None:
        if shutil.which(compiler()) is None:
            raise FileNotFoundError(f"{INSTALL_HINT} [missing: {compiler()}]")
        if env:
            return prefix_installation(Path(env), f"${PREFIX_ENV}={env}")
        assert pypi is not None
        return prefix_installation(pypi, f"PyPI's ns3 package ({pypi})")
    check_installed()
    return Installation(
        version=pkg_config_version(),
        origin="pkg-config",
        flags=tuple(build_flags()),
        std="c++17",
    )


def minor_version(version: str) -> int:
    """ns-3's minor version: 44 for ``"3.44"``, 0 when it cannot be read."""
    match = re.match(r"3\.(\d+)", version)
    return int(match.group(1)) if match else 0


# The largest window ns-3's receiver advertises without window scaling, and
# its default receive buffer (the window with it).
MAX_UNSCALED_WINDOW_BYTES = 65_535
DEFAULT_RECEIVE_BUFFER_BYTES = 131_072


def tcp_window_bytes(tcp: Mapping[str, Any], size_bytes: int) -> int:
    """The bytes ns-3's receiver may advertise for a window of
    ``window_packets`` segments of ``size_bytes``."""
    return int(tcp["window_packets"]) * size_bytes


def build(cache: Path | None = None, install: Installation | None = None) -> Path:
    """Compiles the ns-3 program if it is not cached yet; returns the executable.

    ``install`` is the ns-3 to build against (default: :func:`installation`).
    """
    found = install or installation()
    source = source_path()
    # The program mirrors some settings only from the ns-3 version known to
    # run them (TCP's window: ns-3.37 crashes in TcpRateLinux::SkbSent).
    flags = [f"-DMANETSIM_NS3_MINOR={minor_version(found.version)}", *found.flags]
    cxx = compiler()
    key = hashlib.sha256()
    key.update(source.read_bytes())
    key.update("\0".join([cxx, found.std, *flags]).encode())
    folder = cache or cache_dir()
    binary = folder / f"manetsim_bench-{key.hexdigest()[:16]}"
    if binary.is_file() and os.access(binary, os.X_OK):
        return binary
    folder.mkdir(parents=True, exist_ok=True)
    fd, partial = tempfile.mkstemp(prefix=binary.name + ".", dir=folder)
    os.close(fd)
    command = [cxx, "-O2", f"-std={found.std}", "-o", partial, str(source), *flags]
    proc = subprocess.run(command, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        Path(partial).unlink(missing_ok=True)
        tail = proc.stderr.strip().splitlines()[-5:]
        raise RuntimeError(
            f"compiling {source} against ns-3 {found.version} ({found.origin}) failed: "
            f"{' | '.join(tail)}"
        )
    Path(partial).chmod(0o755)
    Path(partial).replace(binary)
    return binary


# -- one scenario ----------------------------------------------------------------------


def check_expressible(c: Mapping[str, Any]) -> None:
    """Raises :class:`Ns3Error` for what the ns-3 program does not express."""
    routing = c["routing"]["protocol"]
    if routing != "aodv":
        raise Ns3Error(
            "routing.protocol", f'"{routing}": the ns-3 program runs AODV only (ns-3\'s aodv)'
        )
    mac, radio = c["mac"], c["radio"]
    if mac["standard"] not in STANDARDS:
        raise Ns3Error(
            "mac.standard",
            f'"{mac["standard"]}": the ns-3 program runs ns-3\'s 802.11b ("802.11" or '
            '"802.11b"), 802.11a or 802.11g',
        )
    ofdm = STANDARDS[mac["standard"]] == "80211a"
    erp = STANDARDS[mac["standard"]] == "80211g"
    if not ofdm and mac.get("preamble", "long") != "long":
        raise Ns3Error("mac.preamble", "the ns-3 program sends the long preamble")
    rates = OFDM_RATES if ofdm else DSSS_RATES + OFDM_RATES if erp else DSSS_RATES
    for key in ("data_rate_bps", "basic_rate_bps"):
        if int(mac[key]) not in rates:
            what = "802.11a" if ofdm else "802.11g" if erp else "802.11b DSSS"
            listed = ", ".join(f"{r / 1e6:g}" for r in sorted(rates))
            raise Ns3Error(f"mac.{key}", f"{mac[key]} b/s is no {what} rate ({listed} Mb/s)")
    if radio["propagation"] not in PROPAGATION:
        raise Ns3Error(
            "radio.propagation",
            f'"{radio["propagation"]}": the ns-3 program uses two-ray ground, free space or '
            "shadowing",
        )
    rate_control = mac.get("rate_control", "constant")
    response_rate = mac.get("response_rate", "basic")
    if rate_control not in RATE_CONTROL:
        raise Ns3Error(
            "mac.rate_control",
            f'"{rate_control}": the ns-3 program runs a constant rate, ARF, AARF or Minstrel',
        )
    if erp and rate_control != "constant":
        raise Ns3Error(
            "mac.rate_control",
            f'"{rate_control}": the ns-3 program runs 802.11g at a constant rate only',
        )
    if response_rate == "basic":
        # The program leaves the basic rate alone in ns-3's basic rate set;
        # ns-3 answers a frame slower than it at a mandatory rate instead.
        basic = int(mac["basic_rate_bps"])
        if rate_control == "constant" and basic > int(mac["data_rate_bps"]):
            raise Ns3Error(
                "mac.basic_rate_bps",
                f"{basic} b/s is above data_rate_bps ({mac['data_rate_bps']} b/s): ns-3 would "
                "answer the data at a mandatory rate, not at the basic rate (response_rate = "
                '"basic")',
            )
        lowest = OFDM_RATES[0] if ofdm else DSSS_RATES[0]
        if rate_control != "constant" and basic > lowest:
            raise Ns3Error(
                "mac.basic_rate_bps",
                f'{basic} b/s is above {lowest} b/s, where "{rate_control}" starts: ns-3 would '
                "answer such frames at a mandatory rate, not at the basic rate (response_rate "
                '= "basic")',
            )
    elif (ofdm or erp) and int(mac["basic_rate_bps"]) not in OFDM_MANDATORY_RATES + DSSS_RATES:
        raise Ns3Error(
            "mac.basic_rate_bps",
            f"{mac['basic_rate_bps']} b/s is not one of {mac['standard']}'s mandatory rates "
            "(6, 12, 24 Mb/s, and 802.11g's DSSS rates): ns-3 answers among those alone under "
            'response_rate = "standard"',
        )
    if c.get("loss"):
        raise Ns3Error("loss", "packet loss models are not mirrored in the ns-3 program")
    if c.get("gateway"):
        raise Ns3Error("gateway", "an Internet gateway and its wired links are not mirrored")
    if c.get("energy"):
        raise Ns3Error("energy", "the energy model is not mirrored in the ns-3 program")
    tcp_sizes = set()
    tcp_windows = set()
    tcp_variants: set[str] = set()
    slow_starts: set[str] = set()
    for i, flow in enumerate(c.get("flows", [])):
        key = f"flows.{i}"
        if flow.get("start_jitter_s", 0.0):
            raise Ns3Error(f"{key}.start_jitter_s", "the ns-3 program starts flows at exact times")
        transport, app = flow["transport"], flow["app"]
        if transport == "udp":
            if app not in ("cbr", "onoff"):
                raise Ns3Error(f"{key}.app", f'"{app}" over UDP: only CBR and on-off are expressed')
        elif transport == "tcp":
            if app not in ("ftp", "cbr", "onoff"):
                raise Ns3Error(
                    f"{key}.app", f'"{app}" over TCP: only FTP (bulk), CBR and on-off are expressed'
                )
            variant = flow["tcp"]["variant"]
            if variant not in ("newreno", "cubic"):
                raise Ns3Error(
                    f"{key}.tcp.variant",
                    f'"{variant}": the ns-3 program runs NewReno and CUBIC only',
                )
            if flow["tcp"].get("frto"):
                raise Ns3Error(f"{key}.tcp.frto", "ns-3's TCP has no F-RTO")
            slow_start = flow["tcp"].get("slow_start", "standard")
            if slow_start == "hystart++" or (slow_start == "hystart" and variant != "cubic"):
                raise Ns3Error(
                    f"{key}.tcp.slow_start",
                    f'"{slow_start}" with {variant}: ns-3 has HyStart only inside TcpCubic '
                    "(the program runs it with cubic), and no HyStart++",
                )
            window = tcp_window_bytes(flow["tcp"], int(flow["packet_size_bytes"]))
            if MAX_UNSCALED_WINDOW_BYTES < window != DEFAULT_RECEIVE_BUFFER_BYTES:
                raise Ns3Error(
                    f"{key}.tcp.window_packets",
                    f"{flow['tcp']['window_packets']} segments of {flow['packet_size_bytes']} "
                    f"bytes ({window} bytes): the ns-3 program's receiver advertises at most "
                    f"{MAX_UNSCALED_WINDOW_BYTES} bytes, or its whole "
                    f"{DEFAULT_RECEIVE_BUFFER_BYTES}-byte receive buffer",
                )
            tcp_variants.add(variant)
            slow_starts.add(slow_start)
            tcp_sizes.add(int(flow["packet_size_bytes"]))
            tcp_windows.add(window)
        else:
            raise Ns3Error(f"{key}.transport", f'"{transport}" is not expressed')
    if len(tcp_variants) > 1:
        raise Ns3Error(
            "flows.tcp.variant",
            "TCP flows of different variants (ns-3 sets one SocketType for all)",
        )
    if len(slow_starts) > 1:
        raise Ns3Error(
            "flows.tcp.slow_start",
            "TCP flows with and without HyStart (ns-3 sets TcpCubic's HyStart for all)",
        )
    if len(tcp_sizes) > 1:
        raise Ns3Error(
            "flows.packet_size_bytes",
            "TCP flows of different segment sizes (ns-3 sets one SegmentSize for all)",
        )
    if len(tcp_windows) > 1:
        raise Ns3Error(
            "flows.tcp.window_packets",
            "TCP flows of different windows (ns-3 sets one MaxWindowSize for all)",
        )


# (transport, app) -> the program's kind of flow.
_FLOW_KINDS = {
    ("udp", "cbr"): "udp",
    ("udp", "onoff"): "onoff",
    ("tcp", "ftp"): "tcp",
    ("tcp", "cbr"): "tcpcbr",
    ("tcp", "onoff"): "tcponoff",
}


def flows_text(c: Mapping[str, Any]) -> str:
    """The program's flows file: ``KIND SRC DST START STOP SIZE RATE_BPS`` a
    line, KIND ``udp`` (CBR), ``tcp`` (bulk; the rate unused) or ``tcpcbr`` (CBR
    into a TCP connection), and for an on-off source, ``onoff`` over UDP or
    ``tcponoff`` into TCP, then ``ON_S OFF_S DISTRIBUTION SHAPE`` (ns-3's
    ``OnOffApplication``, whose burst and idle times have manetsim's means;
    manetsim, as ns-2, draws a burst's packets, ns-3 its seconds)."""
    lines = ["# kind src dst start_s stop_s size_bytes rate_bps [on_s off_s distribution shape]"]
    for flow in c.get("flows", []):
        kind = _FLOW_KINDS[(flow["transport"], flow["app"])]
        rate = 0.0 if kind == "tcp" else _udp_rate_bps(flow)
        line = (
            f"{kind} {int(flow['src'])} {int(flow['dst'])} "
            f"{float(flow['start_s'])!r} {float(flow['stop_s'])!r} "
            f"{int(flow['packet_size_bytes'])} {rate!r}"
        )
        if kind in ("onoff", "tcponoff"):
            onoff = flow.get("onoff") or {}
            line += (
                f" {float(onoff.get('on_s', 0.5))!r} {float(onoff.get('off_s', 0.5))!r}"
                f" {onoff.get('distribution', 'exponential')} {float(onoff.get('shape', 1.5))!r}"
            )
        lines.append(line)
    return "\n".join(lines) + "\n"


def _udp_rate_bps(flow: Mapping[str, Any]) -> float:
    """A CBR or on-off flow's rate: ``rate_bps``, or a CBR flow's ``interval_s``
    as the rate of its packets."""
    if flow.get("rate_bps") is not None:
        return float(flow["rate_bps"])
    if flow.get("interval_s") is not None:
        return int(flow["packet_size_bytes"]) * 8.0 / float(flow["interval_s"])
    return 0.0


def mobility_text(
    scenario: ScenarioLike, overrides: Overrides = None, seed: int | None = None
) -> str:
    """manetsim's movements as the ns-2 movement file ``Ns2MobilityHelper`` reads.

    The lines ``manetsim export ns2`` sources, less its comments and blank lines.
    """
    moves = movements_ns2(scenario, overrides, seed)
    lines = [line for line in moves.splitlines() if line.strip() and not line.startswith("#")]
    return "\n".join(lines) + "\n"


def nakagami_arguments(radio: Mapping[str, Any]) -> list[str]:
    """The program's fading arguments: ns-3's ``NakagamiPropagationLossModel``
    after the propagation model with ``radio.fading``'s ``m`` by distance, its
    ``JakesPropagationLossModel`` with ``radio.fading_doppler_hz``, or none."""
    fading = radio.get("fading", "none")
    if fading == "none":
        return []
    doppler_hz = float(radio.get("fading_doppler_hz", 0.0))
    if doppler_hz > 0.0:
        # Time-correlated Rayleigh fading: ns-3's JakesPropagationLossModel.
        return [f"--jakesDopplerHz={doppler_hz!r}"]
    if fading == "rayleigh":
        m, distances = (1.0, 1.0, 1.0), (0.0, 0.0)
    else:
        m = tuple(float(radio[f"nakagami_m{i}"]) for i in range(3))
        distances = (float(radio["nakagami_distance1_m"]), float(radio["nakagami_distance2_m"]))
    return [
        "--nakagami=true",
        *(f"--nakagamiM{i}={v!r}" for i, v in enumerate(m)),
        f"--nakagamiDistance1M={distances[0]!r}",
        f"--nakagamiDistance2M={distances[1]!r}",
    ]


def bit_error_arguments(radio: Mapping[str, Any]) -> list[str]:
    """The program's bit-error arguments: with ``radio.error_model = "awgn"``,
    ns-3's ``YansErrorRateModel`` at the noise figure, and the weakest signal
    that interferes (``radio.interference_threshold_w``); none without."""
    if radio.get("error_model", "none") == "none":
        return []
    args = ["--bitErrors=true", f"--noiseFigureDb={float(radio['noise_figure_db'])!r}"]
    floor = radio.get("interference_threshold_w")
    if floor is not None:
        args.append(f"--interferenceThresholdW={float(floor)!r}")
    return args


def arguments(c: Mapping[str, Any], mobility: Path, flows: Path) -> list[str]:
    """The program's arguments (after the executable) for resolved scenario ``c``."""
    radio, mac = c["radio"], c["mac"]
    tcp_flow = next((f for f in c.get("flows", []) if f["transport"] == "tcp"), None)
    tcp = None if tcp_flow is None else tcp_flow["tcp"]
    args = [
        f"--scenario={c.get('name') or 'scenario'}",
        f"--nodes={int(c['nodes']['count'])}",
        f"--duration={float(c['duration_s'])!r}",
        f"--mobility={mobility}",
        f"--flows={flows}",
        f"--seed={int(c['seed']) or 1}",
        f"--txPowerW={float(radio['tx_power_w'])!r}",
        f"--rxThresholdW={float(radio['rx_threshold_w'])!r}",
        f"--csThresholdW={float(radio['cs_threshold_w'])!r}",
        f"--frequencyHz={float(radio['frequency_hz'])!r}",
        f"--standard={STANDARDS[mac['standard']]}",
        f"--shortSlot={'true' if mac.get('slot', 'long') == 'short' else 'false'}",
        f"--propagation={PROPAGATION[radio['propagation']]}",
        f"--antennaHeightM={float(radio['antenna_height_m'])!r}",
        f"--systemLoss={float(radio['system_loss'])!r}",
        f"--dataRateBps={int(mac['data_rate_bps'])}",
        f"--basicRateBps={int(mac['basic_rate_bps'])}",
        f"--rtsThresholdBytes={int(mac['rts_threshold_bytes'])}",
        f"--rateControl={mac.get('rate_control', 'constant')}",
        f"--responseRate={mac.get('response_rate', 'basic')}",
        f"--shortRetryLimit={int(mac['short_retry_limit'])}",
        f"--longRetryLimit={int(mac['long_retry_limit'])}",
        f"--queuePackets={int(mac['queue_packets'])}",
    ]
    if radio["propagation"] == "shadowing":
        args += [
            f"--pathLossExponent={float(radio['path_loss_exponent'])!r}",
            f"--referenceDistanceM={float(radio['reference_distance_m'])!r}",
            f"--shadowingStdDb={float(radio['shadowing_std_db'])!r}",
        ]
    args += nakagami_arguments(radio)
    args += bit_error_arguments(radio)
    if tcp is not None:
        args += [
            f"--tcpInitialWindow={int(tcp['initial_window_packets'])}",
            f"--tcpMinRtoS={float(tcp['min_rto_s'])!r}",
            f"--tcpDelayedAck={'true' if tcp['delayed_ack'] else 'false'}",
            f"--tcpLimitedTransmit={'true' if tcp.get('limited_transmit') else 'false'}",
            f"--tcpVariant={tcp['variant']}",
        ]
        assert tcp_flow is not None
        window = tcp_window_bytes(tcp, int(tcp_flow["packet_size_bytes"]))
        if window <= MAX_UNSCALED_WINDOW_BYTES:
            args.append(f"--tcpWindowBytes={window}")
        if tcp.get("slow_start") == "hystart":
            args.append("--hystart=true")
    return args


def prepare(
    scenario: ScenarioLike,
    folder: Path,
    binary: Path | str = "manetsim_bench",
    overrides: Overrides = None,
    seed: int | None = None,
) -> list[str]:
    """Writes the inputs for ``scenario`` into ``folder``; returns the command line."""
    config = load_config(scenario, overrides, seed)
    check_expressible(config)
    name = config.get("name") or "scenario"
    mobility = Path(folder) / f"{name}.ns_movements"
    flows = Path(folder) / f"{name}.flows"
    mobility.write_text(mobility_text(scenario, overrides, seed), encoding="utf-8")
    flows.write_text(flows_text(config), encoding="utf-8")
    return [str(binary), *arguments(config, mobility, flows)]


def parse_result(stdout: str) -> dict[str, Any]:
    """The program's ``ns3-result`` line as a dict (numbers as numbers)."""
    for line in stdout.splitlines():
        if line.startswith("ns3-result "):
            out: dict[str, Any] = {}
            for field in line.split()[1:]:
                key, _, value = field.partition("=")
                out[key] = _number(value)
            return out
    raise RuntimeError("the ns-3 program printed no `ns3-result` line")


def _number(value: str) -> int | float | str:
    try:
        return int(value)
    except ValueError:
        try:
            return float(value)
        except ValueError:
            return value


def parse_flows(stdout: str) -> list[dict[str, Any]]:
    """The program's ``ns3-flow`` lines, one dict a flow in flow order: ``kind``,
    ``src`` and ``dst``, then its fields (numbers as numbers): ``rx_bytes`` and
    ``goodput_kbps`` always; for a TCP flow run with ``--frameCounts=true``,
    ``segments_sent`` (retransmissions included), ``retransmitted``, ``loss_episodes``
    and ``recovery_episodes`` (its entries into ``CA_LOSS``, a retransmission timeout,
    and into ``CA_RECOVERY``, a fast retransmit), ``rtt_mean_ms`` and ``rtt_max_ms``
    (its RTT samples), ``rto_at_timeout_mean_ms`` (its timer as each timeout struck,
    already doubled), ``loss_from_recovery`` (timeouts that struck in a fast recovery)
    and ``ack_gap_at_timeout_mean_ms`` (the time since its ACK number last rose when
    each struck)."""
    rows: dict[int, dict[str, Any]] = {}
    for line in stdout.splitlines():
        if line.startswith("ns3-flow "):
            fields = line.split()
            row: dict[str, Any] = {"kind": fields[2], "src": int(fields[3]), "dst": int(fields[4])}
            for key, _, value in (f.partition("=") for f in fields[5:]):
                row[key] = _number(value)
            rows[int(fields[1])] = row
    return [rows[i] for i in sorted(rows)]


def parse_frames(stdout: str) -> list[dict[str, int]]:
    """The program's ``ns3-node`` lines (printed with ``--frameCounts=true``), one dict a node
    in node order: ``frames_sent``, the frames its PHY began to send, and
    ``frames_received``, those it received whole and decoded, whoever they were for
    (manetsim's per-node figures of the same names), ``rts_failed``, its RTSs that got
    no CTS (manetsim's ``mac.rts_failures``, summed over the nodes), ``ip_data_sent``
    and ``ip_data_delivered``, the data packets its IP layer sent as their source
    (retransmitted TCP segments included) and delivered to its own transport (duplicates
    included), ``acks_at_R_bps`` for each rate ``R`` the node sent ACKs at, how many,
    and the data packets (IP packets of 200 bytes or more, so no AODV message) it
    dropped, one key for each of ns-3's reasons it dropped any for:
    ``data_mac_given_up`` (the retry limit) and ``data_mac_expired`` by its MAC,
    ``data_mac_queue_full`` (turned away by the traffic-control layer while the MAC's
    full queue stopped the device's), ``data_ip_REASON`` by its IP layer
    (``data_ip_route_error`` holds those AODV's request queue gave up), and ``data_arp``
    by its ARP (a failed resolution, a full queue waiting for one, or an entry left dead
    by one: ns-3 drops every packet to a neighbour whose resolution failed for the next
    100 s)."""
    rows: dict[int, dict[str, int]] = {}
    for line in stdout.splitlines():
        if line.startswith("ns3-node "):
            fields = line.split()
            rows[int(fields[1])] = {
                key: int(value) for key, _, value in (f.partition("=") for f in fields[2:])
            }
    if not rows:
        raise RuntimeError(
            "the ns-3 program printed no `ns3-node` line (run it with --frameCounts=true)"
        )
    return [rows[i] for i in sorted(rows)]
