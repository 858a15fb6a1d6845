"""Issue 28: history's A3 forms keep their caps (Read 500 lines, Grep 5 matches, listings 10 entries) but give
their last places to what lies further on by meaning: definitions, and the lines and paths the task names."""

import json

from contextual.core.context import compressor


def _read(lines: list[str], level: str = "normal", focus: frozenset[str] = frozenset()) -> dict:
    content = "\n".join(f"{i:6}\t{line}" for i, line in enumerate(lines, start=1))
    result = {"status": "success", "data": {"path": "shop.py", "content": content, "start_line": 1,
                                            "end_line": len(lines), "total_lines": len(lines)}}
    return json.loads(compressor.stored_text("Read", {"file_path": "shop.py"}, result, level, focus))["data"]


def _module(size: int, named_at: int = 1500) -> list[str]:
    """`size` lines of statements with a class every 100 lines and a function every 50 after line 600, and the
    call the task asks about at `named_at`."""
    lines = [f"    total_{i} = compute(total_{i - 1})" for i in range(size)]
    for i in range(600, size, 50):
        lines[i] = f"def handler_{i}(request):"
    for i in range(650, size, 100):
        lines[i] = f"class Model{i}:"
    lines[named_at] = "    apply_discount(cart)  # the call the task asks about"
    return lines


def test_a_long_read_keeps_500_lines_with_the_definitions_and_named_lines_further_down_numbered():
    lines = _module(2000)
    kept = _read(lines, focus=frozenset({"apply_discount"}))
    rows = kept["content"].splitlines()
    assert len(rows) == 500
    assert "   601\tdef handler_600(request):" in rows and "   651\tclass Model650:" in rows
    assert "  1501\t    apply_discount(cart)  # the call the task asks about" in rows
    assert rows[0] == "     1\t    total_0 = compute(total_-1)"
    head = next(i for i, row in enumerate(rows) if not row.startswith(f"{i + 1:6}\t"))
    assert head < 500 and "first" in kept["omitted"] and "Read again with offset" in kept["omitted"]
    assert f"after the first {head} of this range" in kept["omitted"]
    assert f"but for {500 - head} kept at its end with their numbers" in kept["omitted"]


def test_without_a_task_name_or_a_definition_further_down_the_first_500_lines_stay():
    lines = [f"row {i}" for i in range(800)]
    kept = _read(lines, focus=frozenset({"apply_discount"}))
    assert kept["content"].splitlines() == [f"{i:6}\trow {i - 1}" for i in range(1, 501)]
    assert kept["omitted"] == "lines after the first 500 of this range were cut; Read again with offset to see them"


def test_definitions_the_first_lines_already_hold_take_no_place_from_them():
    kept = _read([f"def total_{i}(): return {i}" for i in range(800)])
    assert kept["content"].splitlines() == [f"{i:6}\tdef total_{i - 1}(): return {i - 1}" for i in range(1, 501)]
    assert kept["omitted"].startswith("lines after the first 500 of this range were cut;")


def test_the_harder_read_keeps_80_lines_with_at_most_12_definitions_and_2_named_lines():
    lines = _module(2000)
    kept = _read(lines, "hard", frozenset({"apply_discount", "compute_tax", "Model650"}))["content"].splitlines()
    assert len(kept) == 80
    assert sum("def handler_" in row or "class Model" in row for row in kept) == 12
    assert "  1501\t    apply_discount(cart)  # the call the task asks about" in kept


def _grep(matches: list[dict], level: str = "normal", focus: frozenset[str] = frozenset()) -> dict:
    data = {"pattern": "discount", "matches": matches, "match_count": len(matches), "file_count": 3}
    result = {"status": "success", "data": data}
    return json.loads(compressor.stored_text("Grep", {"pattern": "discount"}, result, level, focus))["data"]


def test_a_grep_gives_its_last_places_to_a_definition_and_a_line_the_task_names():
    matches = [{"path": f"docs/page{i}.txt", "line": i, "text": f"discount mentioned {i}"} for i in range(30)]
    matches[17] = {"path": "src/shop/pricing.py", "line": 88, "text": "def discount(cart):"}
    matches[24] = {"path": "src/shop/cart.py", "line": 12, "text": "total = apply_discount(cart)"}
    kept = _grep(matches, focus=frozenset({"apply_discount"}))
    assert kept["matches"] == ["docs/page0.txt:0: discount mentioned 0", "docs/page1.txt:1: discount mentioned 1",
                               "docs/page2.txt:2: discount mentioned 2", "src/shop/pricing.py:88: def discount(cart):",
                               "src/shop/cart.py:12: total = apply_discount(cart)"]
    # other_files counts what was not kept: the two chosen ones are not counted again
    assert "src/shop/pricing.py (1)" not in kept["other_files"] and "25 more matches" in kept["omitted"]
    assert _grep(matches, "hard", frozenset({"apply_discount"}))["matches"] == [
        "docs/page0.txt:0: discount mentioned 0", "docs/page1.txt:1: discount mentioned 1",
        "src/shop/pricing.py:88: def discount(cart):"]


