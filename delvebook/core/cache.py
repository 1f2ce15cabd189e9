"""Where delvebook keeps what it can always make again (a campaign's snapshot, the rules and a campaign file in a
prepared form, the forecast's calibration), and how such a file is kept and read back.

The folder is ``$DELVEBOOK_CACHE``, else ``$XDG_CACHE_HOME/delvebook``, else ``~/.cache/delvebook``; never a campaign
folder, so nothing there travels with a campaign, and deleting it loses nothing. A file kept there is signed with this
user's key (an HMAC with 32 random bytes kept in the folder, readable by this user alone) and written whole (a
temporary file renamed over it). It is read back only if it is a regular file (not a symlink, a folder or a device)
within its size, whose signature holds: anything else, a file cut short, changed or planted, is as if there were none.

Standard library only: part of the pure core.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
import os
import stat
import threading
from pathlib import Path

__all__ = ["cache_folder", "code_identity", "read_signed", "write_signed", "dumps_exact", "loads_exact", "same_types",
           "read_prepared", "write_prepared"]

_KEY_FILE = ".key"
_KEY_SIZE = 32
_PACKAGE = Path(__file__).resolve().parent.parent


def cache_folder() -> Path:
    """The user's cache folder for delvebook (see the module); the tests point ``$DELVEBOOK_CACHE`` at their own."""
    if os.environ.get("DELVEBOOK_CACHE"):
        return Path(os.environ["DELVEBOOK_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "delvebook"


@functools.lru_cache(maxsize=1)
def code_identity() -> str:
    """This delvebook as installed: its version, and each source and data file of the package by path, size and
    modification time (a file edited, another install: another identity). What a prepared form was made by."""
    from . import __version__
    h = hashlib.sha256(f"{__version__}\0".encode())
    stack, files = [str(_PACKAGE)], []
    while stack:
        with os.scandir(stack.pop()) as it:
            for entry in it:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name != "__pycache__":
                        stack.append(entry.path)
                elif entry.name.endswith((".py", ".yaml", ".js", ".css")):
                    st = entry.stat()
                    files.append(f"{entry.path[len(str(_PACKAGE)):]}\0{st.st_size}\0{st.st_mtime_ns}")
    h.update("\n".join(sorted(files)).encode())
    return h.hexdigest()


def read_regular(file: Path, limit: int) -> bytes | None:
    """A regular file's bytes (not through a symlink, not a folder, a device or a pipe, at most ``limit``), or None."""
    try:
        fd = os.open(file, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
                     | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
            return None
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, max(st.st_size - size, 1 << 16))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks) if size <= limit else None
    except OSError:
        return None
    finally:
        os.close(fd)


def _key(make: bool) -> bytes | None:
    """This user's key (made, readable by this user alone, when ``make`` and there is none yet)."""
    folder = cache_folder()
    file = folder / _KEY_FILE
    key = read_regular(file, _KEY_SIZE)
    if key is not None and len(key) == _KEY_SIZE:
        return key
    if not make or key is not None:  # a file that is not a key: nothing is kept
        return None
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(file, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
                     | getattr(os, "O_CLOEXEC", 0), 0o600)
    except FileExistsError:  # another process made it meanwhile
        key = read_regular(file, _KEY_SIZE)
        return key if key is not None and len(key) == _KEY_SIZE else None
    except OSError:
        return None
    try:
        key = os.urandom(_KEY_SIZE)
        os.write(fd, key)
    finally:
        os.close(fd)
    return key


def _signature(key: bytes, head: bytes, body: bytes) -> bytes:
    return hmac.new(key, head + b"\n" + body, hashlib.sha256).hexdigest().encode()


def read_signed(file: Path, head: bytes, limit: int) -> memoryview | None:
    """The body of a file ``write_signed`` kept with this ``head``, if it holds (see the module), else None."""
    key = _key(make=False)
    if key is None:
        return None
    raw = read_regular(file, limit)
    if raw is None or not raw.startswith(head + b" "):
        return None
    newline = raw.find(b"\n", len(head) + 1)
    if newline < 0:
        return None
    body = memoryview(raw)[newline + 1:]
    if not hmac.compare_digest(raw[len(head) + 1:newline], _signature(key, head, body)):
        return None
    return body


def write_signed(file: Path, head: bytes, body: bytes) -> bool:
    """Keep ``body`` in ``file`` (in the cache folder), signed, under ``head`` (a line naming what it is); whole or
    not at all. A file that cannot be written (no cache folder, a folder in its place, a full disk) is not: returns
    whether it was. A symlink in its place is replaced, never followed."""
    key = _key(make=True)
    if key is None:
        return False
    tmp = file.with_name(f".{file.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        file.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
                     | getattr(os, "O_CLOEXEC", 0), 0o600)
    except OSError:
        return False
    try:
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(head + b" " + _signature(key, head, body) + b"\n")
                f.write(body)
            os.replace(tmp, file)
        finally:
            if os.path.lexists(tmp):
                os.unlink(tmp)
    except OSError:
        return False
    return True


# ---------------------------------------------------------------- plain data, exactly

_PAIRS = "\0pairs"  # a mapping with a key that is not text: its items, as a list of [key, value]


def _tagged(value):
    cls = value.__class__
    if cls is dict:
        if all(k.__class__ is str for k in value) and _PAIRS not in value:
            return {k: _tagged(v) for k, v in value.items()}
        return {_PAIRS: [[k, _tagged(v)] for k, v in value.items()]}
    if cls is list:
        return [_tagged(v) for v in value]
    return value


def _untagged(obj: dict):
    if len(obj) == 1 and _PAIRS in obj:
        return {k: v for k, v in obj[_PAIRS]}
    return obj


def _refuse_constant(name: str) -> None:
    raise ValueError(f"{name} is not plain data")


_EXACT = json.JSONDecoder(object_hook=_untagged, parse_constant=_refuse_constant)


def loads_exact(body) -> object:
    """What ``dumps_exact`` wrote, read back (ValueError for anything else)."""
    return _EXACT.decode(bytes(body).decode("utf-8"))


def dumps_exact(value) -> bytes | None:
    """``value`` (plain data: mappings, lists, text, numbers, true, false, null) as JSON that ``loads_exact`` reads
    back as the very same data, types and all (a mapping whose keys are numbers keeps them); None for what cannot."""
    try:
        body = json.dumps(_tagged(value), ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode()
        back = loads_exact(body)
    except (TypeError, ValueError, RecursionError):
        return None
    return body if back == value and same_types(back, value) else None


def same_types(a, b) -> bool:
    """Whether ``a`` and ``b`` (equal) hold the same types all the way down (1 == 1.0 == True)."""
    if a.__class__ is not b.__class__:
        return False
    if a.__class__ is dict:
        return all(same_types(v, b[k]) for k, v in a.items())
    if a.__class__ is list:
        return all(same_types(x, y) for x, y in zip(a, b))
    return True


# ---------------------------------------------------------------- prepared forms


def _prepared_file(kind: str, digest: str) -> Path:
    key = hashlib.sha256(f"{kind}\0{digest}\0{code_identity()}".encode()).hexdigest()[:40]
    return cache_folder() / "prepared" / f"{kind}-{key}.json"


def read_prepared(kind: str, digest: str, limit: int = 64 << 20) -> object | None:
    """What ``write_prepared`` kept of ``kind`` made from bytes of this ``digest`` by this delvebook, or None."""
    body = read_signed(_prepared_file(kind, digest), b"delvebook-prepared " + kind.encode(), limit)
    if body is None:
        return None
    try:
        return loads_exact(body)
    except (ValueError, RecursionError):
        return None


def write_prepared(kind: str, digest: str, data: object) -> bool:
    """Keep ``data``, what this delvebook made of ``kind`` from bytes of this ``digest`` and checked, for the next
    process to read instead of making it again (plain data that reads back exactly, or nothing is kept)."""
    body = dumps_exact(data)
    return body is not None and write_signed(_prepared_file(kind, digest), b"delvebook-prepared " + kind.encode(),
                                             body)
