"""The one safe YAML loader: the store and the rules loader read through it, and it refuses the same things."""
from __future__ import annotations

import pytest

from delvebook.core import yamlsafe
from delvebook.core.rules.load import parse_yaml


def test_the_rules_loader_refuses_a_duplicate_key_as_the_store_does():
    with pytest.raises(yamlsafe.YamlError) as info:
        parse_yaml("luck_dice:\n  die: d6\n  die: d4\n")
    assert info.value.line == 3 and "duplicate key 'die' (first on line 2)" in info.value.reason


@pytest.mark.parametrize("text, says", [
    ("a: !!python/object/apply:os.system [echo]\n", "Python object tag"),
    ("a: !custom 1\n", "unknown YAML tag !custom"),
    ("a: &x [*x]\n", "recursive alias"),
    ("a: " + "[" * 300 + "]" * 300 + "\n", "nested"),
    ("a: [unclosed\n", "not valid YAML"),
])
def test_what_the_loader_refuses(text, says):
    with pytest.raises(yamlsafe.YamlError, match=says):
        yamlsafe.load(text)


def test_oversized_text_is_refused_before_it_is_parsed():
    with pytest.raises(yamlsafe.YamlError, match="at most 10 are read"):
        yamlsafe.load("a: " + "x" * 20, max_chars=10)


def test_a_syntax_error_is_marked_as_such_and_a_refusal_is_not():
    with pytest.raises(yamlsafe.YamlError) as syntax:
        yamlsafe.load("- {seq: 1, kind: ro")
    with pytest.raises(yamlsafe.YamlError) as refused:
        yamlsafe.load("a: 1\na: 2\n")
    assert syntax.value.syntax and not refused.value.syntax


def test_a_path_in_the_data_is_traced_to_its_line():
    doc = yamlsafe.load_document("name: Keep\ndelvers:\n  - name: Wren\n    class: rogue\n  - name: Bram\n"
                                 "    class: 7\nlevels:\n  1: {hearts: 3}\n", line_offset=10)
    assert doc.data["delvers"][1]["class"] == 7
    assert doc.line_of(("delvers", 1, "class")) == 16
    assert doc.line_of(("delvers", 1, "player")) == 15  # missing: the deepest part that exists
    assert doc.line_of(("levels", 1, "hearts")) == 18
    assert yamlsafe.load_document("").line_of(("a",)) is None
