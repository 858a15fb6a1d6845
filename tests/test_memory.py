"""`# text` (Claude Code's memory shortcut): one line appended to the project's rules file or the user's own,
which the next prompt's L2 sends. The real app and engine, a fake server on 127.0.0.1 (core/memory.py)."""

from __future__ import annotations

import pytest

from contextual.core.memory import NotRemembered, project_file, remember
from contextual.tui.app import ContextualApp
from contextual.tui.slash.memory import is_memory
from contextual.tui.prompt_view import next_prompt
from contextual.tui.screens.memory_choice import MemoryChoice
from tests.tui_helpers import SIZE, chat_text, finish, make_host, server, type_and_send, wait_for


async def test_hash_line_goes_to_the_projects_agents_md_and_the_next_prompt_sends_it(tmp_path):
    with server([finish("ok")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            root = app.config.project_root
            (root / "AGENTS.md").write_text("# Rules\nuse tabs")              # no newline at its end
            await type_and_send(pilot, "# always run pytest with -q")
            await wait_for(pilot, lambda: isinstance(app.screen, MemoryChoice))
            await pilot.press("p")
            await wait_for(pilot, lambda: "remembered in" in chat_text(app))
            assert (root / "AGENTS.md").read_text() == "# Rules\nuse tabs\n- always run pytest with -q\n"
            l2 = [m.content for m in next_prompt(app.engine).messages if m.layer == "L2"]
            assert any("- always run pytest with -q" in c for c in l2)
            assert not srv.requests                                           # nothing was sent to the model


async def test_slash_memory_shows_the_files_and_with_text_remembers_it(tmp_path):
    """Claude Code users type /memory: it showed 'unknown command'. Without text it shows both files (what every
    prompt sends in L2); with text it asks where, as `# text` does."""
    from contextual.tui.screens.info import InfoScreen
    from tests.test_tui_outside_text import rendered
    with server([finish("ok")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            root = app.config.project_root
            (root / "AGENTS.md").write_text("# Rules\n- use tabs\n")
            await type_and_send(pilot, "/memory")
            await wait_for(pilot, lambda: isinstance(app.screen, InfoScreen))
            shown = rendered(app.screen.body)
            assert str(root / "AGENTS.md") in shown and "- use tabs" in shown and "(nothing yet)" in shown
            await pilot.press("escape")
            await type_and_send(pilot, "/memory keep the tests fast")
            await wait_for(pilot, lambda: isinstance(app.screen, MemoryChoice))
            await pilot.press("p")
            await wait_for(pilot, lambda: "remembered in" in chat_text(app))
            assert (root / "AGENTS.md").read_text().endswith("- keep the tests fast\n") and not srv.requests


async def test_slash_memory_reads_only_the_head_of_a_huge_rules_file(tmp_path):
    """A checkout's AGENTS.md of 5 GB (sparse: no disk) was read whole, and decoded, to show 4,000 characters."""
    import os
    import tracemalloc
    from contextual.tui.screens.info import InfoScreen
    from tests.test_tui_outside_text import rendered
    with server([finish("ok")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            agents = app.config.project_root / "AGENTS.md"
            with open(agents, "wb") as handle:
                handle.write(b"- the first rule\n")
                handle.truncate(64 * 1024 * 1024)
            tracemalloc.start()
            try:
                await type_and_send(pilot, "/memory")
                await wait_for(pilot, lambda: isinstance(app.screen, InfoScreen))
                peak = tracemalloc.get_traced_memory()[1]
            finally:
                tracemalloc.stop()
            assert "- the first rule" in rendered(app.screen.body) and os.path.getsize(agents) == 64 * 1024 * 1024
            assert peak < 64 * 1024 * 1024, f"{peak:,} bytes held to show the head of {agents.name}"   # whole: 135 MB


async def test_u_goes_to_the_users_own_file_and_esc_gives_the_line_back(tmp_path):
    with server([finish("ok")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await type_and_send(pilot, "# prefer httpx over requests")
            await wait_for(pilot, lambda: isinstance(app.screen, MemoryChoice))
            await pilot.press("u")
            await wait_for(pilot, lambda: "remembered in" in chat_text(app))
            assert (app.config.home / "AGENTS.md").read_text() == "- prefer httpx over requests\n"
            await type_and_send(pilot, "# not this one")
            await wait_for(pilot, lambda: isinstance(app.screen, MemoryChoice))
            await pilot.press("escape")
            await wait_for(pilot, lambda: not isinstance(app.screen, MemoryChoice))
            assert app.query_one("#prompt").text == "# not this one"
            assert not (app.config.project_root / "AGENTS.md").exists() and not srv.requests


def test_which_lines_are_memories_and_which_file_takes_them(tmp_path):
    assert is_memory("# keep answers short") and not is_memory("## Heading") and not is_memory("#")
    assert not is_memory("# Title\nand a message below it") and not is_memory("#hashtag")
    assert project_file(tmp_path) == tmp_path / "AGENTS.md"
    (tmp_path / "claude.md").write_text("x\n")
    assert project_file(tmp_path) == tmp_path / "claude.md"
    (tmp_path / "AGENTS.md").write_text("y\n")
    assert project_file(tmp_path) == tmp_path / "AGENTS.md"


def test_a_link_is_never_written_through(tmp_path):
    outside = tmp_path / "elsewhere.md"
    outside.write_text("keep\n")
    link = tmp_path / "proj" / "AGENTS.md"
    link.parent.mkdir()
    link.symlink_to(outside)
    with pytest.raises(NotRemembered, match="is a link"):
        remember("x", link)
    assert outside.read_text() == "keep\n"


def test_a_rules_file_that_is_a_fifo_is_refused_in_one_line_without_waiting_for_a_reader(tmp_path):
    """A checkout's AGENTS.md that is a FIFO: appending opened it for writing, which waits for a reader for good,
    the app frozen under the `# text` question (red team)."""
    import os
    os.mkfifo(tmp_path / "AGENTS.md")
    assert project_file(tmp_path) == tmp_path / "AGENTS.md"
    reader = os.open(tmp_path / "AGENTS.md", os.O_RDONLY | os.O_NONBLOCK)   # so a regression fails, not hangs
    try:
        with pytest.raises(NotRemembered, match="AGENTS.md is not a regular file"):
            remember("keep it short", tmp_path / "AGENTS.md")
        assert os.read(reader, 100) == b""
    finally:
        os.close(reader)
