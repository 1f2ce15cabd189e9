"""Keeper controls: sessions and rests, quests and rooms, coins and XP, level-up choices, abilities and spells,
and the campaign folder as a zip to download (a Binder session is thrown away when it ends)."""

from __future__ import annotations

import base64

import ipywidgets as w

from ._base import Table, button, esc, set_options
from ..engine import queries

__all__ = ["KeeperControls", "download_link"]


def download_link(camp) -> str:
    data = base64.b64encode(camp.export_zip()).decode()
    name = esc(f"{camp.path.name}.zip")
    return (f'<a class="delvebook-download" download="{name}" href="data:application/zip;base64,{data}" '
            f'style="font-weight:600">⬇ Save {name}</a> (the whole campaign folder; '
            f'<code>Campaign.open("{name}")</code> reads it)')


class KeeperControls:
    """The keeper's controls: sessions, rests, quests, rooms, coins, XP, level-up choices, abilities, spells."""

    shows_state_only = True  # redrawn only when an event changed the state

    def __init__(self, table: Table):
        self.table = table
        self.camp = camp = table.camp
        act = table.act
        small = {"description_width": "55px"}
        self.session = w.HTML()
        self.start_session = button("Start session", lambda: act(camp.start_session), style="primary",
                                    cls="delvebook-start-session")
        self.end_session = button("End session", lambda: act(camp.end_session), cls="delvebook-end-session")
        self.rest = button("Rest", lambda: act(camp.rest), cls="delvebook-rest")

        quests = [q["name"] for q in camp.quests if q["id"] is not None]
        rooms = [r["name"] for r in camp.rooms if r["id"] is not None]
        self.quest = w.Combobox(options=quests, placeholder="quest (pick or type)", description="Quest",
                                layout=w.Layout(width="300px"), style=small, ensure_option=False)
        self.quest_button = button("Complete quest", lambda: act(camp.complete_quest, self.quest.value.strip()),
                                   cls="delvebook-quest")
        self.room = w.Combobox(options=rooms, placeholder="room (pick or type)", description="Room",
                               layout=w.Layout(width="300px"), style=small, ensure_option=False)
        self.room_button = button("Explore room", lambda: act(camp.explore_room, self.room.value.strip()),
                                  cls="delvebook-room")

        self.who = w.Dropdown(description="Delver", layout=w.Layout(width="230px"), style=small)
        self.coins = w.Text(placeholder="2C 5T", description="Coins", layout=w.Layout(width="170px"), style=small)
        self.coins_to = w.Dropdown(options=[("shared by seat", "")], description="to",
                                   layout=w.Layout(width="190px"), style={"description_width": "20px"})
        self.earn_button = button("Earn", self.earn, cls="delvebook-earn")
        self.xp = w.BoundedIntText(value=0, min=0, max=100000, description="XP", layout=w.Layout(width="140px"),
                                   style={"description_width": "25px"})
        self.xp_reason = w.Text(value="keeper's award", description="for", layout=w.Layout(width="240px"),
                                style={"description_width": "25px"})
        self.xp_button = button("Award XP", self.award_xp, cls="delvebook-award-xp")

        self.pending = w.Dropdown(description="Choice", layout=w.Layout(width="260px"), style=small)
        self.option = w.Dropdown(description="option", layout=w.Layout(width="220px"), style=small)
        self.choose_button = button("Choose", self.choose, style="success", cls="delvebook-choose")
        self.level_button = button("Level up now", lambda: act(camp.level_up, self.who.value), cls="delvebook-level-up")
        self.pending.observe(lambda _c: self._refresh_options(), "value")

        self.ability = w.Dropdown(description="Ability", layout=w.Layout(width="300px"), style=small)
        self.spell = w.Dropdown(description="Spell", layout=w.Layout(width="300px"), style=small)
        self.via = w.Dropdown(options=[("from the book / blessing", ""), ("from the wand", "wand")],
                              layout=w.Layout(width="190px"))
        self.on = w.Dropdown(description="on", layout=w.Layout(width="200px"), style={"description_width": "22px"})
        self.use_button = button("Use", self.use, style="primary", cls="delvebook-use")
        self.cast_button = button("Cast", self.cast, style="primary", cls="delvebook-cast")
        self.who.observe(lambda _c: self._refresh_delver(), "value")

        self.download = w.HTML()
        self.download_button = button("Download the campaign (.zip)", self.prepare_download,
                                      cls="delvebook-download-button")

        box = lambda *c: w.HBox(list(c), layout=w.Layout(flex_flow="row wrap", align_items="center"))
        self.widget = w.VBox([
            box(self.session, self.start_session, self.end_session, self.rest),
            box(self.quest, self.quest_button), box(self.room, self.room_button),
            box(self.coins, self.coins_to, self.earn_button), box(self.xp, self.xp_reason, self.xp_button),
            w.HTML("<b>A delver's abilities, spells and level-up choices</b>"),
            box(self.who, self.level_button), box(self.pending, self.option, self.choose_button),
            box(self.ability, self.on, self.use_button), box(self.spell, self.via, self.cast_button),
            box(self.download_button, self.download),
        ])
        table.add(self)
        self.refresh()

    # ---- clicks
    def earn(self):
        text = self.coins.value.strip()
        amount = int(text) if text.isdigit() else text
        out = self.table.act(self.camp.earn, amount, who=self.coins_to.value or None)
        if out is not None:
            self.coins.value = ""
        return out

    def award_xp(self):
        return self.table.act(self.camp.award_xp, int(self.xp.value), reason=self.xp_reason.value or "keeper's award")

    def choose(self):
        if not self.pending.value:
            return self.table.say("no level-up choice is waiting", refused=True)
        who, choice = self.pending.value
        return self.table.act(self.camp.choose, who, choice, self.option.value)

    def use(self):
        if not self.ability.value:
            return self.table.say(f"{self.who.value} has no ability to use now", refused=True)
        return self.table.act(self.camp.use, self.who.value, self.ability.value, target=self.on.value or None)

    def cast(self):
        if not self.spell.value:
            return self.table.say(f"{self.who.value} has no spell to cast", refused=True)
        return self.table.act(self.camp.cast, self.who.value, self.spell.value, target=self.on.value or None,
                              via=self.via.value or None)

    def prepare_download(self):
        self.download.value = download_link(self.camp)

    # ---- views
    def _refresh_options(self) -> None:
        if not self.pending.value:
            set_options(self.option, [])
            return
        who, choice = self.pending.value
        d = self.camp.state["delvers"].get(who)
        p = next((p for p in (d or {}).get("pending_choices", ()) if p["choice"] == choice), None)
        set_options(self.option, queries.choice_options(self.camp.state, self.camp.rules, who, p) if p else [])

    def _refresh_delver(self) -> None:
        who = self.who.value
        state, rules = self.camp.state, self.camp.rules
        set_options(self.ability, [(a.label, a.id) for a in queries.abilities_available(state, rules, who)]
                    if who else [])
        set_options(self.spell, [(s.label, s.id) for s in queries.spells_available(state, rules, who)
                                 if s.via in ("spellbook", "blessing", "signature")] if who else [])

    def refresh(self) -> None:
        t = self.table
        if not t.touched_where(_keeper_sees):
            return
        s = self.camp.state
        sess = s["session"]
        self.session.value = (f"Session {sess['number']} <b>{'running' if sess['active'] else 'not running'}</b> · "
                              f"quests done {len(s['quests'])} · rooms explored {len(s['rooms'])} · "
                              f"XP pool {s['xp_pool']}")
        self.start_session.disabled = sess["active"]
        self.end_session.disabled = not sess["active"]
        party = [(n, n) for n in s["seats"]]
        set_options(self.who, party)
        set_options(self.coins_to, [("shared by seat", "")] + party)
        others = [("no one / self", "")] + party
        enc = s["encounter"]
        if enc is not None:
            others += [(f"{n} (foe)", n) for n, f in enc["foes"].items() if f["status"] != "dead"]
        set_options(self.on, others)
        pend = [(f"{n}: {p['choice'].replace('_', ' ')} (level {p['level']})", (n, p["choice"]))
                for n in s["seats"] for p in s["delvers"][n].get("pending_choices", ())]
        set_options(self.pending, pend)
        self._refresh_options()
        self._refresh_delver()


# what a delver's hearts, armor and purse do not change in the keeper's controls
_NOT_SHOWN = frozenset({"hearts", "armor", "purse", "died_at", "xp"})


def _keeper_sees(path: tuple) -> bool:
    """Whether a change at ``path`` can change the keeper's controls (their lists and choices)."""
    head = path[0]
    if head in ("session", "quests", "rooms", "xp_pool", "seats"):
        return True
    if head == "delvers":
        return len(path) < 3 or path[2] not in _NOT_SHOWN
    if head == "encounter":  # the foes offered as targets: only joining, leaving or falling matters
        return len(path) < 4 or path[1] != "foes" or path[3] == "status"
    return False
