"""Fuzz: any campaign.yaml, any log line, structured or random, gives the library's error with file:line, or opens;
and `delvebook validate` refuses exactly what opening refuses, naming the same file:line and field first.

Each example writes a campaign folder, runs what `delvebook validate` runs (the files read strictly, the campaign
opened read-only, every event decided again) and opens it read-only as a view would: the only exception allowed is
``StoreError``, naming the file and (for a file's content) the line; each example is bounded in time (hypothesis'
deadline) and memory (tracemalloc). The fast tier runs a small budget; the slow tier a bigger one.
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
import tracemalloc
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings, strategies as st

import delvebook as db
from delvebook.cli import commands as cli
from delvebook.store import LOG_HEADER, MemoryStore, StoreError
from delvebook.store.campaign_file import read_campaign

KEEP = Path(__file__).resolve().parent.parent / "campaigns" / "the-sunken-keep"
GOOD_YAML = (KEEP / "campaign.yaml").read_text()
MEMORY = 64 << 20  # bytes an example may allocate at its peak

WHOLE_FILE = ("MiB", "characters; at most", "not UTF-8", "aliases", "no campaign folder", "is not a regular file",
              "nested too deeply")
"""Problems of a whole file, which no line is to blame for."""


def _played_lines() -> list[str]:
    camp = db.Campaign.open(MemoryStore(read_campaign(KEEP).data))
    camp.start_session()
    camp.award_xp(30, reason="quest")
    fight = camp.encounter(["bog_goblin"])
    fight.initiative(first="party")
    fight.attack("Brakka", "Bog goblin 1", faces={"attack": [18, 1], "resist": [2]}, keeper_override="he was first")
    camp.spend_luck("Ben", -1, face=2)
    camp.undo()
    camp.check("Wren", "stealth", 12)
    fight.next_turn()
    return [db.store.dump_event_line(e).decode() for e in camp.events]


LINES = _played_lines()

_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-2 ** 70, 2 ** 70), st.floats(allow_nan=True),
                     st.text(max_size=30), st.sampled_from(["Wren", "Brakka", "d6", "2d6+1", "seq", "", "\x1b[2J",
                                                            "<img src=x onerror=alert(1)>", "\udcff"]))
_JSONISH = st.recursive(_SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                          st.dictionaries(st.text(max_size=8), inner, max_size=4)),
                        max_leaves=12)


def _check(folder: Path) -> None:
    """What validate and a view do with the folder raise nothing but StoreError with file:line."""
    tracemalloc.start()
    try:
        try:
            problems, _, _ = cli._validate(folder)
        except StoreError as err:  # validate lists problems; it never raises
            pytest.fail(f"validate raised {err!r}")
        for err in problems:
            _located(err)
        refused = [p for p in problems if "torn last line" not in p.reason]  # a tear is set aside, not refused
        try:
            with db.Campaign.open(folder, read_only=True) as camp:
                camp.state
        except StoreError as err:
            _located(err)
            assert refused, f"open refused what validate let through: {err}"
            first = refused[0]
            assert (err.path, err.line, err.field) == (first.path, first.line, first.field), (err, first)
        else:
            assert not refused, f"validate refused what open let through: {refused[0]}"
        _, peak = tracemalloc.get_traced_memory()
        assert peak < MEMORY, f"{peak / 2 ** 20:.0f} MiB at the peak"
    finally:
        tracemalloc.stop()


def _located(err: StoreError) -> None:
    assert isinstance(err, StoreError)
    assert err.path is not None, err
    if err.path.name in ("campaign.yaml", "log.yaml") and not any(w in err.reason for w in WHOLE_FILE):
        assert err.line is not None, f"no line: {err}"


def _folder(campaign_text: str | bytes, log: str | bytes = LOG_HEADER) -> Path:
    folder = Path(tempfile.mkdtemp(prefix="fuzz-"))
    (folder / "campaign.yaml").write_bytes(campaign_text if isinstance(campaign_text, bytes)
                                           else campaign_text.encode("utf-8", "surrogateescape"))
    (folder / "log.yaml").write_bytes(log if isinstance(log, bytes) else log.encode("utf-8", "surrogatepass"))
    return folder


def _mutate(data, path: list, value):
    """``data`` with the place at ``path`` (followed as far as it goes) set to ``value``."""
    if not path or not isinstance(data, (dict, list)) or not data:
        return value
    key = path[0] % len(data) if isinstance(path[0], int) else 0
    if isinstance(data, dict):
        k = list(data)[key]
        return {**data, k: _mutate(data[k], path[1:], value)}
    return data[:key] + [_mutate(data[key], path[1:], value)] + data[key + 1:]


_FUZZ = dict(deadline=5000, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _campaign_yaml(where: list, value) -> str:
    data = yaml.safe_load(GOOD_YAML)
    try:
        return yaml.safe_dump(_mutate(data, where, value), allow_unicode=True, sort_keys=False)
    except (yaml.YAMLError, UnicodeEncodeError):
        return GOOD_YAML + "\nnotes: [\n"


def _text_mutation(text: str, at: int, cut: int, insert: str) -> str:
    at %= max(1, len(text))
    return text[:at] + insert + text[at + cut:]


def _log_line(index: int, where: list, value) -> str:
    event = json.loads(LINES[index % len(LINES)][2:].split(" # seal ")[0])  # edited by hand: no seal
    try:
        return "- " + json.dumps(_mutate(event, where, value), ensure_ascii=False)
    except (TypeError, ValueError):
        return LINES[index % len(LINES)].rstrip("\n")


def _structured_campaign(where, value):
    _check_and_remove(_folder(_campaign_yaml(where, value)))


def _check_and_remove(folder: Path) -> None:
    try:
        _check(folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@settings(max_examples=60, **_FUZZ)
@given(where=st.lists(st.integers(0, 20), max_size=5), value=_JSONISH)
def test_fuzz_a_structured_campaign_yaml(where, value):
    _structured_campaign(where, value)


@settings(max_examples=60, **_FUZZ)
@given(at=st.integers(0, 5000), cut=st.integers(0, 8),
       insert=st.text(alphabet=st.sampled_from(list(":-[]{}&*!|>'\"#%@`\t\n ,?x1\x00\x1b\u2028é") + ["\udcff"]),
                      max_size=12))
def test_fuzz_a_random_edit_of_campaign_yaml(at, cut, insert):
    _check_and_remove(_folder(_text_mutation(GOOD_YAML, at, cut, insert)))


@settings(max_examples=60, **_FUZZ)
@given(index=st.integers(0, 50), where=st.lists(st.integers(0, 20), max_size=5), value=_JSONISH,
       newline=st.booleans())
def test_fuzz_a_structured_log_line(index, where, value, newline):
    keep = LINES[:index % len(LINES)]
    line = _log_line(index, where, value)
    _check_and_remove(_folder(GOOD_YAML, LOG_HEADER + "".join(keep) + line + ("\n" if newline else "")))


@settings(max_examples=60, **_FUZZ)
@given(index=st.integers(0, 50), raw=st.binary(max_size=200), newline=st.booleans())
def test_fuzz_a_random_log_line(index, raw, newline):
    keep = "".join(LINES[:index % len(LINES)])
    _check_and_remove(_folder(GOOD_YAML, (LOG_HEADER + keep).encode() + raw + (b"\n" if newline else b"")))


@pytest.mark.slow
@settings(max_examples=600, **_FUZZ)
@given(kind=st.integers(0, 3), index=st.integers(0, 50), where=st.lists(st.integers(0, 20), max_size=6),
       value=_JSONISH, raw=st.binary(max_size=400), at=st.integers(0, 5000))
def test_fuzz_campaign_files_with_a_bigger_budget(kind, index, where, value, raw, at):
    if kind == 0:
        _structured_campaign(where, value)
    elif kind == 1:
        _check_and_remove(_folder(_text_mutation(GOOD_YAML, at, index % 9, raw.decode("utf-8", "replace"))))
    elif kind == 2:
        line = _log_line(index, where, value)
        _check_and_remove(_folder(GOOD_YAML, LOG_HEADER + "".join(LINES[:index % len(LINES)]) + line + "\n"))
    else:
        _check_and_remove(_folder(GOOD_YAML, (LOG_HEADER + "".join(LINES)).encode() + raw))
