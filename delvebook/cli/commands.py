"""The `delvebook` command: roll dice, show exact odds, forecast a fight, open JupyterLab on a campaign.

Heavy imports (JupyterLab, rules data) happen inside the subcommand that needs them, so
`delvebook roll` starts as fast as the dice engine imports.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Sequence

from .reading import READING, add_reading_commands

__all__ = ["main"]

SESSION_NOTEBOOK = Path("examples") / "run-a-session.ipynb"
DEFAULT_CAMPAIGN = Path("campaigns") / "the-sunken-keep"
LAB_FOLDER = "delvebook-lab"
"""Where `delvebook lab` lays out the packaged session notebook when it runs outside the repository."""


def _percent(p: Fraction) -> str:
    return f"{float(p) * 100:6.2f}%  ({p.numerator}/{p.denominator})"


def _cmd_roll(args: argparse.Namespace) -> int:
    import random

    from delvebook.core.dice import DiceError, roll

    rng = random.Random(args.seed)
    try:
        result = roll(args.expr, rng=rng)
    except DiceError as err:
        print(f"delvebook roll: {err}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result.to_dict()))
    else:
        print(result)
    return 0


def _cmd_odds(args: argparse.Namespace) -> int:
    from delvebook import odds
    from delvebook.core.dice import DiceError

    try:
        if args.vs is not None:
            result = odds(args.expr, vs=args.vs)
            print(f"{args.expr} vs {args.vs}")
            print(f"  win   {_percent(result.win)}")
            print(f"  tie   {_percent(result.tie)}")
            print(f"  lose  {_percent(result.lose)}")
        elif args.target is not None:
            p = odds(args.expr, target=args.target)
            print(f"{args.expr} meets or beats {args.target}: {_percent(p)}")
        else:
            dist = odds(args.expr)
            print(f"{args.expr}: min {dist.min}, max {dist.max}, mean {float(dist.mean):.3f}")
            for outcome, p in sorted(dist.probabilities().items()):
                print(f"  {outcome:>5}  {_percent(p)}")
    except DiceError as err:
        print(f"delvebook odds: {err}", file=sys.stderr)
        return 2
    return 0


def _find_notebook() -> Path | None:
    """The session notebook, from the current directory or beside the installed package (a checkout)."""
    for base in (Path.cwd(), Path(__file__).resolve().parents[2]):
        candidate = base / SESSION_NOTEBOOK
        if candidate.is_file():
            return candidate
    return None


def _unpack_session(folder: Path) -> Path:
    """The session notebook and the prepared campaign that ship in the package, laid out in ``folder`` as in the
    repository (examples/, campaigns/), so the notebook finds its campaign and its play folder lands there.
    What is there already stays: a later run continues the same play and keeps an edited notebook."""
    import shutil
    from delvebook.share.session import session_file
    notebook = folder / SESSION_NOTEBOOK
    if not notebook.exists():
        notebook.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(session_file(SESSION_NOTEBOOK.name), notebook)
    campaign = folder / DEFAULT_CAMPAIGN
    if not campaign.exists():
        shutil.copytree(session_file(DEFAULT_CAMPAIGN.name), campaign,
                        ignore=shutil.ignore_patterns(".delvebook.*", "requests"))
    return notebook


def _say_if_held(play: Path) -> None:
    """The play copy open for play elsewhere (another JupyterLab's kernel): one sentence saying so, before the table
    notebook trips over it."""
    from delvebook.store.holder import held, is_held
    if is_held(play):
        print(f"delvebook lab: note: {held(play, again='run the table notebook again')}", file=sys.stderr)


def _cmd_lab(args: argparse.Namespace, extra: list[str]) -> int:
    from delvebook.core.extras import install_hint, missing
    if missing("jupyterlab"):
        print(f"delvebook lab needs JupyterLab, which the core install of delvebook leaves out: "
              f"{install_hint('lab')} (or {install_hint('all')} for the table and the charts too)", file=sys.stderr)
        return 2
    own = _own_table_notebook(Path(args.campaign)) if args.campaign else None
    if own is not None:  # the campaign's own table notebook, the campaign beside it in the file browser
        return _open_lab(own, own.parent, dict(os.environ), extra)
    notebook = _find_notebook()
    if notebook is None:  # installed from a wheel: the package carries the notebook and the prepared campaign
        folder = Path.cwd() / LAB_FOLDER
        notebook = _unpack_session(folder)
        print(f"delvebook lab: the session notebook and campaigns/{DEFAULT_CAMPAIGN.name} are in {folder} "
              "(play is saved there)")
    root = notebook.parent.parent
    env = dict(os.environ)
    if args.campaign:
        campaign = Path(args.campaign).resolve()
        if not campaign.exists():
            print(f"delvebook lab: note: campaign folder {campaign} does not exist yet.", file=sys.stderr)
        env["DELVEBOOK_CAMPAIGN"] = str(campaign)
        print(f"delvebook lab: campaign {campaign} (DELVEBOOK_CAMPAIGN)")
    play = notebook.parent / "play" / (Path(args.campaign).name if args.campaign else DEFAULT_CAMPAIGN.name)
    _say_if_held(play)
    return _open_lab(notebook, root, env, extra)


def _own_table_notebook(campaign: Path) -> Path | None:
    """The campaign's own table notebook (``delvebook new`` wrote it beside the folder), written now for a campaign
    that has none when no checkout's session notebook plays it (a wheel install); None for a campaign played by the
    checkout's session notebook (a play copy of a prepared campaign) or a folder that is no campaign."""
    notebook = _table_notebook_of(campaign.resolve())
    if notebook.is_file():
        return notebook
    if _find_notebook() is not None or not (campaign / "campaign.yaml").is_file():
        return None
    name = _name_of(campaign) or campaign.resolve().name.replace("-", " ").title()
    written = _write_table_notebook(campaign.resolve(), name)
    if written is not None:
        _say(f"delvebook lab: wrote {written}, the table notebook of {name!r}")
    return written


def _name_of(campaign: Path) -> str | None:
    try:
        from delvebook.core.yamlsafe import load
        name = load((campaign / "campaign.yaml").read_text(encoding="utf-8")).get("name")
        return name if isinstance(name, str) and name.strip() else None
    except Exception:  # noqa: BLE001  (a name for a heading: the folder's stands in)
        return None


def _open_lab(notebook: Path, root: Path, env: dict, extra: list[str]) -> int:
    """JupyterLab at ``root`` (its file browser), opening ``notebook``; options in ``extra`` passed on."""
    if hasattr(os, "geteuid") and os.geteuid() == 0 and "--allow-root" not in extra:
        # Jupyter refuses to run as root without it; root is the norm in containers and CI.
        extra = [*extra, "--allow-root"]
    cmd = [
        sys.executable, "-m", "jupyterlab",
        f"--ServerApp.root_dir={root}",
        str(notebook.relative_to(root)),
        *extra,
    ]
    print(f"delvebook lab: opening {notebook.relative_to(root)} in JupyterLab at {root}")
    print("  " + " ".join(cmd), flush=True)
    try:
        return subprocess.call(cmd, env=env, cwd=root)
    except KeyboardInterrupt:
        return 130


def _cmd_lite(args: argparse.Namespace) -> int:
    from delvebook.share.lite import LiteError, build

    try:
        built = build(args.campaign, args.output, cache=args.cache,
                      log=lambda text: print(f"delvebook lite: {text}", flush=True))
    except LiteError as err:
        print(f"delvebook lite: {err}", file=sys.stderr)
        return 2
    print(f"delvebook lite: built {built['site']} ({built['bytes'] / 1e6:.1f} MB) in {built['seconds']:.0f} s")
    print(f"  serve it with any static web server, e.g. python -m http.server -d {built['site']} 8000, and open")
    print(f"  http://127.0.0.1:8000/{built['url']}")
    return 0


def _cmd_rules(args: argparse.Namespace) -> int:
    from delvebook.core.rules.load import load_rules

    rules = load_rules()
    if args.assumptions:
        for assumption in rules.assumptions():
            path, reason = getattr(assumption, "path", None), getattr(assumption, "reason", None)
            print(f"- {path}: {reason}" if path and reason else f"- {assumption}")
    else:
        print("delvebook rules: try --assumptions to list where the rules text left us a choice.")
    return 0


def _shown(text: object) -> str:
    """Text for the terminal: control characters (escape sequences), bytes that were not UTF-8 and other
    characters a terminal would act on or choke on, written as Python escapes (``\\x1b``, ``\\udcff``)."""
    text = str(text)
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape", "backslashreplace").decode("ascii")
                   for c in text)


