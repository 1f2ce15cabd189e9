"""What delvebook writes outside a campaign: a file replaced whole, a folder of its own output swapped whole, never
through a symlink and never over what it did not make; names in Markdown shown as they are."""
from __future__ import annotations

import html
import os
import stat

import pytest
from hypothesis import given
from hypothesis import strategies as st

from delvebook.store import publish
from delvebook.store.publish import Refused, markdown_code, markdown_text, read_file, replace_folder, write_file


def test_a_file_is_replaced_by_a_rename_and_keeps_its_permissions(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("old\n")
    readme.chmod(0o640)
    before = os.stat(readme).st_ino
    write_file(readme, "new\n")
    assert readme.read_text() == "new\n" and os.stat(readme).st_ino != before
    assert stat.S_IMODE(os.stat(readme).st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["README.md"], "no temporary file is left"


def test_a_symlinked_file_is_neither_read_nor_written(tmp_path):
    victim = tmp_path / "bashrc"
    victim.write_text("export PATH=...\n")
    (tmp_path / "README.md").symlink_to(victim)
    with pytest.raises(Refused, match="symlink"):
        write_file(tmp_path / "README.md", "badge\n")
    with pytest.raises(Refused, match="symlink"):
        read_file(tmp_path / "README.md")
    assert victim.read_text() == "export PATH=...\n" and (tmp_path / "README.md").is_symlink()


def test_a_write_that_fails_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    target = tmp_path / "f.txt"
    target.write_text("old")
    monkeypatch.setattr(publish.os, "replace", lambda *a: (_ for _ in ()).throw(OSError(28, "No space left")))
    with pytest.raises(OSError):
        write_file(target, "new")
    assert target.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == ["f.txt"]


def _ours(folder, names):
    return None if set(names) <= {"a.txt", "b.txt"} else ", ".join(names)


@pytest.mark.parametrize("exchange", [True, False], ids=["one exchange", "two renames"])
def test_a_folder_of_our_output_is_swapped_in_whole(tmp_path, monkeypatch, exchange):
    if not exchange:
        monkeypatch.setattr(publish, "_exchange", lambda a, b: False)
    out = tmp_path / "out"
    replace_folder(out, lambda f: (f / "a.txt").write_text("1"), _ours)
    replace_folder(out, lambda f: (f / "b.txt").write_text("2"), _ours)
    assert sorted(p.name for p in out.iterdir()) == ["b.txt"], "the old set is gone whole, not merged"
    assert stat.S_IMODE(os.stat(out).st_mode) & 0o755 == 0o755
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"], "nothing is left beside it"


def test_a_fill_that_fails_leaves_the_previous_folder_untouched(tmp_path):
    out = tmp_path / "out"
    replace_folder(out, lambda f: (f / "a.txt").write_text("1"), _ours)

    def half(folder):
        (folder / "b.txt").write_text("half")
        raise RuntimeError("killed")
    with pytest.raises(RuntimeError):
        replace_folder(out, half, _ours)
    assert sorted(p.name for p in out.iterdir()) == ["a.txt"] and (out / "a.txt").read_text() == "1"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_a_folder_holding_what_delvebook_did_not_make_is_refused_before_anything_is_written(tmp_path):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "notes.md").write_text("mine")
    filled = []
    with pytest.raises(Refused, match=r"\.git, notes\.md"):
        replace_folder(repo, filled.append, _ours)
    assert not filled and sorted(p.name for p in repo.iterdir()) == [".git", "notes.md"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["repo"]


def test_a_symlinked_folder_is_refused_and_a_file_is_no_folder(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    with pytest.raises(Refused, match="symlink"):
        replace_folder(tmp_path / "link", lambda f: None, _ours)
    (tmp_path / "file").write_text("x")
    with pytest.raises(Refused, match="not a folder"):
        replace_folder(tmp_path / "file", lambda f: None, _ours)


def test_leftovers_of_a_killed_writer_are_swept_and_a_live_ones_kept(tmp_path):
    dead = tmp_path / f".out.delvebook-new-{2 ** 22 + 12345}-abc"
    live = tmp_path / f".out.delvebook-new-{os.getppid()}-def"
    dead.mkdir()
    live.mkdir()
    replace_folder(tmp_path / "out", lambda f: None, _ours)
    assert not dead.exists() and live.exists()


# ---------------------------------------------------------------- Markdown

mistune = pytest.importorskip("mistune")


def _inline(markdown: str) -> str:
    out = mistune.html(markdown).strip()
    assert out.startswith("<p>") and out.endswith("</p>"), out
    return html.unescape(out[3:-4])


@given(st.text(max_size=30))
def test_a_name_in_markdown_text_shows_exactly_as_written(name):
    shown = _inline(f"x {markdown_text(name)} y")
    if name.isprintable():
        assert shown == f"x {name} y"
    assert "<" not in mistune.html(f"x {markdown_text(name)} y").replace("<p>", "").replace("</p>", "")


@given(st.text(min_size=1, max_size=30).filter(lambda s: s.isprintable() and s.strip() == s))
def test_a_name_in_a_code_span_shows_exactly_as_written(name):
    out = mistune.html(f"x {markdown_code(name)} y")
    assert out.count("<code>") == 1
    assert html.unescape(out[out.index("<code>") + 6:out.index("</code>")]) == name


def test_markup_in_a_name_stays_text():
    out = mistune.html(f"# {markdown_text('<img src=x onerror=alert(1)> [a](http://evil) *b*')}: the table\n\n"
                       f"{markdown_text('line one' + chr(10) + '# not a heading')}")
    assert "<img" not in out and "<a " not in out and "<em>" not in out and out.count("<h1>") == 1
    assert "&lt;img src=x onerror=alert(1)&gt;" in out and "line one\\n# not a heading" in out
