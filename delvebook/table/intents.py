"""Intents: what a click on the table asks for (``{"do": "attack", "attacker": ..., "target": ...}``), turned into
one call of the campaign's API, and the UI state it leaves (the refusal and where it came from, a guard rail's
question, the form that closes).

``perform(camp, ui, intent)`` is plain Python: the widget calls it for each message from the page, and the tests
call it directly, without a browser. A rule refuses (``Refused``), a typo in a form is a ``FormError``; both
become ``ui.refusal`` and change nothing. Guard rails ask once (``ui.confirm``) and the same intent with
``confirmed: true`` goes ahead.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from ..core.dice import DiceError
from ..core.rules.schema.bounds import MULTI_ATTACK, cut, shorten
from ..engine import COMMANDS, Invalid, Overridable, Refused, queries
from ..store import StoreError
from ..core.model import is_dead
from .phones import PHONE_INTENTS
from ..view.shape import FIELDS, SHAPES, FormError, check_shape
from ..view import PANELS, UI, asked_of, attack_fields, fields_key, gather_darts, turn_key

__all__ = ["perform", "refusal_words", "FormError", "INTENTS", "UI_INTENTS", "FIELDS", "SHAPES", "check_shape"]


Handler = Callable[[Any, UI, Mapping], Any]
INTENTS: dict[str, Handler] = {}
UI_INTENTS: set[str] = set()  # intents that change only the UI state (allowed in the players' mode)


def intent(name: str, *, ui_only: bool = False):
    def register(fn: Handler) -> Handler:
        INTENTS[name] = fn
        if ui_only:
            UI_INTENTS.add(name)
        return fn
    return register


# ---------------------------------------------------------------- reading what a form sent

def _args(i: Mapping) -> dict:
    a = i.get("args") or {}
    if not isinstance(a, Mapping):
        raise FormError("the form sent something that is not a set of fields")
    return dict(a)


def _text(v: Any) -> str | None:
    if v is None:
        return None
    v = str(v).strip()
    return v or None


def _int(v: Any, what: str, *, required: bool = True) -> int | None:
    if v is None or (isinstance(v, str) and not v.strip()):
        if required:
            raise FormError(f"say how many {what}")
        return None
    if isinstance(v, bool):
        raise FormError(f"{what}: a whole number, not {v!r}")
    text = v if isinstance(v, int) else str(v).strip()
    if isinstance(text, str) and len(text.lstrip("-+")) > _DIGITS:  # (past what int() reads; all limits are below)
        raise FormError(f"{what}: a whole number of at most {_DIGITS:,} digits, not one of {len(text):,} characters")
    try:
        n = int(text)
    except ValueError:
        raise FormError(f"{what}: a whole number, not {cut(str(v))}") from None
    return n


_DIGITS = 4_000


def _faces(text: Any) -> list[int]:
    parts = str(text or "").replace(",", " ").split()
    if not parts:
        raise FormError("type the faces the real dice showed, like '14 3'")
    if not all(p.isascii() and p.isdigit() and len(p) <= 15 for p in parts):
        raise FormError(f"faces are whole numbers, like '14 3', not {cut(str(text))}")
    return [int(p) for p in parts]


def _options(camp, who: str, i: Mapping) -> dict:
    """The fields of an ability's or a spell's form, read by the kind of input they are."""
    out = {}
    for k, v in _args(i).items():
        if k in ("price",):
            continue
        if isinstance(v, list):
            out[k] = [str(x) for x in v]
        elif isinstance(v, bool):
            if v:
                out[k] = True
        elif k in ("hearts", "cost", "save_target", "condition") or (isinstance(v, str) and v.strip().lstrip("-").isdigit()
                                                                     and k not in ("description", "name", "item")):
            n = _int(v, k.replace("_", " "), required=False)
            if n is not None:
                out[k] = n
        else:
            t = _text(v)
            if t is not None:
                out[k] = t
    return out


def _ov(i: Mapping) -> dict:
    """The keeper's override (``keeper_override="why"``), passed on when a refusal offered it (``_override``)."""
    return {"keeper_override": i["keeper_override"]} if i.get("keeper_override") else {}


# ---------------------------------------------------------------- any command, by a form

def _reading(annotation: Any) -> Callable[[Any, str], Any]:
    """How a form's value is read for a command's parameter, by the type it is declared with: a whole number,
    yes or no, or else words."""
    kinds = {part.strip() for part in str(annotation or "").split("|")}
    if "bool" in kinds:
        def flag(v: Any, name: str) -> bool | None:
            if v is None or isinstance(v, bool):
                return v
            raise Invalid(f"{name}: yes or no, not {v!r}", field=name)
        return flag
    if "int" in kinds:
        def number(v: Any, name: str) -> int | None:
            try:
                return _int(v, name.replace("_", " "), required=False)
            except FormError as err:
                raise Invalid(str(err), field=name) from None
        return number
    return lambda v, name: _text(v)