def _say(*parts: object, file=None) -> None:
    print(_shown(" ".join(str(p) for p in parts)), file=file or sys.stdout)


def _cmd_new(args: argparse.Namespace) -> int:
    from delvebook.campaign import Campaign
    from delvebook.store import StoreError
    name = args.name or Path(args.path).name.replace("-", " ").title()
    if args.repo:
        from delvebook.share.repo import new_repo, pinned_requirement
        try:
            requirement, note = (args.requirement, None) if args.requirement else pinned_requirement()
            made = new_repo(Path(args.path), name=name, seed=args.seed, requirement=requirement)
        except (StoreError, ValueError, OSError) as err:
            _say(f"delvebook new: {err}", file=sys.stderr)
            return 1
        _say(f"{args.path}: a campaign repository: {', '.join(made)}")
        _say(f"  binder/requirements.txt installs {requirement}")
        if note:
            _say(f"delvebook new: note: {note}", file=sys.stderr)
        print("  commit it, push it to GitHub, then `delvebook share` prints its Binder link")
        return 0
    try:
        camp = Campaign.create(args.path, name=name, seed=args.seed)
    except (StoreError, ValueError) as err:
        _say(f"delvebook new: {err}", file=sys.stderr)
        return 1
    except OSError as err:
        _say(f"delvebook new: {args.path}: cannot make the campaign ({err.strerror or err}); nothing was made",
             file=sys.stderr)
        return 1
    camp.close()
    _say(f"{args.path}: new campaign {name!r} (campaign.yaml and an empty log.yaml)")
    notebook = _write_table_notebook(Path(args.path), name)
    if notebook is not None:
        _say(f"{notebook}: its table notebook (the table, headed {name!r}; the Keeper panel adds the party)")
    _say(f"  next: delvebook lab {args.path}  (or open {_table_notebook_of(Path(args.path)).name} in any "
         "JupyterLab and Run All)")
    return 0


