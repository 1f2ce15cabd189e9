"""Every example notebook runs top to bottom without an error, in this environment's own kernel."""
from __future__ import annotations

import sys

import nbformat
import pytest
from nbclient import NotebookClient

from conftest import CAMPAIGNS, EXAMPLES

NOTEBOOKS = sorted(EXAMPLES.glob("*.ipynb"))

# Appended to each notebook's copy: proves the kernel is this venv's Python, not one found elsewhere.
KERNEL_CHECK = "import sys\nprint(sys.prefix)"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_example_notebook_runs_clean(path, tmp_path, monkeypatch):
    monkeypatch.setenv("IPYTHONDIR", str(tmp_path / "ipython"))  # the kernel's history stays out of $HOME
    # run in a copy of examples/ beside campaigns/, as in the repository: the play copy a table notebook makes, and
    # anything a notebook writes, stay out of the checkout
    import shutil
    for folder in (EXAMPLES, CAMPAIGNS):
        shutil.copytree(folder, tmp_path / folder.name, ignore=shutil.ignore_patterns("play", ".ipynb_checkpoints"))
    nb = nbformat.read(path, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(KERNEL_CHECK))
    client = NotebookClient(
        nb,
        kernel_name="python3",
        timeout=120,
        resources={"metadata": {"path": str(tmp_path / EXAMPLES.name)}},
    )
    client.execute()  # raises CellExecutionError, with the cell and traceback, on any error

    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert not errors
    kernel_prefix = "".join(o.get("text", "") for o in nb.cells[-1].outputs).strip()
    assert kernel_prefix == sys.prefix, f"notebook ran in {kernel_prefix}, not in {sys.prefix}"


def test_examples_are_stored_without_outputs_but_the_table_notebooks_slot():
    """No output a run left behind; the table notebook keeps only its table's slot (the output naming the table's
    model and the stand-in line, as ``delvebook.view.slot.stamp`` writes them: scripts/stamp_table_notebooks.py)."""
    import json

    from delvebook.view.slot import stamp
    for path in NOTEBOOKS:
        nb = nbformat.read(path, as_version=4)
        if path.name == "run-a-session.ipynb":
            raw = json.loads(path.read_text(encoding="utf-8"))
            assert stamp(raw) == raw, "run-a-session.ipynb: run scripts/stamp_table_notebooks.py"
            continue
        for cell in nb.cells:
            if cell.cell_type == "code":
                assert not cell.outputs and cell.execution_count is None, f"{path.name} has stored outputs"
