"""Every file under ``requests/`` is read through one careful reader (``store.careful``): a pipe, a folder, a link
or a file of a megabyte in any file's place is set aside and said once, in words; the keeper's poll and the table
keep answering; what the players' pages call to follow the log and the requests never raises."""
from __future__ import annotations

import os
import re
import threading
import time

import pytest

import delvebook as db
from delvebook.players import desk as desks, links
from delvebook.engine import Refused
from delvebook.players.requests import (Exchange, answers_file, encode, on_screen, requests_file,
                                        screen_file)
from delvebook.store import careful, validate

PLACES = {
    "requests": lambda c: requests_file(c.path, "Ana"),
    "answers": lambda c: answers_file(c.path, "Ana"),
    "keys": lambda c: c.path / "requests" / links.KEYS,
    "server": lambda c: c.path / "requests" / links.SERVER,
    "screen": lambda c: screen_file(c.path),
}
THINGS = ("pipe", "folder", "link", "megabyte")


@pytest.fixture
def camp(keep):
    (keep / "requests").mkdir(mode=0o700)
    c = db.Campaign.open(keep)
    c.start_session()
    yield c
    c.close()


def put(thing: str, file, elsewhere) -> None:
    """Something that is not the file delvebook writes, in its place."""
    if thing == "pipe":
        os.mkfifo(file)
    elif thing == "folder":
        file.mkdir()
    elif thing == "link":  # to a file of requests that must never be read through it
        elsewhere.write_bytes(encode({"n": 1, "player": "Ana", "kind": "luck", "on": 1, "roll": "check",
                                      "sign": 1, "ts": "t"}))
        file.symlink_to(elsewhere)
    else:  # a megabyte of request lines, each a number on from the last
        with open(file, "wb") as f:
            k = 0
            while f.tell() < 1_000_000:
                k += 1
                f.write(encode({"n": k, "player": "Ana", "kind": "luck", "on": 1, "roll": "x", "sign": 1,
                                "ts": "t"}))


