"""The commands that read a campaign and write what it says: ``report`` (one HTML file), ``export`` (every frame as
Parquet or CSV) and ``recap`` (a session told, as Markdown). Each opens the campaign read-only."""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Callable

__all__ = ["READING", "add_reading_commands"]


def add_reading_commands(sub) -> None:
    """The reading commands' parsers, under the command line's subparsers."""
    p = sub.add_parser("export", help="write a campaign's frames as Parquet or CSV files (with their dtypes)",
                       description="Write every frame of delvebook.analysis.frames (events, rolls, hearts, xp, "
                       "encounters, damage, luck, fairness, levels) to one file each, replacing a previous export "
                       "in DIR whole (a folder holding other files is refused). Parquet keeps the dtypes, lists and "
                       "chances as floats; mappings are JSON text. CSV gets the dtypes in schema.json, and text "
                       "cells a spreadsheet would run as formulas get a leading '.")
    p.add_argument("campaign", metavar="CAMPAIGN", help="campaign folder (opened read-only)")
    p.add_argument("--parquet", metavar="DIR", help="write DIR/NAME.parquet for each frame")
    p.add_argument("--csv", metavar="DIR", help="write DIR/NAME.csv for each frame, and DIR/schema.json")

    p = sub.add_parser("report", help="one HTML file with a campaign's summary and charts",
                       description="Write one HTML file with a summary table and every chart of a campaign "
                       "(XP, hearts, dice fairness, damage, luck, and whether the danger forecast was right). It "
                       "opens offline: plotly.js is embedded unless --cdn. Checking the forecast plays each fight "
                       "again in memory: minutes on a long campaign the first time, cached after (in "
                       "$DELVEBOOK_CACHE, else ~/.cache/delvebook).")
    p.add_argument("campaign", metavar="CAMPAIGN", help="campaign folder (opened read-only)")
    p.add_argument("-o", "--output", default="report.html", metavar="FILE", help="where to write (report.html)")
    p.add_argument("--cdn", action="store_true", help="link plotly.js from its CDN (smaller, needs the internet)")
    p.add_argument("--no-calibration", action="store_true",
                   help="leave out whether the danger forecast was right (no fight played again)")

    p = sub.add_parser("recap", help="a session told in the game's words, as Markdown: delvebook recap CAMPAIGN",
                       description="Tell one session of a campaign (the latest that ended, unless --session): who "
                       "was at the table, where the party went, each fight (finishing blows, the closest call, who "
                       "fell), level-ups and choices, luck that turned a roll, coins and XP. Only what stands is "
                       "told: an undone action is left out, a roll a luck die replaced is told as it stands.")
    p.add_argument("campaign", metavar="CAMPAIGN", help="campaign folder (opened read-only)")
    p.add_argument("--session", type=int, default=None, metavar="N", help="the session to tell (default: the latest "
                   "that ended)")
    p.add_argument("--all", action="store_true", help="tell every session, in order")


def _reading(name: str, work: Callable[[], None]) -> int:
    """Run a reading command's work: 0 when done, 2 (naming the extra to install) when an extra is missing, 1 with
    the reason when the campaign cannot be read or the output written."""
    from delvebook.core.extras import MissingExtra
    from delvebook.store import StoreError
    try:
        work()
    except MissingExtra as err:
        print(f"delvebook {name}: {err}", file=sys.stderr)
        return 2
    except (StoreError, ValueError, OSError) as err:
        print(f"delvebook {name}: {err}", file=sys.stderr)
        return 1
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    if not (args.parquet or args.csv):
        print("delvebook export: say where: --parquet DIR and/or --csv DIR", file=sys.stderr)
        return 2
    if args.parquet and args.csv and os.path.abspath(args.parquet) == os.path.abspath(args.csv):
        print("delvebook export: give --parquet and --csv different folders (each export replaces its folder "
              "whole)", file=sys.stderr)
        return 2

    def work() -> None:
        from delvebook import analysis
        from delvebook.share import export
        frames = analysis.frames(args.campaign, copy=False)
        for fmt, folder in (("parquet", args.parquet), ("csv", args.csv)):
            if folder:
                written = getattr(export, f"write_{fmt}")(frames, folder)
                print(f"{folder}: {len(written)} files ({', '.join(p.name for p in written)})")
    return _reading("export", work)


def cmd_report(args: argparse.Namespace) -> int:
    start = time.perf_counter()
    out = Path(args.output)

    def progress(msg: str) -> None:
        print(f"  [{time.perf_counter() - start:5.1f} s] {msg}", file=sys.stderr, flush=True)

    def work() -> None:
        from delvebook.charts.report import write_report
        write_report(args.campaign, out, cdn=args.cdn, progress=progress, calibration=not args.no_calibration)
        print(f"{out}: report on {args.campaign}" + (" (plotly.js from the CDN: needs the internet)" if args.cdn
                                                      else " (opens offline)"))
    return _reading("report", work)


def cmd_recap(args: argparse.Namespace) -> int:
    def work() -> None:
        from delvebook.campaign import Campaign
        from delvebook.narrate.recap import recaps, session_recap
        with Campaign.open(args.campaign, read_only=True) as camp:
            told = recaps(camp) if args.all else [session_recap(camp, args.session)]
        print("\n".join(r.markdown() for r in told), end="")
    return _reading("recap", work)


READING = {"export": cmd_export, "report": cmd_report, "recap": cmd_recap}
"""Each reading command's handler, by name."""
