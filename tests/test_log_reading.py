"""Reading one log line (``store.lines``): a sealed line is what delvebook wrote and reads as it was written; a
line without its seal (written or edited by hand) is read with care; what follows the value, nesting and the
numbers json would take are judged as ``json.loads`` judged them."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from delvebook.core.statecheck import MAX_DEPTH
from delvebook.store import StoreError, dump_event_line, log
from delvebook.store.lines import BadLine, read_line


def _nested(depth: int):
    value: object = 1
    for i in range(depth):
        value = [value] if i % 2 else {"k": value}
    return value


def _write(tmp_path: Path, *extra: str, before: int = 0) -> Path:
    file = tmp_path / "log.yaml"
    lines = [log.LOG_HEADER.rstrip("\n")]
    lines += [json.dumps({"seq": i, "kind": "note", "text": "x" * 500}) for i in range(1, before + 1)]
    file.write_text("\n".join(lines[:1] + [f"- {x}" for x in lines[1:]] + list(extra)) + "\n", encoding="utf-8")
    return file


def _read(line: str):
    return read_line(line.encode("utf-8"), line, 2)


def test_a_line_delvebook_writes_is_sealed_and_reads_back_the_same():
    event = {"seq": 1, "kind": "note", "text": "café ✓ \u2028", "n": [1, {"a": None}]}
    line = dump_event_line(event).decode("utf-8").rstrip("\n")
    assert line.startswith('- {"seq": 1, "kind": "note"') and " # seal " in line
    assert _read(line) == (event, True)
    assert _read(line + "\r") == (event, True)  # a checkout that writes CRLF keeps the seal


def test_a_line_edited_by_hand_is_read_without_its_seal():
    line = dump_event_line({"seq": 1, "kind": "note", "text": "a"}).decode("utf-8").rstrip("\n")
    assert _read(line.replace('"a"', '"b"')) == ({"seq": 1, "kind": "note", "text": "b"}, False)
    assert _read(line.split(" # seal ")[0]) == ({"seq": 1, "kind": "note", "text": "a"}, False)
    with pytest.raises(BadLine, match="duplicate key 'text'"):  # read with care: what json would drop is refused
        _read(line.replace('"text": "a"', '"text": "a", "text": "b"'))


@pytest.mark.parametrize("before", [0, 700])  # the line inside the first chunk, or past a chunk's edge
def test_a_line_nested_past_the_limit_is_refused_with_its_line(tmp_path, before):
    deep = json.dumps({"seq": before + 1, "kind": "note", "x": _nested(MAX_DEPTH + 6)})
    file = _write(tmp_path, f"- {deep}", before=before)
    with pytest.raises(StoreError, match=f"log.yaml:{before + 2}: .*nested more than {MAX_DEPTH} levels deep"):
        log.scan(file)


def test_many_brackets_that_do_not_nest_deep_are_read(tmp_path):
    wide = {"seq": 1, "kind": "note", "x": [[i] for i in range(300)], "y": [{"a": [i]} for i in range(100)],
            "z": _nested(8)}
    assert log.scan(_write(tmp_path, f"- {json.dumps(wide)}")).events == [wide]


@pytest.mark.parametrize("tail", [" ", "\t", "\r", "  \r"])
def test_whitespace_after_the_value_reads_as_json_did(tmp_path, tail):
    line = '- {"seq": 1, "kind": "note", "text": "a"}' + tail
    assert log.scan(_write(tmp_path, line)).events == [{"seq": 1, "kind": "note", "text": "a"}]
    assert _read(line) == ({"seq": 1, "kind": "note", "text": "a"}, False)


@pytest.mark.parametrize("line", ['- {"seq": 1, "kind": "note"} x', '- {"seq": 1, "kind": "note"}}'])
def test_something_after_the_value_is_not_read_by_json(tmp_path, line):
    with pytest.raises(BadLine):  # the YAML loader decides, and refuses it
        _read(line)
    with pytest.raises(StoreError, match="log.yaml:2"):
        log.scan(_write(tmp_path, line))


def test_a_line_cut_short_reads_as_cut_short_not_as_wrong():
    with pytest.raises(BadLine) as info:
        _read('- {"seq": 1, "kind": ')
    assert not info.value.parsed  # what a crash leaves: the reader may set it aside when it is the last line


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_numbers_json_reads_but_no_event_holds_are_refused(tmp_path, value):
    with pytest.raises(StoreError, match="log.yaml:2"):
        log.scan(_write(tmp_path, '- {"seq": 1, "kind": "note", "x": ' + value + "}"))
