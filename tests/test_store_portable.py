"""The folder store where ``fcntl.flock`` does not exist (Windows has no ``fcntl``; Pyodide's is empty), and where
a file persists only when it is closed (JupyterLite's drive under Pyodide).

``fcntl`` is hidden by putting None in ``sys.modules`` (``import fcntl`` then raises ImportError), and the
per-event append (open, append, fsync, close for each event) is forced on, so the whole store contract suite runs
on Linux the way it runs in a browser.
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

import delvebook as db
from delvebook.store import CampaignStore, LockedError, StoreError, dump_event_line, folder as folder_store, lock
from delvebook.store.lock import LOCK_FILE, SOFT_LOCK_FILE

import test_store_contract as contract
from test_store_contract import *  # noqa: F401,F403  the contract's tests, run here on the portable store

MODES = {"soft lock": False, "soft lock, per-event append": True}


def hide_fcntl(monkeypatch, per_event: bool) -> None:
    monkeypatch.setitem(sys.modules, "fcntl", None)
    monkeypatch.setattr(folder_store, "persists_on_close", lambda: per_event)


@pytest.fixture(params=list(MODES))
def stores(request, tmp_path, monkeypatch):  # overrides the contract's fixture: only folder stores, fcntl hidden
    hide_fcntl(monkeypatch, MODES[request.param])
    return contract.FolderStores(tmp_path)


@pytest.fixture(params=list(MODES))
def portable(request, monkeypatch):
    hide_fcntl(monkeypatch, MODES[request.param])
    return MODES[request.param]


def test_fcntl_is_really_hidden(portable):
    with pytest.raises(ImportError):
        import fcntl  # noqa: F401
    assert lock._flock() is None


def test_a_second_store_is_refused_with_the_same_message_and_close_lets_go(tmp_path, portable):
    store = CampaignStore.create(tmp_path / "c", {"name": "C"})
    assert (tmp_path / "c" / SOFT_LOCK_FILE).exists()
    with pytest.raises(LockedError, match=r"open for writing in this process \(pid \d+: another store of it"):
        CampaignStore.open(tmp_path / "c")
    store.close()
    assert not (tmp_path / "c" / SOFT_LOCK_FILE).exists()
    with CampaignStore.open(tmp_path / "c") as again:
        again.append({"seq": 1, "kind": "note"})
        with CampaignStore.open(tmp_path / "c", read_only=True) as reader:  # a reader never needs the lock
            assert reader.events == again.events
    assert SOFT_LOCK_FILE in (tmp_path / "c" / ".gitignore").read_text().split()


def test_a_campaign_opens_and_plays_without_fcntl(tmp_path, portable):
    camp = db.Campaign.create(tmp_path / "keep", name="Keep", seed=3)
    camp.add_delver("Wren", "rogue", player="Ana")
    camp.start_session()
    camp.check("Wren", "stealth", 12)
    with pytest.raises(LockedError, match="open for writing"):
        db.Campaign.open(tmp_path / "keep")
    events = camp.events
    camp.close()
    with db.Campaign.open(tmp_path / "keep") as again:
        assert again.events == events


def test_each_event_is_on_disk_before_append_returns(tmp_path, portable):
    with CampaignStore.create(tmp_path / "c", {"name": "C"}) as store:
        for seq in (1, 2, 3):
            store.append({"seq": seq, "kind": "note"})
            assert (tmp_path / "c" / "log.yaml").read_bytes().endswith(dump_event_line({"seq": seq, "kind": "note"}))
        assert (store._log_fd is None) is portable, "per event: the log is not held open between appends"


def test_the_guard_still_refuses_a_log_written_to_by_something_else(tmp_path, portable):
    with CampaignStore.create(tmp_path / "c", {"name": "C"}) as store:
        store.append({"seq": 1, "kind": "note"})
        with open(tmp_path / "c" / "log.yaml", "ab") as f:
            f.write(b'- {"seq": 2, "kind": "note", "by": "another tab"}\n')
        with pytest.raises(StoreError, match="written to by something else"):
            store.append({"seq": 2, "kind": "note"})
    assert [e.get("by") for e in CampaignStore.open(tmp_path / "c", read_only=True).events] == [None, "another tab"]


def test_a_lock_left_by_a_restarted_kernel_with_the_same_pid_is_taken_over(tmp_path, portable):
    CampaignStore.create(tmp_path / "c", {"name": "C"}).close()
    (tmp_path / "c" / SOFT_LOCK_FILE).write_text(f"{os.getpid()} {lock._HOST} 0123456789abcdef\n")
    with CampaignStore.open(tmp_path / "c") as store:
        assert any("earlier process with this pid" in p and "taken over" in p for p in store.problems)
        store.append({"seq": 1, "kind": "note"})


def test_a_lock_left_by_a_dead_process_is_taken_over_and_a_live_ones_is_not(tmp_path, portable):
    CampaignStore.create(tmp_path / "c", {"name": "C"}).close()
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    (tmp_path / "c" / SOFT_LOCK_FILE).write_text(f"{dead.stdout.strip()} {lock._HOST} 0123456789abcdef\n")
    with CampaignStore.open(tmp_path / "c") as store:
        assert any(f"pid {dead.stdout.strip()}, no longer running" in p for p in store.problems)
    (tmp_path / "c" / SOFT_LOCK_FILE).write_text(f"1 {lock._HOST} 0123456789abcdef\n")  # init runs
    with pytest.raises(LockedError, match=r"in another process \(pid 1\); close it there, or open read-only"):
        CampaignStore.open(tmp_path / "c")
    (tmp_path / "c" / SOFT_LOCK_FILE).write_text("4242 another-host 0123456789abcdef\n")
    with pytest.raises(LockedError, match=rf"pid 4242.*delete {SOFT_LOCK_FILE}"):
        CampaignStore.open(tmp_path / "c")


def test_incidents_noted_under_a_soft_lock_are_told_by_the_next_open(tmp_path, portable):
    store = CampaignStore.create(tmp_path / "c", {"name": "C"})
    store.append({"seq": 1, "kind": "note"})
    os.replace(tmp_path / "c" / "log.yaml", tmp_path / "elsewhere.yaml")
    (tmp_path / "c" / "log.yaml").write_bytes((tmp_path / "elsewhere.yaml").read_bytes())
    with pytest.raises(StoreError, match="replaced"):
        store.append({"seq": 2, "kind": "note"})
    store.close()
    with CampaignStore.open(tmp_path / "c") as again:
        assert any("replaced" in p for p in again.problems)
    assert "incident" not in (tmp_path / "c" / LOCK_FILE).read_text()


def test_a_second_process_without_fcntl_is_refused_by_pid_and_can_read(tmp_path):
    folder = tmp_path / "shared"
    CampaignStore.create(folder, {"name": "Shared"}).close()
    child = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent("""
            import sys
            sys.modules["fcntl"] = None
            from delvebook.store import CampaignStore
            camp = CampaignStore.open(sys.argv[1])
            camp.append({"seq": camp.next_seq, "kind": "note", "by": "child"})
            print("ready", flush=True)
            sys.stdin.read()
            camp.close()
        """), str(folder)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    code = textwrap.dedent("""
        import sys
        sys.modules["fcntl"] = None
        from delvebook.store import CampaignStore, LockedError
        try:
            CampaignStore.open(sys.argv[1])
        except LockedError as err:
            print(err)
        with CampaignStore.open(sys.argv[1], read_only=True) as reader:
            print([e["by"] for e in reader.events])
    """)
    try:
        assert child.stdout.readline().strip() == "ready"
        out = subprocess.run([sys.executable, "-c", code, str(folder)], capture_output=True, text=True, timeout=60)
        assert f"open for writing in another process (pid {child.pid}); close it there, or open read-only" \
            in out.stdout, out.stderr
        assert "['child']" in out.stdout
    finally:
        child.stdin.close()
        assert child.wait(timeout=30) == 0
    assert not (folder / SOFT_LOCK_FILE).exists()


def test_closing_leaves_a_soft_lock_that_another_writer_took_over(tmp_path, portable):
    store = CampaignStore.create(tmp_path / "c", {"name": "C"})
    (tmp_path / "c" / SOFT_LOCK_FILE).write_text(f"{os.getpid()} {lock._HOST} fedcba9876543210\n")
    store.close()
    assert (tmp_path / "c" / SOFT_LOCK_FILE).read_text().split()[2] == "fedcba9876543210"
