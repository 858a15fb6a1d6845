"""L2 rules files (issues 16.1, 13.8; CONTRACT Additions): CODE_LAW.md, AGENTS.md, CLAUDE.md, each held to its
share of the window, never in history, each its own part of L2 in the PromptView."""

from __future__ import annotations

from pathlib import Path

from contextual.core.context.rules import find_rules_files
from contextual.core.events import CompactionStarted
from tests.engine_helpers import engine_with, finish, run


def test_rules_files_are_found_once_each_in_order_any_case(tmp_path: Path):
    (tmp_path / "claude.MD").write_text("c")
    (tmp_path / "Agents.md").write_text("a")
    (tmp_path / "code_law.md").write_text("l")
    (tmp_path / "README.md").write_text("r")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "AGENTS.md").write_text("nested: not read")
    assert [p.name for p in find_rules_files(tmp_path)] == ["code_law.md", "Agents.md", "claude.MD"]


async def test_each_rules_file_is_its_own_l2_message_with_its_name_and_tokens(tmp_path: Path):
    (tmp_path / "CODE_LAW.md").write_text("Use tabs.")
    (tmp_path / "AGENTS.md").write_text("Run make test before finishing.")
    (tmp_path / "CLAUDE.md").write_text("Prefer small functions.")
    async with engine_with(tmp_path, [finish(), finish()]) as (engine, srv):
        view = engine.next_prompt("hi")
        await run(engine, "hi")
    sent = srv.requests[0]["messages"]
    assert [m["role"] for m in sent[:4]] == ["system"] * 4
    assert sent[1]["content"] == "Project rules (CODE_LAW.md):\n\nUse tabs."
    assert sent[2]["content"] == "Project rules (AGENTS.md):\n\nRun make test before finishing."
    assert sent[3]["content"] == "Project rules (CLAUDE.md):\n\nPrefer small functions."
    l2 = [(name, tokens) for name, tokens in view.layers if name.startswith("L2")]
    assert [name for name, _ in l2] == ["L2 CODE_LAW.md", "L2 AGENTS.md", "L2 CLAUDE.md"]
    assert sum(t for _, t in l2) == view.tokens["L2"] and all(t > 0 for _, t in l2)
    assert not any("Use tabs" in m.content for m in engine.history.messages)


async def test_a_5mb_code_law_is_cut_to_its_share_named_and_fires_no_compaction(tmp_path: Path):
    (tmp_path / "CODE_LAW.md").write_text("BEGIN RULES\n" + "Rule: keep it simple and tested.\n" * 160_000
                                          + "END RULES\n")                    # ~5.3 MB
    window = 20_000
    script = [finish(f"answer {i}") for i in range(4)]
    async with engine_with(tmp_path, script, context_window=window, keep_rounds=1) as (engine, srv):
        events = [e for i in range(4) for e in await run(engine, f"question {i}")]
        view = engine.next_prompt("next")
    assert not any(isinstance(e, CompactionStarted) for e in events)          # never fires by itself
    assert not view.trigger.due
    rules = srv.requests[-1]["messages"][1]["content"]
    assert rules.startswith("Project rules (CODE_LAW.md):\n\nBEGIN RULES") and rules.endswith("END RULES")
    assert "CODE_LAW.md is larger than its share of the context window" in rules
    l2 = next(m for m in view.messages if m.layer == "L2")
    assert l2.form == "cut" and l2.tokens <= window // 10 + 40
    assert not view.adjustments                                                # no history fitted for it
    assert [m["content"] for m in srv.requests[-1]["messages"] if m["role"] == "user"][:3] == [
        "question 0", "question 1", "question 2"]


def test_started_in_a_sub_folder_the_rules_files_up_to_the_git_root_are_named_as_not_read(tmp_path: Path):
    # Codex and Claude Code read the checkout root's AGENTS.md from a sub-folder; we do not, so the user is told.
    from tests.cli_helpers import cli_env, contextual, home_of
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "AGENTS.md").write_text("Run make test.")
    (root / "pkg" / "sub").mkdir(parents=True)
    (root / "pkg" / "CLAUDE.md").write_text("Be brief.")
    (tmp_path / "AGENTS.md").write_text("outside the checkout: never named")
    env = cli_env(home_of(root), "http://127.0.0.1:9/v1")
    below = contextual(["context"], root / "pkg" / "sub", env)
    assert below.returncode == 0, below.stderr
    line = next(ln for ln in below.stderr.splitlines() if "not read" in ln)
    assert f"{root / 'AGENTS.md'}, {root / 'pkg' / 'CLAUDE.md'} not read" in line and f"start it in {root}" in line
    assert str(tmp_path / "AGENTS.md") not in below.stderr
    at_root = contextual(["context"], root, env)
    assert at_root.returncode == 0 and "not read" not in at_root.stderr
    assert "Run make test." in at_root.stdout
