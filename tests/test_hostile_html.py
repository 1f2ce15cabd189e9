"""Every view delvebook draws in HTML escapes what it shows, numbers included: no campaign file puts markup on a page.

Issue 16, item 1: numbers from the state or the latest event were put into HTML unescaped, and a log line could set
any place of the state to anything. Each view here (the report, an action's outcome, a delver in
a notebook, a roll) is drawn twice from the same played campaign with every value it holds replaced: once by markup
(``<img src=x onerror=...>``), once by plain words. The two pages must have the same elements and attributes: none
came from the data. A hypothesis fuzz draws the values.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import delvebook as db
from delvebook.campaign import Outcome
from delvebook.core.dice import parse
from delvebook.core.dice_html import roll_html
from delvebook.core.model import Delver
from delvebook.store import MemoryStore

PAYLOAD = "<img src=x onerror=alert({})>"
NAME_MAPS = {"delvers", "foes", "luck", "resources", "resource_max", "skills", "choices", "rolls"}


class _Shape(HTMLParser):
    """The elements and attribute names of a page, in order (what markup from data would change)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, tuple(sorted(a for a, _ in attrs))))

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)

    def handle_data(self, data):
        self.text.append(data)


def shape_of(page: str) -> _Shape:
    parser = _Shape()
    parser.feed(page)
    parser.close()
    return parser


def assert_no_markup_from_data(hostile: str, plain: str) -> None:
    a, b = shape_of(hostile), shape_of(plain)
    assert a.tags == b.tags, "the data made elements or attributes of its own"
    assert not any(tag in ("img", "iframe", "svg") for tag, _ in a.tags)  # scripts: only those the plain page has
    assert not any(name.startswith("on") for _, names in a.tags for name in names)


def taint(data, make, names: dict | None = None, key=None):
    """``data`` with every text and number it holds replaced by ``make(i)`` (the same text always by the same
    replacement, so a name stays one name across seats, order and luck); record fields keep their keys."""
    names = {} if names is None else names

    def new(value):
        k = (type(value).__name__, value)
        if k not in names:
            names[k] = make(len(names))
        return names[k]

    if isinstance(data, dict):
        return {(new(k) if key in NAME_MAPS else k): taint(v, make, names, k) for k, v in data.items()}
    if isinstance(data, list):
        return [taint(v, make, names, key) for v in data]
    if isinstance(data, bool) or data is None:
        return data
    if isinstance(data, (str, int, float)):
        return new(data)
    return data


@pytest.fixture(scope="module")
def played():
    """A campaign played in memory to a state with every kind of thing a view shows: a party with resources and
    armor, a fight in its second round with a hurt foe and a dying delver, a luck die, a condition."""
    keep = Path(__file__).resolve().parent.parent / "campaigns" / "the-sunken-keep"
    from delvebook.store.campaign_file import read_campaign
    camp = db.Campaign.open(MemoryStore(read_campaign(keep).data))
    camp.start_session()
    camp.award_xp(40, reason="quest: the drowned bell")
    camp.earn(37, reason="loot")
    fight = camp.encounter(["keep_sentinel", "bog_goblin"])
    fight.initiative(first="party")
    fight.next_turn()  # Wren lets Brakka, next in the seats, act
    fight.attack("Brakka", "Keep sentinel 1", faces={"attack": [18, 1], "resist": [2], "damage": [5, 6]})
    camp.spend_luck("Ben", +1, face=3)
    try:
        camp.use("Brakka", "ferocious_strike")  # a condition in play, when the rules allow it here
    except db.Refused:
        pass
    fight.next_turn()
    camp.check("Wren", "stealth", 12, faces={"check": [9, 2]})
    camp.damage("Ilse", 30)
    return camp


def _views(state: dict, events: list, name: str) -> dict[str, str]:
    pages = {}  # the players' view is the table's players' mode now: text set by the page, no HTML string
    for i, d in enumerate(state["delvers"].values()):
        pages[f"delver {i}"] = Delver(d)._repr_html_()
    for i, e in enumerate(events[-6:]):
        pages[f"outcome {i}"] = Outcome(e)._repr_html_()
    return pages


