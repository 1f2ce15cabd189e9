"""The `delvebook` command line: reproducible rolls, clean errors, exact odds."""
from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from itertools import product

import pytest

from delvebook.cli import commands as cli
from conftest import REPO


def delvebook(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "delvebook", *args],
                          capture_output=True, text=True, timeout=60)


def _die(sides: int) -> range:
    return range(1, sides + 1)


def test_a_seeded_roll_is_the_same_every_time():
    first, second = delvebook("roll", "2d20kh1+d6", "--seed", "7"), delvebook("roll", "2d20kh1+d6", "--seed", "7")
    assert first.returncode == 0, first.stderr
    assert first.stdout == second.stdout
    assert "2d20kh1" in first.stdout.lower()


def test_roll_as_json_keeps_every_die():
    out = delvebook("roll", "3d6+1", "--seed", "3", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert isinstance(data, dict)
    assert data["total"] == json.loads(delvebook("roll", "3d6+1", "--seed", "3", "--json").stdout)["total"]
    assert 4 <= data["total"] <= 19


def test_bad_notation_exits_2_with_a_message():
    out = delvebook("roll", "2d")
    assert out.returncode == 2
    assert out.stdout == ""
    assert "delvebook roll:" in out.stderr and len(out.stderr.strip()) > len("delvebook roll:")
    assert "Traceback" not in out.stderr


def test_odds_vs_prints_the_exact_win_tie_lose():
    rolls = list(product(_die(20), _die(6), _die(20)))
    win = Fraction(sum(a + b > c for a, b, c in rolls), len(rolls))
    tie = Fraction(sum(a + b == c for a, b, c in rolls), len(rolls))
    lose = 1 - win - tie
    out = delvebook("odds", "d20+d6", "--vs", "d20")
    assert out.returncode == 0, out.stderr
    for word, p in [("win", win), ("tie", tie), ("lose", lose)]:
        line = next(l for l in out.stdout.splitlines() if l.split()[:1] == [word])
        assert f"({p.numerator}/{p.denominator})" in line


def test_odds_target_prints_the_exact_chance_to_meet_or_beat():
    rolls = list(product(_die(20), _die(6), _die(6)))
    p = Fraction(sum(sum(r) >= 15 for r in rolls), len(rolls))
    out = delvebook("odds", "d20+2d6", "--target", "15")
    assert out.returncode == 0, out.stderr
    assert f"({p.numerator}/{p.denominator})" in out.stdout


def test_odds_alone_prints_the_distribution():
    out = delvebook("odds", "2d6")
    assert out.returncode == 0, out.stderr
    assert "(1/6)" in out.stdout  # a 7 on 2d6
    assert "(1/36)" in out.stdout  # a 2 or a 12


def test_rules_assumptions_lists_each_with_its_path_and_reason():
    out = delvebook("rules", "--assumptions")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    assert lines and all(line.startswith("- ") and ": " in line for line in lines)
    assert any(line.startswith("- core.luck_dice.die: ") for line in lines)


def test_lab_opens_the_session_notebook_for_the_campaign(monkeypatch, tmp_path):
    calls = []
    monkeypatch.setattr(cli.subprocess, "call", lambda cmd, env, cwd: calls.append((cmd, env, cwd)) or 0)
    monkeypatch.chdir(tmp_path)  # the notebook is still found beside the package
    assert cli.main(["lab", "campaigns/keep", "--port", "8899", "--no-browser"]) == 0
    (cmd, env, cwd), = calls
    assert cmd[:3] == [sys.executable, "-m", "jupyterlab"]
    assert cmd[cmd.index("--port"):][:3] == ["--port", "8899", "--no-browser"]
    assert any(a.endswith("run-a-session.ipynb") for a in cmd)
    assert env["DELVEBOOK_CAMPAIGN"] == str(tmp_path / "campaigns" / "keep")


def _campaign(tmp_path, text: str):
    folder = tmp_path / "c"
    folder.mkdir()
    (folder / "campaign.yaml").write_text(text)
    (folder / "log.yaml").write_text("")
    return folder


def test_validate_names_a_foe_without_tags_by_file_line_and_field(tmp_path):
    folder = _campaign(tmp_path, "format: 1\nname: Pond\nbestiary:\n  newt:\n    name: Newt\n    hearts: 1\n"
                                 "    attack_bonus: 0\n    damage: 1\n")
    out = delvebook("validate", str(folder))
    assert out.returncode == 1
    assert f"{folder / 'campaign.yaml'}:4: bestiary.newt.tags: missing: a foe has tags" in out.stdout


def test_validate_refuses_a_luck_die_the_engine_cannot_roll(tmp_path):
    folder = _campaign(tmp_path, "format: 1\nname: Pond\nhouse_rules:\n  core:\n    luck_dice:\n      die: 2d4\n")
    out = delvebook("validate", str(folder))
    assert out.returncode == 1
    assert "campaign.yaml:6: house_rules.core.luck_dice.die: expected a single die" in out.stdout


def test_validate_replays_the_log_of_a_well_formed_folder(tmp_path):
    folder = _campaign(tmp_path, "format: 1\nname: Pond\n")
    (folder / "log.yaml").write_text('- {"seq": 1, "kind": "undo", "undoes": 1}\n')
    out = delvebook("validate", str(folder))
    assert out.returncode == 1 and "log.yaml:1: undo: " in out.stdout and "undo with nothing to undo" in out.stdout
    (folder / "log.yaml").write_text("")
    assert delvebook("validate", str(folder)).stdout.strip().endswith("valid (0 events)")


def test_version_prints_the_installed_version_and_exits_0():
    from importlib.metadata import version

    from delvebook import __version__
    out = delvebook("--version")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"delvebook {__version__}"
    assert __version__ == version("delvebook")


def test_lab_without_jupyterlab_names_the_extra(monkeypatch, capsys):
    from delvebook.core import extras
    monkeypatch.setattr(extras, "missing", lambda *names: [n for n in names if n == "jupyterlab"])
    monkeypatch.setattr(cli.subprocess, "call", lambda *a, **k: pytest.fail("started JupyterLab"))
    assert cli.main(["lab"]) == 2
    assert "pip install 'delvebook[lab]'" in capsys.readouterr().err


def test_lab_outside_the_repository_lays_out_the_packaged_notebook_and_campaign(monkeypatch, tmp_path):
    calls = []
    monkeypatch.setattr(cli.subprocess, "call", lambda cmd, env, cwd: calls.append((cmd, cwd)) or 0)
    monkeypatch.setattr(cli, "_find_notebook", lambda: None)  # as from a wheel: no examples/ anywhere
    monkeypatch.chdir(tmp_path)
    assert cli.main(["lab", "--no-browser"]) == 0
    folder = tmp_path / "delvebook-lab"
    (cmd, cwd), = calls
    assert cwd == folder and f"--ServerApp.root_dir={folder}" in cmd
    assert "examples/run-a-session.ipynb" in cmd
    assert (folder / "examples" / "run-a-session.ipynb").read_bytes() == \
        (REPO / "examples" / "run-a-session.ipynb").read_bytes()  # (a checkout: the session's one source)
    assert (folder / "campaigns" / "the-sunken-keep" / "campaign.yaml").is_file()
    (folder / "examples" / "run-a-session.ipynb").write_text("{}")  # the keeper's own edits survive a rerun
    assert cli.main(["lab"]) == 0
    assert (folder / "examples" / "run-a-session.ipynb").read_text() == "{}"


def _players_command(monkeypatch, *args: str) -> dict:
    from delvebook.core import extras
    from delvebook.pages import server
    seen = {}
    monkeypatch.setattr(extras, "missing", lambda *names: [])
    monkeypatch.setattr(server, "run", lambda campaign, **options: seen.update(campaign=campaign, **options) or 0)
    keep = __import__("pathlib").Path(__file__).resolve().parent.parent / "campaigns" / "the-sunken-keep"
    assert cli.main(["players", str(keep), *args]) == 0
    return seen


def test_players_serves_this_machine_only_by_default(monkeypatch):
    seen = _players_command(monkeypatch)
    assert seen["ip"] == "127.0.0.1" and seen["port"] == 8866 and not seen["new_links"]


def test_players_for_the_phones_listens_beyond_this_machine_with_no_secret_on_the_command_line(monkeypatch, capsys):
    seen = _players_command(monkeypatch, "--ip", "0.0.0.0", "--allow-host", "keeper.local", "--hide-hearts")
    assert seen["ip"] == "0.0.0.0" and seen["allow_hosts"] == ("keeper.local",) and seen["hide_hearts"]
    with pytest.raises(SystemExit):
        cli.main(["players", "campaigns/the-sunken-keep", "--token", "mine"])  # a secret is never an argument
    assert "unrecognized arguments: --token" in capsys.readouterr().err


def test_validate_prints_what_opening_noted(tmp_path, capsys):
    folder = _campaign(tmp_path, "format: 1\nname: Pond\n")
    (folder / "log.yaml").write_text('- {"seq": 1, "kind": "rest", "v": 1, "at": 0, "session": 0, "args": {}, '
                                     '"changes": []}\n- {"seq": 2, "ki')
    assert cli.main(["validate", str(folder)]) == 1  # a torn tail is a problem until a writable open sets it aside
    assert "torn last line" in capsys.readouterr().out
