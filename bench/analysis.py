"""Frames and figures against the time to open the campaign, measured in one run.

For the bundled finished campaign and a generated 100,000-event one (played by
scripts/make_finished_campaign.py into a temporary folder, about 40 s), prints the best of three for:
opening the campaign read-only (every event read, the state rebuilt); building every frame
(``delvebook.analysis.frames``, the in-force fold included, from a fresh Campaign so nothing is cached);
building every figure of the report from those frames; and the two together, as a ratio of the open
time. One campaign is open at a time: each is closed and let go before the next opens. Target: frames +
figures for 100,000 events under 3x the open time. Asserts nothing.

Run: .venv/bin/python bench/analysis.py [--events 100000] [--keep DIR]
"""

from __future__ import annotations

import argparse
import gc
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from delvebook import Campaign  # noqa: E402
from delvebook import analysis, charts  # noqa: E402  (imports pandas and plotly, outside the timings)


def best(fn, repeat: int = 3) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        result = None  # the last result is let go before the next run, not kept alive through it
        gc.collect()
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    return min(times), result


def _open(path: Path) -> Campaign:
    return Campaign.open(path, read_only=True)


def figures(camp: Campaign) -> list:
    f = analysis.frames(camp, copy=False)
    enc = f["encounters"]
    hardest = int(enc.loc[enc["party_taken"].astype("int64").idxmax(), "encounter"]) if len(enc) else None
    figs = [charts.xp_progress(camp), charts.xp_progress(camp, by="session"), charts.heart_history(camp),
            charts.dice_fairness(camp), charts.damage(camp), charts.luck(camp)]
    if hardest is not None:
        figs.append(charts.heart_history(camp, encounter=hardest))
    return figs


def measure(label: str, path: Path) -> float:
    """One open campaign at a time: each timing runs with no other copy of the campaign alive (a second copy of a
    100k-event campaign is hundreds of MB the collector walks, and time it would count)."""
    t_open = float("inf")
    for _ in range(3):
        gc.collect()
        t = time.perf_counter()
        camp = _open(path)
        t_open = min(t_open, time.perf_counter() - t)
        camp.close()
        del camp
    t_frames = float("inf")
    for k in range(3):
        camp = _open(path)  # a fresh Campaign so nothing is cached (its open untimed)
        gc.collect()
        t = time.perf_counter()
        analysis.frames(camp, copy=False)
        t_frames = min(t_frames, time.perf_counter() - t)
        if k < 2:
            camp.close()
            del camp
    # the last campaign, its frames built: the figures from those frames
    t_figs, figs = best(lambda: figures(camp))
    total = t_frames + t_figs
    n = len(camp.events)
    f = analysis.frames(camp, copy=False)
    print(f"{label}: {n:,} events ({(f['events']['in_force']).sum():,} in force), "
          f"{len(f['rolls']):,} dice, {len(f['hearts']):,} heart rows, {len(figs)} figures")
    print(f"  open (read-only)       {t_open:7.3f} s   1.00x")
    print(f"  all frames             {t_frames:7.3f} s   {t_frames / t_open:4.2f}x open")
    print(f"  all figures            {t_figs:7.3f} s   {t_figs / t_open:4.2f}x open")
    print(f"  frames + figures       {total:7.3f} s   {total / t_open:4.2f}x open   (target < 3x)")
    camp.close()
    return total / t_open


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--events", type=int, default=100_000)
    p.add_argument("--keep", type=Path, help="generate into (or reuse) this folder instead of a temporary one")
    args = p.parse_args(argv)
    measure("the-long-delve", ROOT / "campaigns" / "the-long-delve")
    tmp = None
    if args.keep is not None and (args.keep / "campaign.yaml").exists():
        big = args.keep
    else:
        tmp = Path(tempfile.mkdtemp())
        big = args.keep or tmp / "big"
        print(f"generating a {args.events:,}-event campaign (scripts/make_finished_campaign.py, seed 7)...",
              flush=True)
        t = time.perf_counter()
        subprocess.run([sys.executable, str(ROOT / "scripts" / "make_finished_campaign.py"), str(big),
                        "--events", str(args.events), "--seed", "7"], check=True, stdout=subprocess.DEVNULL)
        print(f"  generated in {time.perf_counter() - t:.0f} s")
    try:
        ratio = measure(f"generated ({args.events:,} events asked)", big)
        print(f"frames + figures for the generated campaign: {ratio:.2f}x the open time "
              f"({'meets' if ratio < 3 else 'MISSES'} the target of 3x)")
    finally:
        if tmp is not None and args.keep is None:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
