"""A crash never loses a recorded event and never applies half of one.

A child process appends events to a campaign in a loop and prints each seq once its append has returned; the
parent kills it with SIGKILL at a random moment, opens the campaign for writing (which sets a torn tail aside)
and checks that every printed seq is there, the seqs run 1, 2, 3 ... and every event is whole. Some events are
hundreds of KB, so a kill can land inside a write and tear it. Each kill is a new child continuing the same log.

The second test kills a keeper's process playing through the Campaign API: actions, undo, redo, campaign.yaml
rewrites, and a log swapped under it (``git checkout -- log.yaml``) now and then.

Each child is forked from a zygote that imported delvebook once (``_Zygote``), not started as a new Python, which
spent about 0.2 s importing before every kill (three quarters of the first test's time). The child is still a
process of its own, killed with SIGKILL at a random moment after it opened the store and said "ready", its writes
made by the same store code.

CI makes 200 kills in each test (``DELVEBOOK_CRASH_KILLS``; ``make soak`` makes 1,000, a developer's run of the
suite 30) because the rarest landings need about that many: measured over 200 kills on 2 cores, a kill tore the
log's last line 2 times in the first test (first at kill 102); in the second a line was torn once, a kill left
campaign.yaml's temporary file 5 times (first at kill 122) and landed between campaign.yaml's rename and its
acknowledgement once. With fewer kills those would mostly go untested.
"""
from __future__ import annotations

import hashlib
import os
import random
import select
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from delvebook.store import CampaignStore

KILLS = int(os.environ.get("DELVEBOOK_CRASH_KILLS", 30))
"""Kills per test: 30 in a developer's run of the suite, 200 in CI (``.ci/run``), more in ``make soak``."""
KILLS_PER_FOLDER = 20  # a new folder now and then keeps the log, and re-reading it after each kill, small

ZYGOTE = textwrap.dedent("""
    import importlib, os, socket, sys, traceback

    sock = socket.socket(fileno=int(sys.argv[1]))
    body = compile(sys.argv[2], "<string>", "exec")
    for name in sys.argv[3:]:
        importlib.import_module(name)  # once here, not in every child
    while True:
        message, fds, _, _ = socket.recv_fds(sock, 65536, 2)
        if not message:
            break
        pid = os.fork()
        if pid == 0:  # the child: stdout and stderr are the parent's pipes, and the body runs as `python -c` runs it
            try:
                sock.close()
                os.dup2(fds[0], 1)
                os.dup2(fds[1], 2)
                for fd in fds:
                    os.close(fd)
                sys.argv = ["-c", *message.decode().split("\\0")]
                exec(body, {"__name__": "__main__"})
            except BaseException:
                traceback.print_exc()
                sys.stderr.flush()
            finally:
                os._exit(1)
        for fd in fds:
            os.close(fd)
        try:
            sock.send(b"%d" % pid)
            sock.send(b"%d" % os.waitpid(pid, 0)[1])
        except BrokenPipeError:  # the test ended
            break
""")


class _Forked:
    """A child the zygote forked, with what the tests use of ``subprocess.Popen``: ``stdout`` and ``stderr`` (pipes
    from the child), ``send_signal``, ``kill``, ``poll``, ``wait`` and ``returncode``."""

    def __init__(self, sock: socket.socket, args: list[str]):
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        try:
            socket.send_fds(sock, ["\0".join(args).encode()], [out_w, err_w])
        finally:
            os.close(out_w)  # the child holds the write ends: reading gives EOF when it is gone
            os.close(err_w)
        self.stdout, self.stderr = os.fdopen(out_r, "rb"), os.fdopen(err_r, "rb")
        self._sock = sock
        sock.settimeout(60)
        self.pid = int(sock.recv(64))
        self.returncode: int | None = None

    def send_signal(self, sig: int) -> None:
        if self.returncode is None:  # not reaped yet, so the pid is still the child's
            os.kill(self.pid, sig)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def poll(self) -> int | None:
        if self.returncode is None and select.select([self._sock], [], [], 0)[0]:
            self.wait()
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            self._sock.settimeout(timeout)
            try:
                status = self._sock.recv(64)
            except socket.timeout:
                raise subprocess.TimeoutExpired(f"forked child {self.pid}", timeout) from None
            if not status:
                raise RuntimeError("the zygote ended")
            self.returncode = os.waitstatus_to_exitcode(int(status))
        return self.returncode


class _Zygote:
    """A Python that imports ``modules`` once, then forks a child for each ``start(*args)`` that runs ``body`` as
    ``python -c body *args`` would."""

    def __init__(self, body: str, modules: list[str]):
        self._sock, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._proc = subprocess.Popen([sys.executable, "-c", ZYGOTE, str(theirs.fileno()), body, *modules],
                                      pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL)
        theirs.close()

    def start(self, *args: str) -> _Forked:
        return _Forked(self._sock, list(args))

    def close(self) -> None:
        self._sock.close()  # the zygote reads the end and leaves
        try:
            self._proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()


