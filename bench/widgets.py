"""The widget layer's cost, measured in one run: a button click to the views updated, against the bare call.

Two copies of the prepared campaign: one with no views, one with the whole dashboard open (five cards, the
roll panel, the tracker, keeper controls, the log). For a skill check, an attack and a luck die, prints the
median time of the bare campaign call (decided, written and fsync'ed, applied) and of the same action by
``button.click()`` (the same call, then every view updated in place), and the widget layer's share.
Target: under 50% added. The browser round-trip (click to the page showing it) is measured by
tests/test_browser_session.py; its last figures are printed here when tests/artifacts/ holds them.

Run: .venv/bin/python bench/widgets.py [--repeat 60]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import delvebook as db  # noqa: E402
from delvebook.widgets import Dashboard  # noqa: E402


def _open(where: Path, name: str):
    shutil.copytree(ROOT / "campaigns" / "the-sunken-keep", where / name)
    camp = db.Campaign.open(where / name)
    camp.start_session()
    fight = camp.encounter([{"foe": "bell_warden", "hearts": 100000}])
    fight.initiative("party")
    return camp


def _median_ms(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1000


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=60)
    n = ap.parse_args().repeat
    # on the repository's disk, not a tmpfs where fsync costs nothing
    with tempfile.TemporaryDirectory(dir=ROOT, prefix=".bench-widgets-") as tmp:
        tmp = Path(tmp)
        bare = _open(tmp, "bare")
        viewed = _open(tmp, "viewed")
        t0 = time.perf_counter()
        dash = Dashboard(viewed)
        build = (time.perf_counter() - t0) * 1000
        dash.tracker.attacker.value = "Brakka"
        dash.tracker.target.value = "The Bell Warden 1"
        stealth = dash.party.cards["Wren"]._skill_buttons["stealth"]
        sword = dash.tracker.weapon_buttons[0]
        luck = dash.rolls.luck_plus

        def bare_luck():
            bare.check("Wren", "stealth", 10)
            bare.state["luck"]["Ana"] = 3  # keep a luck die to spend (bench only: not an event)
            bare.spend_luck("Ana", +1)

        def click_luck():
            stealth.click()
            viewed.state["luck"]["Ana"] = 3
            luck.click()

        def heal_brakka(camp):  # counters would drop him in the end (bench only: not an event)
            camp.state["delvers"]["Brakka"].update(hearts=10 ** 6, status="alive")

        def bare_attack():
            heal_brakka(bare)
            bare.fight.attack("Brakka", "The Bell Warden 1", 0)

        def click_attack():
            heal_brakka(viewed)
            sword.click()

        rows = [
            ("skill check", lambda: bare.check("Wren", "stealth", 10), stealth.click),
            ("attack", bare_attack, click_attack),
            ("check + luck die", bare_luck, click_luck),
        ]
        print(f"dashboard built once in {build:.0f} ms; median of {n} actions each (fsync'ed write included)")
        print(f"{'action':<18}{'bare call':>11}{'by click':>11}{'added':>9}")
        for name, call, click in rows:
            for f in (call, click):  # warm up
                f()
            b = _median_ms(call, n)
            c = _median_ms(click, n)
            print(f"{name:<18}{b:>9.2f}ms{c:>9.2f}ms{(c / b - 1):>9.0%}")
            if dash.table.message.value:
                print("  (a click was refused:", dash.table.message.value, ")")
        bare.close()
        viewed.close()
    rt = ROOT / "tests" / "artifacts" / "browser-roundtrip.json"
    if rt.exists():
        r = json.loads(rt.read_text())
        print("browser round-trip, last tests/test_browser_session.py run (target < 250 ms): "
              + ", ".join(f"{k.removesuffix('_ms').replace('_', ' ')} {v:.0f} ms" for k, v in r.items()))
    else:
        print("browser round-trip: run tests/test_browser_session.py to measure it (target < 250 ms)")


if __name__ == "__main__":
    main()
