"""The shipped rules and a campaign file already checked are read from a prepared form in the user's cache
(``delvebook.core.cache``), named by the digest of their YAML bytes and of this delvebook: a fresh process opens a
campaign without reading YAML, and what it plays by is exactly what the YAML says. A prepared form that does not hold
(another YAML, a file changed, cut short, planted) is not used: the YAML is read again."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import delvebook as db
from delvebook.core import cache
from delvebook.core.rules import load
from delvebook.store import StoreError

from conftest import CAMPAIGNS


@pytest.fixture
def own_cache(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("DELVEBOOK_CACHE", str(folder))
    load.base_rules.cache_clear()
    yield folder
    load.base_rules.cache_clear()


def _fresh(script: str, *args: str) -> str:
    return subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, check=True,
                          env=dict(os.environ)).stdout


def test_a_second_process_opens_a_campaign_without_reading_yaml(own_cache, tmp_path):
    folder = tmp_path / "keep"
    shutil.copytree(CAMPAIGNS / "the-sunken-keep", folder)
    script = ("import sys, delvebook as db; c = db.Campaign.open(sys.argv[1], read_only=True); "
              "print('yaml' in sys.modules, sorted(c.state['delvers']), c.rules.core['luck_dice']['per_session'])")
    first, second = _fresh(script, str(folder)), _fresh(script, str(folder))
    assert first.split(" ", 1)[0] == "True" and second.split(" ", 1)[0] == "False"
    assert first.split(" ", 1)[1] == second.split(" ", 1)[1]


def test_the_prepared_rules_are_the_rules_the_yaml_says(own_cache):
    from_yaml = load._checked_base_rules()
    load.base_rules()  # prepares them
    load.base_rules.cache_clear()
    prepared = load.base_rules()
    assert prepared.data == from_yaml.data
    assert list(own_cache.glob("prepared/rules-*.json"))


@pytest.mark.parametrize("damage", ["a byte changed", "cut short", "planted without the key", "a folder"])
def test_a_prepared_form_that_does_not_hold_is_made_again_from_the_yaml(damage, own_cache):
    load.base_rules()
    file, = own_cache.glob("prepared/rules-*.json")
    data = file.read_bytes()
    if damage == "a byte changed":
        assert b'"per_session":3' in data
        file.write_bytes(data.replace(b'"per_session":3', b'"per_session":9', 1))
    elif damage == "cut short":
        file.write_bytes(data[:len(data) // 2])
    elif damage == "planted without the key":
        (own_cache / ".key").write_bytes(os.urandom(32))
    else:
        file.unlink()
        file.mkdir()
    load.base_rules.cache_clear()
    assert load.base_rules().data == load._checked_base_rules().data


def test_an_edited_campaign_file_is_read_again_not_taken_from_its_prepared_form(own_cache, tmp_path):
    folder = tmp_path / "keep"
    shutil.copytree(CAMPAIGNS / "the-sunken-keep", folder)
    db.Campaign.open(folder, read_only=True).close()
    text = (folder / "campaign.yaml").read_text(encoding="utf-8")
    (folder / "campaign.yaml").write_text(text.replace("name: The Sunken Keep", "name: The Risen Keep"),
                                          encoding="utf-8")
    with db.Campaign.open(folder, read_only=True) as camp:
        assert camp.name == "The Risen Keep"
    (folder / "campaign.yaml").write_text(text.replace("class: rogue", "class: rouge", 1), encoding="utf-8")
    with pytest.raises(StoreError) as refused:
        db.Campaign.open(folder, read_only=True)
    assert "campaign.yaml:" in str(refused.value)  # a problem still names its line


def test_plain_data_reads_back_exactly_or_is_not_kept():
    data = {"table": {11: "Spirit", 66: "Conceal"}, "odd": [1, 1.0, True, None, "1"], "\0pairs": 3}
    assert cache.loads_exact(cache.dumps_exact(data)) == data
    back = cache.loads_exact(cache.dumps_exact(data))
    assert [type(x) for x in back["odd"]] == [int, float, bool, type(None), str]
    assert list(back["table"]) == [11, 66]
    assert cache.dumps_exact({"t": (1, 2)}) is None and cache.dumps_exact({"x": float("nan")}) is None
