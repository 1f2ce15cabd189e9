"""What the limits bound, measured in one run: prints seconds and ratios, asserts nothing.

1. The dearest exact odds the cost budget admits (``distribution.MAX_WORK``), one of each shape (a sum of many
   dice, dice kept of a roll, terms added), worked out from scratch, against d20+2d6 in the same run; and the
   dearest refused, which takes no time at all (it is refused from its terms).
2. The keeper's table with something else in a file's place under ``requests/`` (a pipe, a folder, a link, a
   megabyte of lines; in each player's requests and answers file, keys.json, server.json, screen.json): the
   slowest of 20 polls of the desk (what the kernel's event loop runs every quarter second between clicks) and a
   click with its view, against the same with the folder clean. The target: a click answered within 0.25 s, the
   poll that may stand before it included.

Run: .venv/bin/python bench/limits.py
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import delvebook as db  # noqa: E402
from delvebook.core import distribution  # noqa: E402
from delvebook.players import desk as desks, links  # noqa: E402
from delvebook.players.requests import answers_file, encode, requests_file, screen_file  # noqa: E402


def best(fn, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def dice() -> None:
    admitted = ["85d100", "330d6", "25d1000", "14d12kh7", "3d80kh2", "d360+d360+d360"]
    refused = ["3d1000kh2", "1000d1000", "d1000+d1000+d1000"]
    ref = best(lambda: distribution._build(db.parse("d20+2d6")))
    print(f"exact odds, worked out from scratch (budget {distribution.MAX_WORK:,} steps); d20+2d6: "
          f"{ref * 1e6:.0f} us")
    for expr in admitted:
        steps = distribution.work(expr)
        assert steps <= distribution.MAX_WORK, expr
        took = best(lambda: distribution._build(db.parse(expr)), 1)
        print(f"  {expr:18s} {steps:>11,} steps  {took:6.3f} s  {took / ref:10,.0f}x d20+2d6  admitted")
    for expr in refused:
        took = best(lambda: _refused(expr))
        print(f"  {expr:18s} {distribution.work(expr):>11,} steps  {took:6.3f} s  {took / ref:10,.0f}x d20+2d6  "
              "refused before any step")


def _refused(expr: str) -> None:
    try:
        distribution.distribution(expr)
    except db.DiceError:
        return
    raise AssertionError(f"{expr} was worked out")


PLACES = {"requests": lambda p: requests_file(p, "Ana"), "answers": lambda p: answers_file(p, "Ana"),
          "keys.json": lambda p: p / "requests" / links.KEYS, "server.json": lambda p: p / "requests" / links.SERVER,
          "screen.json": lambda p: screen_file(p)}


def _put(thing: str, file: Path, elsewhere: Path) -> None:
    if thing == "pipe":
        os.mkfifo(file)
    elif thing == "folder":
        file.mkdir()
    elif thing == "link":
        elsewhere.write_text("x\n")
        file.symlink_to(elsewhere)
    elif thing == "megabyte":  # a megabyte of lines, each a request numbered on from the last
        line = encode({"n": 0, "player": "Ana", "kind": "luck", "on": 1, "roll": "x", "sign": 1, "ts": "t"})
        file.write_bytes(b"".join(line.replace(b'"n": 0', b'"n": %d' % k) for k in range(1, 1_000_000 // len(line))))


def _table(tmp: Path, place: str | None, thing: str | None) -> tuple[float, float]:
    """(the slowest of 20 polls, a click with its view) in seconds."""
    from delvebook.table import Table
    folder = tmp / f"keep-{place}-{thing}"
    shutil.copytree(ROOT / "campaigns" / "the-sunken-keep", folder)
    (folder / "requests").mkdir(mode=0o700)
    if place is not None:
        _put(thing, PLACES[place](folder), tmp / f"elsewhere-{place}-{thing}")
    with db.Campaign.open(folder) as camp:
        camp.start_session()
        table = Table(camp)
        desk = desks.open_desk(camp)
        worst = 0.0
        for _ in range(20):
            t = time.perf_counter()
            desk.poll()
            worst = max(worst, time.perf_counter() - t)
        click = best(lambda: table.handle({"do": "check", "who": "Wren", "skill": "stealth", "where": "checks"}))
        table.close()
    return worst, click


def files() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        poll0, click0 = _table(tmp, None, None)
        print(f"\nthe keeper's table, requests/ clean: slowest poll {poll0 * 1000:.1f} ms, "
              f"a click {click0 * 1000:.1f} ms")
        print(f"  {'in the place of':12s} {'what':9s} {'slowest poll':>13s} {'x clean':>8s} {'click':>9s} "
              f"{'x clean':>8s} {'poll + click':>13s}")
        for place in PLACES:
            for thing in ("pipe", "folder", "link", "megabyte"):
                poll, click = _table(tmp, place, thing)
                print(f"  {place:12s} {thing:9s} {poll * 1000:10.1f} ms {poll / poll0:7.1f}x {click * 1000:6.1f} ms "
                      f"{click / click0:7.1f}x {(poll + click) * 1000:10.1f} ms")


def main() -> int:
    dice()
    files()
    return 0


if __name__ == "__main__":
    sys.exit(main())
