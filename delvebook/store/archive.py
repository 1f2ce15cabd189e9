"""A campaign folder as a zip and back: ``export_zip`` (what a Binder or JupyterLite keeper downloads) and
``unpack`` (what ``Campaign.open("the.zip")`` reads).

Only a campaign's own files travel: ``campaign.yaml``, the log and the side files delvebook made (a torn tail set
aside, a displaced log), regular files only, read through one descriptor each. Unpacking stays within limits
(size, entries, compression ratio), never writes outside its folder and never over a campaign already there.
"""

from __future__ import annotations

import datetime as _dt
import io
import os
import re
import shutil
import stat
import tempfile
import zipfile
from pathlib import Path
from typing import Any, NamedTuple

from .errors import StoreError, os_error
from .files import check_new_path, write_all

__all__ = ["ZIP_MAX_BYTES", "ZIP_MAX_ENTRIES", "ZIP_MAX_RATIO", "EXPORT_MAX_BYTES", "is_zip", "export_zip", "unpack",
           "Place", "campaign_place"]

ZIP_MAX_BYTES = 512 << 20
"""A zip unpacks to at most this many bytes (512 MiB: a 100,000-event log is about 64 MiB)."""
ZIP_MAX_ENTRIES = 1000
"""A zip holds at most this many entries (a campaign is a few files)."""
ZIP_MAX_RATIO = 100
"""An entry may unpack to at most this many times its compressed size (a log compresses about 10 times; a zip
bomb a thousand)."""
EXPORT_MAX_BYTES = 512 << 20
"""``export_zip`` holds at most this many bytes of files."""

_OWN_FILE = re.compile(r"^(campaign\.yaml|log\.yaml|log\.(torn|displaced)-[0-9A-Za-z.\-]{1,64}\.yaml)$")
_REQUIRED = ("campaign.yaml", "log.yaml")


def is_zip(path: Path) -> bool:
    try:
        return zipfile.is_zipfile(path)
    except OSError:
        return False


def _export_names(root: Path) -> list[str]:
    """The campaign's own files in its folder (top level only), campaign.yaml and the log first."""
    try:
        names = sorted(n for n in os.listdir(root) if _OWN_FILE.match(n))
    except OSError as err:
        raise StoreError(f"cannot list the campaign folder ({err.strerror})", root) from None
    for name in _REQUIRED:
        if name not in names:
            raise StoreError(f"no {name} to export", root)
    return list(_REQUIRED) + [n for n in names if n not in _REQUIRED]


