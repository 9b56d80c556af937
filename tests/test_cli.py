"""The `manetsim` command, run in a subprocess as a user would."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import (
    EXAMPLES,
    FLOW_KEYS,
    REPO,
    RESULT_KEYS,
    SMALL_CHAIN,
    assert_clean_error,
    cli,
    load_toml,
    scenario,
    write_toml,
)

EXAMPLE_FILES = sorted(EXAMPLES.glob("*.toml"))


def test_examples_exist():
    names = {path.name for path in EXAMPLE_FILES}
    assert {"quickstart.toml", "single_hop_saturation.toml"} <= names


# -- help and version ------------------------------------------------------------


def test_help_lists_the_subcommands():
    proc = cli("--help")
    assert proc.returncode == 0, proc.stderr
    for command in ("run", "validate", "show-config", "convert"):
        assert command in proc.stdout


@pytest.mark.parametrize("command", ["run", "validate", "show-config", "convert"])
def test_subcommand_help(command: str):
    proc = cli(command, "--help")
    assert proc.returncode == 0, proc.stderr
    assert "--set" in proc.stdout


def test_version():
    import manetsim

    proc = cli("--version")
    assert proc.returncode == 0, proc.stderr
    build = manetsim._core.build()
    # `pip install .` builds in cargo's release profile; scripts/install_pgo.sh
    # with a profile.
    assert build in ("release", "pgo")
    assert proc.stdout.strip() == f"manetsim {manetsim.__version__} ({build} build)"


def test_python_dash_m_manetsim():
    proc = subprocess.run(
        [sys.executable, "-m", "manetsim", "--version"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("manetsim ")


# -- validate --------------------------------------------------------------------


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda path: path.name)
def test_validate_examples(path: Path):
    relative = path.relative_to(EXAMPLES.parent)
    proc = cli("validate", relative)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f"{relative}: ok\n"
    assert proc.stderr == ""


def test_validate_reports_a_bad_value(tmp_path: Path):
    bad = write_toml(tmp_path / "negative.toml", scenario(SMALL_CHAIN, duration_s=-1.0))
    line = assert_clean_error(cli("validate", bad))
    assert str(bad) in line
    assert "duration_s" in line


# -- show-config -----------------------------------------------------------------


def test_show_config_round_trip(tmp_path: Path):
    proc = cli("show-config", "examples/quickstart.toml")
    assert proc.returncode == 0, proc.stderr
    resolved = load_toml(proc.stdout)  # valid TOML
    assert resolved["nodes"]["count"] == 6
    assert resolved["routing"]["protocol"] == "static"
    # Defaults are filled in.
    assert resolved["mac"]["queue_packets"] == 50
    assert resolved["radio"]["propagation"] == "two_ray_ground"

    # The printed scenario loads again and resolves to itself.
    again = tmp_path / "resolved.toml"
    again.write_text(proc.stdout, encoding="utf-8")
    assert cli("validate", again).returncode == 0
    second = cli("show-config", again)
    assert second.returncode == 0, second.stderr
    assert load_toml(second.stdout) == resolved


def test_set_changes_a_value():
    proc = cli(
        "show-config",
        "examples/quickstart.toml",
        "--set",
        "mac.rts_threshold_bytes=3000",
        "--set",
        "flows.0.rate_bps=50000",
        "--set",
        "duration_s=90",
    )
    assert proc.returncode == 0, proc.stderr
    resolved = load_toml(proc.stdout)
    assert resolved["mac"]["rts_threshold_bytes"] == 3000
    assert resolved["flows"][0]["rate_bps"] == 50000
    assert resolved["duration_s"] == 90


def test_seed_option_changes_the_seed():
    proc = cli("show-config", "examples/quickstart.toml", "--seed", "42")
    assert proc.returncode == 0, proc.stderr
    assert load_toml(proc.stdout)["seed"] == 42


# -- clean failures --------------------------------------------------------------


def test_unknown_set_key_fails_cleanly():
    line = assert_clean_error(cli("run", "examples/quickstart.toml", "--set", "nodes.bogus=1"))
    assert "bogus" in line


def test_set_without_equals_fails_cleanly():
    line = assert_clean_error(cli("validate", "examples/quickstart.toml", "--set", "duration_s"))
    assert "duration_s" in line


def test_missing_file_fails_cleanly():
    line = assert_clean_error(cli("run", "examples/no_such_scenario.toml"))
    assert "examples/no_such_scenario.toml" in line


def test_directory_instead_of_file_fails_cleanly():
    line = assert_clean_error(cli("validate", "examples"))
    assert "examples" in line


def test_file_that_is_not_toml_fails_cleanly(tmp_path: Path):
    junk = tmp_path / "junk.toml"
    junk.write_text("this is [not toml\n", encoding="utf-8")
    line = assert_clean_error(cli("show-config", junk))
    assert str(junk) in line


def test_binary_file_fails_cleanly(tmp_path: Path):
    binary = tmp_path / "binary.toml"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    line = assert_clean_error(cli("validate", binary))
    assert str(binary) in line


def test_negative_seed_fails_cleanly():
    line = assert_clean_error(cli("run", "examples/quickstart.toml", "--seed", "-3"))
    assert "--seed" in line
    # One past the largest seed is named as --seed too, not as an override.
    line = assert_clean_error(
        cli("run", "examples/quickstart.toml", "--seed", "9223372036854775808")
    )
    assert line.startswith("error: --seed: key `seed`:"), line


def test_unknown_option_fails_cleanly():
    line = assert_clean_error(cli("run", "examples/quickstart.toml", "--frobnicate"))
    assert "--frobnicate" in line
    # Named by the command that was given it.
    assert line.startswith("error: manetsim run: "), line


def test_a_bad_option_value_is_named_with_its_command():
    line = assert_clean_error(cli("sweep", "examples/quickstart.toml", "-j", "0"))
    assert line.startswith("error: manetsim sweep: --workers/-j: "), line
    assert "at least 1, got 0" in line
    line = assert_clean_error(cli("run", "examples/quickstart.toml", "--out", "README.md"))
    assert "--out/-o: README.md is a file, not a folder" in line
    line = assert_clean_error(cli("convert", "examples/quickstart.toml", "-o", "examples"))
    assert "--output/-o: examples is a folder, not a file" in line


def test_unknown_command_fails_cleanly():
    line = assert_clean_error(cli("frobnicate"))
    assert line.startswith("error: manetsim: unknown command 'frobnicate' (commands: run, "), line
    line = assert_clean_error(cli("export", "ns3"))
    assert line.startswith("error: manetsim export: unknown command 'ns3' (commands: ns2)"), line


@pytest.mark.parametrize("command", [[], ["study"], ["export"]])
def test_a_command_without_its_subcommand_prints_its_help_on_stderr(command: list[str]):
    proc = cli(*command)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.startswith(f"usage: {' '.join(['manetsim', *command])} ")
    assert "COMMAND" in proc.stderr


def test_validate_and_run_json_import_no_table_or_dataframe_library(small_chain_file: Path):
    # `manetsim validate` and `run --json` start as fast as `import manetsim`:
    # rich, pandas and pyarrow are imported by the commands that print tables
    # or write Parquet, not by the command line itself.
    probe = (
        "import sys\n"
        "from manetsim.cli import main\n"
        "try:\n"
        "    main(sys.argv[1:])\n"
        "except SystemExit as stop:\n"
        "    assert stop.code == 0, stop.code\n"
        "heavy = sorted({m.split('.')[0] for m in sys.modules} & {'rich', 'pandas', 'pyarrow'})\n"
        "sys.stderr.write(repr(heavy))\n"
    )
    for command in (["validate", "examples/quickstart.toml"], ["run", small_chain_file, "--json"]):
        proc = subprocess.run(
            [sys.executable, "-c", probe, *map(str, command)],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=False,
        )
        assert proc.returncode == 0, proc.stderr
        assert proc.stderr == "[]"


def test_missing_argument_fails_cleanly():
    assert_clean_error(cli("run"))


# -- run (needs the simulation core) ---------------------------------------------


def test_run_json_prints_one_object(small_chain_file: Path):
    proc = cli("run", small_chain_file, "--json")
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    result = json.loads(proc.stdout)  # exactly one JSON document
    assert isinstance(result, dict)
    assert result.keys() >= RESULT_KEYS
    assert result["seed"] == 1
    assert result["duration_s"] == 5.0
    assert len(result["flows"]) == 1
    assert result["flows"][0].keys() >= FLOW_KEYS


def test_run_json_with_seed_and_set(small_chain_file: Path):
    proc = cli("run", small_chain_file, "--json", "--seed", "9", "--set", "flows.0.rate_bps=32000")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["seed"] == 9


def test_run_prints_tables(small_chain_file: Path):
    proc = cli("run", small_chain_file)
    assert proc.returncode == 0, proc.stderr
    for heading in ("Flows", "MAC", "Ledger", "events"):
        assert heading in proc.stdout
    assert "0→2" in proc.stdout


def test_run_writes_results(small_chain_file: Path, tmp_path: Path):
    out = tmp_path / "results" / "one"
    proc = cli("run", small_chain_file, "--json", "--out", out)
    assert proc.returncode == 0, proc.stderr
    json.loads(proc.stdout)  # --out does not disturb stdout
    for name in ("flows.parquet", "drops.parquet", "nodes.parquet", "run.parquet"):
        assert (out / name).is_file()
    assert json.loads((out / "result.json").read_text()) == json.loads(proc.stdout)
    assert load_toml((out / "scenario.toml").read_text())["nodes"]["count"] == 3


def test_a_long_path_is_printed_on_one_line(small_chain_file: Path, tmp_path: Path):
    # stderr is a pipe here: no terminal width may break the path in two.
    out = tmp_path / ("a-folder-whose-name-alone-is-longer-than-a-line-" * 3) / "one"
    proc = cli("run", small_chain_file, "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert len(str(out)) > 120
    assert f"wrote results to {out}" in proc.stderr.splitlines()


def test_a_flow_without_a_route_warns_on_stderr_and_keeps_stdout_json(tmp_path: Path):
    doc = {
        "duration_s": 3.0,
        "area": {"width_m": 1000.0, "height_m": 100.0},
        "nodes": {"count": 3, "placement": "explicit", "positions": [[0, 0], [200, 0], [900, 0]]},
        "routing": {"protocol": "static"},
        "flows": [{"src": 0, "dst": 2, "rate_bps": 10_000, "start_s": 1.0}],
    }
    path = write_toml(tmp_path / "unreachable.toml", doc)
    proc = cli("run", path, "--json")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["flows"][0]["received"] == 0
    assert result["drops"]["no_route"] == result["flows"][0]["sent"] > 0
    assert "warning: flow 0: node 0 has no route to node 2" in proc.stderr


def test_a_trace_name_that_leaves_the_current_folder_is_refused(tmp_path: Path):
    scenario = tmp_path / "s.toml"
    scenario.write_text(
        'name = "../escaped"\nduration_s = 2.0\n[nodes]\ncount = 2\n'
        '[routing]\nprotocol = "static"\n[output]\nns2_trace = true\n'
    )
    # From the repository root, the trace would land beside the repository.
    proc = cli("run", scenario)
    line = assert_clean_error(proc)
    assert "key `name`" in line
    assert not (REPO.parent / "escaped.tr").exists()
