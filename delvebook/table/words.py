"""The table's words: an event told as a keeper reads it, with what it changed ("Second Wind: Brakka heals 3
(0 -> 3 hearts)"), and an action named as undo and the log name it ("Brakka's attack on Bog goblin 2").

Plain text only, from the event's own record and the rules' names (skills, abilities, spells, options); the
page sets every line with ``textContent``. An event of a kind this module does not know is told by
``delvebook.narrate.describe``. Standard library only (the table runs under Pyodide too).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Mapping

from ..distribution import percent
from ..model import format_purse
from ..narrate import describe

__all__ = ["tell", "title", "pct", "money", "plural", "fight_name"]


def pct(chance: Any) -> str:
    """A chance as the table shows it: '72%' (never 0% for a possible outcome, never 100% for a miss)."""
    if chance in (None, ""):
        return ""
    return percent(Fraction(chance), 0)


def plural(n: int, word: str, words: str | None = None) -> str:
    return f"{n} {word if n == 1 else (words or word + 's')}"


def money(rules, talons: int) -> str:
    """Money as the table counts it: in crowns (the coin XP is counted in, ``core.xp.coin``), and what is left
    in smaller coins ('30C', '3C 5T'), not in bars or a pile of talons."""
    units = rules.core["currency"]["units"]
    coin = units.get(rules.core["xp"]["coin"])
    if not isinstance(coin, Mapping) or talons < 0:
        return format_purse(talons, units)
    n, rest = divmod(talons, coin["talons"])
    parts = [f"{n}{coin['symbol']}"] if n else []
    if rest:
        parts.append(format_purse(rest, units))
    return " ".join(parts) or f"0{coin['symbol']}"


def _hearts(before: Any, after: Any) -> str:
    return f"({before} -> {after} hearts)"


def _skill_name(camp, who: str | None, sid: str | None) -> str | None:
    if not sid:
        return None
    d = camp.state["delvers"].get(who) if who else None
    if d is not None:
        spec = camp.rules.class_(d["class_id"])["skills"].get(sid)
        if spec is not None:
            return spec["name"]
    return sid.replace("_", " ").capitalize()


def _names(names: list) -> str:
    names = [str(n) for n in names]
    if len(names) <= 2:
        return " and ".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def _dealt(d: Mapping, hidden=()) -> str:
    """One hit's damage: 'Bog goblin 2 takes 5 (4 -> 0 hearts), vanquished'."""
    if d.get("wasted"):
        return f"dart {d.get('dart')} finds {d['target']} already down"
    bits = [f"{d['target']} takes {d['dealt']}"]
    if d["target"] not in hidden:
        bits.append(_hearts(d["hearts_before"], d["hearts_after"]))
    extra = []
    if d.get("dodged"):
        extra.append(f"dodged {d['dodged']}")
    if d.get("absorbed"):
        extra.append(f"armor absorbed {d['absorbed']}")
    broken = [x["piece"] for x in d.get("dv", ()) if x.get("broken")]
    if broken:
        extra.append(f"{_names(broken)} broken")
    if d.get("halved"):
        extra.append("halved by the save")
    for a in d.get("added", ()):  # an on-hit choice's own dice (a smite's)
        extra.append(f"{str(a.get('option', '')).replace('_', ' ')} +{a.get('total')}")
    if extra:
        bits.append("[" + ", ".join(extra) + "]")
    text = " ".join(bits)
    if d.get("vanquished"):
        text += ", vanquished"
    if d.get("death_save_due"):
        text += f"; {d['target']} is below 1 heart: death save!"
    return text


def _healed(h: Mapping, hidden=()) -> str:
    gained = h["hearts_after"] - h["hearts_before"]
    text = f"{h['who']} heals {gained}"
    if gained != h["amount"]:
        text += f" of {h['amount']}"
    if h["who"] not in hidden:
        text += " " + _hearts(h["hearts_before"], h["hearts_after"])
        if gained != h["amount"]:
            text += ", at the maximum"
    return text


def fight_name(name: Any) -> str:
    """A fight's name as said: a prepared encounter's id ('causeway_ambush') reads 'Causeway ambush'."""
    name = str(name)
    return name.replace("_", " ").capitalize() if "_" in name or name.islower() else name


