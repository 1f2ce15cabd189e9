"""Players' requests and the keeper's answers: bounded lines in files beside the log, one writer a file.

``requests/`` in the campaign folder holds, for each player (the files' names come from the player's name,
``file_stem``):

- ``<stem>.yaml``: what the player asked from their own device (a luck die, a roll the keeper asked for, a level-up
  choice), appended by the players' server (``delvebook players``) alone, one line a request in the log's own line
  form (``- {"n": 3, "player": "Ana", "kind": "luck", "on": 17, "roll": "check", "sign": 1, "ts": "..."}``);
- ``<stem>.keeper.yaml``: the keeper's answers (``{"re": 3, "verdict": "accepted", "seq": 18}``, declined or
  refused with why) and what the keeper asks of the player (``{"ask": 1, "who": "Wren", "roll": "check", ...}``,
  ``{"closed": 1, ...}``), appended by the keeper's table alone;
- ``keys.json`` (each link's secret, readable by its owner only) and ``server.json`` (where the players' server
  listens), written by the players' server.

Each side follows the other's file as the players' view follows the log (``Exchange.poll``), so a crash loses no
more than a line being written (a line with no newline yet is read once it is whole). Requests are hostile input:
every file is read through the store's careful reader (``store.careful``: a regular file only, never a link or a
pipe, bounded in bytes and lines a poll, set aside and said once otherwise, never raised), ``request_problem`` is
the one schema every line must meet before anything reads it, a line is at most ``MAX_LINE`` bytes and a file
``MAX_FILE``, and a file holding more than ``MAX_FOREIGN`` lines no page or table writes is set aside; what the
state allows now is ``delvebook.players.allowed``. Export and zips leave the folder out (they take the campaign's
own files only).
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import re
import stat
import unicodedata
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from ..store.careful import MAX_READ, Follower, Unreadable, read_small, what_is

__all__ = ["FOLDER", "MAX_LINE", "MAX_FILE", "MAX_FOREIGN", "KINDS", "ROLLS", "VERDICTS", "file_stem",
           "requests_file", "answers_file", "request_problem", "answer_problem", "encode", "append", "Exchange", "RequestError",
           "now", "screen_file", "show_on_screen", "on_screen"]

FOLDER = "requests"
MAX_LINE = 1024          # bytes in one line, its newline included
MAX_FILE = 1 << 20       # bytes in one file: past it the writer takes no more (about 10,000 requests)
MAX_FOREIGN = 8          # lines of a file no players' page (or keeper's table) writes; one more, and it is set aside
MAX_NUMBER = 2 ** 31 - 1
MAX_NAME = 80
MAX_FACES = 12
MAX_WORDS = 300

KINDS = ("luck", "roll", "choose")
"""What a player may ask: a luck die on a roll, the roll the keeper asked for, a level-up choice."""
ROLLS = ("check", "save", "death_save")
"""What the keeper may ask a player to roll."""
VERDICTS = ("accepted", "declined", "refused")


class RequestError(ValueError):
    """A request or an answer that cannot be written (too long, the file full, a link where the file should be)."""


def now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds")


# ---------------------------------------------------------------- where

def file_stem(player: str) -> str:
    """The start of a player's files' names: their name in plain lowercase letters and digits (for a person
    reading the folder) and a checksum of the whole name (two names that read alike never share a file)."""
    plain = unicodedata.normalize("NFKD", player).encode("ascii", "ignore").decode("ascii").lower()
    slug = re.sub(r"[^a-z0-9]+", "-", plain).strip("-")[:24] or "player"
    return f"{slug}-{zlib.crc32(player.encode('utf-8')):08x}"


def requests_file(campaign: str | os.PathLike, player: str) -> Path:
    return Path(campaign) / FOLDER / f"{file_stem(player)}.yaml"


def answers_file(campaign: str | os.PathLike, player: str) -> Path:
    return Path(campaign) / FOLDER / f"{file_stem(player)}.keeper.yaml"


# ---------------------------------------------------------------- the one schema

def _number(v: Any) -> bool:
    return type(v) is int and 1 <= v <= MAX_NUMBER


def _name(v: Any) -> bool:
    """A name as a player's page sends it: text of printable characters (no control, invisible or
    direction-changing ones), at most ``MAX_NAME`` long. Whether it names anything is the state's to say."""
    return type(v) is str and 0 < len(v) <= MAX_NAME and v.isprintable()


