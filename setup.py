"""The build step that puts in the wheel what ``delvebook lab`` and a campaign repository need from the repository
around the package (``delvebook/share/session.py``: the table notebook, the prepared campaign, Binder's pins), copied
from their one source as the wheel is built: ``delvebook/session/`` is never kept in git. Everything else is in
pyproject.toml."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent


def _originals() -> dict:
    spec = importlib.util.spec_from_file_location("_session", HERE / "delvebook" / "share" / "session.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # (standard library only: no import of the package and its dependencies)
    return module.ORIGINALS


class BuildWithSession(build_py):
    """``build_py``, then ``delvebook/session/`` made from its sources (a folder copied without what play leaves)."""

    def run(self) -> None:
        super().run()
        target = Path(self.build_lib) / "delvebook" / "session"
        for name, source in _originals().items():
            src, dest = HERE / source, target / name
            if src.is_dir():
                shutil.copytree(src, dest, dirs_exist_ok=True,
                                ignore=shutil.ignore_patterns(".delvebook.*", "requests", "__pycache__"))
            else:
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(src, dest)


setup(cmdclass={"build_py": BuildWithSession})
