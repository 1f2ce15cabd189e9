"""Dependencies point one way: core <- store <- campaign <- views, with no cycle and no private reach.

Read from the source (every import, at the top of a module or inside a function), so a lazy import that
goes the wrong way counts as much as an eager one.
"""
from __future__ import annotations

import ast
import json
import subprocess
import sys
import textwrap
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "delvebook"

# Layers, lowest first: each is folders of the package (the map is the folders). A module may import its own
# layer and the layers below it; between the folders of one layer no cycle (``test_no_folder_imports_back``).
LAYERS = {
    "core": {"core", "dice"},
    "engine": {"engine"},
    "below the campaign": {"store", "narrate", "forecast"},
    "campaign": {"campaign"},
    "views": {"players", "view", "table", "pages", "analysis", "charts"},
    "share": {"share"},
    "cli": {"cli", "__main__"},
}
ORDER = list(LAYERS)


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts.pop()
        if parts:
            out[".".join(parts)] = path
    return out


def _layer(module: str) -> str:
    folder = module.split(".")[0]
    found = [layer for layer, folders in LAYERS.items() if folder in folders]
    assert found, f"delvebook.{module} belongs to no layer: its folder {folder!r} is not in LAYERS"
    return found[0]


def test_the_layer_map_is_the_packages_folders():
    """Every folder of the package is in one layer, and the package's top holds no module but its entry points
    (``__init__``, ``__main__``) and the dice's public path (``delvebook.dice``)."""
    folders = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    top = {p.stem for p in PACKAGE.glob("*.py")}
    mapped = set().union(*LAYERS.values())
    assert folders | (top - {"__init__"}) == mapped
    assert top == {"__init__", "__main__", "dice"}


def _imports(module: str, path: Path) -> list[tuple[str, list[str], int]]:
    """(imported delvebook module, names taken from it, line) for every import in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1] if node.level > 1 else list(package)
                target = ".".join(base + ([node.module] if node.module else []))
            elif node.module and node.module.startswith("delvebook"):
                target = node.module.removeprefix("delvebook").lstrip(".")
            else:
                continue
            names = [a.name for a in node.names]
            if not node.module:  # from . import x, y: each is a module
                for n in names:
                    out.append(((target + "." + n).strip("."), [], node.lineno))
            else:
                out.append((target, names, node.lineno))
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("delvebook."):
                    out.append((a.name.removeprefix("delvebook."), [], node.lineno))
    return [(t, n, line) for t, n, line in out if t]


def _resolve(target: str, modules: dict) -> str | None:
    while target and target not in modules:
        target = target.rpartition(".")[0]
    return target or None


def _graph():
    modules = _modules()
    edges = {}
    for mod, path in modules.items():
        edges[mod] = [(_resolve(t, modules), names, line) for t, names, line in _imports(mod, path)]
    return modules, edges


def test_every_import_points_down_the_layers():
    _, edges = _graph()
    wrong = []
    for mod, targets in edges.items():
        mine = ORDER.index(_layer(mod))
        for target, _, line in targets:
            if target is not None and ORDER.index(_layer(target)) > mine:
                wrong.append(f"delvebook.{mod} (line {line}, {_layer(mod)}) imports delvebook.{target} "
                             f"({_layer(target)})")
    assert wrong == []


def test_no_module_imports_another_packages_private_name():
    _, edges = _graph()
    wrong = []
    for mod, targets in edges.items():
        for target, names, line in targets:
            if target is None or target.split(".")[0] == mod.split(".")[0]:
                continue
            for n in names:
                if n.startswith("_") and not n.startswith("__"):
                    wrong.append(f"delvebook.{mod} line {line}: {n} from delvebook.{target}")
    assert wrong == []


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles of ``graph`` (module -> the modules it imports): each as a path back to where it began."""
    seen, on_path, cycles = set(), [], []

    def visit(m):
        if m in on_path:
            cycles.append(on_path[on_path.index(m):] + [m])
            return
        if m in seen:
            return
        seen.add(m)
        on_path.append(m)
        for t in sorted(graph.get(m, ())):
            visit(t)
        on_path.pop()

    for m in sorted(graph):
        visit(m)
    return cycles


def test_there_is_no_import_cycle():
    """Counting a package's ``__init__`` as a module: a submodule that imports its own package (``from delvebook.engine
    import X`` in ``engine/combat.py``) is a cycle when the ``__init__`` imports that submodule back."""
    _, edges = _graph()
    graph = {m: {t for t, _, _ in ts if t is not None and t != m} for m, ts in edges.items()}
    cycles = _cycles(graph)
    assert cycles == [], " | ".join(" -> ".join(c) for c in cycles)


def test_no_folder_imports_back():
    """Folders as rooms: no two folders of the package import each other, even through a third (the players'
    pages and the keeper's table share their view from ``view``, below both)."""
    _, edges = _graph()
    graph: dict[str, set[str]] = {}
    for m, ts in edges.items():
        for t, _, _ in ts:
            if t is not None and t.split(".")[0] != m.split(".")[0]:
                graph.setdefault(m.split(".")[0], set()).add(t.split(".")[0])
    cycles = _cycles(graph)
    assert cycles == [], " | ".join(" -> ".join(c) for c in cycles)


def test_a_submodule_importing_its_own_package_back_is_a_cycle(tmp_path):
    engine = tmp_path / "engine"
    engine.mkdir()
    (engine / "__init__.py").write_text("from . import combat\nfrom .base import Refused\n")
    (engine / "base.py").write_text("class Refused(Exception): ...\n")
    (engine / "combat.py").write_text("def f():\n    from delvebook.engine import Refused\n")
    modules = {"engine": engine / "__init__.py", "engine.base": engine / "base.py", "engine.combat": engine / "combat.py"}
    graph = {m: {_resolve(t, modules) for t, _, _ in _imports(m, p)} - {m, None} for m, p in modules.items()}
    assert _cycles(graph) == [["engine", "engine.combat", "engine"]]


def test_views_read_no_private_attribute_of_another_object():
    wrong = []
    modules = _modules()
    for mod, path in modules.items():
        if _layer(mod) != "views":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
                owner = node.value
                if isinstance(owner, ast.Name) and owner.id in ("self", "cls"):
                    continue
                wrong.append(f"delvebook.{mod} line {node.lineno}: .{node.attr}")
    assert wrong == []


def test_import_delvebook_dice_loads_the_dice_alone():
    out = subprocess.run([sys.executable, "-c", textwrap.dedent("""
        import json, sys
        import delvebook.dice
        import delvebook.core.dice
        assert delvebook.dice is delvebook.core.dice and delvebook.dice.roll is delvebook.core.dice.roll
        print(json.dumps(sorted(m for m in sys.modules if m.startswith("delvebook"))))
    """)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == ["delvebook", "delvebook.core", "delvebook.core.dice", "delvebook.dice"]


def test_the_core_rules_name_no_class_module():
    """Combat, checks, queries, the context and the registries never import a class's module: classes plug in
    through ``engine.effects``."""
    _, edges = _graph()
    core = ("engine.combat", "engine.encounters", "engine.checks", "engine.queries", "engine.base", "engine.effects")
    wrong = [f"delvebook.{m} (line {line}) imports delvebook.{t}" for m, ts in edges.items()
             if m.startswith(core) for t, _, line in ts
             if t is not None and (t == "engine.abilities" or t.startswith("engine.abilities."))]
    assert wrong == []