def _table_notebook_of(campaign: Path) -> Path:
    """Where a campaign's table notebook is: beside its folder, named after it (``club-night.ipynb``)."""
    return campaign.parent / f"{campaign.name}.ipynb"


def _write_table_notebook(campaign: Path, name: str) -> Path | None:
    """Write ``campaign``'s table notebook beside it (never over a file that is there); the path, or None."""
    from delvebook.share.notebook import table_notebook_text
    from delvebook.store.publish import write_file
    target = _table_notebook_of(campaign)
    if target.exists() or target.is_symlink():
        _say(f"delvebook: note: {target} is there already and is left as it is", file=sys.stderr)
        return None
    write_file(target, table_notebook_text(name, campaign.name))
    return target


def _cmd_players(args: argparse.Namespace) -> int:
    campaign = Path(args.campaign).resolve()
    if not (campaign / "campaign.yaml").is_file():
        _say(f"delvebook players: {campaign} holds no campaign.yaml", file=sys.stderr)
        return 2
    from delvebook.core.extras import EXTRAS, install_hint, missing
    gone = missing(*EXTRAS["players"])
    if gone:
        print(f"delvebook players needs {' and '.join(gone)}, which the core install of delvebook leaves out: "
              f"{install_hint('players')}", file=sys.stderr)
        return 2
    if not 0 <= args.port <= 65535:
        print(f"delvebook players: --port is 0 to 65535, not {args.port}", file=sys.stderr)
        return 2
    from delvebook.pages.alone import serve
    from delvebook.players.requests import RequestError
    try:
        return serve(campaign, ip=args.ip, port=args.port, hide_hearts=args.hide_hearts,
                     foe_hearts=args.show_foe_hearts, parent=args.parent, allow_hosts=tuple(args.allow_host),
                     new_links=args.new_links, qr=args.qr)
    except RequestError as err:  # (a file of the requests folder it cannot use: keys.json a folder)
        print(f"delvebook players: {err}", file=sys.stderr)
        return 1
    except OSError as err:
        print(f"delvebook players: cannot listen on {args.ip} (port {args.port}, the next ten, or any free one): "
              f"{err.strerror or err}", file=sys.stderr)
        return 1


