"""Dice drawn as HTML (a ``Roll``'s ``_repr_html_``, the outcome's rolls, the report): D6 pips, other dice as
numbers, dropped dice struck through, luck dice in gold; and the one escape every value shown in HTML goes
through (``escape_html``). It reads a ``dice.Roll`` (whose ``_repr_html_`` calls it) without importing ``dice``.
Standard library only: part of the pure core."""

from __future__ import annotations

import html

__all__ = ["escape_html", "roll_html"]

_PIPS = "\u2680\u2681\u2682\u2683\u2684\u2685"  # ⚀..⚅

_DIE_STYLE = ("display:inline-flex;align-items:center;justify-content:center;min-width:1.9em;"
              "height:1.9em;margin:0 .12em;border-radius:.3em;font-weight:600;")


def escape_html(value: object) -> str:
    """The one escape every value shown in HTML goes through, numbers included: the value as text, with
    ``& < > " '`` escaped."""
    if value.__class__ is str:
        return html.escape(value, quote=True)
    try:
        text = str(value)
    except ValueError:  # an integer longer than Python writes out
        text = "(a number too long to show)"
    return html.escape(text, quote=True)


def _die_html(sides: int, face: int, kept: bool = True, extra_class: str = "", title: str = "",
              styled: bool = True) -> str:
    """One die: its sides, the face it shows, whether it was kept."""
    dropped = "" if kept else " delvebook-dropped"
    shown = _PIPS[face - 1] if sides == 6 and face in (1, 2, 3, 4, 5, 6) else str(face)
    style = ""
    if styled:
        style = _DIE_STYLE + ("font-size:1.6em;line-height:1;min-width:1.1em;border:none;" if sides == 6
                              else "border:2px solid #555;padding:0 .25em;")
        if not kept:
            style += "opacity:.4;text-decoration:line-through;"
        if "delvebook-luck" in extra_class:
            style += "color:#b8860b;"
        style = f' style="{style}"'
    esc = escape_html
    label = esc(title if title else f"d{sides}: {face}{'' if kept else ' (dropped)'}")
    return (f'<span class="delvebook-die d{esc(sides)}{dropped}{extra_class}" data-face="{esc(face)}" '
            f'title="{label}"{style}>{esc(shown)}</span>')


def roll_html(r, outcome: str | None = None, *, styled: bool = True) -> str:
    """HTML for a roll (a ``dice.Roll``): dice drawn as dice (D6 pips, other dice as numbers), total, luck; all text
    escaped.

    ``styled=False`` leaves out the inline styles, for a page that has delvebook's style sheet (the
    dashboard): the same dice in a third of the bytes sent to the page on every roll."""
    esc = escape_html
    bits = []
    for i, (t, g) in enumerate(zip(r.expression.terms, r.groups)):
        sign = ("\u2212" if t.sign < 0 else "") if i == 0 else (" \u2212 " if t.sign < 0 else " + ")
        if g is None:
            bits.append(f'{sign}<span class="delvebook-mod">{esc(t.constant)}</span>')
        elif t.d66:
            bits.append(sign + _die_html(g[0].sides, g[0].face, title=f"d66 tens: {g[0].face}", styled=styled)
                        + _die_html(g[1].sides, g[1].face, title=f"d66 ones: {g[1].face}", styled=styled)
                        + f'<span class="delvebook-d66">({esc(g[0].face)}{esc(g[1].face)})</span>')
        else:
            bits.append(sign + "".join([_die_html(d.sides, d.face, d.kept, styled=styled) for d in g]))
    for l in r.luck:
        who = f" by {l.who}" if l.who else ""
        bits.append(f' {"+" if l.sign > 0 else "&minus;"} '
                    + _die_html(l.sides, l.face, True, " delvebook-luck",
                                title=f"luck die{who}: {'+' if l.sign > 0 else '-'}{l.face}", styled=styled))
    grey = ' style="color:#555;margin-right:.4em"' if styled else ""
    pale = ' style="color:#777"' if styled else ""
    head = ""
    if r.who or r.why:
        head = (f'<span class="delvebook-who"{grey}>{esc(r.who or "")}'
                f'{" · " if r.who and r.why else ""}{esc(r.why or "")}</span> ')
    tail = f' = <b class="delvebook-total">{esc(r.total)}</b>'
    if r.luck:
        tail += f' <span class="delvebook-was"{pale}>(was {esc(r.base_total)})</span>'
    if outcome:
        tail += f' <span class="delvebook-outcome">{esc(outcome)}</span>'
    if not styled:
        return (f'<div class="delvebook-roll" data-total="{esc(r.total)}">{head}<code>{esc(r.expr)}</code>'
                f'{"".join(bits)}{tail}</div>')
    return (f'<div class="delvebook-roll" data-total="{esc(r.total)}" style="font-family:system-ui,sans-serif;'
            f'display:flex;align-items:center;flex-wrap:wrap;gap:.1em;">{head}'
            f'<code style="margin-right:.5em;color:#333">{esc(r.expr)}</code>{"".join(bits)}{tail}</div>')
