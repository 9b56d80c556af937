"""Every file in tests/bad_scenarios/ must be refused with one clear line.

Each file's first line is `# expect: <fragment>`: the fragment must appear in
the error message, together with the file's name.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import BAD_SCENARIOS, REPO, assert_clean_error, cli

BAD_FILES = sorted(BAD_SCENARIOS.glob("*.toml"))
EXPECT_PREFIX = "# expect:"


def expected_fragment(path: Path) -> str:
    first_line = path.read_text(encoding="utf-8").splitlines()[0]
    assert first_line.startswith(EXPECT_PREFIX), f"{path.name}: first line is not '# expect: …'"
    fragment = first_line[len(EXPECT_PREFIX) :].strip()
    assert fragment, f"{path.name}: empty expectation"
    return fragment


def test_there_are_enough_bad_scenarios():
    assert len(BAD_FILES) >= 24, f"only {len(BAD_FILES)} files in {BAD_SCENARIOS}"


@pytest.mark.parametrize("path", BAD_FILES, ids=lambda path: path.name)
def test_bad_scenario_is_refused(path: Path):
    relative = path.relative_to(REPO)
    line = assert_clean_error(cli("validate", relative))
    assert str(relative) in line
    assert expected_fragment(path) in line


@pytest.mark.parametrize("path", BAD_FILES, ids=lambda path: path.name)
def test_bad_scenario_does_not_run(path: Path):
    relative = path.relative_to(REPO)
    line = assert_clean_error(cli("run", relative, "--json"))
    assert expected_fragment(path) in line
