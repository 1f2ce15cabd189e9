"""``campaign.yaml``: read it through the safe loader, check it against the one schema, write it back.

The checks are ``rules.schema.check_campaign``, the same that ``Campaign.open`` plays by; each problem's path is
traced through the YAML node tree to its line, so an error reads ``campaign.yaml:40: bestiary.newt.tags: ...``.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

from ..core.rules.load import base_rules
from ..core.rules.schema import CAMPAIGN_FIELDS, check_campaign, field_name
from .errors import StoreError
from .log import LOG_FILE

__all__ = [
    "CAMPAIGN_FILE",
    "CAMPAIGN_KEYS",
    "CAMPAIGN_HEADER",
    "MAX_CAMPAIGN_BYTES",
    "read_campaign",
    "read_campaign_bytes",
    "parse_campaign",
    "check_campaign_file",
    "raise_first",
    "dump_campaign",
]

CAMPAIGN_FILE = "campaign.yaml"
CAMPAIGN_KEYS = CAMPAIGN_FIELDS
"""The top-level fields of ``campaign.yaml``, in the order delvebook writes them; any other key is an error."""
CAMPAIGN_HEADER = "# A delvebook campaign. Edit by hand if you like; `delvebook validate` checks it.\n"
MAX_CAMPAIGN_BYTES = 10 << 20
"""A ``campaign.yaml`` larger than this (10 MiB) is refused before it is read."""


def read_campaign(folder: Path) -> "yamlsafe.Document":
    """Parse a folder's campaign.yaml once: its data and node tree. A regular file only (a device such as
    /dev/zero or a pipe is refused before a byte is read), size-checked before reading and read no further than
    the limit; StoreError on a missing file, bytes that are not UTF-8, or YAML the safe loader refuses."""
    return parse_campaign(read_campaign_bytes(folder), folder / CAMPAIGN_FILE)


def read_campaign_bytes(folder: Path) -> bytes:
    """A folder's campaign.yaml as bytes, read as ``read_campaign`` reads it (a regular file, within the limit)."""
    file = folder / CAMPAIGN_FILE
    try:
        fd = os.open(file, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        if not folder.is_dir():
            raise StoreError("no campaign folder here (create one with `delvebook new`)", folder) from None
        raise StoreError(f"no {CAMPAIGN_FILE} here: a campaign folder holds {CAMPAIGN_FILE} and {LOG_FILE}",
                         folder) from None
    except OSError as err:
        raise StoreError(f"cannot read it ({err.strerror})", file) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise StoreError("is not a regular file (a device, a pipe, a folder?); a campaign file is a text file; "
                             "not read", file)
        if st.st_size > MAX_CAMPAIGN_BYTES:
            raise StoreError(f"{st.st_size / (1 << 20):.1f} MiB; a campaign file is at most "
                             f"{MAX_CAMPAIGN_BYTES >> 20} MiB (a damaged or foreign file?); not read", file)
        chunks, size = [], 0
        while size <= MAX_CAMPAIGN_BYTES:
            try:
                chunk = os.read(fd, 1 << 20)
            except BlockingIOError:
                continue
            except OSError as err:
                raise StoreError(f"cannot read it ({err.strerror})", file) from None
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        raw = b"".join(chunks)
    finally:
        os.close(fd)
    if len(raw) > MAX_CAMPAIGN_BYTES:
        raise StoreError(f"more than {MAX_CAMPAIGN_BYTES >> 20} MiB; a campaign file is at most that (a damaged "
                         f"or foreign file?); not read", file)
    return raw


def parse_campaign(raw: bytes, file: Path) -> "yamlsafe.Document":
    """campaign.yaml's bytes (``read_campaign_bytes``) parsed by the safe loader: its data and node tree."""
    from ..core import yamlsafe  # PyYAML: only when a campaign file is parsed, not when its prepared form is read
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]  # an editor's byte order mark
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise StoreError(f"not UTF-8 text (byte {raw[err.start]:#04x})", file,
                         raw.count(b"\n", 0, err.start) + 1) from None
    try:
        return yamlsafe.load_document(text, max_chars=MAX_CAMPAIGN_BYTES)
    except yamlsafe.YamlError as err:
        raise StoreError(err.reason, file, err.line) from None


def check_campaign_file(data: Any, doc: "yamlsafe.Document | None",
                        file: str | os.PathLike | None) -> tuple[Any, list[StoreError]]:
    """The rules a parsed campaign plays by (None if it has problems) and every problem
    (``rules.schema.check_campaign``), each as a StoreError naming the file, the line (when ``doc`` holds the
    node tree) and the field."""
    rules, problems = check_campaign(data, base_rules())
    return rules, [StoreError(reason, file, doc.line_of(path) if doc is not None else None,
                              field_name(path, data) or None)
                   for path, reason in problems]


def raise_first(errors: list[StoreError]) -> None:
    """Raise the first error, saying how many more there are (``delvebook validate`` lists them all)."""
    if errors:
        first = errors[0]
        if len(errors) > 1:
            first.reason += f" (and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''}: " \
                            f"`delvebook validate` lists them all)"
        raise first


def dump_campaign(campaign: dict) -> bytes:
    """campaign.yaml's bytes: the header comment, then plain block YAML in the order given."""
    import yaml
    try:
        text = yaml.safe_dump(campaign, sort_keys=False, allow_unicode=True, default_flow_style=False)
    except yaml.YAMLError as err:
        raise StoreError(f"cannot be written as plain YAML: {err}", CAMPAIGN_FILE) from None
    return (CAMPAIGN_HEADER + text).encode("utf-8")
