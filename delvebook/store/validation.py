"""Checking a campaign folder without opening it: every problem of ``campaign.yaml`` and of the log's lines, then,
if they read, the log judged by the one check ``Campaign.open`` runs (``store.playcheck``).

What ``validate`` refuses, ``Campaign.open`` refuses (read-only or for play), and the other way round, with the
same file:line and field for the first problem: both read the files with the same readers and judge the log by
the same check. ``validate`` goes on past a bad line to list up to 100 of them; an open stops at the first.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

from ..core import statecheck
from .campaign_file import CAMPAIGN_FILE, check_campaign_file, read_campaign
from .errors import StoreError, os_error
from .lock import read_incidents
from .log import LOG_FILE, scan
from .playcheck import play_log
from .setup import setup_state

__all__ = ["validate", "FolderCheck", "check_folder"]


class FolderCheck(NamedTuple):
    """What checking a folder found: every ``problem``, the number of ``events`` read (None if the log was not
    read), and ``notes``: what the last writer noted for the next open to say (a log replaced under it)."""

    problems: list
    events: int | None
    notes: list


def validate(path: str | os.PathLike) -> list[StoreError]:
    """Every problem in a campaign folder (an empty list: it opens, and its log is what the rules make of its
    hand-written lines); a folder that cannot be read is one problem."""
    return check_folder(path).problems


def check_folder(path: str | os.PathLike) -> FolderCheck:
    """``validate``, with the number of events and the notes (what ``delvebook validate`` prints)."""
    try:
        return _check(Path(path))
    except OSError as err:
        return FolderCheck([os_error(err, "read the campaign", path)], None, [])


def _check(folder: Path) -> FolderCheck:
    errors: list[StoreError] = []
    notes = [f"{folder}: {text}" for text in read_incidents(folder)] if folder.is_dir() else []
    shape, rules, campaign = statecheck.DEFAULT, None, None
    try:
        doc = read_campaign(folder)
    except StoreError as err:
        errors.append(err)
    else:
        rules, found = check_campaign_file(doc.data, doc, folder / CAMPAIGN_FILE)
        errors.extend(found)
        if rules is not None:
            shape, campaign = statecheck.shape_for(rules), doc.data
    file = folder / LOG_FILE
    if not os.path.lexists(file):
        if folder.is_dir():
            errors.append(StoreError("missing: the event log (opening for writing starts an empty one)", file))
        return FolderCheck(errors, None, notes)
    try:
        read = scan(file, collect=True, shape=shape)
    except StoreError as err:
        errors.append(err)
        return FolderCheck(errors, None, notes)
    errors.extend(read.errors)
    if read.torn_line is not None:
        errors.append(StoreError(f"torn last line ({read.torn_why}), probably from a crash mid-write; opening "
                                 f"the campaign for writing sets it aside into a side file", file, read.torn_line))
    if not errors and campaign is not None:
        try:
            play_log(rules, setup_state(campaign, rules), read.events, unsealed=read.unsealed, file=file,
                     campaign_file=folder / CAMPAIGN_FILE, line_of=read.line_of)
        except StoreError as err:
            errors.append(err)
    return FolderCheck(errors, len(read.events), notes)