def _paid(camp, paid: Mapping | None) -> str:
    if not paid:
        return ""
    units = dict(camp.rules.core["currency"]["units"])
    words = []
    for res, n in paid.items():
        if res in units:
            words.append(money(camp.rules, n * units[res]["talons"]))
            continue
        name = res.replace("_", " ")
        if n == 1 and name.endswith("s") and not name.endswith("ss"):
            name = name[:-1]
        words.append(f"{n} {name}")
    return ", ".join(words)


def _xp_lines(e: Mapping) -> list[str]:
    """How each award split: '100 XP (quest: ...) split 5 ways: 20 each; 0 waits in the pool'."""
    out = []
    for a in e.get("xp_awards", ()) or ():
        shares = a.get("shares", {})
        ways = len(shares)
        amounts = set(shares.values())
        if not shares:
            split = "too little to split" if a.get("pool_after") else "no one present to share it"
        elif len(amounts) == 1:
            split = f"split {plural(ways, 'way')}: {next(iter(amounts))} each" if ways > 1 else \
                f"all to {next(iter(shares))}"
        else:
            split = "; ".join(f"{n} +{x}" for n, x in shares.items())
        pool = a.get("pool_before", 0)
        carried = f" (with {pool} from the pool)" if pool else ""
        waits = f"; {a['pool_after']} waits in the pool" if a.get("pool_after") else ""
        out.append(f"{a['amount']} XP for {a['reason']}{carried}, {split}{waits}")
    for u in e.get("level_ups", ()) or ():
        out.append(_level_line(u))
    return out


def _level_line(u: Mapping) -> str:
    text = f"{u['who']} reaches level {u['level']}"
    if u.get("max_hearts") is not None:
        gained = u.get("hearts_gained")
        text += f" ({u['max_hearts']} hearts" + (f", +{gained}" if gained else "") + ")"
    if u.get("choices"):
        text += f"; to choose: {_names([c.replace('_', ' ') for c in u['choices']])}"
    return text


def _luck_prefix(e: Mapping) -> str:
    luck = e.get("luck")
    if luck:
        return f"{luck['player']} spends a luck die on the {luck['roll'].replace('_', ' ')} roll: " \
               f"{'+' if luck['sign'] > 0 else '-'}{luck['face']}. "
    if e.get("amended"):
        return f"Real dice for {_names([a.replace('_', ' ') for a in e['amended']])}. "
    if e.get("on_hit"):
        return f"{str(e['on_hit']).replace('_', ' ').capitalize()} chosen on the hit. "
    return ""


# ---------------------------------------------------------------- naming an action

