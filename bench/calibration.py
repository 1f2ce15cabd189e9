"""The forecast's calibration of the bundled long campaign, against the time to open it, measured in one run.

Prints: opening campaigns/the-long-delve read-only (the reference); the calibration played cold (every fight
forecast again by the documented default and by the party's habits learned from the other sessions, no cache: wall
time on every core, and the processor time it took, this process and its workers together, which is what a machine
with free cores divides); then warm from the cache file (a new Campaign, so nothing is held in memory) and from the
campaign's memory; then what it found: per chance the Brier score of each policy beside the base rate's, and how
many of each policy's reliability bins hold their mean forecast within the 95% interval of what happened. The
machine's cores are shared: the cold wall time moves with the load, the processor time much less. Target: cold
within two minutes on this machine. Asserts nothing.

Run: .venv/bin/python bench/calibration.py [--fights 150] [--workers N]
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from delvebook import Campaign  # noqa: E402
from delvebook import analysis  # noqa: E402  (imports pandas, outside the timings)
from delvebook.analysis.calibrate import FIGHTS, QUANTITIES  # noqa: E402

LONG = ROOT / "campaigns" / "the-long-delve"


def cpu() -> float:
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--fights", type=int, default=FIGHTS, help=f"simulated fights a forecast ({FIGHTS})")
    ap.add_argument("--workers", type=int, default=None, help="processes (default: every core)")
    args = ap.parse_args()
    print(f"cores: {len(os.sched_getaffinity(0))}, load average {os.getloadavg()[0]:.1f}")
    t = time.perf_counter()
    camp = Campaign.open(LONG, read_only=True)
    opened = time.perf_counter() - t
    analysis.frames(camp, copy=False)  # the frames are the report's anyway: built outside the timings
    print(f"open the long delve (reference): {opened:.2f} s, {len(camp.events):,} events")
    with tempfile.TemporaryDirectory() as cache:
        c0, t = cpu(), time.perf_counter()
        cal = analysis.calibration(camp, fights=args.fights, workers=args.workers, cache=cache)
        cold, cold_cpu = time.perf_counter() - t, cpu() - c0
        print(f"calibration cold: {cold:.1f} s wall ({cold / opened:.0f}x the open), {cold_cpu:.1f} s of processor "
              f"time; {len(cal.fights)} fights, {args.fights} simulated each")
        camp.close()
        camp = Campaign.open(LONG, read_only=True)
        analysis.frames(camp, copy=False)
        t = time.perf_counter()
        warm = analysis.calibration(camp, fights=args.fights, cache=cache)
        from_file = time.perf_counter() - t
        t = time.perf_counter()
        analysis.calibration(camp, fights=args.fights, cache=cache)
        from_memory = time.perf_counter() - t
        assert warm.from_cache and warm.fights.equals(cal.fights)
        print(f"calibration from the cache file: {from_file:.2f} s ({from_file / opened:.1f}x the open); "
              f"from memory: {from_memory:.2f} s ({Path(warm.cache).stat().st_size / 1e3:.0f} kB on disk)")
    camp.close()
    print("target: cold within 120 s:", "yes" if cold <= 120 else "no")
    print("\nwhat it found (the habits scored on sessions they were not fitted on):")
    print(f"  {'chance':<30} {'n':>6} {'base rate':>9} {'always it':>9} " +
          " ".join(f"{'Brier ' + w:>14} {'bins on diag.':>14}" for w in cal.policies))
    for (words, _), key in zip(QUANTITIES.values(), QUANTITIES):
        s = cal.scores["default"][key]
        cells = " ".join(f"{cal.scores[w][key].brier:>14.5f} {cal.scores[w][key].on_diagonal:>6} of "
                         f"{len(cal.scores[w][key].bins):<4}" for w in cal.policies)
        print(f"  {words:<30} {s.n:>6} {s.base_rate:>9.3f} {s.reference:>9.5f} {cells}")
    for line in cal.habits:
        print("  habits (every fight):", line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