def test_a_grep_with_fewer_matches_than_its_first_places_keeps_them_all_when_the_task_names_something():
    """One or two matches and a task naming a word: naming_focus read rows past the last (IndexError), and
    `contextual -p` ended with 'internal error' at its first such Grep (helper57)."""
    for count in (1, 2):
        matches = [{"path": "src/a.py", "line": i + 1, "text": f"TOKEN = {i}"} for i in range(count)]
        for level in ("normal", "hard"):
            kept = _grep(matches, level, frozenset({"handler", "TOKEN"}))
            assert kept["matches"] == [f"src/a.py:{i + 1}: TOKEN = {i}" for i in range(count)]


def test_a_listing_keeps_the_entries_the_task_names_within_its_ten():
    paths = [f"src/pkg/mod_{i}.py" for i in range(200)]
    paths[150] = "src/shop/pricing.py"
    result = {"status": "success", "data": {"pattern": "**/*.py", "paths": paths, "count": 200}}
    kept = json.loads(compressor.stored_text("Glob", {"pattern": "**/*.py"}, result,
                                             focus=frozenset({"shop/pricing.py"})))["data"]
    assert kept["paths"] == paths[:9] + ["src/shop/pricing.py"] and "190 more" in kept["omitted"]
    plain = json.loads(compressor.stored_text("Glob", {"pattern": "**/*.py"}, result))["data"]
    assert plain["paths"] == paths[:10]


async def test_a_turn_records_its_read_and_grep_with_what_lies_further_down(tmp_path):
    from contextual.core.session import latest_session, load_session
    from tests.cli_helpers import cli_env, contextual
    from tests.fakes.llm_server import FakeLLMServer
    project = tmp_path / "p"
    project.mkdir()
    lines = _module(900, named_at=800)
    (project / "shop.py").write_text("\n".join(lines) + "\n")
    script = ['Thought: read it\nAction: Read[{"file_path": "shop.py"}]',
              'Thought: where\nAction: Grep[{"pattern": "total_4|apply_discount"}]',
              "Thought: ok\nAction: Finish[seen]"]
    with FakeLLMServer(kind="openai", script=script) as srv:
        env = cli_env(tmp_path / "home", srv.base_url)
        done = contextual(["-p", "why does apply_discount return 0.0?", "--permission-mode", "bypass"], project, env)
    assert done.returncode == 0, done.stderr
    tools = [m for m in load_session(latest_session(tmp_path / "home", project)).history if m.role == "tool"]
    read, grep = (json.loads(m.content)["data"] for m in tools)
    assert len(read["content"].splitlines()) == 500 and "   851\tclass Model850:" in read["content"]
    assert "   801\t    apply_discount(cart)" in read["content"]
    assert len(grep["matches"]) == 5 and any("apply_discount" in row for row in grep["matches"])


def test_a_large_diff_keeps_where_it_changed_the_file_and_the_changed_lines_the_task_names():
    hunks = []
    for n in range(14):
        hunks += [f"@@ -{n * 40 + 1},20 +{n * 40 + 1},21 @@ def block_{n}():"]
        hunks += [f"-    old_{n}_{i} = {i}" for i in range(10)] + [f"+    new_{n}_{i} = {i}" for i in range(10)]
    hunks[200] = "+    total = apply_discount(cart)"
    data = {"path": "a.py", "edits_applied": 14, "diff": "\n".join(["--- a/a.py", "+++ b/a.py", *hunks]),
            "lines_added": 141, "lines_removed": 140}
    result = {"status": "success", "data": data}
    kept = json.loads(compressor.stored_text("MultiEdit", {}, result, focus=frozenset({"apply_discount"})))["data"]
    summary = kept["diff"].splitlines()
    assert summary[0] == "(large diff: summary only)"
    assert summary[1] == "hunks: " + " ".join(f"@@ -{n * 40 + 1},20 +{n * 40 + 1},21 @@" for n in range(10)) + " and 4 more"
    assert summary[2:] == ["named by the task:", "+    total = apply_discount(cart)"]