def _cmd_share(args: argparse.Namespace) -> int:
    from delvebook.store.publish import read_file
    from delvebook.share.repo import badge_notebook, binder_link, write_badge
    readme = Path(args.readme) if args.readme else None
    notebook = args.notebook
    try:
        if notebook is None and readme is not None:
            # keep the notebook the badge opens: only the repository changes (never read through a symlink)
            notebook = badge_notebook(read_file(readme) or "")
        link, badge = binder_link(Path(args.path), notebook=notebook)
        print(f"Binder link:  {link}")
        print(f"README badge: {badge}")
        if readme is not None:
            changed = write_badge(readme, badge)
            _say(f"{readme}: {'the Binder badge now launches this link' if changed else 'the badge already launches it'}")
    except (ValueError, OSError) as err:
        _say(f"delvebook share: {err}", file=sys.stderr)
        return 1
    return 0


def _validate(path: Path) -> tuple[list, list[str], int | None]:
    """(every problem, what the last writer noted, the number of events or None) for a campaign folder:
    ``store.validation.check_folder``, the one check ``Campaign.open`` runs, with every bad line listed."""
    from delvebook.store.validation import check_folder
    found = check_folder(path)
    return found.problems, found.notes, found.events


def _cmd_validate(args: argparse.Namespace) -> int:
    """Every problem in the folder's files and its log, as ``Campaign.open`` judges them (the log's lines written
    by hand decided again by the rules). Printed one a line, control characters escaped."""
    path = Path(args.path)
    try:
        problems, notes, n = _validate(path)
    except Exception as err:  # never a traceback: say what could not be checked
        _say(f"{path}: cannot be checked ({type(err).__name__}: {err}); this is a bug in delvebook, please "
             f"report it with the file")
        return 1
    for note in notes:
        _say(f"note: {note}")
    if not problems:
        _say(f"{path}: valid ({n} events)")
        return 0
    for problem in problems:
        _say(problem)
    print(f"{_shown(path)}: {len(problems)} problem{'s' if len(problems) != 1 else ''}", file=sys.stderr)
    return 1


def _play_copy_of(campaign: Path) -> Path | None:
    """The play copy of a prepared campaign, where the table notebook records play (``examples/play/<name>``,
    beside the working folder or the repository the campaign sits in), when there is one that has moved on."""
    from delvebook.store import read_log
    name = campaign.resolve().name
    for base in (Path.cwd(), campaign.resolve().parent.parent):
        copy = base / "examples" / "play" / name
        try:
            if copy.resolve() != campaign.resolve() and (copy / "campaign.yaml").is_file() and read_log(copy)[0]:
                return copy
        except (OSError, ValueError):
            continue
    return None


