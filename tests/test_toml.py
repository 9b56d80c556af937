"""The small TOML writer used for scenarios given as dicts."""

from __future__ import annotations

import math

import pytest

from manetsim._toml import dumps, format_value

from helpers import CONTENTION, SMALL_CHAIN, load_toml


@pytest.mark.parametrize("document", [SMALL_CHAIN, CONTENTION], ids=["chain", "contention"])
def test_scenarios_round_trip(document: dict):
    assert load_toml(dumps(document)) == document


def test_nested_tables_and_arrays_of_tables():
    document = {
        "name": "x",
        "flows": [
            {"src": 0, "dst": 1, "tcp": {"variant": "vegas", "window_packets": 8}},
            {"src": 1, "dst": 0},
        ],
        "mobility": {"model": "waypoints", "moves": [{"node": 2, "to": [1.0, 2.5]}]},
        "empty_list": [],
        "deep": {"a": {"b": {"c": 1}}},
    }
    assert load_toml(dumps(document)) == document


def test_scalars_are_written_before_tables():
    text = dumps({"area": {"width_m": 1.0}, "seed": 3})
    assert text.index("seed = 3") < text.index("[area]")


def test_strings_are_escaped():
    tricky = 'quote " backslash \\ newline \n tab \t bell \x07 unicode é'
    assert load_toml(dumps({"name": tricky}))["name"] == tricky


def test_keys_that_need_quotes():
    document = {"a key": 1, "dotted.key": {"x": 2}, "ünï": 3}
    assert load_toml(dumps(document)) == document


def test_none_is_left_out():
    assert load_toml(dumps({"a": 1, "b": None, "t": {"c": None, "d": 2}})) == {
        "a": 1,
        "t": {"d": 2},
    }


def test_floats():
    document = {"small": 3.652e-10, "big": 1e300, "whole": 2.0, "neg": -0.5}
    assert load_toml(dumps(document)) == document
    special = load_toml(dumps({"inf": math.inf, "ninf": -math.inf, "nan": math.nan}))
    assert special["inf"] == math.inf
    assert special["ninf"] == -math.inf
    assert math.isnan(special["nan"])


def test_booleans_are_not_integers():
    assert load_toml(dumps({"flag": True, "count": 1})) == {"flag": True, "count": 1}


def test_inline_tables_inside_arrays():
    document = {"matrix": [[1, 2], [3, 4]], "mixed": [{"a": 1}, 2]}
    assert load_toml(dumps(document)) == document


def test_format_value():
    assert format_value(True) == "true"
    assert format_value(50000) == "50000"
    assert format_value(0.5) == "0.5"
    assert format_value("dsr") == '"dsr"'
    assert format_value([1.0, 2.0]) == "[1.0, 2.0]"


def test_unsupported_type():
    with pytest.raises(TypeError, match="set"):
        dumps({"a": {1, 2}})


def test_non_string_key():
    with pytest.raises(TypeError):
        dumps({1: "a"})
