"""The roll panel: the latest outcome with every die drawn, luck dice to spend on it, real dice to type instead,
the target number or opponent the roll buttons use, and the death save when a delver is dying."""

from __future__ import annotations

from functools import lru_cache

import ipywidgets as w

from ..campaign import Outcome
from ..dice import roll_html
from ..narrate import describe
from ._base import Table, button, esc, luck_pips, put, set_options

__all__ = ["RollPanel", "outcome_html"]


def _verdict(e: dict) -> str:
    k = e.get("kind")
    if k in ("check", "death_save") and "success" in e:
        ok = e["success"]
        word = ("defies death" if ok else "dies") if k == "death_save" else ("success" if ok else "failure")
        return f' <span class="{"db-success" if ok else "db-failure"}" data-success="{str(ok).lower()}">{word}</span>'
    if k == "attack":
        res = e.get("results", [])
        if any(r == "hit" for r in res):
            word, ok = "hit", True
        elif any(r == "tie" for r in res):
            word, ok = "both hit", True
        else:
            word, ok = "miss" + (" · countered" if (e.get("counter") or {}).get("possible") else ""), False
        return f' <span class="{"db-success" if ok else "db-failure"}">{word}</span>'
    return ""


def _damage_lines(e: dict) -> list[str]:
    lines = []
    for d in e.get("damage", []) or []:
        dv = "; ".join(f"{esc(x['piece'])} DV {x['dv']}{' BROKEN' if x['broken'] else ''}" for x in d.get("dv", []))
        lines.append(f"{esc(d['target'])} takes {d['dealt']} (rolled {d['raw']}, armor absorbed {d['absorbed']})"
                     f" → {d['hearts_after']} hearts" + (f"; {dv}" if dv else "")
                     + (" — vanquished" if d.get("vanquished") else "")
                     + (" — <b>death save!</b>" if d.get("death_save_due") else ""))
    c = e.get("counter")
    if c and c.get("possible"):
        d = c["damage"]
        lines.append(f"counter by {esc(c['by'])}: {esc(d['target'])} takes {d['dealt']} "
                     f"(armor absorbed {d['absorbed']}) → {d['hearts_after']} hearts"
                     + (" — <b>death save!</b>" if d.get("death_save_due") else ""))
    for a in e.get("xp_awards", []) or []:
        split = ", ".join(f"{esc(n)} +{x}" for n, x in a.get("shares", {}).items())
        lines.append(f"{a['amount']} XP ({esc(a['reason'])}): {split or 'no one'}"
                     + (f"; {a['pool_after']} waits in the pool" if a.get("pool_after") else ""))
    for u in e.get("level_ups", []) or []:
        lines.append(f"<b>{esc(u['who'])} reaches level {u['level']}</b>"
                     + (f" (choose: {esc(', '.join(u['choices']))})" if u.get("choices") else ""))
    return lines


def outcome_html(e: dict | None) -> str:
    """An outcome as the table reads it: one sentence, each roll with its dice, hits and damage."""
    if e is None:
        return '<div class="db-result"><i>No roll yet: click a skill or weapon on a card.</i></div>'
    parts = [f'<div class="db-result" data-kind="{esc(e.get("kind"))}" data-seq="{e.get("seq")}">'
             f'<div>{esc(describe(e))}{_verdict(e)}</div>']
    for r in (e if isinstance(e, Outcome) else Outcome(e)).rolls.values():
        parts.append(roll_html(r, styled=False))  # the dashboard's style sheet draws the dice
    parts += [f"<div>{line}</div>" for line in _damage_lines(e)]
    parts.append("</div>")
    return "".join(parts)


@lru_cache(maxsize=256)
def _luck_left_one(player: str, left: int, per_session: int) -> str:
    return f'<span data-player="{esc(player)}" data-luck="{left}">{esc(player)} {luck_pips(left, per_session)}</span>'


def luck_left_html(luck: dict, per_session: int) -> str:
    """Each player's luck dice left this session, under the roll they may be spent on."""
    who = " · ".join([_luck_left_one(p, n, per_session) for p, n in luck.items()])
    return f'<div class="db-luck-left">luck dice left: {who}</div>' if who else ""


