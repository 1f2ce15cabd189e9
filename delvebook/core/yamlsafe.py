"""The one safe YAML loader: every campaign file and rules file delvebook reads goes through it.

Loading never runs code and never blows up: Python object tags and unknown tags, recursive aliases, alias bombs,
duplicate keys, nesting deeper than ``MAX_DEPTH`` and oversized input are refused with a ``YamlError`` that
names the line. The text is parsed once into a node tree (libyaml's C parser when present), checked, then
built into plain data; the tree is kept so that a problem found later in the data (``delvers[1].class``) can
be traced back to its line.
"""

from __future__ import annotations

import datetime as _dt
from typing import Any, Iterable

import yaml

__all__ = [
    "YamlError",
    "Document",
    "load",
    "load_document",
    "line_of",
    "MAX_DEPTH",
    "MAX_ALIAS_EXPANSION",
    "MAX_CHARS",
    "MAX_NUMBER_CHARS",
    "PARSER",
]

MAX_DEPTH = 200
"""Mappings and lists nested deeper than this are refused (no campaign needs it; a stack overflow would)."""
MAX_ALIAS_EXPANSION = 100_000
"""Aliases may repeat at most this many nodes in total (a shared stat block is fine; a billion laughs is not)."""
MAX_CHARS = 10 << 20
"""Text longer than this (10 Mi characters) is refused before it is parsed."""
MAX_NUMBER_CHARS = 100
"""A whole number written with more characters than this is refused, with its line (Python would refuse one of
4,300 digits with no line at all)."""

_BASE = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
PARSER = "libyaml (C)" if _BASE is not yaml.SafeLoader else "PyYAML (pure Python)"
"""Which parser composes the node tree."""

_YAML_TAG = "tag:yaml.org,2002:"
_PYTHON_TAG = _YAML_TAG + "python/"
_MERGE_TAG = _YAML_TAG + "merge"
_INT_TAG = _YAML_TAG + "int"


class YamlError(ValueError):
    """YAML that is refused or cannot be read. ``line`` is 1-based (or None); ``syntax`` is true when the text is
    not YAML at all (which, for the last line of a log, may be a write cut short by a crash)."""

    def __init__(self, reason: str, line: int | None = None, syntax: bool = False):
        self.reason = reason
        self.line = line
        self.syntax = syntax
        super().__init__(f"line {line}: {reason}" if line else reason)

    def __reduce__(self):
        return (type(self), (self.reason, self.line, self.syntax))


def _show_key(value: Any) -> str:
    if isinstance(value, str):
        return repr(value) if len(value) <= 60 else repr(value[:57] + "...")
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (_dt.date, _dt.datetime)):
        return f"a date ({value})"
    return repr(value)


class _Loader(_BASE):  # type: ignore[misc, valid-type]
    """The safe loader (libyaml's parser when present) that also refuses duplicate keys."""

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            seen: dict = {}
            for key_node, _ in node.value:
                if key_node.tag == _MERGE_TAG:
                    continue
                key = self.construct_object(key_node, deep=True)
                try:
                    first = seen.get(key)
                except TypeError:
                    continue  # unhashable: the base constructor says so
                if first is not None:
                    raise yaml.constructor.ConstructorError(
                        None, None, f"duplicate key {_show_key(key)} (first on line {first}): a key may appear "
                        f"once in a mapping", key_node.start_mark)
                seen[key] = key_node.start_mark.line + 1
        return super().construct_mapping(node, deep=deep)


_KNOWN_TAGS = frozenset(t for t in _Loader.yaml_constructors if t is not None) | {_MERGE_TAG}


def _tag_name(tag: str) -> str:
    return "!!" + tag[len(_YAML_TAG):] if tag.startswith(_YAML_TAG) else tag


def _check_tree(root) -> None:
    """Refuse, before anything is constructed: Python tags and unknown tags, nesting deeper than MAX_DEPTH,
    recursive aliases, and aliases that expand to more than MAX_ALIAS_EXPANSION extra nodes.

    Iterative, linear in the distinct nodes (an alias is the same node object reached twice)."""
    size: dict[int, int] = {}
    on_path: set[int] = set()
    stack = [(root, 0, False)]
    while stack:
        node, depth, done = stack.pop()
        nid = id(node)
        if done:
            on_path.discard(nid)
            if isinstance(node, yaml.MappingNode):
                total = 1 + sum(size[id(k)] + size[id(v)] for k, v in node.value)
            elif isinstance(node, yaml.SequenceNode):
                total = 1 + sum(size[id(v)] for v in node.value)
            else:
                total = 1
            size[nid] = total
            continue
        if nid in size:
            continue
        line = node.start_mark.line + 1
        if nid in on_path:
            raise YamlError("a recursive alias (an anchor used inside itself); write the data out instead", line)
        tag = node.tag
        if tag.startswith(_PYTHON_TAG):
            raise YamlError(f"a Python object tag ({_tag_name(tag)}) is refused: campaign files hold plain data "
                            f"only, and loading them never runs code", line)
        if tag not in _KNOWN_TAGS:
            raise YamlError(f"unknown YAML tag {_tag_name(tag)}: only plain data (text, numbers, true/false, lists, "
                            f"mappings, dates) is read", line)
        if depth > MAX_DEPTH:
            raise YamlError(f"data nested more than {MAX_DEPTH} levels deep", line)
        if tag == _INT_TAG and len(node.value) > MAX_NUMBER_CHARS:
            raise YamlError(f"a number of {len(node.value):,} characters; at most {MAX_NUMBER_CHARS} are read "
                            f"(no campaign needs a longer one)", line)
        on_path.add(nid)
        stack.append((node, depth, True))
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                stack.append((k, depth + 1, False))
                stack.append((v, depth + 1, False))
        elif isinstance(node, yaml.SequenceNode):
            for v in node.value:
                stack.append((v, depth + 1, False))
    if size[id(root)] - len(size) > MAX_ALIAS_EXPANSION:
        raise YamlError(f"aliases (*name) expand this document to {size[id(root)]:,} nodes from {len(size):,} "
                        f"written (an alias bomb?); at most {MAX_ALIAS_EXPANSION:,} repeated nodes are allowed")