def within(seconds: float, fn):
    """``fn()`` in a thread, which must end within ``seconds`` (a read waiting on a pipe would never end)."""
    out: list = []
    worker = threading.Thread(target=lambda: out.append(fn()), daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"{fn} did not return: it waits on something"
    return out[0]


@pytest.fixture
def lines_read(monkeypatch) -> list:
    """How many lines each poll of a followed file took (the work a poll does is bounded by them)."""
    taken: list = []
    poll = careful.Follower.poll

    def counted(self):
        got = poll(self)
        taken.append(len(got.lines))
        return got
    monkeypatch.setattr(careful.Follower, "poll", counted)
    return taken


@pytest.mark.parametrize("thing", THINGS)
@pytest.mark.parametrize("place", list(PLACES))
def test_something_else_in_a_files_place_is_set_aside_said_once_and_the_table_keeps_answering(camp, tmp_path, place,
                                                                                               thing, lines_read):
    from delvebook.table import Table
    file = PLACES[place](camp)
    put(thing, file, tmp_path / "elsewhere.yaml")
    table = Table(camp)
    desk = desks.open_desk(camp)
    for _ in range(6):
        within(5, desk.poll)
    assert max(lines_read) <= careful.MAX_LINES, "a poll takes a bounded number of lines of a file"
    said = desk.set_aside()
    assert len(said) == 1 and said[0].startswith(f"requests/{file.name} was set aside: "), said
    assert "Error" not in said[0] and str(camp.path) not in said[0], "in words, naming the file as the keeper sees it"
    assert said[0].endswith({"pipe": "it is a pipe, not a file", "folder": "it is a folder, not a file",
                             "link": "it is a link, not a file"}.get(thing, said[0][-20:]))
    assert [r["n"] for r in desk.waiting()] == [], "nothing read through a link, nothing of a flood waits unsaid"
    box = table.view["requests"] if table.view.get("requests") else None
    clicked = time.perf_counter()
    table.handle({"do": "rest", "where": "keeper:session"})
    print(f"\n{place} {thing}: a click answered in {(time.perf_counter() - clicked) * 1000:.0f} ms")
    assert table.view.get("refusal") is None and camp.events[-1]["kind"] == "rest"
    assert table.view["requests"]["set_aside"] == said, "the keeper reads which file, once, beside the requests"
    assert box is None or box["set_aside"] == said
    if place == "answers" and thing != "megabyte":
        with pytest.raises(Refused, match=re.escape(f"Ana cannot be sent a roll: requests/{file.name} cannot be "
                                                    f"written (it is a {thing}, not a file)")):
            desk.ask("Wren", "check", "stealth", 12)
    else:
        assert desk.ask("Wren", "check", "stealth", 12) == 1, "the keeper can still send Ana a roll"
    # what the players' pages call to follow: never raises, and the log is followed as ever
    watching = db.Campaign.open(camp.path, read_only=True)
    ex = Exchange(camp.path, "Ana")
    within(5, ex.poll)
    within(5, lambda: (on_screen(camp.path), links.read_keys(camp.path), links.read_server(camp.path)))
    camp.rest()
    assert [o["kind"] for o in watching.catch_up()] == ["rest"]
    watching.close()
    assert validate(camp.path) == []


def test_a_file_set_aside_is_read_again_once_a_file_stands_in_its_place(camp, tmp_path):
    file = requests_file(camp.path, "Ana")
    file.mkdir()
    desk = desks.open_desk(camp)
    desk.poll()
    assert len(desk.set_aside()) == 1
    file.rmdir()
    camp.check("Wren", "stealth", 12, faces={"check": [9, 2]})
    with open(file, "wb") as f:
        f.write(encode({"n": 1, "player": "Ana", "kind": "luck", "on": camp.latest_action["seq"], "roll": "check",
                        "sign": 1, "ts": "t"}))
    desk.poll()
    assert desk.set_aside() == [] and [r["n"] for r in desk.waiting()] == [1]


def test_the_careful_reader_reads_a_regular_file_and_says_what_else_stands_there(tmp_path):
    (tmp_path / "f.json").write_text("{}")
    assert careful.read_small(tmp_path / "f.json", 10) == (b"{}", None)
    assert careful.read_small(tmp_path / "none.json", 10) == (None, None), "nothing there: nothing to say"
    (tmp_path / "big.json").write_text("x" * 11)
    raw, why = careful.read_small(tmp_path / "big.json", 10)
    assert raw is None and why.why == "it is larger than 10 bytes, more than delvebook ever writes there"
    os.mkfifo(tmp_path / "pipe")
    assert within(5, lambda: careful.read_small(tmp_path / "pipe", 10))[1].why == "it is a pipe, not a file"


def test_a_line_longer_than_a_read_is_skipped_and_said_and_a_torn_line_waits_for_its_newline(tmp_path):
    file = tmp_path / "f.yaml"
    file.write_bytes(b"x" * (careful.MAX_READ + 10) + b"\nfirst\nsec")
    follower = careful.Follower(file)
    assert follower.poll().lines == [careful.Follower.TOO_LONG]
    assert follower.poll().lines == [b"x" * 10, b"first"]
    with open(file, "ab") as f:
        f.write(b"ond\n")
    assert follower.poll().lines == [b"second"]


def test_a_poll_past_its_budget_leaves_the_players_after_to_the_next_which_starts_where_it_stopped(camp,
                                                                                                  monkeypatch):
    clock = iter(k * 0.06 for k in range(10_000))  # each look at the clock 60 ms on: a slow disk
    monkeypatch.setattr(desks.time, "monotonic", lambda: next(clock))
    desk = desks.open_desk(camp)
    players = desk.players()
    read: list[list[str]] = []
    poll = Exchange.poll

    def counted(ex):
        read[-1].append(ex.player)
        return poll(ex)
    monkeypatch.setattr(Exchange, "poll", counted)
    for _ in range(len(players)):
        read.append([])
        desk.poll()
    assert all(len(set(polled)) <= 2 for polled in read), f"a poll past {desks.POLL_BUDGET} s goes no further: {read}"
    assert {p for polled in read for p in polled} == set(players), "no player is left out for long"