@intent("act")
def _act(camp, ui: UI, i):
    """A command by its kind (``{"do": "act", "kind": "trap", "given": {...}, "args": {...}}``): what the view fixed
    (``given``: who moved) and what the form's fields hold (``args``), each read as the parameter it fills is
    declared (a whole number, yes or no, or words); an empty field is left out, a needed one is asked for beside
    it. A new command's control is then one form in the view, and nothing here."""
    kind = i.get("kind")
    fn = COMMANDS.get(kind) if isinstance(kind, str) else None
    if fn is None:
        raise FormError(f"the table has no command {str(kind)[:40]!r}")
    takes, declared = fn.takes, getattr(fn, "__annotations__", {})
    call: dict = {}
    for name, value in {**(i.get("given") or {}), **_args(i)}.items():
        if name not in takes.names:
            raise FormError(f"{kind.replace('_', ' ')} takes no {name!r}: nothing was done")
        read = _reading(declared.get(name))(value, name)
        if read is not None:
            call[name] = read
    for name in takes.order:
        if name in takes.required and name not in call:
            raise Invalid(f"say the {name.replace('_', ' ')}", field=name)
    return camp.act(kind, **call, **_ov(i))


# ---------------------------------------------------------------- the UI's own state

@intent("select", ui_only=True)
def _select(camp, ui: UI, i):
    ui.selected = i.get("who")
    ui.selected_at = turn_key(camp.state)
    ui.form = None


@intent("panel", ui_only=True)
def _panel(camp, ui: UI, i):
    if i.get("panel") not in PANELS:
        raise FormError(f"there is no panel {i.get('panel')!r}")
    ui.panel = i["panel"]
    ui.form = None


@intent("target", ui_only=True)
def _target(camp, ui: UI, i):
    raw = i.get("target", _args(i).get("target"))
    n = _int(raw, "the target number")
    if not 1 <= n <= 100:
        raise FormError(f"a target number is 1 to 100, not {n}")
    ui.target, ui.vs = n, None


@intent("vs", ui_only=True)
def _vs(camp, ui: UI, i):
    ui.vs = _text(i.get("vs", _args(i).get("vs")))


@intent("attack_option", ui_only=True)
def _attack_option(camp, ui: UI, i):
    name = i.get("name")
    value = i.get("value", _args(i).get(name))
    if name == "multi":
        n = _int(value, "attacks", required=False)
        if n is not None and n > MULTI_ATTACK:
            raise FormError(f"multi: at most {MULTI_ATTACK}, not {n:,}")
        value = n if n and n > 1 else None
    elif name == "bonus":
        value = _text(value)
    else:
        value = bool(value)
    opts = dict(attack_fields(camp, ui))  # options picked for another actor or turn are not carried over
    if value in (None, False):
        opts.pop(name, None)
    else:
        opts[name] = value
    ui.attack, ui.attack_for = opts, fields_key(camp, ui)


@intent("form", ui_only=True)
def _form(camp, ui: UI, i):
    ui.form = None if ui.form == i.get("id") else i.get("id")


@intent("luck_player", ui_only=True)
def _luck_player(camp, ui: UI, i):
    ui.luck_player, ui.luck_seq = i.get("player"), i.get("seq")


@intent("fallen", ui_only=True)
def _fallen(camp, ui: UI, i):
    ui.fallen_open = not ui.fallen_open


@intent("recap", ui_only=True)
def _recap(camp, ui: UI, i):
    ui.recap_open = not ui.recap_open


@intent("dismiss", ui_only=True)
def _dismiss(camp, ui: UI, i):
    ui.confirm = None
    ui.refusal = None


# ---------------------------------------------------------------- play

@intent("check")
def _check(camp, ui: UI, i):
    if ui.vs:
        return camp.check(i["who"], i.get("skill"), vs=ui.vs, **_ov(i))
    return camp.check(i["who"], i.get("skill"), ui.target, **_ov(i))


@intent("attack")
def _attack(camp, ui: UI, i):
    fight = _fight(camp)
    return fight.attack(i["attacker"], i["target"], i.get("weapon"), **asked_of(camp, ui, i["attacker"]), **_ov(i))


@intent("death_save")
def _death_save(camp, ui: UI, i):
    return camp.death_save(i["who"], **_ov(i))


@intent("use")
def _use(camp, ui: UI, i):
    opts = _options(camp, i["who"], i)
    target = opts.pop("target", i.get("target"))
    return camp.use(i["who"], i["ability"], target=target, **opts, **_ov(i))