@pytest.fixture
def zygote():
    """Makes ``_Zygote``s, closed after the test."""
    made: list[_Zygote] = []

    def make(body: str, modules: list[str]) -> _Zygote:
        made.append(_Zygote(body, modules))
        return made[-1]

    yield make
    for z in made:
        z.close()


CHILD = textwrap.dedent("""
    import os, random, sys
    from delvebook.store import CampaignStore

    folder, seed = sys.argv[1], int(sys.argv[2])
    rng = random.Random(seed)
    store = CampaignStore.open(folder)
    os.write(1, b"ready\\n")

    def body(seq):
        r = rng.random()
        size = rng.randint(10, 200) if r < 0.6 else rng.randint(1000, 8000) if r < 0.95 else \\
            rng.randint(100_000, 500_000)
        return {"seq": seq, "kind": "crash-test", "size": size, "pad": "x" * (size - 1) + "."}

    while True:
        seq = store.next_seq
        store.append(body(seq))
        os.write(1, f"{seq}\\n".encode())
""")


@pytest.mark.slow
def test_events_survive_sigkill_at_random_moments(tmp_path, zygote):
    rng = random.Random(20240611)
    appender = zygote(CHILD, ["delvebook.store"])
    torn = events_total = 0
    started = time.perf_counter()
    for kill in range(KILLS):
        folder = tmp_path / f"camp{kill // KILLS_PER_FOLDER}"
        if kill % KILLS_PER_FOLDER == 0:
            CampaignStore.create(folder, {"name": f"Crash test {kill // KILLS_PER_FOLDER}"}).close()
        child = appender.start(str(folder), str(kill))
        try:
            assert child.stdout.readline() == b"ready\n", child.stderr.read().decode()
            time.sleep(rng.uniform(0.002, 0.040))
            child.send_signal(signal.SIGKILL)
            out = child.stdout.read()
            child.wait(timeout=30)
        finally:
            if child.poll() is None:
                child.kill()
                child.wait()
            child.stdout.close()
            child.stderr.close()
        assert child.returncode == -signal.SIGKILL
        returned = [int(s) for s in out.split(b"\n")[:-1]]  # a last number without its newline is not counted

        with CampaignStore.open(folder) as camp:  # writable: a torn tail is set aside here
            events = camp.events
            if camp.problems:
                assert all("torn last line" in p and "set aside" in p for p in camp.problems), camp.problems
                torn += 1
        seqs = [e["seq"] for e in events]
        assert seqs == list(range(1, len(seqs) + 1))
        assert set(returned) <= set(seqs), f"kill {kill}: returned but lost: {sorted(set(returned) - set(seqs))}"
        for e in events:
            assert len(e["pad"]) == e["size"] and e["pad"].endswith("."), f"half an event: seq {e['seq']}"
        if kill % KILLS_PER_FOLDER == KILLS_PER_FOLDER - 1:
            events_total += len(events)
    elapsed = time.perf_counter() - started
    print(f"\n{KILLS} kills in {elapsed:.1f} s: {torn} left a torn tail, {events_total} events kept")
    assert os.environ.get("DELVEBOOK_CRASH_STRICT") != "1" or torn > 0


# ---------------------------------------------------------------- play, undo, redo, rewrites, a log swapped under it

PLAY_CHILD = textwrap.dedent("""
    import os, random, sys
    import delvebook as db
    from delvebook.store import CampaignStore, StoreError

    folder, seed = sys.argv[1], int(sys.argv[2])
    rng = random.Random(seed)
    n = 0

    def clock():
        global n
        n += 1
        return f"{seed}-{n}"  # each event's ts names it: seqs start again after the log is swapped

    def opened():
        store = CampaignStore.open(folder)
        camp = db.Campaign.open(store)
        camp._clock = clock
        return store, camp

    store, camp = opened()
    os.write(1, b"ready\\n")
    rewrites = 0
    while True:
        r = rng.random()
        try:
            if r < 0.08:
                rewrites += 1
                store.write_campaign(dict(store.campaign, notes=f"rewrite {seed}.{rewrites}"))
                os.write(1, f"C rewrite {seed}.{rewrites}\\n".encode())
                continue
            if r < 0.2 and camp.can_undo:
                out = camp.undo()
            elif r < 0.3 and camp.can_redo:
                out = camp.redo()
            elif r < 0.4:
                out = camp.roll("d6", why="x" * rng.choice([10, 5000, 60_000, 150_000]))  # lines up to ~450 KB
            elif r < 0.55:
                out = camp.check("Wren", "stealth", rng.randint(5, 20))
            elif r < 0.65:
                out = camp.start_session() if not camp.state["session"]["active"] else camp.end_session()
            else:
                out = camp.award_xp(rng.randint(1, 30), reason="crash test")
        except db.Refused:
            continue
        except StoreError as err:  # the log was swapped under the writer: refused; open what is there now
            os.write(1, b"S " + str(err).encode()[:120].replace(b"\\n", b" ") + b"\\n")
            camp.close()
            store, camp = opened()
            continue
        os.write(1, f"E {out['ts']}\\n".encode())
""")


