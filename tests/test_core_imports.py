"""The pure core imports only the standard library, and `import delvebook` stays light.

Each check runs in a fresh interpreter, so modules other tests loaded cannot hide a slip.
"""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

# The pure core (its folder, but the YAML readers: the one loader and the rules data's reader) and the engine above it
PACKAGE = Path(__file__).resolve().parent.parent / "delvebook"
CORE = sorted(".".join(p.relative_to(PACKAGE).with_suffix("").parts).removesuffix(".__init__")
              for folder in ("core", "engine") for p in (PACKAGE / folder).rglob("*.py")
              if p.relative_to(PACKAGE).as_posix() not in ("core/yamlsafe.py", "core/rules/load.py"))
HEAVY = ["yaml", "ipywidgets", "plotly", "pandas"]


def _run(code: str) -> dict:
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_pure_core_loads_no_yaml_widgets_charts_or_frames():
    result = _run(f"""
        import importlib, importlib.util, json, sys
        present = [m for m in {CORE!r} if importlib.util.find_spec("delvebook." + m) is not None]
        for m in present:
            importlib.import_module("delvebook." + m)
        heavy = [m for m in {HEAVY!r} if m in sys.modules]
        print(json.dumps({{"present": present, "heavy": heavy}}))
    """)
    assert {"core.dice", "core.distribution", "core.rules", "engine"} <= set(result["present"])
    assert result["heavy"] == [], f"the core ({', '.join(result['present'])}) loaded {result['heavy']}"


def test_import_delvebook_loads_neither_pandas_nor_plotly_nor_ipywidgets():
    result = _run("""
        import json, sys
        import delvebook
        print(json.dumps({"heavy": [m for m in ("pandas", "plotly", "ipywidgets") if m in sys.modules]}))
    """)
    assert result["heavy"] == []


def test_dice_and_odds_load_only_the_standard_library():
    result = _run("""
        import json, sys
        before = set(sys.modules)
        import delvebook.core.dice, delvebook.core.distribution
        new = {name.partition(".")[0] for name in set(sys.modules) - before}
        outside = sorted(n for n in new if n not in sys.stdlib_module_names
                         and n != "delvebook" and not n.startswith("_"))
        print(json.dumps({"outside": outside}))
    """)
    assert result["outside"] == []