def title(e: Mapping | None, camp) -> str:
    """An action as a noun phrase: what undo takes back, what a luck die lands on."""
    if e is None:
        return "nothing"
    k = e.get("kind")
    who = e.get("who") or e.get("attacker")
    if k == "check":
        what = "save" if e.get("save") else "check"
        skill = _skill_name(camp, who, e.get("skill"))
        vs = f" against {e['vs']}" if e.get("vs") else ""
        return f"{who}'s {skill + ' ' if skill else ''}{what}{vs}"
    if k == "attack":
        return f"{e['attacker']}'s attack on {e['target']}"
    if k == "cast":
        name = e.get("spell_name") or str(e.get("spell", "spell")).replace("_", " ")
        at = f" at {e['target']}" if e.get("target") else ""
        return f"{who}'s {name}{at}"
    if k == "use":
        name = e.get("ability_name") or str(e.get("ability", "ability")).replace("_", " ")
        on = f" on {e['target']}" if e.get("target") and e.get("target") != who else ""
        return f"{who}'s {name}{on}"
    if k == "death_save":
        return f"{who}'s death save"
    simple = {
        "start_session": lambda: f"the start of session {e.get('number')}",
        "end_session": lambda: f"the end of session {e.get('number')}",
        "rest": lambda: "the party's rest",
        "encounter": lambda: f"the start of the fight ({fight_name(e.get('name'))})",
        "add_foes": lambda: f"{_names(e.get('foes', []))} joining the fight",
        "initiative": lambda: "the initiative roll",
        "next_turn": lambda: f"the turn of {e.get('actor') or e.get('side')}",
        "set_order": lambda: "the new order",
        "end_encounter": lambda: f"the end of the fight ({fight_name(e.get('name'))})",
        "award_xp": lambda: f"the award of {e['args'].get('amount')} XP",
        "complete_quest": lambda: f"the quest {e.get('quest')!r}",
        "explore_room": lambda: f"the room {e.get('room')!r}",
        "earn": lambda: f"the {money(camp.rules, e.get('talons', 0))} earned",
        "spend": lambda: f"{who} spending {money(camp.rules, e.get('talons', 0))}",
        "buy": lambda: f"{who}'s purchase",
        "choose": lambda: f"{who}'s choice of {e.get('option')}",
        "level_up": lambda: f"{who}'s level-up",
        "damage": lambda: "the damage to " + _names([d["target"] for d in e.get("damage", ())]),
        "heal": lambda: "the healing of " + _names([h["who"] for h in e.get("healing", ())]),
        "roll": lambda: f"the {e.get('expr')} roll" + (f" ({e['why']})" if e.get("why") else ""),
        "add_delver": lambda: f"{who} joining the party",
        "advance_time": lambda: "the time passing",
        "condition": lambda: f"{e.get('name')} on {who}",
        "end_condition": lambda: "the condition's end",
        "give": lambda: f"{_names(_gained(e))} found by {who}",
        "take": lambda: f"{_names(e.get('taken', []))} taken from {who}" + (f" to {e['to']}" if e.get("to") else ""),
        "drop": lambda: f"{who} dropping {_names(e.get('dropped', []))}",
        "reload": lambda: f"{who}'s reload of the {e['weapon']}",
        "npc": lambda: f"{e['name']} entering the story",
        "remove_npc": lambda: f"{e['name']} leaving the story",
    }
    if k in simple:
        try:
            return simple[k]()
        except (KeyError, TypeError):
            pass
    return str(k).replace("_", " ")


# ---------------------------------------------------------------- telling an event

def _verdict(word: str, good: bool | None) -> dict:
    return {"word": word, "good": good}


def tell(e: Mapping, camp, hidden=()) -> dict:
    """``{"text": one sentence, "lines": more lines, "verdict": {"word", "good"} | None}`` for an event; an action
    the keeper overrode says so, why, and what the override waived.

    ``hidden``: combatants whose hearts are not said (foes, on the players' screen)."""
    try:
        told = _tell(e, camp, tuple(hidden))
    except (KeyError, TypeError, ValueError, AttributeError):  # an event a human edited by hand: still told
        try:
            text = describe(dict(e), hidden)
        except Exception:  # noqa: BLE001  (the log must list it whatever it holds)
            text = str(e.get("kind"))
        return {"text": text, "lines": [], "verdict": None}
    override = e.get("keeper_override")
    if isinstance(override, Mapping) and override.get("reason"):
        waived = [str(w) for w in override.get("waived") or ()]
        told["lines"].append(f"the keeper's override: {override['reason']}"
                             + (f" (waived: {'; '.join(waived)})" if waived else ""))
    return told


def _gained(e: Mapping) -> list:
    return list(e.get("weapons", [])) + list(e.get("armor", [])) + list(e.get("items", []))


