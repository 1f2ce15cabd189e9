"""The engine's modules depend one way: no import cycle, counting imports made inside functions too."""

from __future__ import annotations

import ast
from pathlib import Path

import delvebook

ROOT = Path(delvebook.__file__).parent
CORE = ["engine", "events.py", "model.py", "dice.py", "distribution.py", "rules/__init__.py"]


def _module(path: Path) -> str:
    rel = path.relative_to(ROOT.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path, known: set[str]) -> set[str]:
    """The delvebook modules ``path`` imports (``from . import x`` counts as the submodule x)."""
    here = _module(path)
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = package
            for _ in range(node.level - 1):
                base = base.rpartition(".")[0]
            target = (f"{base}.{node.module}" if node.module else base) if node.level else node.module
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                out.add(sub if sub in known else target)
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
    return {m for m in out if m in known and m != here}


def test_the_core_has_no_import_cycle():
    files = [p for entry in CORE for p in ((ROOT / entry).rglob("*.py") if (ROOT / entry).is_dir() else [ROOT / entry])]
    known = {_module(p) for p in files}
    graph = {_module(p): _imports(p, known) for p in files}
    # a package's __init__ may gather its submodules; a submodule importing its own package back is the cycle
    seen: dict[str, int] = {}

    def visit(m: str, trail: list[str]) -> None:
        if seen.get(m) == 1:
            raise AssertionError("import cycle: " + " -> ".join(trail[trail.index(m):] + [m]))
        if seen.get(m) == 2:
            return
        seen[m] = 1
        for n in sorted(graph[m]):
            visit(n, trail + [m])
        seen[m] = 2

    for m in sorted(graph):
        visit(m, [])


def test_combat_and_the_checks_name_no_class_module():
    engine = ROOT / "engine"
    for name in ("combat.py", "checks.py", "queries.py", "base.py", "effects.py"):
        deps = _imports(engine / name, {"delvebook.engine.abilities"} | {
            f"delvebook.engine.abilities.{p.stem}" for p in (engine / "abilities").glob("*.py")})
        assert not deps, f"{name} imports {deps}"