def _stamp(v: Any) -> bool:
    return type(v) is str and len(v) <= 40 and v.isprintable()


def _words(v: Any) -> bool:
    return type(v) is str and len(v) <= MAX_WORDS and v.isprintable()


def _faces(v: Any) -> bool:
    return type(v) is list and 0 < len(v) <= MAX_FACES and all(type(x) is int and 1 <= x <= 1000 for x in v)


def _sign(v: Any) -> bool:
    return type(v) is int and v in (1, -1)


_NUMBER, _NAME, _STAMP, _SIGN = "a number from 1", "a name", "a time stamp", "+1 or -1"
_FACES, _WORDS = "the faces of real dice (1 to 12 whole numbers)", "words"
_MAYBE_NUMBER, _MAYBE_NAME = "a number or nothing", "a name or nothing"
_CHECKS = {_NUMBER: _number, _NAME: _name, _STAMP: _stamp, _SIGN: _sign, _FACES: _faces, _WORDS: _words,
           _MAYBE_NUMBER: lambda v: v is None or type(v) is int and -1000 <= v <= 1000,
           _MAYBE_NAME: lambda v: v is None or _name(v)}

_REQUEST = {"n": _NUMBER, "player": _NAME, "kind": _NAME, "ts": _STAMP}
_REQUEST_KINDS: dict[str, tuple[dict, dict]] = {  # kind -> (fields it must have, fields it may have)
    "luck": ({"on": _NUMBER, "roll": _NAME, "sign": _SIGN}, {}),
    "roll": ({"ask": _NUMBER}, {"faces": _FACES}),
    "choose": ({"who": _NAME, "choice": _NAME, "option": _NAME}, {}),
}


def _fields_problem(line: Any, must: dict, may: dict) -> str | None:
    if type(line) is not dict:
        return f"expected a mapping of fields, got {type(line).__name__}"
    for key, what in must.items():
        if key not in line:
            return f"{key}: missing"
    for key, value in line.items():
        what = must.get(key) or may.get(key) if type(key) is str else None
        if what is None:
            return f"{_shown(key)}: not a field of this line"
        if not _CHECKS[what](value):
            return f"{key}: expected {what}, got {_shown(value)}"
    return None


def request_problem(line: Any) -> str | None:
    """Why ``line`` is not a request a player's page makes (a field missing, unknown or out of its bounds), or
    None. The one schema: the players' server checks a request with it before writing it, and the keeper's table
    before reading it. Whether the state allows it now is ``allowed.request_refusal``."""
    if type(line) is not dict:
        return f"expected a mapping of fields, got {type(line).__name__}"
    kind = line.get("kind")
    if kind not in _REQUEST_KINDS:
        return f"kind: {_shown(kind)} is not something a player may ask (known: {', '.join(KINDS)})"
    must, may = _REQUEST_KINDS[kind]
    return _fields_problem(line, {**_REQUEST, **must}, may)


_ANSWER = {"re": _NUMBER, "verdict": _NAME}
_ANSWER_MAY = {"seq": _NUMBER, "why": _WORDS, "said": _WORDS, "ts": _STAMP}
_ASK = {"ask": _NUMBER, "who": _NAME, "roll": _NAME, "label": _WORDS}
_ASK_MAY = {"skill": _MAYBE_NAME, "target": _MAYBE_NUMBER, "ts": _STAMP}
_CLOSED = {"closed": _NUMBER}
_CLOSED_MAY = {"why": _WORDS, "seq": _NUMBER, "ts": _STAMP}