@intent("cast")
def _cast(camp, ui: UI, i):
    args = _args(i)
    opts = _options(camp, i["who"], i)
    target = opts.pop("target", i.get("target"))
    if i.get("spell") == "naming":
        price = _int(args.get("price"), "soul points the keeper asks", required=False)
        agreed = _int(args.get("cost"), "soul points agreed", required=False)
        if price is None and agreed is None:
            raise FormError("the keeper prices the spell first: the soul points it costs")
        opts["cost"] = agreed if agreed is not None else price
        if not opts.get("names"):
            raise FormError(f"pick the true names the spell uses (from {', '.join(camp.delver(i['who']).true_names)})")
    if i.get("via"):
        opts["via"] = i["via"]
    opts = gather_darts(opts)  # Magic Missile's darts split: a target for each
    if "darts" in opts:
        target = None
    return camp.cast(i["who"], i["spell"], target=target, **opts, **_ov(i))


@intent("choose")
def _choose(camp, ui: UI, i):
    return camp.choose(i["who"], i["choice"], i["option"], **_ov(i))


@intent("level_up")
def _level_up(camp, ui: UI, i):
    who = i["who"]
    d = camp.delver(who)
    nxt = camp.rules.level_thresholds.get(d.level + 1)
    if nxt is not None and d.xp < nxt and not i.get("confirmed"):
        return _ask(ui, i, f"{who} has {d.xp} XP; level {d.level + 1} comes at {nxt}. Level {who} up anyway "
                           f"(the keeper's milestone)?", f"Level {who} up anyway", "Not yet")
    return camp.level_up(who, **_ov(i))


@intent("luck")
def _luck(camp, ui: UI, i):
    sign = int(i.get("sign", 1))
    return camp.spend_luck(i["player"], sign, roll=i.get("roll"))


@intent("amend")
def _amend(camp, ui: UI, i):
    return camp.amend(**{i["roll"]: _faces(_args(i).get("faces"))})


@intent("undo")
def _undo(camp, ui: UI, i):
    return camp.undo()


@intent("redo")
def _redo(camp, ui: UI, i):
    return camp.redo()


# ---------------------------------------------------------------- the fight

def _foe(camp, text: Any, empty: str) -> str:
    """The foe type a form names, by its id or its name (a big bestiary's field is typed: ``view.shared.foe_field``)."""
    if not text:
        raise FormError(empty)
    fid = queries.foe_id(camp.state, camp.rules, text)
    if fid is None:
        raise Refused(f"there is no {text!r} in the bestiary (a foe type's id, or its name)")
    return fid


def _fight(camp):
    fight = camp.fight
    if fight is None:
        raise Refused("no fight is running: start one first")
    return fight


@intent("start_fight")
def _start_fight(camp, ui: UI, i):
    if i.get("prepared"):
        camp.encounter(i["prepared"], **_ov(i))
        return camp.events[-1]
    foe = _foe(camp, _text(_args(i).get("foe")) or i.get("foe"), "pick a foe from the bestiary")
    camp.encounter([foe], **_ov(i))
    return camp.events[-1]


@intent("initiative")
def _initiative(camp, ui: UI, i):
    return _fight(camp).initiative(i.get("first"), **_ov(i))


@intent("next_turn")
def _next_turn(camp, ui: UI, i):
    return _fight(camp).next_turn(**_ov(i))


@intent("set_order")
def _set_order(camp, ui: UI, i):
    return _fight(camp).set_order(list(i["order"]), **_ov(i))


@intent("add_foe")
def _add_foe(camp, ui: UI, i):
    foe = _foe(camp, _text(_args(i).get("foe")) or i.get("foe"), "pick the foe that joins")
    return _fight(camp).add_foes([foe], **_ov(i))


@intent("end_fight")
def _end_fight(camp, ui: UI, i):
    fight = _fight(camp)
    up = [f for f in fight.foes if not is_dead(f)]
    if up and not i.get("confirmed"):
        said = ", ".join(f"{f.name} ({f.hearts}/{f.max_hearts} hearts)" for f in up)
        _ask(ui, i, f"{said} {'is' if len(up) == 1 else 'are'} still standing. End the fight anyway? "
                    f"Only the vanquished give XP.", "End the fight anyway", "Keep fighting")
        strangers = [f.name for f in up if not f.data.get("npc")]  # an NPC who fought goes back to being one
        if strangers:
            ui.confirm["also"] = [{"label": f"End, keeping {'it' if len(strangers) == 1 else 'them'} in the "
                                            f"story as {'an NPC' if len(strangers) == 1 else 'NPCs'}",
                                   "intent": {**i, "confirmed": True, "keep": strangers}}]
        return None
    if i.get("keep"):  # foes still standing stay in the story as NPCs
        return fight.end(keep=list(i["keep"]), **_ov(i))
    return fight.end(**_ov(i))


@intent("on_hit")
def _on_hit(camp, ui, i):
    return camp.on_hit(i["option"], hit=i.get("hit"))


