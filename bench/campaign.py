"""Opening a campaign and recording an action, against their floors, measured in one run.

For the bundled finished campaign and a generated 100,000-event one (played by
scripts/make_finished_campaign.py into a temporary folder), prints the time to open (every event read,
the state rebuilt), the floor (reading the same lines with json.loads and nothing else), PyYAML's C
loader on the same file, and the time of one recorded action (with fsync) against a bare fsync'ed
append of the same bytes. Prints ratios; asserts nothing.

Run: .venv/bin/python bench/campaign.py [--events 100000]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from delvebook import Campaign  # noqa: E402
from delvebook.store import dump_event_line  # noqa: E402


def best(fn, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        gc.collect()
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def floor(path: Path) -> list:
    with open(path / "log.yaml", encoding="utf-8") as f:
        return [json.loads(line[2:]) for line in f if line.startswith("- {")]


def open_campaign(path: Path) -> Campaign:
    camp = Campaign.open(path, read_only=True)
    camp.close()
    return camp


def measure_open(path: Path, with_yaml: bool) -> None:
    n = len(floor(path))
    t_floor = best(lambda: floor(path))
    t_open = best(lambda: open_campaign(path))
    line = f"{path.name:<22}{n:>9,} events  open {t_open:7.3f} s  json floor {t_floor:7.3f} s  " \
           f"open/floor {t_open / t_floor:5.2f}x"
    if with_yaml:
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        t_yaml = best(lambda: yaml.load((path / "log.yaml").read_text(encoding="utf-8"), Loader=loader), repeat=1)
        line += f"  PyYAML {loader.__name__} {t_yaml:7.2f} s  ({t_yaml / t_open:5.1f}x the open)"
    print(line, flush=True)


def measure_action(path: Path, n: int = 200) -> None:
    work = Path(tempfile.mkdtemp()) / "c"
    shutil.copytree(path, work)
    with Campaign.open(work) as camp:
        name = next(d.name for d in camp.delvers if d.status == "alive")
        action = []
        for _ in range(n):
            t = time.perf_counter()
            camp.check(name, None, 10)
            action.append(time.perf_counter() - t)
        sample = dump_event_line(camp.events[-1])
    bare = []
    fd = os.open(work / "bare.yaml", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        for _ in range(n):
            t = time.perf_counter()
            os.write(fd, sample)
            os.fsync(fd)
            bare.append(time.perf_counter() - t)
    finally:
        os.close(fd)
    a, b = statistics.median(action), statistics.median(bare)
    print(f"one action (a check, fsync'ed), median of {n}: {a * 1e6:8.0f} us; bare fsync'ed append of the same "
          f"{len(sample)} bytes: {b * 1e6:8.0f} us; ratio {a / b:4.2f}x")
    shutil.rmtree(work.parent)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=100_000)
    args = ap.parse_args(argv)
    finished = ROOT / "campaigns" / "the-long-delve"
    print(f"python {sys.version.split()[0]}, PyYAML {yaml.__version__}")
    measure_open(finished, with_yaml=True)
    tmp = Path(tempfile.mkdtemp())
    big = tmp / "generated-100k"
    t = time.perf_counter()
    subprocess.run([sys.executable, str(ROOT / "scripts" / "make_finished_campaign.py"), str(big),
                    "--events", str(args.events), "--seed", "7"], check=True, stdout=subprocess.DEVNULL)
    print(f"(generated {big.name} in {time.perf_counter() - t:.0f} s)")
    measure_open(big, with_yaml=True)
    measure_action(finished)
    shutil.rmtree(tmp)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