def _tell(e: Mapping, camp, hidden: tuple) -> dict:
    k = e.get("kind")
    pre = _luck_prefix(e)
    lines: list[str] = []
    verdict = None
    if k == "check":
        who = e["who"]
        skill = _skill_name(camp, who, e.get("skill"))
        what = ("save" if e.get("save") else "check") if not e.get("why", "").startswith("Hide") else "Hide"
        head = f"{who}: {skill + ' ' if skill and what != 'Hide' else ''}{what}"
        if "target" in e:
            ok = bool(e["success"])
            text = f"{pre}{head} {e['total']} vs {e['target']}: {'succeeds' if ok else 'fails'} " \
                   f"({pct(e.get('chance'))} chance)"
            verdict = _verdict("success" if ok else "failure", ok)
        else:
            res = e["result"]
            word = {"win": f"{who} wins", "lose": f"{e['vs']} wins",
                    "tie": f"a tie: {e['vs']} holds (the keeper may rule otherwise)"}[res]
            text = f"{pre}{head} {e['total']} vs {e['vs']} {e['vs_total']}: {word} ({pct(e.get('chance'))} to win)"
            verdict = _verdict({"win": "win", "lose": "loss", "tie": "tie"}[res], {"win": True, "lose": False}.get(res))
        return {"text": text, "lines": lines, "verdict": verdict}
    if k == "attack":
        return _tell_attack(e, pre, hidden)
    if k == "death_save":
        ok = bool(e["success"])
        needs = f"needs {e['target']}: {pct(e.get('chance'))}" if "target" in e else ""
        text = f"{pre}{e['who']}'s death save: {e['total']}" + (f" ({needs})" if needs else "") + \
               (f": defies death, alive at {_hearts_set(e, e['who'])} hearts" if ok else f": {e['who']} dies")
        return {"text": text, "lines": [], "verdict": _verdict("defies death" if ok else "dies", ok)}
    if k in ("use", "cast"):
        return _tell_ability(e, camp, pre, hidden)
    if k == "encounter":
        foes = [f["name"] for f in e.get("foes", [])]
        return {"text": f"A fight begins ({fight_name(e.get('name'))}): {_names(foes)}", "lines": [
            "Roll initiative, or say which side goes first."], "verdict": None}
    if k == "add_foes":
        joined = e.get("foes", [])
        return {"text": f"{_names(joined)} {'joins' if len(joined) == 1 else 'join'} the fight, "
                        f"acting last on the foes' side", "lines": [], "verdict": None}
    if k == "initiative":
        rolls = e.get("initiative_rolls") or []
        side = "the party goes" if e["first"] == "party" else "the foes go"
        if rolls:
            said = "; ".join(f"party {p} vs foes {f}" + (" (a tie: rolled again)" if p == f else "") for p, f in rolls)
            text = f"{pre}Initiative: {said}: {side} first"
        else:
            text = f"Initiative: {side} first (the keeper's call)"
        if e.get("actor"):
            lines.append(f"Round 1: {e['actor']} acts")
        return {"text": text, "lines": lines, "verdict": None}
    if k == "next_turn":
        who = e.get("actor") or e.get("side")
        return {"text": f"Round {e['round']}: {who}'s turn" + (" (a new round)" if e.get("new_round") else ""),
                "lines": [], "verdict": None}
    if k == "set_order":
        return {"text": f"The party's order: {', '.join(e.get('order', []))}", "lines": [], "verdict": None}
    if k == "end_encounter":
        gone = e.get("vanquished") or []
        text = f"The fight ends after {plural(e['rounds'], 'round')}: " + \
               (f"vanquished {_names(gone)}, {e['xp']} XP" if gone else "no foe vanquished, no XP")
        kept = e.get("kept") or []
        more = [f"{_names(kept)} {'stays' if len(kept) == 1 else 'stay'} in the story as "
                f"{'an NPC' if len(kept) == 1 else 'NPCs'}"] if kept else []
        return {"text": text, "lines": more + _xp_lines(e), "verdict": None}
    if k in ("award_xp", "complete_quest", "explore_room", "earn"):
        head = {"award_xp": "XP awarded",
                "complete_quest": f"Quest complete: {e.get('quest')}",
                "explore_room": f"Room explored: {e.get('room')}",
                "earn": None}[k]
        if k == "earn":
            purses = e.get("purses") or {}
            split = (f"to {next(iter(purses))}" if len(purses) == 1 else
                     "shared by seat: " + ", ".join(f"{n} {money(camp.rules, t)}" for n, t in purses.items()))
            head = f"{money(camp.rules, e['talons'])} earned" + (f" ({e['reason']})" if e.get("reason") else "") + \
                   f", {split}"
        xp = _xp_lines(e)
        return {"text": head if k != "award_xp" else (xp[0] if xp else head), "lines": xp if k != "award_xp" else xp[1:],
                "verdict": None}
    if k == "spend":
        return {"text": f"{e['who']} spends {money(camp.rules, e['talons'])}" +
                        (f" ({e['reason']})" if e.get("reason") else ""), "lines": [], "verdict": None}
    if k == "buy":
        return {"text": f"{e['who']} buys {e['count']} {e['item'].replace('_', ' ')} for "
                        f"{money(camp.rules, e['talons'])}", "lines": [], "verdict": None}
    if k == "start_session":
        return {"text": f"Session {e['number']} begins: every player has {plural(e['luck_dice'], 'luck die', 'luck dice')}",
                "lines": [], "verdict": None}
    if k == "end_session":
        return {"text": f"Session {e['number']} ends", "lines": [], "verdict": None}
    if k == "rest":
        back = []
        for name, what in (e.get("restored") or {}).items():
            bits = [("spellbook charged" if v == "charged" else f"{res.replace('_', ' ')} +{v}")
                    for res, v in what.items() for v in [v]]
            back.append(f"{name}: {', '.join(bits)}")
        ended = [c["kind"].replace("_", " ") + f" on {c['who']}" for c in e.get("conditions_ended", ())]
        text = f"The party rests {plural(e.get('hours', 8), 'hour')}: " + \
               ("; ".join(back) if back else "nothing needed restoring")
        return {"text": text, "lines": ([f"Ended: {_names(ended)}"] if ended else []), "verdict": None}
    if k == "advance_time":
        secs = e.get("seconds", 0)
        return {"text": f"Time passes: {_duration(secs)}", "lines": [], "verdict": None}
    if k in ("undo", "redo"):
        target = camp.event(e.get("undoes") if k == "undo" else e.get("redoes"))
        return {"text": f"{'Undo' if k == 'undo' else 'Redo'} {title(target, camp)}", "lines": [
            f"(event {target['seq']} is {'taken back; redo puts it back' if k == 'undo' else 'in force again'})"],
            "verdict": None}
    if k == "roll":
        return {"text": f"{pre}{e.get('who')} rolls {e.get('expr')}: {e.get('total')}" +
                        (f" ({e['why']})" if e.get("why") else ""), "lines": [], "verdict": None}
    if k == "choose":
        d = camp.state["delvers"].get(e["who"])
        from ..engine import queries
        name = queries.option_name(camp.rules, d["class_id"], e["choice"], e["option"]) if d else e["option"]
        return {"text": f"{e['who']} chooses {name} ({e['choice'].replace('_', ' ')})", "lines": [], "verdict": None}
    if k == "level_up":
        ups = [_level_line(u) for u in e.get("level_ups", ())]
        return {"text": ups[0] if ups else "Level up", "lines": ups[1:], "verdict": None}
    if k == "damage":
        items = e.get("damage") or []
        src = items[0].get("source") if items else None
        text = (f"{src.capitalize()}: " if src and src != "keeper" else "Damage by hand: ") + \
            "; ".join(_dealt(d, hidden) for d in items)
        return {"text": pre + text, "lines": [], "verdict": None}
    if k == "heal":
        items = e.get("healing") or []
        src = items[0].get("source") if items else None
        text = (f"{src.capitalize()}: " if src and src != "keeper" else "Healing by hand: ") + \
            "; ".join(_healed(h, hidden) for h in items)
        return {"text": text, "lines": [], "verdict": None}
    if k == "add_delver":
        return {"text": f"{e['who']} joins the party ({e['class_id']}, {e['hearts']} hearts, player {e['player']})",
                "lines": [], "verdict": None}
    if k == "condition":
        return {"text": f"{e['who']} is now {str(e['name']).replace('_', ' ')} (the keeper's ruling)", "lines": [],
                "verdict": None}
    if k == "end_condition":
        ended = [c["kind"].replace("_", " ") + f" on {c['who']}" for c in e.get("conditions_ended", ())]
        return {"text": f"Ended: {_names(ended) or 'nothing'}", "lines": [], "verdict": None}
    if k == "give":
        got = _gained(e) or [e.get("name")]
        count = e.get("count", 1)
        return {"text": f"{e['who']} gains {_names(got)}" + (f" (x{count})" if count > 1 and e.get("items") else ""),
                "lines": [], "verdict": None}
    if k == "take":
        to = f", handed to {e['to']}" if e.get("to") else ""
        return {"text": f"{_names(e.get('taken', []))} taken from {e['who']}{to}", "lines": [], "verdict": None}
    if k == "drop":
        return {"text": f"{e['who']} drops {_names(e.get('dropped', []))}", "lines": [], "verdict": None}
    if k == "reload":
        return {"text": f"{e['who']} reloads the {e['weapon']}", "lines": [], "verdict": None}
    if k == "npc":
        kind = e.get("foe")
        kind = camp.rules.foe(kind).get("name", kind) if kind in camp.rules.bestiary else "typed"
        hearts = "" if e["name"] in hidden else f", {plural(e['hearts'], 'heart')}"
        return {"text": f"{e['name']} enters the story ({kind}{hearts})",
                "lines": [e["note"]] if e.get("note") else [], "verdict": None}
    if k == "remove_npc":
        return {"text": f"{e['name']} leaves the story", "lines": [], "verdict": None}
    return {"text": describe(dict(e), hidden), "lines": [], "verdict": None}


