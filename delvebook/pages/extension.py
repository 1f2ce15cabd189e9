"""The players' pages as a Jupyter server extension: served by the Jupyter server the table runs in (a laptop's
``jupyter lab``, Binder, a hub's ``/user/<keeper>/``, Notebook 7), under its ``base_url``, with no port of their own.

Switched on by ``jupyter_server_config.d/delvebook.json``, which the package installs (``pip install`` and an
editable install alike). When the server loads it:

- it makes a folder of its own in the server's runtime folder and names it in ``DELVEBOOK_PAGES``, which the
  kernels the server starts inherit; a keeper's table registers its campaign there (``links.serve_here``) and the
  pages serve it while that kernel runs, each link's secret finding its campaign;
- it adds the pages' handlers (``app``) at ``<base_url>delvebook/``, marked ``allow_unauthenticated``: a page
  needs its player's secret, never the keeper's Jupyter login, and gets no Jupyter API (the pages' CSP);
  everything else stays behind the login;
- it shows the table notebook's cells as trusted while the notebook holds exactly what the table writes in it
  (``view.slot.as_written``), so a page reloaded before a save draws the live table under any of these servers;
  any other notebook is left to Jupyter's own trust.
"""

from __future__ import annotations

import atexit
import os
import shutil
from pathlib import Path
from typing import Any

__all__ = ["load", "trust_table_notebooks", "PREFIX"]

PREFIX = "delvebook"
POLL_MS = 250


def load(serverapp: Any) -> None:
    """Add the pages to ``serverapp`` (a ``jupyter_server.serverapp.ServerApp``); never stops the server."""
    try:
        _load(serverapp)
    except Exception:  # noqa: BLE001  (a Jupyter server runs without the players' pages rather than not at all)
        serverapp.log.exception("delvebook: the players' pages could not be added to this Jupyter server")


def _load(serverapp: Any) -> None:
    from jupyter_server.auth.decorator import allow_unauthenticated
    from jupyter_server.base.handlers import JupyterHandler
    from jupyter_server.utils import url_path_join
    from tornado import ioloop, websocket

    from ..players import links
    from .app import LiveMixin, PageMixin, StaticMixin, routes
    from .served import Pages

    class Page(PageMixin, JupyterHandler):
        @allow_unauthenticated
        def get(self, *args: Any) -> None:
            PageMixin.get(self, *args)

    class Static(StaticMixin, JupyterHandler):
        @allow_unauthenticated
        def get(self, name: str) -> None:
            StaticMixin.get(self, name)

    class Live(LiveMixin, websocket.WebSocketHandler, JupyterHandler):
        @allow_unauthenticated
        async def get(self, *args: Any, **kwargs: Any) -> None:
            await websocket.WebSocketHandler.get(self, *args, **kwargs)

    folder = Path(serverapp.runtime_dir) / f"delvebook-pages-{os.getpid()}"
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    links.announce_pages(folder, serverapp.base_url)
    os.environ[links.PAGES_ENV] = str(folder)
    atexit.register(shutil.rmtree, folder, True)
    pages = Pages(lambda: [(c, {}) for c in links.registered(folder)], log=serverapp.log.warning)
    prefix = url_path_join(serverapp.base_url, PREFIX)
    web_app = serverapp.web_app
    web_app.settings.update(delvebook_pages=pages, delvebook_prefix=prefix.rstrip("/"))
    web_app.add_handlers(".*$", routes(prefix, Page, Static, Live))
    ioloop.PeriodicCallback(pages.follow, POLL_MS).start()
    trust_table_notebooks(serverapp.contents_manager)
    serverapp.log.info(f"delvebook: the players' pages are served at {prefix}/")


def trust_table_notebooks(contents_manager: Any) -> None:
    """The contents manager marks a notebook's cells trusted as ever, and a table notebook as the table wrote it
    trusted as well (``slot.as_written``): the only notebook shown trusted that Jupyter's notary did not sign."""
    from ..view.slot import as_written
    mark = contents_manager.mark_trusted_cells

    def mark_trusted_cells(nb: Any, path: str = "") -> None:
        mark(nb, path)
        if as_written(nb):
            for cell in nb.get("cells", []):
                if cell.get("cell_type") == "code":
                    cell.setdefault("metadata", {})["trusted"] = True

    contents_manager.mark_trusted_cells = mark_trusted_cells


_load_jupyter_server_extension = load  # the name jupyter_server calls
