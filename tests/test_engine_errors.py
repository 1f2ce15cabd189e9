"""A mistake in calling a command is refused, naming it; a mistake inside a command is an error, not a refusal."""

from __future__ import annotations

import pytest

from delvebook.core import declared
from delvebook.core.declared import Action
from delvebook.engine import COMMANDS, Refused, command
from delvebook.core.events import clone
from enginekit import Table


def test_an_argument_a_command_does_not_take_is_refused_naming_it_and_the_ones_it_takes():
    t = Table().party(("Wren", "rogue"))
    msg = t.refused("award_xp", amount=5, resaon="typo")
    assert "'resaon'" in msg and "amount" in msg and "reason" in msg


def test_a_missing_argument_is_refused_naming_it():
    t = Table().party(("Wren", "rogue"))
    msg = t.refused("check", skill="stealth", target=10)
    assert "'who'" in msg and "check" in msg


def test_an_option_no_rule_reads_is_refused_naming_the_options():
    t = Table().party(("Wren", "rogue"))
    t.do("encounter", foes=[{"foe": "goblin", "name": "Gob"}])
    msg = t.refused("attack", attacker="Wren", target="Gob", smiet=True)
    assert "'smiet'" in msg and "smite" in msg


@pytest.fixture
def broken_command():
    class Broken(Action, kind="test_broken"):
        pass

    @command(Broken)
    def broken(ctx, who: str) -> None:
        ctx.set(["xp_pool"], 99)
        len(5)  # a programming error: TypeError "object of type 'int' has no len()"
    yield
    del COMMANDS["test_broken"]
    declared.forget("test_broken")


def test_a_programming_error_inside_a_command_propagates_as_itself_and_changes_nothing(broken_command):
    t = Table().party(("Wren", "rogue"))
    before = clone(t.state)
    with pytest.raises(TypeError):
        t.do("test_broken", who="Wren")
    assert t.state == before


def test_a_type_error_that_mentions_an_argument_is_still_an_error(broken_command):
    class BrokenArgs(Action, kind="test_broken_args"):
        pass

    @command(BrokenArgs)
    def broken(ctx) -> None:
        def inner(a):
            return a
        inner(1, 2)  # "takes 1 positional argument but 2 were given"
    try:
        t = Table()
        with pytest.raises(TypeError, match="argument"):
            t.do("test_broken_args")
    finally:
        del COMMANDS["test_broken_args"]
        declared.forget("test_broken_args")
    assert not isinstance(TypeError("x"), Refused)