def _gear_args(i) -> tuple[str, int]:
    a = _args(i)
    item = _text(a.get("item")) or _text(i.get("item"))
    if not item:
        raise FormError("pick the item")
    count = _int(a.get("count"), "how many", required=False) or 1
    if count < 1:
        raise FormError(f"how many: 1 or more, not {count}")
    return item, count


@intent("take")
def _take(camp, ui, i):
    item, count = _gear_args(i)
    return camp.take(i["who"], item, count, to=_text(_args(i).get("to")), **_ov(i))


@intent("drop")
def _drop(camp, ui, i):
    item, count = _gear_args(i)
    return camp.drop(i["who"], item, count, **_ov(i))


@intent("buy")
def _buy(camp, ui, i):
    item, count = _gear_args(i)
    return camp.buy(i["who"], item, count, **_ov(i))


@intent("reload")
def _reload(camp, ui, i):
    return camp.reload(i["who"], i.get("weapon"), **_ov(i))


@intent("override")
def _keeper_override(camp, ui, i):
    """The refused intent again, with the keeper's reason: the engine waives what it refused and records why."""
    inner = i.get("intent") or {}
    reason = _text(_args(i).get("keeper_override")) or "the keeper's call"
    handler = INTENTS.get(inner.get("do")) if isinstance(inner.get("do"), str) else None
    if handler is None or inner.get("do") in UI_INTENTS or inner.get("do") == "override":
        raise FormError("there is nothing to override")
    check_shape(inner)
    return handler(camp, ui, {**inner, "keeper_override": reason})


INTENTS.update(PHONE_INTENTS)  # the players' phones: their requests, the rolls sent to them, their server


# ---------------------------------------------------------------- performing one intent

def _ask(ui: UI, i: Mapping, text: str, yes: str, no: str) -> None:
    ui.confirm = {"text": text, "where": i.get("where") or i.get("do"), "yes_label": yes, "no_label": no,
                  "yes": {**i, "confirmed": True}, "no": {"do": "dismiss", "where": i.get("where")}}
    return None


ERRORS = (Refused, DiceError, FormError, KeyError, LookupError, StoreError)


def refusal_words(err: Exception) -> str:
    """A refusal as the table says it: its words, each long value it quotes cut to its start and its length, and
    no path of a file the keeper did not type (the store's reason, with the field it is about)."""
    if isinstance(err, StoreError):
        text = (f"{err.field}: " if err.field else "") + err.reason
    elif isinstance(err, KeyError) and err.args:
        text = str(err.args[0])
    else:
        text = str(err)
    return shorten(text)


def perform(camp, ui: UI, i: Mapping) -> Any:
    """Do what ``i`` asks: the campaign call it means, or a change of the UI state. Returns the Outcome (or
    None); a refusal is left in ``ui.refusal`` with where it came from, and changes nothing."""
    kind = i.get("do") if isinstance(i, Mapping) else None
    handler = INTENTS.get(kind) if isinstance(kind, str) else None
    where = (i.get("where") if isinstance(i, Mapping) else None) or kind
    if not isinstance(where, str):
        where = None
    ui.refusal = None
    if kind != "dismiss":
        ui.confirm = None
    if handler is None:
        ui.refusal = {"text": f"the table has no action {str(kind)[:40]!r}", "where": where}
        return None
    if ui.mode != "keeper" and kind not in UI_INTENTS:
        ui.refusal = {"text": "the players' screen is read-only", "where": where}
        return None
    try:
        check_shape(i)
        out = handler(camp, ui, i)
    except ERRORS as err:
        ui.refusal = {"text": refusal_words(err), "where": where, "override": _override(i, err)}
        if getattr(err, "field", None):  # an Invalid: what was typed wrong, said beside its field
            ui.refusal["field"] = err.field
        return None
    if out is not None and kind not in UI_INTENTS:
        ui.form = None  # the form did its work
    return out


def _override(i: Mapping, err: Exception) -> dict | None:
    """A keeper's override for a refusal by a rule of play the keeper may waive (``Overridable``: the turn economy,
    ammunition, reloading): a small form asking why, that sends the refused intent again with it
    (``keeper_override="why"``, recorded on the event)."""
    if not isinstance(err, Overridable) or i.get("keeper_override") or i.get("do") in UI_INTENTS \
            or i.get("do") in ("undo", "redo", "luck", "amend"):
        return None
    where = i.get("where") or i.get("do")
    return {"id": f"override:{where}", "fields": [{"name": "keeper_override", "kind": "text", "label": "",
                                                    "value": "", "required": False,
                                                    "hint": "why the keeper allows it (recorded)"}],
            "submit": {"label": "Keeper's override", "intent": {"do": "override", "intent": dict(i), "where": where}}}
