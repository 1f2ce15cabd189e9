"""The widget layer's cost, measured in one run: a button click to the views updated, against the bare call.

Two copies of the prepared campaign: one with no views, one with the whole dashboard open (five cards, the
roll panel, the tracker, keeper controls, the log). For a skill check (clicked on the Party tab), an attack
(clicked on the Fight tab) and a luck die spent on a check (Party tab; the check is made, untimed, before
each), it prints the median time of the bare campaign call (decided, written and fsync'ed, applied) and of
the same action by ``button.click()`` (the same call, then every view updated in place), timed alternately,
the widget layer's share, and how many widget messages a click sends.

It measures twice:
- here, with no kernel: the views are updated, but their messages to the page go nowhere;
- inside a real IPython kernel (started through jupyter_client, as JupyterLab does): each changed widget's
  message is serialised, signed and sent on the kernel's IOPub socket, as at the table. A click is timed until
  its last message has left the kernel (ipykernel sends from an IO thread, after the handler returns), and
  every timed call starts with that thread idle, as at a table where clicks are seconds apart.
Each run also prints the least any view could add: one widget message (a result-sized HTML value) after the
bare skill check, and two messages to two widgets (what a luck die or an attack must change: a card or a foe,
and the roll). Target: the widget layer adds under 50% to the campaign call. The browser round-trip (click
to the page showing it) is measured by tests/test_browser_session.py; its last figures are printed here when
tests/artifacts/ holds them.

Run: .venv/bin/python bench/widgets.py [--repeat 300] [--no-kernel]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

_MARK = "@@bench-widgets@@"


def _open(where: Path, name: str):
    import delvebook as db
    shutil.copytree(ROOT / "campaigns" / "the-sunken-keep", where / name)
    camp = db.Campaign.open(where / name)
    camp.start_session()
    fight = camp.encounter([{"foe": "bell_warden", "hearts": 100000}])
    fight.initiative("party")
    return camp


def _iopub_sent():
    """In a kernel: a function that returns once every message queued so far has left on the IOPub socket
    (ipykernel sends them from its IO thread, after the call that queued them has returned). Else a no-op."""
    try:
        from ipykernel.kernelbase import Kernel
        io_thread = Kernel.instance().iopub_socket.io_thread if Kernel.initialized() else None
    except (ImportError, AttributeError):
        io_thread = None
    if io_thread is None:
        return lambda: None

    def sent() -> None:
        done = threading.Event()
        io_thread.schedule(done.set)  # runs after every send queued before it
        if not done.wait(5):
            raise RuntimeError("the kernel's IOPub thread did not answer within 5 s")
    return sent


def _paired_median_ms(bare, click, repeat: int, setup=None) -> dict:
    """Medians of ``bare`` and ``click``, timed alternately so both see the same machine (disk, other core).
    ``setup`` (untimed) runs before each timed call, with the campaign the call acts on. In a kernel, each
    timed call starts with the IOPub thread idle (at a table clicks are seconds apart), and ``click`` is timed
    twice: until its handler returns, and until its messages have left the kernel (``sent_ms``)."""
    sent = _iopub_sent()
    bare_t, click_t, sent_t = [], [], []
    for _ in range(repeat):
        for fn in (bare, click):
            if setup is not None:
                setup(fn)
            sent()
            t0 = time.perf_counter()
            fn()
            t1 = time.perf_counter()
            if fn is bare:
                bare_t.append(t1 - t0)
                continue
            sent()
            click_t.append(t1 - t0)
            sent_t.append(time.perf_counter() - t0)
    return {"bare_ms": statistics.median(bare_t) * 1000, "click_ms": statistics.median(click_t) * 1000,
            "sent_ms": statistics.median(sent_t) * 1000}


def _count_messages(fn, times: int, setup=None) -> float:
    """Widget messages (state updates to the page) that ``fn`` sends, on average (``setup``'s not counted)."""
    import ipywidgets as w
    sent = [0]
    real = w.Widget._send

    def counting(self, msg, buffers=None):
        sent[0] += 1
        return real(self, msg, buffers)

    try:
        for _ in range(times):
            if setup is not None:
                setup(fn)
            w.Widget._send = counting
            fn()
            w.Widget._send = real
    finally:
        w.Widget._send = real
    return sent[0] / times


def measure(repeat: int) -> dict:
    """Time the three actions bare and by click; returns the figures (runs in or out of a kernel)."""
    from delvebook.widgets import Dashboard
    # on the repository's disk, not a tmpfs where fsync costs nothing
    with tempfile.TemporaryDirectory(dir=ROOT, prefix=".bench-widgets-") as tmp:
        tmp = Path(tmp)
        bare = _open(tmp, "bare")
        viewed = _open(tmp, "viewed")
        t0 = time.perf_counter()
        dash = Dashboard(viewed)
        build = (time.perf_counter() - t0) * 1000
        party_tab, fight_tab = 0, 1
        dash.tabs.selected_index = fight_tab
        dash.tracker.attacker.value = "Brakka"
        dash.tracker.target.value = "The Bell Warden 1"
        stealth = dash.party.cards["Wren"]._skill_buttons["stealth"]
        sword = dash.tracker.weapon_buttons[0]
        luck = dash.rolls.luck_plus

        def bare_check():
            bare.check("Wren", "stealth", 10)

        def bare_luck():
            bare.spend_luck("Ana", +1)

        def click_luck():
            luck.click()

        bare_luck.camp, click_luck.camp = bare, viewed

        def a_check_to_spend_on(fn):
            """Untimed, before each luck die: Wren's check for Ana to spend it on. Her dice run 3, 2, 1; at 0 a
            new session gives her 3 again."""
            camp = fn.camp
            if camp.state["luck"]["Ana"] == 0:
                camp.end_session()
                camp.start_session()
            camp.check("Wren", "stealth", 10)

        def heal_brakka(camp):  # counters would drop him in the end (bench only: not an event)
            camp.state["delvers"]["Brakka"].update(hearts=10 ** 6, status="alive")

        def bare_attack():
            heal_brakka(bare)
            bare.fight.attack("Brakka", "The Bell Warden 1", 0)

        def click_attack():
            heal_brakka(viewed)
            sword.click()

        rows = []
        for name, tab, call, click, setup in [
            ("skill check", party_tab, bare_check, stealth.click, None),
            ("attack", fight_tab, bare_attack, click_attack, None),
            ("luck die", party_tab, bare_luck, click_luck, a_check_to_spend_on),
        ]:
            dash.tabs.selected_index = tab  # the tab the keeper clicks it on
            for f in (call, click):  # warm up
                if setup is not None:
                    setup(f)
                f()
            times = _paired_median_ms(call, click, repeat, setup=setup)
            msgs = _count_messages(click, 21, setup=setup)
            rows.append({"action": name, **times, "messages": msgs,
                         "refused": dash.table.message.value})
        # the floors: the bare skill check plus one widget message (a result-sized HTML value), nothing else;
        # and plus two, to two widgets (a luck die changes a card and the roll; an attack the roll and a foe)
        import ipywidgets as w
        probes, n = (w.HTML(), w.HTML()), [0]

        def one_message():
            bare_check()
            n[0] += 1
            probes[0].value = f"<div>{n[0]}</div>" + "x" * 1000

        def two_messages():
            one_message()
            probes[1].value = f"<div>{n[0]}</div>" + "y" * 1000

        floor = _paired_median_ms(bare_check, one_message, repeat)
        floor2 = _paired_median_ms(bare_check, two_messages, repeat)
        bare.close()
        viewed.close()
    return {"build_ms": build, "rows": rows, "floor": floor, "floor2": floor2}


def _in_kernel(repeat: int) -> dict:
    """Run ``measure`` inside a fresh IPython kernel of this interpreter; its widget messages go to IOPub."""
    from jupyter_client.manager import start_new_kernel
    km, kc = start_new_kernel(kernel_name="python3", cwd=str(ROOT))
    out: list[str] = []

    def hook(msg):
        if msg["msg_type"] == "stream":
            out.append(msg["content"]["text"])
        elif msg["msg_type"] == "error":
            out.append("\n".join(msg["content"]["traceback"]))

    code = (f"import runpy, json\nm = runpy.run_path({str(Path(__file__).resolve())!r}, run_name='bench_widgets')\n"
            f"print({_MARK!r} + json.dumps(m['measure']({repeat})))")
    try:
        kc.execute_interactive(code, timeout=600, output_hook=hook)
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    text = "".join(out)
    if _MARK not in text:
        raise RuntimeError(f"the kernel run failed:\n{text}")
    return json.loads(text.split(_MARK, 1)[1].splitlines()[0])


def _print(title: str, result: dict, sent: bool) -> None:
    """One table; with ``sent``, a second share: the click timed until its messages had left the kernel."""
    def share(r: dict, key: str) -> str:
        return f"{r[key] / r['bare_ms'] - 1:.0%}"

    print(f"{title}: dashboard built in {result['build_ms']:.0f} ms")
    head = f"  {'action':<18}{'bare call':>11}{'by click':>11}{'added':>9}"
    print(head + (f"{'until sent':>13}{'added':>9}" if sent else "") + f"{'messages/click':>16}")
    for r in result["rows"]:
        line = f"  {r['action']:<18}{r['bare_ms']:>9.2f}ms{r['click_ms']:>9.2f}ms{share(r, 'click_ms'):>9}"
        if sent:
            line += f"{r['sent_ms']:>11.2f}ms{share(r, 'sent_ms'):>9}"
        print(line + f"{r['messages']:>16.1f}")
        if r["refused"]:
            print("    (a click was refused:", r["refused"], ")")
    for key, what in (("floor", "one widget message"), ("floor2", "two messages, to two widgets")):
        f = result[key]
        print(f"  the least a view can add, {what} after a bare skill check: "
              f"{f['bare_ms']:.2f}ms -> {f['click_ms']:.2f}ms, {share(f, 'click_ms')}"
              + (f"; until sent {f['sent_ms']:.2f}ms, {share(f, 'sent_ms')}" if sent else ""))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=300)
    ap.add_argument("--no-kernel", action="store_true", help="skip the run inside a kernel")
    args = ap.parse_args()
    print(f"median of {args.repeat} actions each (fsync'ed write included); target: under 50% added")
    _print("no kernel (views updated; messages go nowhere)", measure(args.repeat), sent=False)
    if not args.no_kernel:
        _print("in an IPython kernel (messages sent on IOPub, as at the table)", _in_kernel(args.repeat), sent=True)
    rt = ROOT / "tests" / "artifacts" / "browser-roundtrip.json"
    if rt.exists():
        r = json.loads(rt.read_text())
        print("browser round-trip, last tests/test_browser_session.py run (target < 250 ms): "
              + ", ".join(f"{k.removesuffix('_ms').replace('_', ' ')} {v:.0f} ms" for k, v in r.items()))
    else:
        print("browser round-trip: run tests/test_browser_session.py to measure it (target < 250 ms)")


if __name__ == "__main__":
    main()