class RollPanel:
    """The latest roll, and what the table may do about it (luck dice, real dice), plus the death save."""

    def __init__(self, table: Table):
        self.table = table
        self.camp = table.camp
        self.result = w.HTML(outcome_html(None))
        self.result.add_class("delvebook-result")
        self.player = w.Dropdown(description="Player", layout=w.Layout(width="190px"),
                                 style={"description_width": "45px"})
        # the "on" picker: one per set of roll names seen (an attack that hits, one that misses...), kept, and
        # swapped in whole: cheaper than rebuilding one picker's options each time hit and miss alternate
        self._pickers: dict[tuple, w.Dropdown] = {}
        self.roll_name = self._picker(())
        self._roll_box = w.Box([self.roll_name])
        self.luck_plus = button("+ luck die", lambda: self.spend(+1), style="success", cls="delvebook-luck-plus")
        self.luck_minus = button("− luck die", lambda: self.spend(-1), style="danger", cls="delvebook-luck-minus")
        self.faces = w.Text(placeholder="faces the real dice showed, e.g. 14 3", layout=w.Layout(width="250px"))
        self.faces.add_class("delvebook-faces")
        self.amend_button = button("Use real dice", self.amend, cls="delvebook-amend")
        self.death_save = button("Death save", self.save, style="danger", cls="delvebook-death-save")
        self.death_save.layout.display = "none"
        self._dying: str | None = None
        self._luck_seen: tuple | None = None
        self._luck_html = ""
        self.widget = w.VBox([
            w.HBox([table.target, table.opponent, self.death_save]),
            self.result,
            w.HBox([self.player, self._roll_box, self.luck_plus, self.luck_minus],
                   layout=w.Layout(flex_flow="row wrap")),
            w.HBox([self.faces, self.amend_button], layout=w.Layout(flex_flow="row wrap")),
        ])
        table.add(self)
        self.refresh()

    _PICKERS_KEPT = 12

    def _picker(self, rolls: tuple) -> w.Dropdown:
        """The picker offering ``rolls`` (made once, then reused)."""
        dd = self._pickers.pop(rolls, None)
        if dd is None:
            dd = w.Dropdown(options=[(r, r) for r in rolls], description="on", layout=w.Layout(width="170px"),
                            style={"description_width": "22px"})
            if len(self._pickers) >= self._PICKERS_KEPT:  # the least recently shown goes
                old = next(iter(self._pickers))
                self._pickers.pop(old).close()
        self._pickers[rolls] = dd  # most recently shown last
        return dd

    def _show_rolls(self, rolls: tuple) -> None:
        """Offer the latest action's rolls to spend luck on, keeping the roll picked when it is still there."""
        if self._pickers.get(rolls) is self.roll_name:
            return
        was = self.roll_name.value
        dd = self._picker(rolls)
        want = was if was in rolls else (rolls[0] if rolls else None)
        if want is not None and dd.value != want:
            dd.value = want
        self.roll_name = dd
        self._roll_box.children = (dd,)

    def _latest_action(self) -> dict | None:
        return self.camp.latest_action

    def spend(self, sign: int):
        if not self.player.value:
            self.table.say("pick the player who spends the luck die", refused=True)
            return None
        return self.table.act(self.camp.spend_luck, self.player.value, sign, roll=self.roll_name.value or None)

    def amend(self):
        name = self.roll_name.value
        text = self.faces.value.replace(",", " ").split()
        if not name:
            self.table.say("the latest action rolled no dice to replace", refused=True)
            return None
        try:
            faces = [int(x) for x in text]
        except ValueError:
            self.table.say(f"faces are whole numbers, like '14 3', not {self.faces.value!r}", refused=True)
            return None
        if not faces:
            self.table.say("type the faces the real dice showed first", refused=True)
            return None
        out = self.table.act(self.camp.amend, **{name: faces})
        if out is not None:
            self.faces.value = ""
        return out

    def save(self):
        if not self._dying:
            return None
        return self.table.act(self.camp.death_save, self._dying)

    def refresh(self) -> None:
        s = self.camp.state
        latest = self.table.latest
        luck = tuple(s["luck"].items())
        if luck != self._luck_seen:
            self._luck_seen = luck
            self._luck_html = luck_left_html(s["luck"], self.camp.rules.core["luck_dice"]["per_session"])
        # the counts are shown with the roll (one message), and the player picker lists every player all
        # campaign long: a spent die changes no options (a player with none left is refused, with a message)
        put(self.result, value=outcome_html(latest) + self._luck_html)
        action = self._latest_action()
        roller_player = None
        if action is not None:
            who = action.get("who") or action.get("attacker")
            if who in s["delvers"]:
                roller_player = s["delvers"][who]["player"]
        set_options(self.player, [(p, p) for p in s["luck"]])
        if latest is not None and action is not None and latest.get("seq") == action.get("seq") \
                and s["luck"].get(roller_player, 0) > 0:
            put(self.player, value=roller_player)  # a new roll: its roller's player spends luck on it
        any_luck = any(n > 0 for n in s["luck"].values())
        rolls = tuple((action or {}).get("rolls", {}))
        self._show_rolls(rolls)
        has_rolls = bool(rolls)
        no_luck = not (has_rolls and any_luck)
        put(self.luck_plus, disabled=no_luck)
        put(self.luck_minus, disabled=no_luck)
        put(self.amend_button, disabled=not has_rolls)
        if not (self.table.touched("delvers") or self.table.touched("seats")):
            return  # no one's status changed: the death save stays as it is
        dying = [n for n in s["seats"] if s["delvers"][n]["status"] == "dying"]
        self._dying = dying[0] if dying else None
        if self._dying:
            put(self.death_save, description=f"Death save: {self._dying}")
            put(self.death_save.layout, display=None)
        else:
            put(self.death_save.layout, display="none")
