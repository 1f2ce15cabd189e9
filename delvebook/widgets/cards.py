"""Character cards: a delver's sheet (hearts, resources, luck, XP, armor, purse, conditions) and roll buttons.

A card is built once; ``refresh`` changes its HTML and button labels. Buttons are rebuilt only when the
delver's skills or weapons themselves change (a level-up, a purchase).
"""

from __future__ import annotations

import ipywidgets as w

from ..model import format_purse
from ._base import Table, bar_html, button, esc, hearts_colour, luck_pips, put
from ..distribution import percent
from ..engine import queries

__all__ = ["DelverCard", "sheet_html"]

_CONDITION_WORDS = {"blood_magic_healing_ban": "banned from healing", "next_attack": "next attack readied",
                    "blood_magic_trace": "blood magic traced", "blood_magic_charge": "blood magic charged",
                    "compelled_truth": "must tell the truth", "truth_immune": "immune to Truth"}


def _pips(have: int, top: int) -> str:
    if top <= 6:
        return f'<span class="db-pips">{"●" * max(0, have)}{"○" * max(0, top - have)}</span> {have}/{top}'
    return f"{have}/{top}"


def _xp_bar(camp, d: dict) -> str:
    th = camp.rules.level_thresholds
    lo = th.get(d["level"], 0)
    hi = th.get(d["level"] + 1)
    if hi is None:
        return bar_html(1, 1, f"XP {d['xp']} · highest level", "#7e57c2", "delvebook-xp", {"xp": d["xp"]})
    return bar_html(d["xp"] - lo, hi - lo, f"XP {d['xp']} / {hi} for level {d['level'] + 1}", "#7e57c2",
                    "delvebook-xp", {"xp": d["xp"]})


def hearts_html(c: dict) -> str:
    hearts, top, status = c["hearts"], c["max_hearts"], c["status"]
    label = f"♥ {hearts}/{top}"
    if status == "dead":
        label += " · DEAD"
    elif status == "dying":
        label += " · DYING: death save!"
    elif hearts <= 0:
        label += " · at 0 hearts"
    colour = "#222" if status == "dead" else hearts_colour(hearts, top)
    return bar_html(hearts, top, label, colour, "delvebook-hearts",
                    {"hearts": hearts, "max": top, "status": status})


def _sheet_parts(camp, name: str) -> tuple[str, str]:
    """The sheet before and after its luck row."""
    s = camp.state
    d = s["delvers"][name]
    status = d["status"]
    badge = ""
    if status == "dead":
        badge = ' <span class="db-status">DEAD</span>'
    elif status == "dying":
        badge = ' <span class="db-status">DYING</span>'
    rows = [
        f'<div class="db-name">{esc(d["name"])}{badge}</div>',
        f'<div class="db-sub">{esc(d.get("class_name", d["class_id"]))} · level {d["level"]} · '
        f'player {esc(d["player"])}</div>',
        hearts_html(d),
        _xp_bar(camp, d),
    ]
    res = [f"{esc(k.replace('_', ' '))} {_pips(v, d['resource_max'].get(k, v))}"
           for k, v in d["resources"].items()]
    if d.get("spellbook_used"):
        res.append(f"spells used: {esc(', '.join(d['spellbook_used']))}")
    if res:
        rows.append(f'<div class="db-row delvebook-resources">{" · ".join(res)}</div>')
    before, rows = "".join(rows), []  # the luck row goes here: a spent luck die redraws that row alone
    armor = []
    for a in d.get("armor", ()):
        if a["dv"] <= 0:
            armor.append(f'<span class="db-broken">{esc(a["name"])} BROKEN</span> (DV 0/{a["dv_max"]})')
        else:
            armor.append(f'{esc(a["name"])} AV {a["av"] + a.get("bonus_av", 0)} · DV {a["dv"]}/{a["dv_max"]}')
    rows.append(f'<div class="db-row delvebook-armor">armor: {"; ".join(armor) if armor else "none"}</div>')
    rows.append(f'<div class="db-row delvebook-purse">purse {esc(format_purse(d["purse"]))}</div>')
    if d.get("true_names"):
        rows.append(f'<div class="db-row">true names: {esc(", ".join(d["true_names"]))}</div>')
    conds = [c for c in s["conditions"] if c["who"] == name]
    if conds:
        rows.append('<div class="db-row delvebook-conditions">' + "".join(
            f'<span class="db-cond">{esc(_CONDITION_WORDS.get(c["kind"], c["kind"].replace("_", " ")))}</span>'
            for c in conds) + "</div>")
    for p in d.get("pending_choices", ()):
        rows.append(f'<div class="db-row db-pending">level {p["level"]} choice waiting: '
                    f'{esc(p["choice"].replace("_", " "))} (Keeper tab)</div>')
    return before, "".join(rows)


def luck_row(camp, player: str) -> str:
    luck = camp.state["luck"].get(player, 0)
    per = camp.rules.core["luck_dice"]["per_session"]
    return f'<div class="db-row delvebook-luck" data-luck="{luck}">luck dice {luck_pips(luck, per)} {luck} left</div>'


