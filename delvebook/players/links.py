"""The players' links: a secret for each player's page and one for the second screen, where the players' server
listens, and a link as a QR code to scan.

The secrets live in ``requests/keys.json`` (readable by its owner only; export and zips leave the folder out),
written by whoever serves the pages (``ensure_keys``: ``delvebook players``, or the keeper's table under Jupyter)
and read by the keeper's table to show each link. A secret never goes on a command line (``ps`` shows command
lines), in a link's path or query (it is the fragment, which no server or log sees) or in any other file.
``server.json`` beside it says where ``delvebook players`` listens (its addresses and port) while it runs.

Under a Jupyter server with the pages' extension (``delvebook.pages.extension``), the extension makes a folder of
its own (named in ``DELVEBOOK_PAGES``, which the kernels it starts inherit) and serves the campaigns the tables in
its kernels register there (``serve_here``), while the kernel that registered one runs.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from pathlib import Path
from typing import Any, Mapping

from ..store.careful import open_regular, read_small
from ..store.publish import pid_alive, write_file
from .requests import FOLDER, RequestError

__all__ = ["KEYS", "SERVER", "Keys", "read_keys", "ensure_keys", "read_server", "write_server", "clear_server",
           "server_alive", "link", "served_link", "qr", "KEY_BYTES", "PAGES_ENV", "jupyter_pages", "serve_here",
           "unserve_here", "served_here", "registered", "announce_pages"]

KEYS = "keys.json"
SERVER = "server.json"
KEY_BYTES = 18  # 144 bits: 24 characters in a link


class Keys:
    """The secrets of the links: ``table`` (the second screen) and one a player (``players``)."""

    def __init__(self, table: str, players: Mapping[str, str]):
        self.table = table
        self.players = dict(players)

    def who(self, key: str | None) -> tuple[str, str | None] | None:
        """Whose link this secret is: ``("table", None)``, ``("player", name)``, or None (compared in constant
        time, so a guess learns nothing from how long a refusal takes)."""
        if not key or not isinstance(key, str):
            return None
        given = key.encode("utf-8", "replace")
        found = None
        if hmac.compare_digest(given, self.table.encode()):
            found = ("table", None)
        for player, secret in self.players.items():
            if hmac.compare_digest(given, secret.encode()):
                found = ("player", player)
        return found

    def to_dict(self) -> dict:
        return {"table": self.table, "players": dict(self.players)}


def _folder(campaign: str | os.PathLike) -> Path:
    return Path(campaign) / FOLDER


_MOST = 256 * 1024  # bytes of keys.json or server.json: a secret for each of a few thousand players


def _read_json(file: Path, aside: list | None = None) -> Any:
    """The JSON ``file`` holds, read carefully (``store.careful``: a regular file of at most ``_MOST`` bytes); None
    if there is none, or what is there is not (why is added to ``aside``, when given)."""
    raw, problem = read_small(file, _MOST)
    if problem is not None and aside is not None:
        aside.append(problem)
    if raw is None:
        return None
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None


def _key(v: Any) -> bool:
    return isinstance(v, str) and 16 <= len(v) <= 64 and v.replace("-", "").replace("_", "").isalnum()


def read_keys(campaign: str | os.PathLike, aside: list | None = None) -> Keys | None:
    """The links' secrets, or None if the players' server has made none yet (or the file is not one it wrote;
    what stands in its place that is not a file is added to ``aside``, as ``store.careful.Unreadable``)."""
    data = _read_json(_folder(campaign) / KEYS, aside)
    if not isinstance(data, dict) or not _key(data.get("table")) or not isinstance(data.get("players"), dict):
        return None
    return Keys(data["table"], {p: k for p, k in data["players"].items() if isinstance(p, str) and _key(k)})


def ensure_keys(campaign: str | os.PathLike, players: list[str], *, new: bool = False) -> Keys:
    """The links' secrets with one for each of ``players`` (made where missing; all made anew with ``new``: the
    old links stop working), written to ``keys.json``, readable by its owner only."""
    folder = _folder(campaign)
    folder.mkdir(mode=0o700, exist_ok=True)
    have = None if new else read_keys(campaign)
    keys = have or Keys(secrets.token_urlsafe(KEY_BYTES), {})
    missing = [p for p in players if p not in keys.players]
    if have is not None and not missing:
        return keys
    for p in missing:
        keys.players[p] = secrets.token_urlsafe(KEY_BYTES)
    file = folder / KEYS
    fd, problem = open_regular(file)
    if problem is not None:
        raise RequestError(f"{FOLDER}/{KEYS} cannot hold the links' secrets: {problem.why} (remove it, and it is "
                           f"made again)")
    if fd is not None:
        os.close(fd)
    else:  # made readable by its owner alone before a secret is in it
        os.close(os.open(file, os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600))
    os.chmod(file, 0o600)
    write_file(file, json.dumps(keys.to_dict(), indent=1, ensure_ascii=False) + "\n")
    return keys


def write_server(campaign: str | os.PathLike, info: Mapping[str, Any]) -> None:
    write_file(_folder(campaign) / SERVER, json.dumps(dict(info), indent=1) + "\n")


def clear_server(campaign: str | os.PathLike, pid: int) -> None:
    """Remove ``server.json`` if it is this server's (a server started since keeps its own)."""
    info = read_server(campaign)
    if info is not None and info.get("pid") == pid:
        try:
            os.unlink(_folder(campaign) / SERVER)
        except OSError:
            pass


