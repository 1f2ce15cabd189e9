"""Reading a log line by json's scanner in place: what follows the value, nesting and the numbers json would take
are judged as ``json.loads`` judged them, and the depth guard counts each line's brackets however a chunk falls."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from delvebook.store import StoreError, log


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


@pytest.mark.parametrize("before", [0, 700])  # the line inside the first chunk, or past a chunk's edge
def test_a_line_nested_past_the_limit_is_refused_with_its_line(tmp_path, before):
    deep = json.dumps({"seq": before + 1, "kind": "note", "x": _nested(log.MAX_DEPTH + 6)})
    file = _write(tmp_path, f"- {deep}", before=before)
    with pytest.raises(StoreError, match=f"log.yaml:{before + 2}: .*nested more than {log.MAX_DEPTH} levels deep"):
        log.scan(file)


def test_many_brackets_that_do_not_nest_deep_are_read(tmp_path):
    wide = {"seq": 1, "kind": "note", "x": [[i] for i in range(300)], "y": [{"a": [i]} for i in range(100)],
            "z": _nested(8)}
    assert log.scan(_write(tmp_path, f"- {json.dumps(wide)}")).events == [wide]


@pytest.mark.parametrize("tail", [" ", "\t", "\r", "  \r"])
def test_whitespace_after_the_value_reads_as_json_did(tmp_path, tail):
    line = '- {"seq": 1, "kind": "note", "text": "a"}' + tail
    assert log.scan(_write(tmp_path, line)).events == [{"seq": 1, "kind": "note", "text": "a"}]
    assert log._fast(line) == {"seq": 1, "kind": "note", "text": "a"}


def test_something_after_the_value_is_not_read_by_json(tmp_path):
    assert log._fast('- {"seq": 1, "kind": "note"} x') is None  # the YAML loader decides, as before
    assert log._fast('- {"seq": 1, "kind": "note"}}') is None
    assert log._fast('- {"seq": 1, "kind": ') is None
    with pytest.raises(StoreError, match="log.yaml:2"):
        log.scan(_write(tmp_path, '- {"seq": 1, "kind": "note"} x'))


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_numbers_json_reads_but_no_event_holds_are_refused(tmp_path, value):
    with pytest.raises(StoreError, match="log.yaml:2"):
        log.scan(_write(tmp_path, '- {"seq": 1, "kind": "note", "x": ' + value + "}"))
