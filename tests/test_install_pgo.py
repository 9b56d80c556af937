"""scripts/install_pgo.sh: what it refuses before it builds anything.

The PGO build itself takes two builds of the package (about five minutes), so
it is run by hand and measured in docs/fidelity.md ("Speed"); these tests
check that a wrong tool or argument stops it with one clear line, having
installed nothing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "install_pgo.sh"

pytestmark = pytest.mark.skipif(shutil.which("rustc") is None, reason="needs rustc")


def _run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(SCRIPT), *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        check=False,
        timeout=60,
    )


def _rustc_llvm_major() -> str:
    out = subprocess.run(["rustc", "-vV"], capture_output=True, text=True, check=True).stdout
    line = next(x for x in out.splitlines() if x.startswith("LLVM version: "))
    return line.removeprefix("LLVM version: ").split(".")[0]


def _fake_profdata(tmp_path: Path, major: str) -> Path:
    tool = tmp_path / "llvm-profdata"
    tool.write_text(f'#!/bin/sh\necho "LLVM version {major}.0.1"\n', encoding="utf-8")
    tool.chmod(0o755)
    return tool


def test_an_llvm_profdata_of_another_llvm_is_refused(tmp_path: Path) -> None:
    other = str(int(_rustc_llvm_major()) - 1)
    tool = _fake_profdata(tmp_path, other)
    proc = _run(env={"LLVM_PROFDATA": str(tool)})
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("error: install_pgo.sh: ")
    assert f"LLVM_PROFDATA={tool} is LLVM {other}" in lines[0]
    assert f"rustc uses LLVM {_rustc_llvm_major()}." in lines[0]
    assert "building" not in proc.stderr


def test_a_profdata_that_does_not_run_is_refused(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere" / "llvm-profdata"
    proc = _run(env={"LLVM_PROFDATA": str(missing)})
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        f"error: install_pgo.sh: LLVM_PROFDATA={missing} is not an llvm-profdata that runs"
    )


def test_more_than_one_argument_is_refused() -> None:
    proc = _run(".", ".[test]")
    assert proc.returncode == 2
    assert "at most one argument" in proc.stderr
    assert "got 2" in proc.stderr


def test_no_python_is_refused() -> None:
    proc = _run(env={"PYTHON": "no-such-python-3"})
    assert proc.returncode == 2
    assert "no Python interpreter 'no-such-python-3'" in proc.stderr