def read_server(campaign: str | os.PathLike, aside: list | None = None) -> dict | None:
    """Where the players' server of this campaign said it listens: ``{"pid", "port", "hosts", "local"}`` (what
    stands in its file's place that is not a file is added to ``aside``)."""
    data = _read_json(_folder(campaign) / SERVER, aside)
    if not isinstance(data, dict) or not isinstance(data.get("pid"), int) or not isinstance(data.get("port"), int):
        return None
    hosts = data.get("hosts")
    if not isinstance(hosts, list) or not all(isinstance(h, str) and len(h) < 256 for h in hosts):
        return None
    return data


def server_alive(info: Mapping | None) -> bool:
    """Whether the server that wrote ``info`` still runs (its process is there, and is a delvebook server)."""
    if not info:
        return False
    pid = info["pid"]
    if not pid_alive(pid):
        return False
    cmdline = Path(f"/proc/{pid}/cmdline")
    try:
        return b"players" in cmdline.read_bytes()
    except OSError:
        return True  # no /proc here: the process is there, which is all that can be known


def link(host: str, port: int, key: str | None) -> str:
    """A link to ``delvebook players`` on ``host``:``port``. The secret is the link's fragment (after ``#``),
    which a browser keeps to itself: no server, proxy or log ever sees it."""
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/" + (f"#{key}" if key else "")


def served_link(origin: str, base_url: str, key: str) -> str:
    """A link to the players' pages the Jupyter server at ``origin`` + ``base_url`` serves (``/delvebook/``
    under it), the secret as its fragment."""
    path = base_url.strip("/")
    return f"{origin.rstrip('/')}/{path + '/' if path else ''}delvebook/#{key}"


def qr(text: str) -> dict | None:
    """``text`` as a QR code for the page to draw: ``{"size": modules a side, "d": an SVG path of the dark
    modules}``, or None without the ``players`` extra's QR library (segno)."""
    try:
        import segno
    except ImportError:
        return None
    code = segno.make(text, error="m", micro=False)
    rows = list(code.matrix_iter(border=2))
    parts = []
    for y, row in enumerate(rows):
        x = 0
        while x < len(row):
            if row[x]:
                start = x
                while x < len(row) and row[x]:
                    x += 1
                parts.append(f"M{start} {y}h{x - start}v1h-{x - start}z")
            else:
                x += 1
    return {"size": len(rows), "d": "".join(parts)}


# ---------------------------------------------------------------- the pages under the Jupyter server

PAGES_ENV = "DELVEBOOK_PAGES"
"""The folder where the Jupyter server's pages extension reads which campaigns to serve (its kernels inherit it)."""
_INFO = "server.json"


def jupyter_pages(env: Mapping[str, str] | None = None) -> dict | None:
    """The pages extension of the Jupyter server this kernel runs under, while it runs: ``{"pid", "base_url",
    "folder"}``; None outside such a server (a script, ``delvebook players`` alone, JupyterLite)."""
    folder = (os.environ if env is None else env).get(PAGES_ENV)
    if not folder:
        return None
    info = _read_json(Path(folder) / _INFO)
    if not isinstance(info, dict) or not isinstance(info.get("pid"), int) or not pid_alive(info["pid"]):
        return None
    base = info.get("base_url")
    if not isinstance(base, str) or not base.startswith("/") or len(base) > 300:
        return None
    return {"pid": info["pid"], "base_url": base, "folder": Path(folder)}


def announce_pages(folder: str | os.PathLike, base_url: str) -> None:
    """What the extension writes in its folder: its process and base URL (no secret)."""
    write_file(Path(folder) / _INFO, json.dumps({"pid": os.getpid(), "base_url": base_url}) + "\n")


def _entry(folder: Path, campaign: str | os.PathLike) -> Path:
    name = hashlib.sha256(str(Path(campaign).resolve()).encode("utf-8", "surrogateescape")).hexdigest()[:24]
    return folder / f"{name}.json"


def serve_here(pages: Mapping, campaign: str | os.PathLike) -> None:
    """Register ``campaign`` with the Jupyter server's pages (``jupyter_pages()``), served while this process runs."""
    write_file(_entry(pages["folder"], campaign), json.dumps({"campaign": str(Path(campaign).resolve()),
                                                              "pid": os.getpid()}) + "\n")


def unserve_here(pages: Mapping, campaign: str | os.PathLike) -> None:
    try:
        os.unlink(_entry(pages["folder"], campaign))
    except OSError:
        pass


def served_here(pages: Mapping, campaign: str | os.PathLike) -> bool:
    """Whether ``campaign`` is registered with these pages by a process that still runs."""
    data = _read_json(_entry(pages["folder"], campaign))
    return isinstance(data, dict) and isinstance(data.get("pid"), int) and pid_alive(data["pid"])


def registered(folder: str | os.PathLike) -> list[Path]:
    """The campaigns registered in the extension's ``folder`` by processes that still run (entries of processes
    gone are removed)."""
    out = []
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return out
    for name in names:
        if not name.endswith(".json") or name == _INFO or len(name) != 29:
            continue
        data = _read_json(Path(folder) / name)
        if not isinstance(data, dict) or not isinstance(data.get("campaign"), str) or \
                not isinstance(data.get("pid"), int):
            continue
        if not pid_alive(data["pid"]):
            try:
                os.unlink(Path(folder) / name)
            except OSError:
                pass
            continue
        out.append(Path(data["campaign"]))
    return out