def answer_problem(line: Any) -> str | None:
    """Why ``line`` is not one the keeper's table writes in a player's answers file (an answer, an ask, an ask
    closed), or None: the players' server reads nothing else from it."""
    if type(line) is not dict:
        return f"expected a mapping of fields, got {type(line).__name__}"
    if "re" in line:
        problem = _fields_problem(line, _ANSWER, _ANSWER_MAY)
        if problem is None and line["verdict"] not in VERDICTS:
            return f"verdict: {_shown(line['verdict'])} is not one of {', '.join(VERDICTS)}"
        return problem
    if "ask" in line:
        problem = _fields_problem(line, _ASK, _ASK_MAY)
        if problem is None and line["roll"] not in ROLLS:
            return f"roll: {_shown(line['roll'])} is not one of {', '.join(ROLLS)}"
        return problem
    return _fields_problem(line, _CLOSED, _CLOSED_MAY)


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=True) if isinstance(value, (str, int, float, bool, type(None))) \
        else type(value).__name__
    return text if len(text) <= 60 else text[:57] + "..."


# ---------------------------------------------------------------- lines

def _pairs(pairs: list) -> dict:
    out = {}
    for k, v in pairs:
        if k in out:
            raise ValueError(f"the field {k!r} twice")
        out[k] = v
    return out


def _constant(name: str):
    raise ValueError(f"{name} is not a number a line holds")


def encode(line: Mapping) -> bytes:
    """One line of a requests or answers file: ``- {json}`` and a newline, at most ``MAX_LINE`` bytes."""
    raw = b"- " + json.dumps(line, ensure_ascii=False, separators=(", ", ": "), allow_nan=False).encode("utf-8") + b"\n"
    if len(raw) > MAX_LINE:
        raise RequestError(f"a line of {len(raw):,} bytes; at most {MAX_LINE:,}")
    return raw


def decode(raw: bytes) -> dict | str:
    """The fields of one line (without its newline), or why it cannot be read (a line some other hand wrote)."""
    if len(raw) >= MAX_LINE:
        return f"a line of {len(raw):,} bytes; at most {MAX_LINE:,}"
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return "not UTF-8 text"
    if not text.startswith("- {"):
        return "not a line of the form - {json}"
    try:
        return json.loads(text[2:], object_pairs_hook=_pairs, parse_constant=_constant)
    except (ValueError, RecursionError) as err:
        return f"not JSON ({str(err)[:80]})"


def _no_link(folder: Path) -> None:
    """The requests folder must be a folder of its own, never a link to somewhere else."""
    st = os.lstat(folder)
    if stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode):
        raise RequestError(f"{folder} is not a plain folder (a link, or a file): delvebook writes no request there")


