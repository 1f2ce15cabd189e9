"""Abilities and spells told: what each did (heals, hits, saves, orders, conditions), what it cost."""

from __future__ import annotations

from typing import Any, Mapping

from .fight import attack_story, dealt, healed
from .words import names, paid, pct, plural, spaced, story, tells, verdict


def _name(e: Mapping) -> str:
    if e["kind"] == "use":
        return e.get("ability_name") or spaced(e.get("ability", "ability"))
    if e.get("spell") == "naming":
        return "Naming Magic"
    return e.get("spell_name") or spaced(e.get("spell", "spell"))


def _title(e: Mapping, ctx: Any) -> str:
    who, target = e["who"], e.get("target")
    if e["kind"] == "cast":
        name = e.get("spell_name") or spaced(e.get("spell", "spell"))
        return f"{who}'s {name}" + (f" at {target}" if target else "")
    return f"{who}'s {_name(e)}" + (f" on {target}" if target and target != who else "")


_SAID = (("invisible", lambda e, who: f"{e['invisible']} is invisible for an hour"),
         ("illusion", lambda e, who: f"an illusion: {e['illusion']}"),
         ("light", lambda e, who: f"{e['light']['item']} sheds light {e['light']['ft']} ft"),
         ("locating", lambda e, who: f"{who} senses the way to {e['locating']}"),
         ("traced", lambda e, who: f"{spaced(e['traced'])} is traced on the sword"),
         ("made", lambda e, who: f"{who} makes {e['made']}"),
         ("copied", lambda e, who: f"{e.get('spell_name') or spaced(e['copied'])} copied into the book"
                                   + (f" from the {e['from']}" if e.get("from") else "")
                                   + (", which is destroyed" if e.get("scroll_destroyed") else "")),
         ("written", lambda e, who: f"written on the {e['written']}: a mage may copy it or cast it"),
         ("copied_out", lambda e, who: f"{e.get('spell_name') or spaced(e['copied_out'])} copied out onto a new "
                                       f"{'book' if str(e.get('onto', '')).startswith('Book') else 'scroll'}, "
                                       f"the {e.get('onto')}"
                                       + (f"; as {who}'s signature spell it leaves {who}'s book" if e.get("left_the_book")
                                          else f"; it stays in {who}'s book")),
         ("scroll", lambda e, who: f"read from the {e['scroll']}, which is used up"),
         ("bard_spell", lambda e, who: f"the bard's spell is now {spaced(e['bard_spell'])}"),
         ("sentry_attacks", lambda e, who: f"{who} stands sentry: up to {e['sentry_attacks']} attacks before the "
                                           f"next turn"),
         ("familiar", lambda e, who: f"{e['familiar']} the {e.get('form', 'familiar')} answers the call"),
         ("dispelled", lambda e, who: f"{spaced(e['dispelled']['kind'])} on {e['dispelled']['who']} ends"
                                      if e["dispelled"] else "the magic holds"),
         ("signature_spell", lambda e, who: f"signature spell recorded: {e['signature_spell']['name']}"),
         ("effect", lambda e, who: str(e["effect"])))
"""What an ability or spell records in one field, said in a line (in this order)."""


@tells("use", "cast", title=_title)
def _deed(e: Mapping, ctx: Any, pre: str, hidden: tuple) -> dict:
    k = e["kind"]
    who = e.get("who")
    name = _name(e)
    lines: list[str] = []
    found = None
    heads: list[str] = []
    for h in e.get("healing", ()) or ():
        heads.append(healed(h, hidden))
    sa = e.get("spell_attack")
    if sa:
        res = sa["result"]
        word = {"hit": "hit", "tie": "a tie: it lands", "miss": "miss"}[res]
        heads.append(f"{sa['attack_total']} vs {sa['resist_total']} at {sa['target']}, {word}")
        found = verdict("hit" if res != "miss" else "miss", res != "miss")
    if e.get("save"):
        s = e["save"]
        heads.append(f"{s['who']} saves {s['total']} vs {s['target']}: {'saved' if s['success'] else 'failed'} "
                     f"({pct(s.get('chance'))} to save)")
    attacked = "attack_totals" in e  # an ability or a spell that makes an attack (a Dual Wield, Light's touch)
    for d in () if attacked else e.get("damage", ()) or ():
        (heads if not sa else lines).append(dealt(d, hidden))
    if e.get("spell") == "naming" or (k == "cast" and e.get("names")):
        heads.append(f"{names(e.get('names', []))}: {e.get('description')!r} for "
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
        lines.append(f"no longer blessed: {names(e['no_longer_blessed'])}")
    if e.get("next_attack"):
        na = e["next_attack"]
        bits = [b for b, on in (("advantage", na.get("advantage")), ("max damage", na.get("max_damage"))) if on]
        if na.get("multi_attack"):
            bits.append(f"multi-attack {na['multi_attack']}")
        heads.append(f"{who}'s next attack: {', '.join(bits)}")
    if e.get("order"):
        heads.append(f"{names(e.get('hearing', []))} hear the order until {who}'s next turn")
    if e.get("gained"):
        for res, g in e["gained"].items():
            heads.append(f"{who} gains {g['gained']} {spaced(res)} (rolled {g['rolled']}, now {g['now']})")
    if "revived" in e:
        heads.append("the death save is repeated: " + ("defies death" if e["revived"] else "still dead"))
    if "hidden" in e:
        heads.append(f"{who} is {'hidden' if e['hidden'] else 'seen'} (Stealth {e.get('total')} vs "
                     f"{e.get('target', e.get('vs_total'))})")
    for key, say in _SAID:
        if e.get(key) not in (None, "", [], {}):
            heads.append(say(e, who))
    cost = paid(ctx, e.get("paid"))
    via = f" from the {e['via']}" if k == "cast" and e.get("via") in ("wand", "sword") else ""
    if attacked:  # the attack told, the deed named
        told = attack_story(e, "", hidden, ctx)
        text = f"{pre}{name}{via}: " + "; ".join(heads + [told["text"]])
        lines = told["lines"] + lines
        found = told["verdict"]
    elif heads:
        text = f"{pre}{name}{via}: " + "; ".join(heads)
    else:
        target = f" on {e['target']}" if e.get("target") and e.get("target") != who and not e.get("healing") \
            else ""
        text = f"{pre}{who} {'casts' if k == 'cast' else 'uses'} {name}{via}{target}"
    if cost:
        lines.insert(0, f"paid {cost}")
    return story(text, lines, found)
