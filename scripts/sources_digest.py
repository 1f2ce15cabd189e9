"""What a generated file depends on, as digests: which source files a generator read, each reduced to what can change
what it generates, so that a change elsewhere (a docstring, a comment, a rules quote) does not make it due.

- a Python module: its syntax tree without docstrings (comments and layout are not in it);
- a rules YAML file: its data without the provenance keys (``source``, ``quote``, ``reason``, ``assumed``,
  ``note``, ``reading``: they say where a rule came from, never what it does);
- a folder of the package it loaded modules from: the names of its modules and data files (a new module there is
  found and imported, and may change what is made).

``record(file, sources)`` writes each source's digest (paths from the repository's top); ``due(file)`` says which
recorded sources read differently now. ``scripts/make_finished_campaign.py --record`` writes the record of the
bundled long delve (``make long-delve``), and the fast tier compares it (``tests/test_campaign.py``).
"""

from __future__ import annotations

import ast
import hashlib
import json
from pathlib import Path
from typing import Any, Iterable

import yaml

ROOT = Path(__file__).resolve().parent.parent
PROVENANCE = frozenset({"source", "quote", "reason", "assumed", "note", "reading"})

__all__ = ["ROOT", "normalized", "digests", "record", "due", "loaded_sources"]


def _strip_docstrings(tree: ast.AST) -> ast.AST:
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            node.body = body[1:] or [ast.Pass()]
    return tree


def _without_provenance(data: Any) -> Any:
    if isinstance(data, dict):
        return {str(k): _without_provenance(v) for k, v in data.items() if k not in PROVENANCE}
    if isinstance(data, list):
        return [_without_provenance(v) for v in data]
    return data


def normalized(path: Path) -> bytes:
    """What of a source file can change what a generator makes of it."""
    if path.is_dir():
        return "\n".join(sorted(p.name for p in path.iterdir() if p.suffix in (".py", ".yaml"))).encode()
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".py":
        return ast.dump(_strip_docstrings(ast.parse(text)), include_attributes=False).encode()
    if path.suffix in (".yaml", ".yml"):
        return json.dumps(_without_provenance(yaml.safe_load(text)), sort_keys=True, default=str).encode()
    return text.encode()


def digests(sources: Iterable[str]) -> dict[str, str]:
    """Each source (a path from the repository's top) and the digest of what it normalizes to (None: gone)."""
    out = {}
    for rel in sorted(set(sources)):
        path = ROOT / rel
        out[rel] = hashlib.sha256(normalized(path)).hexdigest() if path.exists() else None
    return out


def loaded_sources(modules: Iterable[Any], also: Iterable[Path] = ()) -> list[str]:
    """The files of the delvebook modules among ``modules`` (``sys.modules.values()`` after a run) and the folders
    they are in, the rules data they read, and ``also``: paths from the repository's top."""
    package = ROOT / "delvebook"
    out = set()
    for m in modules:
        f = getattr(m, "__file__", None)
        if f and Path(f).resolve().is_relative_to(package):
            out.add(Path(f).resolve().relative_to(ROOT).as_posix())
            out.add(Path(f).resolve().parent.relative_to(ROOT).as_posix() + "/")
    out |= {p.relative_to(ROOT).as_posix() for p in (package / "core" / "rules").glob("*.yaml")}
    out |= {Path(p).resolve().relative_to(ROOT).as_posix() for p in also}
    return sorted(out)


def record(file: Path, sources: Iterable[str], made: str) -> None:
    """Write the digests of ``sources``, saying what they made (``made``) and how to make it again."""
    body = {"made": made, "again": "make long-delve", "sources": digests(sources)}
    file.write_text(json.dumps(body, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def due(file: Path) -> list[str]:
    """The recorded sources that read differently now (changed, or gone): empty when what was made is up to date."""
    recorded = json.loads(file.read_text(encoding="utf-8"))["sources"]
    now = digests(recorded)
    return [rel for rel, d in recorded.items() if now.get(rel) != d]