def _cmd_danger(args: argparse.Namespace) -> int:
    """How deadly a prepared encounter (or a list of foes, or the fight running now) is for the party as it stands
    in the campaign (its play copy, when the campaign named is a prepared one with one): the forecast's table, with
    a progress line on stderr (fights, ±points, rate, time left) while the fights are played."""
    from delvebook.campaign import Campaign
    from delvebook.engine import Refused
    from delvebook.core.rules.schema.bounds import MAX_ARGUMENT, MAX_FIGHTS, number_shown
    from delvebook.forecast import FOE_TARGETS, Policy, text_progress
    from delvebook.store import StoreError
    folder = Path(args.campaign)
    copy = None if args.as_prepared else _play_copy_of(folder)
    if copy is not None:
        _say(f"delvebook danger: the party as it stands in {copy} (the play copy; --as-prepared forecasts {folder} "
             "as prepared)", file=sys.stderr)
        folder = copy
    try:
        camp = Campaign.open(folder, read_only=True)
    except (StoreError, ValueError, OSError) as err:
        print(f"delvebook danger: {err}", file=sys.stderr)
        return 1
    with camp:
        prepared = camp.prepared_encounters
        foes = [f.strip() for f in args.foes.split(",") if f.strip()] if args.foes else None
        if args.encounter is None and foes is None and camp.fight is None:
            print(f"delvebook danger: name a prepared encounter of {camp.name} "
                  f"({', '.join(prepared) or 'none prepared'}) or --foes goblin,goblin (no fight is running to "
                  "forecast as it stands)", file=sys.stderr)
            return 2
        if args.encounter is not None and foes is not None:
            print("delvebook danger: a prepared encounter or --foes, not both", file=sys.stderr)
            return 2
        if args.foe_target is not None and args.foe_target not in FOE_TARGETS:
            print(f"delvebook danger: --foe-target is one of {', '.join(FOE_TARGETS)}", file=sys.stderr)
            return 2
        for option, value, most in (("--fights", args.fights, MAX_FIGHTS), ("--workers", args.workers, 1024),
                                    ("--retreat-when-down", args.retreat_when_down, MAX_ARGUMENT)):
            if value is not None and not 1 <= value <= most:
                print(f"delvebook danger: {option} is 1 to {most:,}, not {number_shown(value)}", file=sys.stderr)
                return 2
        # how this party plays (learned from its fights), unless the documented default or a knob is asked for
        knobs = args.foe_target is not None or args.no_luck or args.pool_luck or args.retreat_when_down is not None
        policy = "default" if args.default_policy else None if not knobs else Policy(
            args.foe_target or "fewest_hearts", luck=not args.no_luck, pool_luck=args.pool_luck,
            retreat_when_down=args.retreat_when_down)
        progress = None if args.quiet else text_progress(sys.stderr)
        try:
            danger = camp.danger(args.encounter if foes is None else foes, fights=args.fights, seed=args.seed,
                                 policy=policy, precision=args.precision / 100, progress=progress,
                                 workers=args.workers)
        except (Refused, ValueError, TypeError) as err:
            print(f"delvebook danger: {err}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            print("\ndelvebook danger: stopped", file=sys.stderr)
            return 130
    if args.json:
        print(json.dumps(_danger_json(danger), indent=2))
        return 0
    print(danger)
    print()
    print("How the table plays:")
    for line in danger.policy:
        print(f"  - {line}")
    return 0


def _danger_json(d) -> dict:
    def est(e) -> dict:
        return {"p": e.p, "low": e.lo, "high": e.hi, "hits": e.hits, "fights": e.n}
    return {"encounter": d.encounter, "foes": d.foes, "fights": d.fights, "budget": d.budget, "precise": d.precise,
            "precision": d.precision, "seed": d.seed, "processes": d.workers, "seconds": d.seconds,
            "delvers": {n: {"drops": est(x.p_drop), "dies": est(x.p_death), "hearts_left": x.hearts_left,
                            "max_hearts": x.max_hearts, "xp_on_win": x.xp_on_win} for n, x in d.delvers.items()},
            "a_death": est(d.p_any_death), "wipe": est(d.p_wipe), "win": est(d.p_win), "fled": est(d.p_fled),
            "stalemate": est(d.p_stalemate), "rounds": {"median": d.rounds.median, "p90": d.rounds.p90},
            "luck_spent": d.luck_spent, "refused": d.refused, "policy": d.policy}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="delvebook",
        description="Dice with exact odds, and JupyterLab sessions for delvebook campaigns.",
    )
    from delvebook import __version__
    parser.add_argument("--version", action="version", version=f"delvebook {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("roll", help="roll dice: delvebook roll 2d20kh1+d6")
    p.add_argument("expr", metavar="EXPR", help="dice notation, e.g. 3d6+1, d20+d6-2, 2d20kh1, d66")
    p.add_argument("--seed", type=int, default=None, help="seed the dice for a reproducible roll")
    p.add_argument("--json", action="store_true", help="print the roll as JSON, every die included")

    p = sub.add_parser("odds", help="exact odds: delvebook odds d20+d6 --vs d20")
    p.add_argument("expr", metavar="EXPR")
    group = p.add_mutually_exclusive_group()
    group.add_argument("--vs", metavar="EXPR", help="opposed roll: chance to win, tie, lose")
    group.add_argument("--target", type=int, metavar="N", help="chance to meet or beat N")

    p = sub.add_parser(
        "lab",
        help="open JupyterLab on the session notebook",
        description="Open JupyterLab on examples/run-a-session.ipynb. Options after the campaign "
        "(--no-browser, --port 8899, ...) are passed to jupyter lab.",
    )
    p.add_argument("campaign", nargs="?", metavar="CAMPAIGN", help="campaign folder to run")

    p = sub.add_parser("new", help="make a new campaign folder: delvebook new campaigns/my-campaign")
    p.add_argument("path", metavar="PATH")
    p.add_argument("--name", help="the campaign's name (default: from the folder)")
    p.add_argument("--seed", type=int, default=None, help="seed the campaign's dice")
    p.add_argument("--repo", action="store_true",
                   help="also make it a shareable repository: a session notebook, binder/, a README")
    p.add_argument("--requirement", default=None,
                   help="how binder/ installs delvebook (default: this delvebook, pinned: its release on the "
                   "package index, or the commit of the git repository it was installed from)")

    p = sub.add_parser("lite", help="build a static JupyterLite site that opens the table in any browser, no server",
                       description="Build a static site (JupyterLite with the Pyodide kernel) holding the table "
                       "notebook, the campaign and the delvebook wheel. Serve the folder with any static web "
                       "server; play is stored in the visitor's browser. Needs the lite extra and npm; downloads "
                       "from PyPI and npm once into the cache.")
    p.add_argument("campaign", metavar="CAMPAIGN")
    p.add_argument("-o", "--output", default="build/lite", metavar="DIR", help="where the site goes: a new or "
                   "empty folder, or a site delvebook lite built (replaced whole); any other folder is refused "
                   "(default: build/lite)")
    p.add_argument("--cache", default=None, metavar="DIR", help="where downloads are kept (default: "
                   "$DELVEBOOK_LITE_CACHE or ~/.cache/delvebook-lite)")

    p = sub.add_parser("share", help="print the Binder link and badge for a campaign repository's git remote")
    p.add_argument("path", nargs="?", default=".", metavar="PATH")
    p.add_argument("--notebook", default=None, help="the notebook Binder opens (default: the session notebook)")
    p.add_argument("--readme", default=None, metavar="FILE",
                   help="also write the badge into FILE (e.g. README.md): its Binder badge line, or under its title")

    p = sub.add_parser("players", help="serve the players' pages alone, for the table's Wi-Fi",
                       description="Serve the second screen (the table, read-only) and each player's own page, "
                       "alone on this machine's network (the Jupyter server the table runs in serves the same pages "
                       "with no port of its own: the Keeper panel's button): "
                       "their delver, their luck dice, the rolls the keeper asks of them, their level-up choices. "
                       "Each link carries its own secret (kept in CAMPAIGN/requests/keys.json); a player's click is "
                       "a request the keeper's table accepts or declines.")
    p.add_argument("campaign", metavar="CAMPAIGN")
    p.add_argument("--port", type=int, default=8866, help="the port (default 8866; if it is taken, the next ten, then "
                   "any free one, said on start; the firewall must let it in)")
    p.add_argument("--ip", default="127.0.0.1",
                   help="listen address (default 127.0.0.1: this machine only; 0.0.0.0 for the players' phones on "
                   "this network)")
    p.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                   help="another name the pages may be reached by (e.g. keeper-laptop.local); the addresses it "
                   "listens on, 127.0.0.1 and localhost always are")
    p.add_argument("--new-links", action="store_true", help="new secrets for every link: the old links stop working")
    p.add_argument("--qr", action="store_true", help="print each link's QR code on this terminal too")
    p.add_argument("--hide-hearts", action="store_true",
                   help="show the delvers' hearts as wounds too (unhurt, wounded, badly wounded), not their numbers")
    p.add_argument("--show-foe-hearts", action="store_true", help="show foes' exact hearts, not just wounds")
    p.add_argument("--parent", type=int, default=None, help=argparse.SUPPRESS)  # stop when this process is gone

    p = sub.add_parser("validate", help="check a campaign folder; lists every problem, exit status 1 if any")
    p.add_argument("path", metavar="PATH")

    add_reading_commands(sub)

    p = sub.add_parser("danger", help="how deadly a prepared encounter is: delvebook danger CAMPAIGN ENCOUNTER",
                       description="Play the fight many times in memory (nothing is written to the campaign) and "
                       "print, for the party as it stands, each delver's chance to drop below 1 heart and to die, "
                       "the chance of a death, a wipe and a win, with 95% intervals, the rounds, XP and hearts left. "
                       "A prepared campaign with a play copy (examples/play/NAME, where the table notebook records "
                       "play) is forecast as it stands there.")
    p.add_argument("campaign", metavar="CAMPAIGN", help="campaign folder (opened read-only)")
    p.add_argument("encounter", nargs="?", metavar="ENCOUNTER",
                   help="a prepared encounter's id (none: the fight running now, as it stands)")
    p.add_argument("--foes", metavar="IDS", help="bestiary ids instead, comma-separated: --foes goblin,goblin")
    p.add_argument("--fights", type=int, default=2000, help="fights to play at most (2000)")
    p.add_argument("--precision", type=float, default=2.0, metavar="POINTS",
                   help="stop once every interval is within ±POINTS percentage points (2; 0 plays every fight)")
    p.add_argument("--seed", type=int, default=None, help="seed the fights for a repeatable forecast")
    p.add_argument("--workers", type=int, default=None, help="processes (default: every core beyond 400 fights; never more than the cores)")
    p.add_argument("--default-policy", action="store_true",
                   help="play by the documented policy, not by how this party plays (learned from its fights)")
    p.add_argument("--foe-target", default=None, metavar="RULE",
                   help="whom foes attack: fewest_hearts (the default policy's), most_hearts, first, random")
    p.add_argument("--no-luck", action="store_true", help="spend no luck dice on failed death saves")
    p.add_argument("--pool-luck", action="store_true", help="the whole table spends luck dice on a death save")
    p.add_argument("--retreat-when-down", type=int, default=None, metavar="N",
                   help="the party retreats once N delvers are down (default: never)")
    p.add_argument("--json", action="store_true", help="print the forecast as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress line on stderr")
    p.add_argument("--as-prepared", action="store_true",
                   help="forecast the campaign named as it is, not its play copy (examples/play/NAME)")

    p = sub.add_parser("rules", help="show facts about the bundled rules")
    p.add_argument("--assumptions", action="store_true", help="list the assumptions made reading RULES.md")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    try:
        return _main(argv)
    except BrokenPipeError:  # `delvebook rules --assumptions | head`: the reader stopped early
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["lab"] and not {"-h", "--help"} & set(argv[1:]):
        # Everything after the optional campaign goes to jupyter lab untouched
        # (argparse would take the value of `--port 8899` for the campaign).
        rest = argv[1:]
        campaign = rest.pop(0) if rest and not rest[0].startswith("-") else None
        return _cmd_lab(argparse.Namespace(campaign=campaign), rest)
    args = _parser().parse_args(argv)
    if args.command in READING:
        return READING[args.command](args)
    if args.command == "roll":
        return _cmd_roll(args)
    if args.command == "odds":
        return _cmd_odds(args)
    if args.command == "new":
        return _cmd_new(args)
    if args.command == "validate":
        return _cmd_validate(args)
    if args.command == "players":
        return _cmd_players(args)
    if args.command == "share":
        return _cmd_share(args)
    if args.command == "danger":
        return _cmd_danger(args)
    if args.command == "lite":
        return _cmd_lite(args)
    return _cmd_rules(args)


if __name__ == "__main__":
    sys.exit(main())