def _logged(folder, read: dict | None = None) -> dict:
    """ts -> event, over log.yaml and every log the writer kept aside (displaced, torn tails are halves).

    ``read`` keeps the events of each log kept aside by the digest of its bytes, so that a file read after an earlier
    kill is not parsed again (the same bytes are the same events): a log kept aside is read again after every later
    kill in its folder, and parsing them was the test's largest cost."""
    from delvebook.store import read_log
    found = {}
    for file in [folder / "log.yaml", *sorted(folder.glob("log.displaced-*.yaml"))]:
        if read is None or file.name == "log.yaml":
            events = read_log(file)[0]
        else:
            digest = hashlib.sha256(file.read_bytes()).digest()
            if digest not in read:
                read[digest] = read_log(file)[0]
            events = read[digest]
        for e in events:
            found.setdefault(e.get("ts"), e)
    return found


@pytest.mark.slow
def test_play_undo_redo_rewrites_and_a_swapped_log_survive_sigkill(tmp_path, zygote):
    """KILLS kills of a keeper's process at random moments (200 in CI): acting (some events hundreds of KB),
    undoing, redoing, rewriting campaign.yaml, and now and then having log.yaml swapped under it as `git checkout --
    log.yaml` does. After each, a writable open must find every acknowledged event (in log.yaml, or in the log the writer
    kept aside when it was swapped), a log that replays to a state the rules made (every event decided again),
    a whole campaign.yaml no older than the last acknowledged rewrite, and no temporary file."""
    import delvebook as db
    from delvebook.store.playcheck import play_problems
    rng = random.Random(20261201)
    player = zygote(PLAY_CHILD, ["delvebook", "delvebook.campaign", "delvebook.store", "delvebook.store.playcheck"])
    keep = Path(__file__).resolve().parent.parent / "campaigns" / "the-sunken-keep"
    acked_total = swaps = refused = torn = 0
    started = time.perf_counter()
    for kill in range(KILLS):
        folder = tmp_path / f"play{kill // KILLS_PER_FOLDER}"
        if kill % KILLS_PER_FOLDER == 0:
            shutil.copytree(keep, folder)
            kept_aside: dict = {}  # what _logged read of this folder's logs kept aside
        committed = (folder / "log.yaml").read_bytes()  # the log as a keeper's repository holds it
        notes_before = (folder / "campaign.yaml").read_text()
        child = player.start(str(folder), str(kill))
        swap = rng.random() < 0.3
        try:
            assert child.stdout.readline() == b"ready\n", child.stderr.read().decode()
            if swap:
                time.sleep(rng.uniform(0.01, 0.15))
                checkout = folder / "log.yaml.checkout"
                checkout.write_bytes(committed)
                os.replace(checkout, folder / "log.yaml")
                swaps += 1
            time.sleep(rng.uniform(0.005, 0.25))
            child.send_signal(signal.SIGKILL)
            out = child.stdout.read()
            child.wait(timeout=30)
        finally:
            if child.poll() is None:
                child.kill()
                child.wait()
            child.stdout.close()
            child.stderr.close()
        assert child.returncode == -signal.SIGKILL
        lines = out.split(b"\n")[:-1]
        acked = [l[2:].decode() for l in lines if l.startswith(b"E ")]
        rewrites = [l[2:].decode() for l in lines if l.startswith(b"C ")]
        refused += sum(l.startswith(b"S ") for l in lines)

        with db.Campaign.open(folder) as camp:  # writable: a torn tail set aside, a held log kept, temp files gone
            torn += any("torn last line" in p for p in camp.problems)
            assert play_problems(camp.rules, camp.setup, camp.events) == [], f"kill {kill}: half an event?"
        with db.Campaign.open(folder, read_only=True) as again:
            assert again.state == camp.state
        logged = _logged(folder, kept_aside)
        lost = [ts for ts in acked if ts not in logged]
        assert not lost, f"kill {kill}: acknowledged but lost: {lost}"
        assert not list(folder.glob(".*.tmp")), f"kill {kill}: a temporary file was left"
        text = (folder / "campaign.yaml").read_text()
        if rewrites:
            last = rewrites[-1]
            n = int(last.rsplit(".", 1)[1])
            assert any(f"notes: rewrite {kill}.{k}\n" in text for k in range(n, n + 2)), \
                f"kill {kill}: campaign.yaml is older than the last acknowledged rewrite ({last})"
        else:
            assert text == notes_before or "notes: rewrite" in text
        acked_total += len(acked)
    elapsed = time.perf_counter() - started
    print(f"\n{KILLS} kills in {elapsed:.1f} s: {acked_total} acknowledged events, 0 lost; {swaps} logs swapped "
          f"under the writer ({refused} appends refused); {torn} torn tails set aside")
