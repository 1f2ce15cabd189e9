"""The forecast played a slice at a time, its what-ifs and its tuner, and the hardening of its processes: a seed that
is not a whole number is refused at once, never more workers than cores, workers that end with their parent however
it dies, and a fight of thousands of foes that stops when asked. (How fast: bench/danger.py and bench/prepare.py.)"""
from __future__ import annotations

import io
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import delvebook as db
from delvebook.forecast import Job, Progress, text_progress
from delvebook.forecast.job import default_workers

from conftest import CAMPAIGNS, REPO

KEEP = CAMPAIGNS / "the-sunken-keep"


def _ended(pid: int) -> bool:
    """The process is gone (or a zombie nobody has reaped yet: it runs nothing)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return False


@pytest.mark.parametrize("seed", ["42", 4.2, True, [1]])
def test_a_seed_that_is_not_a_whole_number_is_refused_before_a_fight_is_played(sunken_keep, seed):
    with pytest.raises(TypeError, match="seed is a whole number"):
        sunken_keep.danger("causeway_ambush", seed=seed)
    with pytest.raises(TypeError, match="seed is a whole number"):
        sunken_keep.danger_job("causeway_ambush", seed=seed)


def test_never_more_workers_than_cores(sunken_keep):
    job = sunken_keep.danger_job("causeway_ambush", fights=4000, seed=1, workers=40)
    try:
        assert job.workers <= default_workers()
        procs = job._pool.procs if job._pool is not None else []
        assert len(procs) == job.workers if job.workers > 1 else procs == []
    finally:
        job.cancel()
    with pytest.raises(ValueError, match="workers is a whole number"):
        sunken_keep.danger("causeway_ambush", workers=0)


def test_a_job_played_in_slices_gives_the_forecast_played_at_once(sunken_keep):
    want = sunken_keep.danger("flooded_chapel", fights=400, seed=3, workers=1, precision=0)
    job = sunken_keep.danger_job("flooded_chapel", fights=400, seed=3, workers=1, precision=0)
    seen = []
    while not job.done:
        seen.append(job.step(0.01).done)
    assert job.danger().results == want.results and seen == sorted(seen) and len(seen) > 2
    p = job.progress()
    assert p.final and p.done == 400 and p.rate > 0 and p.left == 0


def test_the_estimate_so_far_is_made_of_the_first_fights_in_order_on_two_processes_too(sunken_keep):
    if default_workers() < 2:
        pytest.skip("one core: no second process to compare with")
    want = sunken_keep.danger("causeway_ambush", fights=600, seed=5, workers=1, precision=0)
    job = sunken_keep.danger_job("causeway_ambush", fights=600, seed=5, workers=2, precision=0)
    try:
        while not job.done:
            job.step(0.05)
            assert job.results == want.results[:len(job.results)]
    finally:
        job.close()


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL])
def test_worker_processes_end_when_their_parent_dies_however_it_dies(tmp_path, how):
    if default_workers() < 2:
        pytest.skip("one core: a forecast starts no worker process here")
    script = tmp_path / "parent.py"
    script.write_text(textwrap.dedent(f"""
        import sys, time
        sys.path.insert(0, {str(REPO)!r})
        import delvebook as db
        camp = db.Campaign.open({str(KEEP)!r}, read_only=True)
        job = camp.danger_job("bell_tower", fights=100000, seed=1, workers=2, precision=0)
        print(*[p.pid for p in job._pool.procs], flush=True)
        while True:
            job.step(0.1)
    """))
    parent = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        pids = [int(x) for x in parent.stdout.readline().split()]
        assert len(pids) == 2 and not any(_ended(p) for p in pids)
        os.kill(parent.pid, how)
        parent.wait(10)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not all(_ended(p) for p in pids):
            time.sleep(0.1)
        assert all(_ended(p) for p in pids), f"workers still running after their parent got {how.name}"
    finally:
        if parent.poll() is None:
            parent.kill()


def test_a_fight_of_thousands_of_foes_stops_when_asked(tmp_path):
    shutil.copytree(KEEP, tmp_path / "keep")
    camp = db.Campaign.open(tmp_path / "keep")
    camp.prepare_foe("Gnat", 1, -20, 0)  # harmless: the fight runs to the round cap, 2000 foe turns a round
    job = camp.danger_job(["gnat"] * 2000, fights=50, seed=1, workers=1)
    job.step(0.05)
    assert job.done_fights == 0 and not job.done, "one step pauses inside the first fight"
    job.cancel()
    assert job.done and job.cancelled and job.danger().fights == 0
    if default_workers() > 1:
        job = camp.danger_job(["gnat"] * 2000, fights=500, seed=1, workers=2)
        procs = list(job._pool.procs)
        job.step(0.05)
        job.cancel()
        assert job.cancelled and not any(p.is_alive() for p in procs)
    camp.close()


def test_what_if_a_delver_sits_the_fight_out(sunken_keep):
    d = sunken_keep.danger("causeway_ambush", fights=100, seed=1, workers=1, sitting_out=["Wren"])
    assert "Wren" not in d.party and len(d.party) == 4
    with pytest.raises(db.Refused, match="'Nobody' is not at the table"):
        sunken_keep.danger("causeway_ambush", fights=50, sitting_out=["Nobody"])
    with pytest.raises(db.Refused, match="everyone sits it out"):
        sunken_keep.danger("causeway_ambush", fights=50, sitting_out=list(sunken_keep.state["seats"]))


def test_the_tuner_proposes_the_most_foes_nobody_dies_against_with_each_candidates_forecast(sunken_keep):
    t = sunken_keep.tune("Bog goblin", "nobody dies", seed=1, workers=1)
    counts = [c.count for c in t.candidates]
    assert counts == list(range(1, len(counts) + 1))
    assert t.proposed is not None and all(c.meets for c in t.candidates[:t.proposed])
    assert t.candidates[t.proposed - 1].danger.p_any_death.p <= 0.05
    if len(counts) > t.proposed:
        assert not t.candidates[-1].meets and t.candidates[-1].count == t.proposed + 1
    assert f"proposed: {t.proposed}" in str(t)


def test_the_tuner_proposes_the_fewest_foes_that_make_a_real_threat(sunken_keep):
    t = sunken_keep.tune("drowned_dead", "a real threat", base="flooded_chapel", seed=2, workers=1, most=6)
    assert t.proposed is None or (t.candidates[-1].meets and t.candidates[-1].count == t.proposed
                                  and t.candidates[-1].danger.p_win.p <= 0.8)
    assert all(not c.meets for c in t.candidates[:-1])
    with pytest.raises(ValueError, match="a target is one of"):
        sunken_keep.tune("bog_goblin", "a walk in the park")
    with pytest.raises(db.Refused, match="no foe type 'dragon'"):
        sunken_keep.tune("dragon")


def test_the_progress_line_says_the_rate_and_the_time_left():
    out = io.StringIO()
    out.isatty = lambda: True
    show = text_progress(out)
    show(Progress(400, 10_000, 0.031, False, 1.2, 333.0, 4.1))
    assert "400/10,000  ±3.1 points  333 fights/s, about 4 s left" in out.getvalue()
    show(Progress(2400, 10_000, 0.02, True, 7.0, 342.8, 0.0))
    assert out.getvalue().endswith("2,400/10,000  ±2.0 points  343 fights/s, 7.0 s\n")


def test_the_command_line_forecasts_the_play_copy_and_the_fight_running_there(tmp_path):
    shutil.copytree(KEEP, tmp_path / "campaigns" / "the-sunken-keep")
    play = tmp_path / "examples" / "play" / "the-sunken-keep"
    shutil.copytree(KEEP, play)
    with db.Campaign.open(play) as camp:
        camp.start_session()
        camp.encounter(["bog_goblin"])
    args = [sys.executable, "-m", "delvebook", "danger", "campaigns/the-sunken-keep", "--seed", "1", "--fights", "100",
            "--workers", "1"]
    out = subprocess.run(args, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "the party as it stands in" in out.stderr and "examples/play/the-sunken-keep" in out.stderr
    assert "Danger: Encounter 1" in out.stdout, "the fight running in the play copy, as it stands"
    prepared = subprocess.run(args + ["--as-prepared"], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert prepared.returncode == 2 and "no fight is running" in prepared.stderr

