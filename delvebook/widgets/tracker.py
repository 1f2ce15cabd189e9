"""The initiative tracker: start a fight, initiative, the order with the current actor, rounds, attacks with
their odds before the click, foes as compact cards, foes joining, and the end of the fight with its XP.

An attack from the current actor takes two clicks: the target (a toggle) and the weapon (whose label shows
the exact chance against that target).
"""

from __future__ import annotations

import ipywidgets as w

from ._base import Table, button, esc, is_wound, put, set_options
from .cards import hearts_html
from ..distribution import percent
from ..engine import queries

__all__ = ["Tracker", "foes_html"]

WEAPON_SLOTS = 4
_SIDE_TURN = {"party": "the party's turn", "foes": "the foes' turn"}  # buttons kept for the attacker's weapons; hidden when unused


def foes_html(enc: dict, actor: str | None) -> str:
    cards = []
    for f in enc["foes"].values():
        cls = "delvebook-foe" + (" delvebook-dead" if f["status"] == "dead" else "") \
            + (" delvebook-actor" if f["name"] == actor else "")
        armor = "; ".join((f"AV {a['av']} DV {a['dv']}/{a['dv_max']}" if a["dv"] > 0 else "armor BROKEN")
                          for a in f.get("armor", ()))
        cards.append(f'<div class="{cls}" data-name="{esc(f["name"])}"><div class="db-name">{esc(f["name"])}</div>'
                     f'{hearts_html(f)}<div class="db-sub">attack +{esc(f["attack_bonus"])} · damage '
                     f'{esc(f["damage"])}{" · " + esc(armor) if armor else ""}</div></div>')
    return "".join(cards)