def _duration(secs: int) -> str:
    h, rest = divmod(int(secs), 3600)
    m, s = divmod(rest, 60)
    bits = [plural(h, "hour")] if h else []
    bits += [plural(m, "minute")] if m else []
    bits += [plural(s, "second")] if s and not h else []
    return " ".join(bits) or "no time"


def _hearts_set(e: Mapping, who: str) -> Any:
    """The hearts an event set on ``who`` (from its own changes: the log tells each event as it was)."""
    for path, value in e.get("changes", ()):
        if list(path) == ["delvers", who, "hearts"]:
            return value
    return "?"


def _tell_attack(e: Mapping, pre: str, hidden: tuple) -> dict:
    results = e.get("results", [])
    totals = "/".join(map(str, e["attack_totals"]))
    n = len(results)
    lines = []
    hits = results.count("hit")
    ties = results.count("tie")
    counter = e.get("counter") or {}
    if n == 1:
        res = results[0]
        if res == "hit":
            word, good = "hit", True
        elif res == "tie":
            if counter.get("possible"):
                word, good = "a tie: both hit", True
            else:
                word, good = f"a tie: {e['attacker']} hits", True
        else:
            word, good = ("miss, countered" if counter.get("possible") else "miss"), False
    else:
        landed = hits + ties
        word = f"{landed} of {n} attacks land" if landed else f"all {n} attacks miss"
        good = landed > 0
    adv = " with advantage" if e.get("advantage") else ""
    multi = f" (multi-attack {n})" if n > 1 else ""
    text = f"{pre}{e['attacker']} attacks {e['target']} with {e['weapon']}{adv}{multi}: {totals} vs " \
           f"{e['resist_total']}, {word}"
    chance = e.get("chance") or {}
    if chance.get("win"):
        lines.append(f"odds were {pct(chance['win'])} to hit, {pct(chance.get('tie'))} a tie")
    for d in e.get("damage", []):
        lines.append(_dealt(d, hidden))
    if counter:
        if counter.get("possible"):
            lines.append(f"{counter['by']} hits back: " + _dealt(counter["damage"], hidden))
        elif counter.get("why"):
            lines.append(f"no counter: {counter['why']}")
    if e.get("ammo"):
        a = e["ammo"]
        lines.append(f"{plural(a['spent'], str(a['item']).replace('_', ' '))} spent, {a['left']} left")
    for o in e.get("on_hit_options") or ():
        lines.append(f"on the hit, {o.get('name', o['option'])} may be chosen"
                     + (f" ({o['cost_text']}" + (f", +{o['adds']})" if o.get("adds") else ")") if o.get("cost_text")
                        else ""))
    if e.get("blood_magic_charged"):
        lines.append(f"the sword's traced spell is charged ({e['blood_magic_charged'].replace('_', ' ')})")
    if "sentry_attacks_left" in e:
        lines.append(f"Sentry: {plural(e['sentry_attacks_left'], 'attack')} left")
    return {"text": text, "lines": lines, "verdict": _verdict(word.split(":")[0] if n == 1 else word, good)}