def _from_yaml_error(err: yaml.YAMLError, line_offset: int, text: str = "") -> YamlError:
    if isinstance(err, yaml.reader.ReaderError):  # a character YAML does not allow: no mark, a position
        line = text.count("\n", 0, err.position) + 1 + line_offset
        code = err.character if isinstance(err.character, int) else ord(str(err.character)[:1] or "\0")
        return YamlError(f"not valid YAML: a character YAML does not allow (U+{code:04X}; text holds printable "
                         f"characters, tabs and line breaks)", line, syntax=True)
    mark = getattr(err, "problem_mark", None) or getattr(err, "context_mark", None)
    line = mark.line + 1 + line_offset if mark is not None else None
    problem = getattr(err, "problem", None) or str(err)
    context = getattr(err, "context", None)
    text = f"{problem} ({context})" if context else problem
    if not isinstance(err, yaml.constructor.ConstructorError):
        return YamlError(f"not valid YAML: {text}", line, syntax=True)
    if "duplicate key" not in text:
        text = f"cannot read this value: {text}"
    return YamlError(text, line)


class Document:
    """Parsed YAML: ``data`` (plain dicts, lists, text, numbers, true/false, null, dates) and the node tree it
    was built from, for ``line_of``."""

    __slots__ = ("data", "node", "line_offset")

    def __init__(self, data: Any, node: Any, line_offset: int = 0):
        self.data = data
        self.node = node
        self.line_offset = line_offset

    def line_of(self, path: Iterable) -> int | None:
        """The 1-based line of the value at ``path`` (keys and list indexes); for a path that goes deeper than
        the document, the line of the deepest part that exists."""
        line = line_of(self.node, path)
        return None if line is None else line + self.line_offset


def load_document(text: str, *, line_offset: int = 0, max_chars: int = MAX_CHARS) -> Document:
    """Parse ``text`` once, check its node tree, build its data. Lines in errors are shifted by ``line_offset``
    (for a fragment of a longer file). Raises YamlError."""
    if len(text) > max_chars:
        raise YamlError(f"{len(text):,} characters; at most {max_chars:,} are read (a damaged or foreign file?)")
    loader = _Loader(text)
    try:
        try:
            node = loader.get_single_node()
            if node is None:
                return Document(None, None, line_offset)
            _check_tree(node)
            return Document(loader.construct_document(node), node, line_offset)
        except YamlError as err:
            if line_offset and err.line:
                err.line += line_offset
            raise
        except yaml.YAMLError as err:
            raise _from_yaml_error(err, line_offset, text) from None
        except RecursionError:
            raise YamlError("data nested too deeply to read") from None
        except (ValueError, OverflowError, TypeError) as err:  # a constructor's own refusal (a 5,000-digit number)
            reason = str(err)
            if "digits" in reason:
                reason = "a number with more digits than Python reads (4,300); no campaign needs one"
            raise YamlError(f"cannot read this value: {reason[:200]}") from None
    finally:
        loader.dispose()


def load(text: str, **options: Any) -> Any:
    """Parse ``text`` into plain data (``load_document`` without the node tree)."""
    return load_document(text, **options).data


def line_of(root: Any, path: Iterable) -> int | None:
    """The 1-based line of the node at ``path`` under ``root`` (the key's line for a mapping entry), or of the
    deepest node along it that exists; None for an empty document."""
    if root is None:
        return None
    node, line = root, root.start_mark.line + 1
    for part in path:
        if isinstance(node, yaml.MappingNode):
            want = str(part)
            for k, v in node.value:
                if isinstance(k, yaml.ScalarNode) and k.value == want:
                    node, line = v, k.start_mark.line + 1
                    break
            else:
                return line
        elif isinstance(node, yaml.SequenceNode) and str(part).isdigit() and int(part) < len(node.value):
            node = node.value[int(part)]
            line = node.start_mark.line + 1
        else:
            return line
    return line