def sheet_html(camp, name: str) -> str:
    """The card's sheet as HTML; every name and word from the campaign escaped."""
    before, after = _sheet_parts(camp, name)
    return before + luck_row(camp, camp.state["delvers"][name]["player"]) + after


class DelverCard:
    """One delver's card: the sheet and a roll button per skill and per weapon."""

    shows_state_only = True  # redrawn only when an event changed the state

    def __init__(self, table: Table, name: str):
        self.table = table
        self.camp = table.camp
        self.name = name
        self.sheet = w.HTML()
        self.skills = w.HBox(layout=w.Layout(flex_flow="row wrap"))
        self.weapons = w.HBox(layout=w.Layout(flex_flow="row wrap"))
        self.widget = w.VBox([self.sheet, self.skills, self.weapons])
        self.widget.add_class("delvebook-card")
        self._skill_ids: tuple = ()
        self._weapon_keys: tuple = ()
        self._skill_buttons: dict = {}
        self._weapon_buttons: list = []
        self._chances_key = None  # what the buttons' odds were last worked out for
        self._parts: tuple[str, str] | None = None  # the sheet around its luck row, as last drawn
        table.add(self)
        self.refresh()

    # ---- clicks
    def check(self, sid: str):
        t = self.table
        if t.vs:
            return t.act(self.camp.check, self.name, sid, vs=t.vs)
        return t.act(self.camp.check, self.name, sid, t.target.value)

    def attack(self, weapon):
        t = self.table
        fight = self.camp.fight
        if fight is None or not t.vs or t.vs not in {f.name for f in fight.foes}:
            t.say("pick a foe in 'or vs' (a fight must be running) to attack from the card", refused=True)
            return None
        return t.act(fight.attack, self.name, t.vs, weapon)

    # ---- views
    def _build_buttons(self, d: dict) -> None:
        skill_ids = tuple(sorted(d["skills"].items()))
        if skill_ids != self._skill_ids:
            self._skill_ids = skill_ids
            self._skill_buttons = {}
            for sid, _ in d["skills"].items():
                b = button(sid, (lambda s=sid: self.check(s)), cls="delvebook-skill")
                self._skill_buttons[sid] = b
            self.skills.children = list(self._skill_buttons.values())
        weapons = tuple(queries.weapons(self.camp.state, self.camp.rules, self.name))
        if weapons != self._weapon_keys:
            self._weapon_keys = weapons
            self._weapon_buttons = []
            for label, arg in weapons:
                b = button(label, (lambda a=arg: self.attack(a)), style="warning", cls="delvebook-weapon")
                self._weapon_buttons.append((label, arg, b))
            self.weapons.children = [b for _, _, b in self._weapon_buttons]

    def refresh_chances(self) -> None:
        d = self.camp.state["delvers"].get(self.name)
        if d is None:
            return
        t = self.table
        vs, target = t.vs, t.target.value
        enc = self.camp.state["encounter"]
        foe = vs if enc is not None and vs in enc["foes"] else None
        key = (vs, target, foe, self._skill_ids, self._weapon_keys, queries.odds_inputs(self.camp.state, self.name, vs))
        if key == self._chances_key:
            return  # the same odds as last time: a lost heart or a spent luck die does not change them
        self._chances_key = key
        for sid, b in self._skill_buttons.items():
            label = queries.skill_label(self.camp.state, self.camp.rules, self.name, sid)
            p = queries.check_odds(self.camp.state, self.camp.rules, self.name, sid, None if vs else target, vs)
            if p is not None:
                label += f" · {percent(p, 0)} vs {vs}" if vs else f" · {percent(p, 0)} vs {target}"
            put(b, description=label)
        for label, arg, b in self._weapon_buttons:
            if foe:
                p = queries.hit_chance(self.camp.state, self.camp.rules, self.name, foe, arg)
                label = f"{label} · {percent(p, 0)} vs {foe}" if p is not None else label
            put(b, description=label, disabled=foe is None)

    def refresh(self) -> None:
        t = self.table
        d = self.camp.state["delvers"].get(self.name)
        player = d["player"] if d is not None else None
        if t.luck_only is not None and self._parts is not None:
            # a luck die spent (the most common event on a card): only its player's cards redraw, the luck row
            if t.luck_only == player:
                put(self.sheet, value=self._parts[0] + luck_row(self.camp, player) + self._parts[1])
            return
        vs = t.vs
        if not (t.touched("delvers", self.name) or t.touched("luck", player) or t.touched("conditions")
                or t.touched("seats") or (vs and vs != self.name and (t.touched("delvers", vs)
                                                                      or t.touched("encounter")))):
            return  # nothing this card shows has changed
        if d is None:
            self._parts = None
            put(self.sheet, value=f"<i>{esc(self.name)} is not in this campaign (undone?)</i>")
            return
        self._parts = _sheet_parts(self.camp, self.name)
        put(self.sheet, value=self._parts[0] + luck_row(self.camp, player) + self._parts[1])
        for cls, on in (("delvebook-dead", d["status"] == "dead"), ("delvebook-dying", d["status"] == "dying")):
            if on and cls not in self.widget._dom_classes:
                self.widget.add_class(cls)
            elif not on and cls in self.widget._dom_classes:
                self.widget.remove_class(cls)
        self._build_buttons(d)
        self.refresh_chances()
