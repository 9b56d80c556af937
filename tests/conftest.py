"""Fixtures shared by the test modules (helpers live in helpers.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from helpers import CONTENTION, SMALL_CHAIN, write_toml

if TYPE_CHECKING:
    from pathlib import Path


@pytest.fixture
def small_chain_file(tmp_path: Path) -> Path:
    return write_toml(tmp_path / "small_chain.toml", SMALL_CHAIN)


@pytest.fixture
def contention_file(tmp_path: Path) -> Path:
    return write_toml(tmp_path / "contention.toml", CONTENTION)