def _read_own_file(file: Path, room: int, required: bool) -> bytes | None:
    """A campaign file's bytes, read through one descriptor: a symlink, a device or a pipe is refused (required
    files) or left out (side files) before a byte is read; at most ``room`` bytes."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(file, flags)
    except OSError as err:
        if not required:
            return None
        why = "a symlink" if os.path.islink(file) else err.strerror
        raise StoreError(f"is not a campaign file delvebook exports ({why}); the export holds only regular files "
                         f"of the folder, and nothing was exported", file) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            if not required:
                return None
            raise StoreError("is not a regular file (a device, a pipe?); nothing was exported", file)
        if st.st_size > room:
            raise StoreError(f"the campaign's files come to more than {EXPORT_MAX_BYTES >> 20} MiB; nothing was "
                             f"exported", file)
        chunks, size = [], 0
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            size += len(chunk)
            if size > room:
                raise StoreError(f"grew past {EXPORT_MAX_BYTES >> 20} MiB while it was read; nothing was exported",
                                 file)
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _zip_time(file: Path) -> tuple:
    try:
        t = _dt.datetime.fromtimestamp(os.stat(file, follow_symlinks=False).st_mtime)
    except (OSError, ValueError, OverflowError):
        t = _dt.datetime(1980, 1, 1)
    return (max(1980, t.year), t.month, t.day, t.hour, t.minute, t.second)


def unpack(path: Path, target: Path) -> tuple[Path, str]:
    try:
        return _unpack_into(path, target)
    except OSError as err:
        raise os_error(err, "unpack the zip; nothing was kept", target) from None


def _unpack_into(path: Path, target: Path) -> tuple[Path, str]:
    """Unpack an exported campaign zip into ``target`` (a new or empty folder), within limits, refusing what
    would escape it: only a campaign's own files (campaign.yaml, the log, its side files) at the top of the zip or
    under one folder, as regular files. Returns (the campaign folder, a note saying where play is recorded).
    A folder that already holds a campaign is opened as it is: unpacking never writes over play."""
    if (target / "campaign.yaml").exists():
        return target, (f"{target}: already holds a campaign (unpacked before?): opened as it is, {path} was not "
                        f"unpacked again; play is recorded in {target}")
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise StoreError("already holds files; unpack a zip into a new or empty folder", target)
    check_new_path(target)
    try:
        z = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, ValueError) as err:
        raise StoreError(f"not a zip delvebook can read ({err})", path) from None
    made_folder = not target.exists()
    written: list[Path] = []
    try:
        with z:
            infos = z.infolist()
            if len(infos) > ZIP_MAX_ENTRIES:
                raise StoreError(f"{len(infos):,} entries; a campaign zip holds at most {ZIP_MAX_ENTRIES:,}", path)
            wanted = _campaign_entries(infos, path)
            total = 0
            try:
                target.mkdir(parents=True, exist_ok=True)
            except OSError as err:
                raise StoreError(f"cannot make the folder to unpack into ({err.strerror})", target) from None
            for name, info in wanted:
                dest = target / name
                written.append(dest)
                total = _unpack_entry(z, info, dest, total, path)
    except BaseException:
        for f in written:
            try:
                os.unlink(f)
            except OSError:
                pass
        if made_folder:
            shutil.rmtree(target, ignore_errors=True)
        raise
    return target, f"{target}: unpacked from {path}; play is recorded here"


def _campaign_entries(infos: list, path: Path) -> list[tuple[str, Any]]:
    files = [i for i in infos if not i.is_dir()]
    prefix = ""
    if not any(i.filename == "campaign.yaml" for i in files):  # export_zip's layout: one folder holding it
        roots = {i.filename[:-len("campaign.yaml")] for i in files
                 if i.filename.endswith("/campaign.yaml") and i.filename.count("/") == 1
                 and not i.filename.startswith(("/", "."))}
        if len(roots) == 1:
            prefix = roots.pop()
    wanted = []
    for info in files:
        name = info.filename
        if not name.startswith(prefix):
            continue
        name = name[len(prefix):]
        if not _OWN_FILE.match(name):
            continue  # not a campaign file (a README, a notebook, .git): left in the zip
        kind = (info.external_attr >> 16) & 0o170000
        if kind not in (0, stat.S_IFREG):
            raise StoreError(f"{info.filename!r} is not a plain file in the zip (a symlink?); refused", path)
        wanted.append((name, info))
    if not any(n == "campaign.yaml" for n, _ in wanted):
        raise StoreError("no campaign.yaml inside the zip (at its top, or in one folder)", path)
    return wanted


def _unpack_entry(z: zipfile.ZipFile, info, dest: Path, total: int, path: Path) -> int:
    limit = ZIP_MAX_RATIO * max(info.compress_size, 1 << 16)
    written = 0
    try:
        fd = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644)
    except OSError as err:
        raise StoreError(f"cannot unpack {info.filename!r} ({err.strerror})", dest) from None
    try:
        with z.open(info) as src:
            while True:
                chunk = src.read(1 << 20)
                if not chunk:
                    break
                written += len(chunk)
                total += len(chunk)
                if written > limit:
                    raise StoreError(f"{info.filename!r} unpacks to more than {ZIP_MAX_RATIO} times its compressed "
                                     f"size (a zip bomb?); refused", path)
                if total > ZIP_MAX_BYTES:
                    raise StoreError(f"unpacks to more than {ZIP_MAX_BYTES >> 20} MiB; a campaign zip is at most "
                                     f"that; refused", path)
                try:
                    write_all(fd, chunk)
                except OSError as err:
                    raise StoreError(f"could not unpack {info.filename!r} ({err.strerror}); nothing was kept",
                                     dest) from None
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, ValueError, NotImplementedError) as err:
        raise StoreError(f"{info.filename!r} cannot be read from the zip ({err})", path) from None
    except RuntimeError as err:  # an encrypted entry
        raise StoreError(f"{info.filename!r} cannot be read from the zip ({err})", path) from None
    finally:
        os.close(fd)
    return total


def export_zip(root: Path) -> bytes:
    """A campaign folder's own files as zip bytes: campaign.yaml, the log and the side files delvebook made, under
    a folder named like the campaign's. Nothing else: no symlink, no hidden file (``.git/``, the lock), no other
    file; bounded in size, each file read through one descriptor that is checked to be a regular file first."""
    buf = io.BytesIO()
    total = 0
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name in _export_names(root):
            data = _read_own_file(root / name, EXPORT_MAX_BYTES - total, required=name in _REQUIRED)
            if data is None:
                continue
            total += len(data)
            info = zipfile.ZipInfo(f"{root.name}/{name}", date_time=_zip_time(root / name))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = (stat.S_IFREG | 0o644) << 16
            z.writestr(info, data)
    return buf.getvalue()


class Place(NamedTuple):
    """Where a campaign opened from a path lives: ``folder``, whether it opens ``read_only``, ``notes`` for the
    campaign's problems (where play is recorded), and the ``temporary`` folder to remove on close, if any."""

    folder: Path
    read_only: bool
    notes: list
    temporary: Path | None


def campaign_place(path: Path, read_only: bool | None, unpack_to: str | os.PathLike | None) -> Place:
    """A folder opens as itself. A zip made by ``export_zip`` opens read-only, from a temporary folder (removed on
    close, or at exit); to play from it, ``unpack_to`` names the folder where play is recorded (a folder that
    already holds the campaign is opened as it is, never unpacked over)."""
    try:
        zipped = path.is_file() and is_zip(path)
    except OSError as err:
        raise StoreError(f"cannot reach it ({err.strerror})", path) from None
    if not zipped:
        if unpack_to is not None:
            raise StoreError("unpack_to is for a zip made by export_zip; this is not one", path)
        return Place(path, bool(read_only), [], None)
    if unpack_to is not None:
        folder, note = unpack(path, Path(unpack_to))
        return Place(folder, bool(read_only), [note], None)
    if read_only is False:
        raise StoreError(f"a zip opens read-only: play recorded in a temporary copy would be lost. To play from it, "
                         f"name the folder where play is recorded: Campaign.open({str(path)!r}, "
                         f"unpack_to='play/{path.stem}')", path)
    temporary = Path(tempfile.mkdtemp(prefix="delvebook-zip-"))
    try:
        folder, _ = unpack(path, temporary / "campaign")
    except BaseException:
        shutil.rmtree(temporary, ignore_errors=True)
        raise
    return Place(folder, True, [f"{path}: read-only, from a temporary copy removed when the campaign is closed; to "
                                f"play from the zip, open it with unpack_to='a folder of yours'"], temporary)
