"""`benches/ab.py`: its parsing of cachegrind's summary and of scenario specs.

The comparison itself builds two revisions and needs valgrind, so it is not
run here; these are the parts a wrong reading would silently spoil.
"""

from __future__ import annotations

import re

import pytest

from helpers import REPO, bench_module

ab = bench_module("ab")


def test_reads_the_instruction_count_of_cachegrinds_summary():
    stderr = (
        "==8052== Cachegrind, a high-precision tracing profiler\n"
        "==8052== \n"
        "==8052== I   refs:      13,006,758,668\n"
    )
    assert ab.parse_ir(stderr) == 13_006_758_668
    assert ab.parse_ir("run_scenario: events 3393865\n") is None


def test_a_reference_name_with_overrides():
    spec = ab.parse_spec("rwp1000:duration_s=20:seed=3")
    assert spec.path == (REPO / "python" / "manetsim" / "benchmarks" / "rwp1000.toml").resolve()
    assert spec.overrides == ["duration_s=20", "seed=3"]
    assert spec.label == "rwp1000:duration_s=20:seed=3"


def test_a_file_is_taken_as_it_is(tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text("duration_s = 1.0\n")
    assert ab.parse_spec(str(path)).path == path.resolve()


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("rwp5", "no such file or reference scenario (chain6, rwp1000, rwp10000, rwp50)"),
        ("chain6:duration_s", "override `duration_s` is not key=value"),
        ("chain6:=3", "override `=3` is not key=value"),
    ],
)
def test_a_bad_spec_is_named(text, says):
    with pytest.raises(ValueError, match=re.escape(f"--scenario {text}: {says}")) as err:
        ab.parse_spec(text)
    assert str(err.value) == f"--scenario {text}: {says}"


def test_bad_arguments_exit_with_a_usage_message(capsys):
    with pytest.raises(SystemExit) as stop:
        ab.main(["HEAD", "--scenario", "nowhere"])
    assert stop.value.code == 2
    assert "--scenario nowhere: no such file or reference scenario" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        ab.main(["HEAD", "--runs", "-1"])
    assert "--runs must be ≥ 0" in capsys.readouterr().err


def test_changes_are_signed_percentages():
    assert ab.change(200, 190) == "-5.00 %"
    assert ab.change(None, 190) == "-"
    assert ab.count(1234567) == "1,234,567"
    assert ab.count(None) == "-"


def test_a_revision_git_does_not_know_is_refused_before_any_build(capsys):
    assert ab.main(["no-such-revision-here", "--runs", "0", "--no-valgrind"]) == 2
    err = capsys.readouterr().err
    assert "ab.py: `git -C" in err
    assert "worktree add -q --detach" in err
    assert "no-such-revision-here` failed (exit" in err