def _tell_ability(e: Mapping, camp, pre: str, hidden: tuple) -> dict:
    k = e["kind"]
    who = e.get("who")
    if k == "use":
        name = e.get("ability_name") or str(e.get("ability")).replace("_", " ")
    else:
        name = e.get("spell_name") or str(e.get("spell")).replace("_", " ")
        if e.get("spell") == "naming":
            name = "Naming Magic"
    lines: list[str] = []
    verdict = None
    heads: list[str] = []
    for h in e.get("healing", ()) or ():
        heads.append(_healed(h, hidden))
    sa = e.get("spell_attack")
    if sa:
        res = sa["result"]
        word = {"hit": "hit", "tie": "a tie: it lands", "miss": "miss"}[res]
        heads.append(f"{sa['attack_total']} vs {sa['resist_total']} at {sa['target']}, {word}")
        verdict = _verdict("hit" if res != "miss" else "miss", res != "miss")
    if e.get("save"):
        s = e["save"]
        heads.append(f"{s['who']} saves {s['total']} vs {s['target']}: {'saved' if s['success'] else 'failed'} "
                     f"({pct(s.get('chance'))} to save)")
    for d in e.get("damage", ()) or ():
        (heads if not sa else lines).append(_dealt(d, hidden))
    if e.get("spell") == "naming" or (k == "cast" and e.get("names")):
        heads.append(f"{_names(e.get('names', []))}: {e.get('description')!r} for "
                     f"{plural(e.get('cost', 0), 'soul point')}")
    if e.get("keep"):
        kp = e["keep"]
        lines.append(f"keep roll {kp['total']} (needs {kp['target']}: {pct(kp.get('chance'))}): "
                     + ("the spell stays in the book" if kp["kept"] else "the spell is used up until a rest"))
    if e.get("marked"):
        lines.append(f"{e['marked']} is marked: attacks against it have advantage")
    if e.get("blessing_die"):
        heads.append(f"{e.get('target') or who} adds {e['blessing_die'].upper()} to every D20 for a minute")
    if e.get("no_longer_blessed"):
        lines.append(f"no longer blessed: {_names(e['no_longer_blessed'])}")
    if e.get("next_attack"):
        na = e["next_attack"]
        bits = [b for b, on in (("advantage", na.get("advantage")), ("max damage", na.get("max_damage"))) if on]
        if na.get("multi_attack"):
            bits.append(f"multi-attack {na['multi_attack']}")
        heads.append(f"{who}'s next attack: {', '.join(bits)}")
    if e.get("order"):
        heads.append(f"{_names(e.get('hearing', []))} hear the order until {who}'s next turn")
    if e.get("gained"):
        for res, g in e["gained"].items():
            heads.append(f"{who} gains {g['gained']} {res.replace('_', ' ')} (rolled {g['rolled']}, now {g['now']})")
    if "revived" in e:
        heads.append("the death save is repeated: " + ("defies death" if e["revived"] else "still dead"))
    if "hidden" in e:
        heads.append(f"{who} is {'hidden' if e['hidden'] else 'seen'} (Stealth {e.get('total')} vs "
                     f"{e.get('target', e.get('vs_total'))})")
    for key, say in (("invisible", lambda v: f"{v} is invisible for an hour"),
                     ("illusion", lambda v: f"an illusion: {v}"),
                     ("light", lambda v: f"{v['item']} sheds light {v['ft']} ft"),
                     ("locating", lambda v: f"{who} senses the way to {v}"),
                     ("traced", lambda v: f"{v.replace('_', ' ')} is traced on the sword"),
                     ("made", lambda v: f"{who} makes {v}"),
                     ("copied", lambda v: f"{v.replace('_', ' ')} copied into the book"),
                     ("bard_spell", lambda v: f"the bard's spell is now {v.replace('_', ' ')}"),
                     ("sentry_attacks", lambda v: f"{who} stands sentry: up to {v} attacks before the next turn"),
                     ("familiar", lambda v: f"{v['name']} the {v['form']} answers the call"),
                     ("dispelled", lambda v: f"{str(v['kind']).replace('_', ' ')} on {v['who']} ends" if v else
                      "the magic holds"),
                     ("signature_spell", lambda v: f"signature spell recorded: {v['name']}"),
                     ("effect", lambda v: str(v))):
        if e.get(key) not in (None, "", [], {}):
            heads.append(say(e[key]))
    paid = _paid(camp, e.get("paid"))
    via = f" from the {e['via']}" if k == "cast" and e.get("via") in ("wand", "sword") else ""
    target = f" on {e['target']}" if e.get("target") and not sa and e.get("target") != who and not e.get("healing") \
        else ""
    text = f"{pre}{name}{via}: {who}{target}" if not heads else f"{pre}{name}{via}: " + "; ".join(heads)
    if not heads:
        text = f"{pre}{who} {'casts' if k == 'cast' else 'uses'} {name}{via}{target}"
    if paid:
        lines.insert(0, f"paid {paid}")
    return {"text": text, "lines": lines, "verdict": verdict}
