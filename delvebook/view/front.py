"""The table's front end as the page loads it: one ES module text and its CSS. anywidget loads a module from a
string (where a relative import has nothing to resolve against), and the players' pages serve the same text, so
the files of ``static/`` are joined here into one module, with nothing fetched from a network.

The table's own files are ES modules, one per panel (``party.js``, ``fight.js``, ``actor.js``, ``outcome.js``,
``log.js``, ``keeper.js``, ``screen.js``) over the shared DOM helpers (``dom.js``), one table's controls
(``controls.js``) and the redraw's keyed reconciliation (``morph.js``); ``table.js`` is the table, and exports the
anywidget entry. Each imports by name what it uses from its siblings (``import { h, text } from "./dom.js";``)
and marks what it gives ``export``. Joined, they share one scope: the imports go and so does each ``export``
keyword (the entry's ``export default`` stays). ``phones.js`` (the players' phones' parts), ``prepare.js`` (the
Keeper panel's preparing sections) and ``charts.js`` (the Charts panel's SVG) are plain scripts in that scope."""

from __future__ import annotations

import re
from importlib import resources

__all__ = ["esm", "css", "static", "PARTS"]

# the order of the joined text: the helpers, the plain scripts that use them, the modules, the entry last
PARTS = ("dom.js", "phones.js", "prepare.js", "charts.js", "controls.js", "morph.js", "party.js", "fight.js",
         "actor.js", "outcome.js", "log.js", "keeper.js", "screen.js", "table.js")

_IMPORT = re.compile(r'^import \{([^}]*)\} from "\./([\w-]+\.js)";\n', re.M)
_EXPORT = re.compile(r"^export (?=(?:async )?(?:function|const|let|class) )", re.M)


def static(name: str) -> str:
    # read as text, not given as a path: anywidget would watch a path with a thread (none under Pyodide)
    return resources.files(__package__).joinpath("static", name).read_text(encoding="utf-8")


def imports(source: str) -> list[tuple[str, list[str]]]:
    """What a part imports: (file, names) for each import line."""
    return [(m.group(2), [n.strip() for n in m.group(1).split(",") if n.strip()]) for m in _IMPORT.finditer(source)]


def exports(source: str) -> set[str]:
    """The names a part exports."""
    return set(re.findall(r"^export (?:async )?(?:function|const|let|class) (\w+)", source, re.M))


def joined(name: str, source: str) -> str:
    """One part as it goes into the module text: its imports resolved by the shared scope, its exports plain."""
    for file, _ in imports(source):
        if file not in PARTS:
            raise ValueError(f"static/{name}: imports ./{file}, which is not one of the front end's parts")
    body = _EXPORT.sub("", _IMPORT.sub("", source))
    left = re.search(r"^\s*(import\b.*|export (?!default\b).*)$", body, re.M)
    if left:
        raise ValueError(f"static/{name}: cannot join {left.group(1)!r}: imports are "
                         '`import { a, b } from "./file.js";`, and exports are `export function|const ...`')
    return body


def esm() -> str:
    """The table's ES module: every part, joined in ``PARTS`` order."""
    return "\n".join(joined(name, static(name)) for name in PARTS)


def css() -> str:
    return static("table.css")
