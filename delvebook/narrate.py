"""Events told as one plain sentence each, in the game's words (for the log view, the CLI and reports).

Standard library only. Text only: callers escape it before putting it in HTML.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

__all__ = ["describe"]


@lru_cache(maxsize=1024)  # a handful of distinct chances recur all session; parsing a Fraction is not free
def _pct(fraction: str | None) -> str:
    if not fraction:
        return ""
    from .distribution import percent
    return percent(Fraction(fraction), 0)


def _damage(d: dict, hidden=()) -> str:
    bits = [f"{d['target']} takes {d['dealt']}"]
    if d.get("absorbed"):
        bits.append(f"(armor absorbed {d['absorbed']})")
    if d["target"] not in hidden:
        bits.append(f"-> {d['hearts_after']} hearts")
    if d.get("vanquished"):
        bits.append("- vanquished")
    if d.get("death_save_due"):
        bits.append("- below 1 heart: death save!")
    return " ".join(bits)


def _attack(e: dict, hidden=()) -> str:
    res = ", ".join(e.get("results", []))
    thrown = " (thrown)" if e.get("thrown") else ""
    parts = [f"{e['attacker']} attacks {e['target']} with {e['weapon']}{thrown}: "
             f"{'/'.join(map(str, e['attack_totals']))} vs {e['resist_total']} ({res})"]
    for d in e.get("damage", []):
        added = "".join(f" + {a['option']} {a['total']}" for a in d.get("added", ()))
        parts.append(_damage(d, hidden) + (f" (with{added[2:]})" if added else ""))
    c = e.get("counter")
    if c and c.get("possible"):
        parts.append(f"counter by {c['by']}" + (f" ({c['weapon']})" if c.get("weapon") else "") + ": "
                     + _damage(c["damage"], hidden))
    elif c and c.get("why") and not c.get("possible"):
        parts.append(f"no counter: {c['why']}")
    if e.get("ammo"):
        a = e["ammo"]
        parts.append(f"{a['spent']} {a['item']}{'s' if a['spent'] != 1 else ''} spent, {a['left']} left")
    if e.get("on_hit_options"):
        parts.append("on the hit: " + ", ".join(f"{o.get('name', o['option'])} ({o.get('cost_text', '')})"
                                                for o in e["on_hit_options"]) + " may be chosen")
    return "; ".join(parts)


def describe(e: dict, hidden=()) -> str:
    """One sentence for an event; ``hidden`` names combatants whose hearts are not shown (foes, to players). An
    action the keeper overrode says so, and why."""
    text = _describe(e, hidden)
    override = e.get("keeper_override")
    if override:
        waived = override.get("waived") or []
        text += f" [keeper override: {override.get('reason')}" + (f"; waived: {'; '.join(waived)}" if waived else "") + "]"
    return text


def _names(items) -> str:
    return ", ".join(items) or "nothing"


def _describe(e: dict, hidden=()) -> str:
    k = e.get("kind")
    luck = e.get("luck")
    prefix = ""
    if luck:
        prefix = f"[{luck['player']} spends a luck die: {'+' if luck['sign'] > 0 else '-'}{luck['face']}] "
    elif e.get("amended"):
        prefix = f"[real dice for {', '.join(e['amended'])}] "
    elif e.get("on_hit"):
        prefix = f"[{e['on_hit']} chosen on the hit] "
    if k == "check":
        if "target" in e:
            res = "succeeds" if e["success"] else "fails"
            what = "save" if e.get("save") else "check"
            skill = f" ({e['skill']})" if e.get("skill") else ""
            return f"{prefix}{e['who']} {what}{skill}: {e['total']} vs {e['target']}, {res} ({_pct(e.get('chance'))} chance)"
        return f"{prefix}{e['who']} {e['total']} vs {e['vs']} {e['vs_total']}: {e['result']}"
    if k == "attack":
        return prefix + _attack(e, hidden)
    if k in ("use", "cast") and "attack_totals" in e:  # an ability or a spell that makes an attack
        what = e.get("ability_name") or e.get("spell_name") or e.get("ability") or e.get("spell")
        return f"{prefix}{e.get('who')} {'casts' if k == 'cast' else 'uses'} {what}: " + _attack(e, hidden)
    if k == "death_save":
        return f"{prefix}{e['who']} death save: {e['total']} ({'defies death' if e['success'] else 'dies'})"
    if k == "add_delver":
        return f"{e['who']} joins the party ({e['class_id']}, {e['hearts']} hearts, player {e['player']})"
    if k == "encounter":
        return f"A fight begins: {', '.join(f['name'] for f in e.get('foes', []))}"
    if k == "initiative":
        return f"{prefix}Initiative: {e['first']} go first" + (f" (rolls {e['initiative_rolls']})" if e.get("initiative_rolls") else "")
    if k == "next_turn":
        return f"Round {e['round']}: {e.get('actor') or e['side']}'s turn"
    if k == "end_encounter":
        kept = (f"; {', '.join(e['kept'])} {'stays' if len(e['kept']) == 1 else 'stay'} in the story"
                if e.get("kept") else "")
        return f"The fight ends after {e['rounds']} rounds; vanquished: {', '.join(e['vanquished']) or 'none'} ({e['xp']} XP){kept}"
    if k in ("award_xp", "complete_quest", "explore_room", "earn"):
        awards = e.get("xp_awards", [])
        xp = "; ".join(f"{a['amount']} XP ({a['reason']})" for a in awards)
        head = {"complete_quest": f"Quest complete: {e.get('quest')}", "explore_room": f"Room explored: {e.get('room')}",
                "earn": f"Coins earned: {e.get('talons')} talons", "award_xp": "XP awarded"}[k]
        ups = "; ".join(f"{u['who']} reaches level {u['level']}" for u in e.get("level_ups", []))
        return f"{head}: {xp}" + (f"; {ups}" if ups else "")
    if k == "start_session":
        return f"Session {e['number']} begins: luck dice reset to {e['luck_dice']}"
    if k == "end_session":
        return f"Session {e['number']} ends"
    if k == "rest":
        return "The party rests"
    if k == "undo":
        return f"Undo: {e.get('what')} (event {e.get('undoes')})"
    if k == "redo":
        return f"Redo: {e.get('what')} (event {e.get('redoes')})"
    if k in ("use", "cast"):
        what = e.get("ability_name") or e.get("spell_name") or e.get("ability") or e.get("spell")
        return f"{prefix}{e.get('who')} {'casts' if k == 'cast' else 'uses'} {what}" + \
            (f": {e['summary']}" if e.get("summary") else "")
    if k == "give":
        return f"{e['who']} gains {_names(e.get('weapons', []) + e.get('armor', []) + e.get('items', []))}" + \
            (f" (x{e['count']})" if e.get("count", 1) > 1 else "")
    if k == "take":
        return f"{_names(e.get('taken', []))} taken from {e['who']}" + (f", to {e['to']}" if e.get("to") else "")
    if k == "drop":
        return f"{e['who']} drops {_names(e.get('dropped', []))}"
    if k == "buy":
        return f"{e['who']} buys {e['item'].replace('_', ' ')}" + (f" (x{e['count']})" if e.get("count", 1) > 1 else "")
    if k == "reload":
        return f"{e['who']} reloads the {e['weapon']}"
    if k == "npc":
        return f"{e['name']} enters the story ({e['foe']}, {e['hearts']} hearts)"
    if k == "remove_npc":
        return f"{e['name']} leaves the story"
    if k == "set_order":
        return f"The party's order: {', '.join(e['order'])}" + (f"; {e['actor']}'s turn" if e.get("actor") else "")
    if k == "add_foes":
        return f"Joining the fight: {', '.join(e.get('foes', []))}"
    if k == "roll":
        return f"{prefix}{e.get('who')} rolls {e.get('expr')}: {e.get('total')}" + (f" ({e['why']})" if e.get("why") else "")
    if k == "choose":
        return f"{e['who']} chooses {e['option']} ({e['choice']})"
    if k == "level_up":
        return "; ".join(f"{u['who']} reaches level {u['level']}" for u in e.get("level_ups", []))
    if k in ("damage", "heal"):
        items = e.get("damage") or e.get("healing") or []
        if k == "damage":
            return "; ".join(_damage(d, hidden) for d in items)
        return "; ".join(f"{h['who']} heals {h['amount']} -> {h['hearts_after']} hearts" for h in items)
    return f"{prefix}{k}"