class Tracker:
    """The fight: who acts, who is hit, and what it cost."""

    shows_state_only = True  # redrawn only when an event changed the state

    def __init__(self, table: Table):
        self.table = table
        self.camp = table.camp
        self._chances_key = None  # what the weapon buttons' odds were last worked out for
        camp = self.camp
        prepared = camp.prepared_encounters
        self.bestiary_ids = list(camp.rules.bestiary)
        start_opts = [(f"prepared: {k}", ("prepared", k)) for k in prepared] + \
                     [(f"one {camp.rules.foe(k).get('name', k)}", ("foe", k)) for k in self.bestiary_ids]
        self.start_choice = w.Dropdown(options=start_opts, description="Fight",
                                       layout=w.Layout(width="300px"), style={"description_width": "40px"})
        self.start_button = button("Start fight", self.start, style="primary", cls="delvebook-start-fight")
        self.start_row = w.HBox([self.start_choice, self.start_button])

        self.status = w.HTML()
        self.status.add_class("delvebook-fight-status")
        self.roll_init = button("Roll initiative (D6 a side)", lambda: self.initiative(None), style="primary",
                                cls="delvebook-initiative")
        self.party_first = button("Party goes first", lambda: self.initiative("party"))
        self.foes_first = button("Foes go first", lambda: self.initiative("foes"))
        self.init_row = w.HBox([self.roll_init, self.party_first, self.foes_first])

        self.order_pick = w.Dropdown(description="Order", layout=w.Layout(width="220px"),
                                     style={"description_width": "45px"})
        self.order_up = button("▲ earlier", lambda: self.move(-1))
        self.order_down = button("▼ later", lambda: self.move(+1))
        self.next_button = button("Next turn ▶", self.next_turn, style="info", cls="delvebook-next-turn")
        self.end_button = button("End fight (award XP)", self.end, style="danger", cls="delvebook-end-fight")
        self.turn_row = w.HBox([self.next_button, self.order_pick, self.order_up, self.order_down, self.end_button],
                               layout=w.Layout(flex_flow="row wrap"))

        self.foes = w.HTML()
        self.foes.add_class("delvebook-foes")
        self.attacker = w.Dropdown(description="Attacker", layout=w.Layout(width="230px"),
                                   style={"description_width": "60px"})
        self.target = w.ToggleButtons(options=[], description="Target", style={"description_width": "45px",
                                                                              "button_width": "auto"})
        self.target.add_class("delvebook-targets")
        self.weapon_buttons = [button("", (lambda i=i: self.attack(i)), style="warning", cls="delvebook-attack")
                               for i in range(WEAPON_SLOTS)]
        self._weapon_args: list = []
        self.attack_box = w.VBox([self.attacker, self.target,
                                  w.HBox(self.weapon_buttons, layout=w.Layout(flex_flow="row wrap"))])
        self.add_choice = w.Dropdown(options=[(camp.rules.foe(k).get("name", k), k) for k in self.bestiary_ids],
                                     description="Join", layout=w.Layout(width="230px"),
                                     style={"description_width": "35px"})
        self.add_button = button("Add foe", self.add_foe, cls="delvebook-add-foe")
        self.add_row = w.HBox([self.add_choice, self.add_button])
        self.attacker.observe(lambda _c: self.refresh_chances(), "value")
        self.target.observe(lambda _c: self.refresh_chances(), "value")
        self._actor_seen = None

        self.running = w.VBox([self.status, self.init_row, self.turn_row, self.foes, self.attack_box, self.add_row])
        self.widget = w.VBox([self.start_row, self.running])
        table.add(self)
        self.refresh()

    # ---- clicks
    def start(self):
        kind, ident = self.start_choice.value
        return self.table.act(self.camp.encounter, ident if kind == "prepared" else [ident])

    def initiative(self, first):
        fight = self.camp.fight
        if fight is None:
            return self.table.say("no fight is running", refused=True)
        return self.table.act(fight.initiative, first)

    def next_turn(self):
        fight = self.camp.fight
        return self.table.act(fight.next_turn) if fight else self.table.say("no fight is running", refused=True)

    def end(self):
        fight = self.camp.fight
        return self.table.act(fight.end) if fight else self.table.say("no fight is running", refused=True)

    def add_foe(self):
        fight = self.camp.fight
        if fight is None:
            return self.table.say("no fight is running: start one first", refused=True)
        return self.table.act(fight.add_foes, [self.add_choice.value])

    def move(self, step: int):
        fight = self.camp.fight
        who = self.order_pick.value
        if fight is None or not who:
            return None
        order = fight.order["party"] or list(self.camp.state["seats"])
        i = order.index(who)
        j = max(0, min(len(order) - 1, i + step))
        order[i], order[j] = order[j], order[i]
        return self.table.act(fight.set_order, order)

    def attack(self, slot: int):
        fight = self.camp.fight
        if fight is None:
            return self.table.say("no fight is running", refused=True)
        if not self.target.value:
            return self.table.say("pick a target first", refused=True)
        if slot >= len(self._weapon_args):
            return None
        return self.table.act(fight.attack, self.attacker.value, self.target.value, self._weapon_args[slot])

    # ---- views
    def _sides(self, enc: dict) -> tuple[list[str], list[str]]:
        s = self.camp.state
        party = [n for n in s["seats"] if s["delvers"][n]["status"] != "dead"]
        foes = [n for n, f in enc["foes"].items() if f["status"] != "dead"]
        return party, foes

    def refresh_chances(self) -> None:
        enc = self.camp.state["encounter"]
        attacker = self.attacker.value
        if enc is None or not attacker:
            for b in self.weapon_buttons:
                put(b.layout, display="none")
            self._chances_key = None
            return
        party, foes = self._sides(enc)
        targets = foes if attacker in party else party
        set_options(self.target, [(t, t) for t in targets])
        choices = queries.weapons(self.camp.state, self.camp.rules, attacker)[:WEAPON_SLOTS]
        self._weapon_args = [arg for _, arg in choices]
        target = self.target.value
        # the odds depend on who, with what, and the conditions in play (blessings, marks, orders)
        key = (attacker, target, tuple(choices), queries.odds_inputs(self.camp.state, attacker, target))
        if key == self._chances_key:
            return
        self._chances_key = key
        for i, b in enumerate(self.weapon_buttons):
            if i < len(choices):
                label, arg = choices[i]
                p = queries.hit_chance(self.camp.state, self.camp.rules, attacker, target, arg) \
                    if target else None
                put(b, description=f"{label} · {percent(p, 0)} vs {target}" if p is not None else label,
                    tooltip=f"{attacker} attacks {target or '(pick a target)'} with {label}", disabled=not target)
                put(b.layout, display=None)
            else:
                put(b, description="")
                put(b.layout, display="none")

    def refresh(self) -> None:
        t = self.table
        if not any(t.touched(k) for k in ("encounter", "delvers", "seats", "conditions")):
            return
        if t.changed_only(is_wound):
            # hearts and armor only (most attacks): the order, the choices and the odds stay as they are
            enc = self.camp.state["encounter"]
            if enc is not None and t.touched("encounter", "foes"):
                put(self.foes, value=foes_html(enc, self.camp.fight.actor))
            return
        s = self.camp.state
        enc = s["encounter"]
        fight = self.camp.fight
        put(self.start_row.layout, display="none" if enc is not None else None)
        put(self.running.layout, display=None if enc is not None else "none")
        if enc is None:
            put(self.status, value="")
            return
        actor = fight.actor
        party, foes = self._sides(enc)
        order_party = enc["order"]["party"] or list(s["seats"])
        def chip(n: str) -> str:
            c = s["delvers"].get(n) or enc["foes"].get(n)
            cls = "db-now" if n == actor else ("db-gone" if c and c["status"] == "dead" else "")
            return f'<span class="{cls}">{esc(n)}</span>'
        if enc["round"] == 0:
            head = "Roll initiative, or say which side goes first."
        else:
            head = f"Round <b class='delvebook-round'>{enc['round']}</b> · {_SIDE_TURN.get(enc['side'], '')} · acting: " \
                   f"<b class='delvebook-current'>{esc(actor or '-')}</b>"
        first = enc.get("first")
        sides = [("party", order_party), ("foes", enc["order"]["foes"])]
        if first == "foes":
            sides.reverse()
        order = " ".join(f"<b>{side}:</b> " + "".join(chip(n) for n in names) for side, names in sides)
        put(self.status, value=(f"<div class='db-result'><b>{esc(enc['name'])}</b> — {head}</div>"
                                f"<div class='db-order'>{order}</div>"))
        put(self.init_row.layout, display=None if enc["round"] == 0 else "none")
        put(self.turn_row.layout, display=None if enc["round"] > 0 else "none")
        set_options(self.order_pick, [(n, n) for n in order_party])
        put(self.foes, value=foes_html(enc, actor))
        combatants = [(n, n) for n in party] + [(f"{n} (foe)", n) for n in foes]
        # the attacker follows the current actor when the turn changes; the keeper may pick anyone
        if actor != self._actor_seen:
            self._actor_seen = actor
            set_options(self.attacker, combatants, default=actor)
            if actor in [v for _, v in combatants]:
                self.attacker.value = actor
        else:
            set_options(self.attacker, combatants, default=actor)
        self.refresh_chances()