def test_the_repro_of_item_1_is_an_error_in_validate_and_harmless_when_shown(tmp_path, played):
    """A `note` whose changes set ["session", "number"] to markup: validate says where; shown, it is text."""
    folder = tmp_path / "x"
    assert subprocess.run([sys.executable, "-m", "delvebook", "new", str(folder)], capture_output=True).returncode == 0
    with open(folder / "log.yaml", "a") as f:
        f.write('- {"seq": 1, "kind": "note", "changes": [[["session", "number"], "<img src=x onerror=alert(1)>"]]}\n')
    out = subprocess.run([sys.executable, "-m", "delvebook", "validate", str(folder)], capture_output=True, text=True)
    assert out.returncode == 1 and "valid (" not in out.stdout
    assert f"{folder / 'log.yaml'}:2: changes[0]: session.number: expected a whole number" in out.stdout
    with pytest.raises(db.store.StoreError) as info:
        db.Campaign.open(folder, read_only=True)
    assert info.value.line == 2 and info.value.field == "changes[0]"
    # shown, the players' view is the table's players' mode: its page sets every text as text (test_table.py's
    # test_the_page_sets_every_text_as_text_and_never_builds_markup; test_players.py shows a name like markup)


def test_every_view_escapes_every_value_of_the_state_and_the_events(played):
    hostile = taint({"state": played.state, "events": played.events}, PAYLOAD.format)
    plain = taint({"state": played.state, "events": played.events}, lambda i: f"value {i}")
    pages = _views(hostile["state"], hostile["events"], PAYLOAD.format("name"))
    plains = _views(plain["state"], plain["events"], "name")
    assert set(pages) == set(plains) and len(pages) >= 10
    for view, page in pages.items():
        assert_no_markup_from_data(page, plains[view])
        assert "onerror=alert(" in "".join(shape_of(page).text), view  # the payload is there, as text


def test_a_roll_escapes_who_why_and_its_outcome():
    r = parse("2d6+1").roll(faces=[3, 4], who=PAYLOAD.format(1), why=PAYLOAD.format(2))
    r = r.with_luck(1, face=5, who=PAYLOAD.format(3))
    plain = parse("2d6+1").roll(faces=[3, 4], who="who", why="why").with_luck(1, face=5, who="Cleo")
    for styled in (True, False):
        assert_no_markup_from_data(roll_html(r, PAYLOAD.format(4), styled=styled),
                                   roll_html(plain, "outcome", styled=styled))


def test_the_report_escapes_names_and_the_numbers_it_reads_from_the_state(tmp_path):
    """The report's summary reads names from the log and level, XP and status from the state; its charts carry
    the names inside plotly's JSON, which must not close its script."""
    from delvebook.charts.report import report_html
    pytest.importorskip("plotly")

    def play(prefix):
        camp = db.Campaign.create(tmp_path / f"c{len(list(tmp_path.iterdir()))}", name=prefix("campaign"), seed=3)
        camp.add_delver(prefix("Wren") + "</script>", "rogue", player=prefix("Ana"))
        camp.add_delver(prefix("Bram"), "fighter", player=prefix("Ben"))
        camp.start_session()
        fight = camp.encounter(["goblin"], name=prefix("fight"))
        fight.initiative(first="party")
        fight.next_turn()  # Bram's turn, after Wren's
        fight.attack(prefix("Bram"), "Goblin 1", faces={"attack": [18, 1], "resist": [2]})
        fight.end()
        camp.award_xp(10, reason=prefix("quest"))
        for d in camp.state["delvers"].values():  # what a log line could have set, shown by the summary
            d["level"], d["xp"], d["status"] = prefix("level"), prefix("xp"), prefix("status")
        return camp

    hostile = play(lambda s: f"<img src=x onerror=alert('{s}')>")
    plain = play(lambda s: f"plain {s}")
    try:
        assert_no_markup_from_data(report_html(hostile, cdn=True), report_html(plain, cdn=True))
    finally:
        hostile.close()
        plain.close()


_PIECES = st.sampled_from(list("<>&\"'/=x1 ;:\u2028é🐉") + ["<script>", "</div>", "onerror=", "\x1b[2J", "&lt;"])
_TEXT = st.lists(_PIECES, max_size=12).map("".join)


@settings(max_examples=40, deadline=2000, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(values=st.lists(st.one_of(_TEXT, st.integers(-10 ** 6, 10 ** 6)), min_size=1, max_size=40))
def test_fuzz_no_value_drawn_makes_markup(played, values):
    """Whatever texts and numbers the state and events hold, every view has the elements the plain one has."""
    def drawn(i):  # each replacement different, so that names stay as many as they were
        v = values[i % len(values)]
        return v + i * 10 ** 7 if isinstance(v, int) else f"{v}#{i}"

    hostile = taint({"state": played.state, "events": played.events[-4:]}, drawn)
    plain = taint({"state": played.state, "events": played.events[-4:]}, lambda i: f"v{i}")
    pages = _views(hostile["state"], hostile["events"], str(values[0]))
    plains = _views(plain["state"], plain["events"], "name")
    for view in pages:
        if view in plains:
            assert_no_markup_from_data(pages[view], plains[view])
