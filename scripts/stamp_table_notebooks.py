"""Write the table's slot (its output naming the table's model, and the stand-in in the widget state) into the table
notebooks: python scripts/stamp_table_notebooks.py (after editing examples/run-a-session.ipynb)."""
from __future__ import annotations

import json
from pathlib import Path

from delvebook.view.slot import stamp

REPO = Path(__file__).resolve().parent.parent
NOTEBOOK = REPO / "examples" / "run-a-session.ipynb"  # (a wheel carries a copy, made as it is built: setup.py)

if __name__ == "__main__":
    stamped = stamp(json.loads(NOTEBOOK.read_text(encoding="utf-8")))
    NOTEBOOK.write_text(json.dumps(stamped, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"stamped {NOTEBOOK.relative_to(REPO)}")