def append(file: Path, *lines: Mapping) -> None:
    """Append ``lines`` to ``file`` in one write (made if missing, readable by its owner only), flushed to disk
    before this returns. Refused (``RequestError``) for a line over ``MAX_LINE``, a file at ``MAX_FILE``, or
    anything but a file where the folder or the file should be (a link, a pipe: never followed, never waited on)."""
    raw = b"".join(encode(line) for line in lines)
    folder = file.parent
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
    except FileExistsError:
        pass
    _no_link(folder)
    flags = (os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
             | getattr(os, "O_BINARY", 0))
    try:  # (never through a link, never waiting on a pipe: one with no reader refuses at once)
        fd = os.open(file, flags, 0o600)
    except OSError as err:
        raise RequestError(f"{file.parent.name}/{file.name} cannot be written ({_what_stands(file, err)})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise RequestError(f"{file.parent.name}/{file.name} cannot be written (it is not a file)")
        if st.st_size + len(raw) > MAX_FILE:
            raise RequestError(f"{file.name} is full ({MAX_FILE:,} bytes): the keeper starts it afresh by "
                               "deleting the requests folder")
        view = memoryview(raw)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    finally:
        os.close(fd)


def _what_stands(file: Path, err: OSError) -> str:
    """Why ``file`` could not be opened to append to, in words: what stands in its place, or the system's words."""
    try:
        mode = os.lstat(file).st_mode
    except OSError:
        return err.strerror or str(err)
    return (err.strerror or str(err)) if stat.S_ISREG(mode) else f"it is {what_is(mode)}, not a file"


# ---------------------------------------------------------------- what the keeper shows on the players' screen

def screen_file(campaign: str | os.PathLike) -> Path:
    """What the keeper shows on the players' screen (``{"recap": 12}``: session 12's recap), beside the requests;
    no player's file is named so (theirs end in a checksum)."""
    return Path(campaign) / FOLDER / "screen.json"


def show_on_screen(campaign: str | os.PathLike, recap: int | None) -> None:
    """Show session ``recap``'s recap on the players' screen (None: take it down): the file written whole and put
    in place in one step, never a link followed."""
    if recap is not None and (isinstance(recap, bool) or not isinstance(recap, int) or recap < 1):
        raise RequestError(f"a session is a whole number from 1, not {recap!r}")
    file = screen_file(campaign)
    try:
        file.parent.mkdir(mode=0o700, exist_ok=True)
    except FileExistsError:
        pass
    _no_link(file.parent)
    part = file.with_name(f".screen.{os.getpid()}.part")
    raw = json.dumps({"recap": recap, "at": now()}).encode()
    fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        os.write(fd, raw)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(part, file)


def on_screen(campaign: str | os.PathLike, aside: list | None = None) -> int | None:
    """The session whose recap the keeper shows on the players' screen, or None (nothing shown, or a file that is
    not one the keeper's table writes: it shows nothing, and why is added to ``aside`` when given)."""
    raw, problem = read_small(screen_file(campaign), 4096)  # a folder, a pipe or a link so named shows nothing
    if problem is not None and aside is not None:
        aside.append(problem)
    if raw is None:
        return None
    try:
        n = json.loads(raw).get("recap")
    except (ValueError, AttributeError):
        return None
    return n if isinstance(n, int) and not isinstance(n, bool) and n >= 1 else None


def _lines(raw_lines: list[bytes]) -> list[dict | str]:
    """Each new line's fields, or why it cannot be read."""
    return [f"a line longer than {MAX_READ:,} bytes" if raw == Follower.TOO_LONG else decode(raw)
            for raw in raw_lines]


# ---------------------------------------------------------------- one player's requests and answers, folded

@dataclass
class Exchange:
    """One player's requests and the keeper's answers as both files hold them (``poll`` reads what is new):
    what the players' server and the keeper's table both read, the same way. A file that is not one delvebook
    writes (something else in its place, or more than ``MAX_FOREIGN`` lines no page or table writes) is set aside
    (``set_aside``: the keeper's table says it once, as it stands), and read again once a file stands in its place
    anew."""

    campaign: Path
    player: str
    requests: dict[int, dict] = field(default_factory=dict)   # n -> the request
    answers: dict[int, dict] = field(default_factory=dict)    # n -> the keeper's answer to it
    asks: dict[int, dict] = field(default_factory=dict)       # k -> what the keeper asked the player to roll
    closed: dict[int, dict] = field(default_factory=dict)     # k -> how that ask ended (rolled, withdrawn)
    unreadable: list[str] = field(default_factory=list)       # why lines of the player's file could not be read
    last: int = 0                                              # the highest request number read

    def __post_init__(self) -> None:
        self._requests = Follower(requests_file(self.campaign, self.player))
        self._answers = Follower(answers_file(self.campaign, self.player))
        self._foreign = {"requests": 0, "answers": 0}
        self._aside: dict[str, Unreadable] = {}  # a file set aside for the lines it holds, by which

    def set_aside(self) -> list[Unreadable]:
        """The player's files set aside now (something else in a file's place, or a file of foreign lines)."""
        out = [f.problem for f in (self._requests, self._answers) if f.problem is not None]
        return out + list(self._aside.values())

    def _foreign_line(self, which: str, why: str) -> bool:
        """Count a line of ``which`` file that no page or table writes; True once the file is set aside for them."""
        self._foreign[which] += 1
        if self._foreign[which] <= MAX_FOREIGN:
            return False
        follower = self._requests if which == "requests" else self._answers
        writer = "players' page" if which == "requests" else "keeper's table"
        aside = Unreadable(follower.file, f"more than {MAX_FOREIGN} of its lines are not ones a {writer} writes "
                                          f"(the last: {why[:120]}); its further lines are not read: remove it, "
                                          f"and the next one delvebook writes is read")
        self._aside[which] = aside
        return True

    def _poll(self, which: str):
        follower = self._requests if which == "requests" else self._answers
        if which in self._aside and follower.same_file():
            return [], False
        polled = follower.poll()
        if polled.fresh or (which in self._aside and follower.problem is None):
            self._aside.pop(which, None)
            self._foreign[which] = 0
        return _lines(polled.lines), polled.fresh

    def refuse_foreign(self, why: str) -> bool:
        """A request the keeper's table refuses though the players' server checked it (refused by the state, or
        one past those that may wait): counted as a foreign line of the requests file, unless a request that
        stood came since (``trusted``: a page's refusals come one now and then, a forged file's in a run). True
        once the file is set aside (then the request is forgotten, not answered: the file no longer stands)."""
        return "requests" in self._aside or self._foreign_line("requests", why)

    def trusted(self) -> None:
        """A request of the file stood (accepted, or waiting for the keeper): the refusals before it were a page's."""
        if "requests" not in self._aside:
            self._foreign["requests"] = 0

    def poll(self) -> bool:
        """Read what both files gained since the last poll; True if anything did. Never raises: what cannot be
        read is set aside (``set_aside``)."""
        got, fresh = self._poll("requests")
        if fresh:
            self.requests.clear()
            self.unreadable.clear()
            self.last = 0
        for line in got:
            problem = line if isinstance(line, str) else request_problem(line)
            if problem is None and line["player"] != self.player:
                problem = f"player: {_shown(line['player'])} in {self.player}'s requests"
            if problem is None and line["n"] <= self.last:
                problem = f"n: request {line['n']} after request {self.last} (each request has a new number)"
            if problem is not None:
                self.unreadable = (self.unreadable + [problem])[-20:]
                number = line.get("n") if isinstance(line, dict) else None
                if _number(number) and number > self.last:  # answered as refused: the page shows why
                    self.last = number
                    self.requests[number] = {"n": number, "player": self.player, "kind": "unreadable",
                                             "problem": problem}
                if self._foreign_line("requests", problem):
                    break
                continue
            self.last = line["n"]
            self.requests[line["n"]] = line
        said, fresh_answers = self._poll("answers")
        if fresh_answers:
            self.answers.clear(), self.asks.clear(), self.closed.clear()
        for line in said:
            if isinstance(line, str) or answer_problem(line) is not None:  # the keeper's table wrote none of it
                if self._foreign_line("answers", line if isinstance(line, str) else answer_problem(line)):
                    break
                continue
            self.said(line)
        return bool(got or said or fresh or fresh_answers)

    def said(self, line: dict) -> None:
        """Take in a line of the keeper's answers file (read, or just written by the keeper's table)."""
        if "re" in line:
            self.answers[line["re"]] = line
        elif "ask" in line:
            self.asks[line["ask"]] = line
        else:
            self.closed[line["closed"]] = line

    def pending(self) -> list[dict]:
        """The requests the keeper has not answered yet, oldest first."""
        return [r for n, r in sorted(self.requests.items()) if n not in self.answers]

    def open_asks(self) -> list[dict]:
        """What the keeper asked the player to roll and is still waiting for, oldest first."""
        return [a for k, a in sorted(self.asks.items()) if k not in self.closed]

    def next_ask(self) -> int:
        return max([0, *self.asks]) + 1
