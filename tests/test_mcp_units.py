"""MCP pieces without a server: configuration, the L1 rendering, result conversion, the stored form."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from contextual.core import permissions
from contextual.core.context import compressor
from contextual.core.mcp import describe
from contextual.core.mcp.config import load_servers
from contextual.core.mcp.connection import ListedTool
from contextual.core.mcp.tool import MCPTool
from contextual.core.mcp.results import to_c1
from contextual.core.tools._args import spec_from_json_schema


def write(path: Path, doc) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))


def test_project_file_wins_by_name_and_variables_expand(tmp_path: Path):
    root, home = tmp_path / "proj", tmp_path / "home"
    write(home / "mcp.json", {"mcpServers": {"gh": {"command": "old"}, "docs": {"type": "http", "url": "https://d/mcp"}}})
    write(root / ".mcp.json", {"mcpServers": {"gh": {"command": "npx", "args": ["-y", "${PKG:-server-github}"],
                                                     "env": {"TOKEN": "${GH_TOKEN}"}, "tool_timeout_sec": 5}}})
    specs, problems = load_servers(root, home, env={"GH_TOKEN": "t0k"})
    assert problems == []
    by_name = {s.name: s for s in specs}
    assert by_name["gh"].command == "npx" and by_name["gh"].args == ("-y", "server-github")
    assert by_name["gh"].env == {"TOKEN": "t0k"} and by_name["gh"].tool_timeout == 5.0
    assert by_name["docs"].transport == "http" and by_name["docs"].url == "https://d/mcp"
    write(root / ".mcp.json", {"mcpServers": {"docs": {"disabled": True, "command": "x"}}})
    assert [s.name for s in load_servers(root, home, env={})[0]] == ["gh"]      # the project turns one off


def test_bad_files_and_entries_are_one_line_each_and_lose_nothing_else(tmp_path: Path):
    root, home = tmp_path / "proj", tmp_path / "home"
    write(home / "mcp.json", "{not json")
    write(root / ".mcp.json", {"mcpServers": {"ok": {"command": "x"}, "no-cmd": {"args": []},
                                              "bad url": {"type": "http", "url": "ftp://x"},
                                              "web": {"type": "websocket", "url": "ws://x"},
                                              "slow": {"command": "x", "startup_timeout_sec": -1}}})
    specs, problems = load_servers(root, home, env={})
    assert [s.name for s in specs] == ["ok"]
    assert len(problems) == 5 and all("\n" not in p for p in problems)
    assert problems[0].startswith("MCP config: cannot read ") and "its servers are skipped" in problems[0]
    assert any("'web'" in p and "unsupported \"type\" 'websocket'" in p for p in problems)


def test_schema_renders_like_the_builtin_argument_lines():
    schema = {"type": "object", "required": ["repo", "labels"], "properties": {
        "repo": {"type": "string", "description": "owner/name"},
        "state": {"enum": ["open", "closed"]},
        "labels": {"type": "array", "items": {"type": "string"}},
        "limit": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
        "filter": {"type": "object", "properties": {"since": {"type": "string"}}, "required": ["since"]}}}
    tool = MCPTool(SimpleNamespace(spec=SimpleNamespace(name="git-hub")),
                   ListedTool("list.issues", "Lists issues.\n\nLong  text.", schema))
    assert tool.prompt_entry.splitlines() == [
        "mcp__git_hub__list_issues — Lists issues. Long text. [MCP server git-hub]",
        'Arguments: {"repo": str, "state": "open"|"closed"?, "labels": [str], "limit": int?, "filter": {"since": str}?}',
        "  repo: owner/name"]
    assert f"Arguments: {tool.args.render()}" in tool.prompt_entry      # the line is the ArgSpec the runner checks
    assert describe.render_tool("s", "t", None, {"type": "object"}, spec_from_json_schema({"type": "object"})) \
        .endswith("Arguments: {}")


def test_every_json_schema_shape_has_one_rendering():
    """Numbers, nullable and listed types, const, arrays (bare, nested past the depth limit, of objects), objects
    (nested past the depth limit, without properties), enums of any JSON values, odd property names and
    properties that are no schema at all: the notation L1 has always used for MCP tools."""
    deep = {"type": "string"}
    for _ in range(4):
        deep = {"type": "array", "items": deep}
    nested = {"type": "string"}
    for key in "jihg":
        nested = {"type": "object", "properties": {key: nested}}
    schema = {"type": "object", "required": ["a", "n"], "properties": {
        "a": {"type": "number"}, "b": {"type": ["string", "null"]}, "c": {"const": 5}, "d": {"type": "array"},
        "e": deep, "f": {"type": "object", "properties": {"g": nested["properties"]["g"]}},
        "k": {"enum": [1, 'x"y', "é", None]}, "l": {"oneOf": [{"type": "string"}, {"type": "integer"}, {"type": "string"}]},
        "m": {}, "n": "bad", "o": {"type": "array", "items": {"type": "object", "properties": {"p": {"type": "boolean"}},
                                                            "required": ["p"]}},
        'q"é': {"type": "string"}, "r": {"type": "object"}, "s": {"type": "integer", "enum": [1, 2]}}}
    assert spec_from_json_schema(schema).render() == (
        '{"a": float, "b": str?, "c": 5?, "d": [any]?, "e": [[[list]]]?, "f": {"g": {"h": {"i": object?}?}?}?, '
        '"k": 1|"x\\"y"|"é"|null?, "l": str|int?, "m": any?, "n": any, "o": [{"p": bool}]?, "q\\"\\u00e9": str?, '
        '"r": object?, "s": 1|2?}')
    for no_properties in ({"type": "object"}, {"type": "object", "properties": ["x"]}, None):
        assert spec_from_json_schema(no_properties).render() == "{}"


def test_results_describe_images_keep_links_and_parse_json():
    blocks = [SimpleNamespace(type="text", text='{"id": 7, "url": "https://x/7"}'),
              SimpleNamespace(type="image", data="aGVsbG8=", mime_type="image/png"),
              SimpleNamespace(type="resource_link", uri="file:///r.txt", name="r.txt", mime_type="text/plain",
                              description=None)]
    out = to_c1("s", "t", SimpleNamespace(content=blocks, structured_content=None, is_error=False), 12)
    assert out["status"] == "success" and out["stats"]["duration_ms"] == 12
    content = out["data"]["content"]
    assert content[0] == {"type": "json", "json": {"id": 7, "url": "https://x/7"}}
    assert content[1] == {"type": "image", "mime_type": "image/png", "bytes": 5,
                          "note": "image content is not shown to the model"}
    assert content[2]["uri"] == "file:///r.txt" and "aGVsbG8=" not in json.dumps(out)
    failed = to_c1("s", "t", SimpleNamespace(content=[SimpleNamespace(type="text", text="no")],
                                             structured_content=None, is_error=True), 1)
    assert failed["error"] == {"code": "mcp_tool_error", "message": "t on MCP server s: no"}


def test_structured_content_is_kept_once():
    value = {"rows": [1, 2]}
    text = SimpleNamespace(type="text", text=json.dumps(value))
    for structured in (value, {"result": json.dumps(value)}):
        data = to_c1("s", "t", SimpleNamespace(content=[text], structured_content=structured, is_error=False), 1)
        assert data["data"] == {"server": "s", "tool": "t", "content": [{"type": "json", "json": value}]}
        assert data["text"] == json.dumps(value)
    alone = to_c1("s", "t", SimpleNamespace(content=[], structured_content=value, is_error=False), 1)
    assert alone["data"]["structured"] == value and alone["text"] == json.dumps(value)


def test_stored_form_keeps_structure_ids_and_counts_and_cuts_bulk():
    items = [{"id": f"n{i}", "html_url": f"https://h/{i}", "body": "b" * 5000, "meta": {"a": {"b": {"c": {"d": 1}}}}}
             for i in range(40)]
    result = {"status": "success", "data": {"server": "s", "tool": "t", "content": [{"type": "json", "json": items}]},
              "text": "", "stats": {}, "context": {}}
    normal = json.loads(compressor.stored_text("mcp__s__t", {}, result))
    block = normal["data"]["content"][0]["json"]
    assert block["count"] == 40 and block["keys"] == ["id", "html_url", "body", "meta"]
    assert block["all"]["id"] == [f"n{i}" for i in range(40)] and block["all"]["html_url"][39] == "https://h/39"
    assert len(block["first"]) == 3 and block["first"][0]["body"].endswith("… (5,000 chars)")
    assert "37 more items" in block["omitted"]
    hard = compressor.stored_text("mcp__s__t", {}, result, level="hard")
    assert len(hard) < len(json.dumps(normal)) < len(json.dumps(result)) / 20


def test_every_mcp_call_asks_in_default_and_accept_edits_modes():
    from contextual.core.mcp.tool import MCPTool
    from contextual.core.permission_rules import PermissionRules
    tool, none, root = SimpleNamespace(name="mcp__s__t", needs_permission=MCPTool.needs_permission,
                                       edits_files=MCPTool.edits_files), PermissionRules(), Path(".")
    assert permissions.decide(tool, {}, "default", none, root, set()) == "ask"
    assert permissions.decide(tool, {}, "accept-edits", none, root, set()) == "ask"
    assert permissions.decide(tool, {}, "bypass", none, root, set()) == "allow"
    assert permissions.decide(tool, {}, "default", none, root, {"mcp__s__t"}) == "allow"
    assert json.loads(permissions.preview("mcp__s__t", {"q": 1}, Path("."))) == {"q": 1}


def test_a_result_of_another_shape_is_still_bounded_with_its_keys():
    result = {"status": "success", "data": {"rows": [{"id": i, "v": "x" * 900} for i in range(500)], "total": 500},
              "text": "", "stats": {}, "context": {}}
    stored = json.loads(compressor.stored_text("mcp__db__query", {}, result))["data"]
    assert stored["total"] == 500 and stored["rows"]["count"] == 500 and stored["rows"]["all"]["id"][0] == 0
    assert len(json.dumps(stored)) < 4_000


def test_a_wide_result_is_reshaped_tighter_then_cut():
    wide = {f"table_{k}": [{"id": i, "name": f"row {i}"} for i in range(300)] for k in range(60)}
    result = {"status": "success", "data": {"content": [{"type": "json", "json": wide}]}, "text": "", "stats": {},
              "context": {}}
    normal = json.loads(compressor.stored_text("mcp__db__dump", {}, result))["data"]["content"][0]["json"]
    assert normal["table_0"]["count"] == 300 and normal["table_0"]["all"]["id"][:10] == list(range(10))
    assert len(json.dumps(normal)) < 8_000
    hard = compressor.stored_text("mcp__db__dump", {}, result, level="hard")
    assert "truncated" in hard and len(hard) < 3_000


async def test_a_servers_stderr_log_is_bounded_per_line_and_in_all():
    """A line without an end and a flood of lines cost the log a bounded size, and a key split over the cut of a
    long line leaves nothing of itself."""
    import io

    from contextual.core import secrets
    from contextual.core.mcp.server_log import LINE_CAP, ServerLog, pump
    key = "sk-live-SPLITKEY-0123456789"
    secrets.remember(key)

    class Chunks:
        def __init__(self, chunks: list[bytes]) -> None:
            self.chunks = chunks

        async def receive(self, size: int) -> bytes:
            if not self.chunks:
                raise EOFError
            return self.chunks.pop(0)

    long_line = b"a" * (LINE_CAP - 5) + key.encode() + b"b" * 5_000_000
    file = io.StringIO()
    await pump(Chunks([long_line[i:i + 65536] for i in range(0, len(long_line), 65536)] + [b"\nshort\n"]),
               ServerLog(file, cap=100_000))
    text = file.getvalue()
    assert key[:5] not in text and "more bytes of this line]" in text and text.endswith("short\n")
    assert len(text) < LINE_CAP + 200
    flood = io.StringIO()
    await pump(Chunks([b"line of noise\n" * 5000] * 20), ServerLog(flood, cap=50_000))
    assert len(flood.getvalue()) < 50_200 and "the log stops here" in flood.getvalue()
    # a server's terminal escapes are not written to a log read with cat, nor do they hide a key (helper57)
    escaped = io.StringIO()
    await pump(Chunks([b"a\x1b]52;c;ZXZpbA==\x07b\x1b[2J " + key[:8].encode() + b"\x1b[m" + key[8:].encode() + b"\n"]),
               ServerLog(escaped))
    assert escaped.getvalue() == "ab [redacted]\n"


def test_every_text_a_result_carries_counts_toward_its_cap():
    """Only text blocks were measured: a link's 200,000-character name, or an embedded resource's text, was sent
    whole past max_output_tokens (helper77)."""
    resource = SimpleNamespace(uri="file:///f.txt", mime_type="text/plain", text="r" * 200_000)
    for block in (SimpleNamespace(type="resource_link", uri="file:///r", name="n" * 200_000, mime_type=None,
                                  description=None),
                  SimpleNamespace(type="resource", resource=resource)):
        out = to_c1("s", "t", SimpleNamespace(content=[block], structured_content=None, is_error=False), 1,
                    max_tokens=100)
        assert out["stats"]["truncated"] and len(out["text"]) < 2_000, len(out["text"])
        assert "[cut: t on MCP server s answered 2" in out["text"]


async def test_mcp_shows_a_servers_command_and_url_as_written_not_the_tokens_they_expand_to(tmp_path: Path):
    """/mcp showed the command line after `${VAR}` expansion: a token passed as `--token ${GITHUB_TOKEN}` (a name
    the key rules do not redact by) was on the screen whole (helper77)."""
    from contextual.core.mcp.manager import MCPManager
    token = "ghp_0123456789abcdefTOKEN"
    write(tmp_path / "home" / "mcp.json", {"mcpServers": {
        "gh": {"command": "gh-mcp", "args": ["--token", "${GITHUB_TOKEN}"]},
        "docs": {"url": "https://docs.example/mcp?key=${DOCS_TOKEN}"}}})
    specs, _ = load_servers(tmp_path, tmp_path / "home", env={"GITHUB_TOKEN": token, "DOCS_TOKEN": token})
    assert specs[0].args == ("--token", token)                   # the server still gets it
    manager = MCPManager(specs)
    targets = [row.target for row in manager.rows()]
    await manager.close()
    assert targets == ["gh-mcp --token ${GITHUB_TOKEN}", "https://docs.example/mcp?key=${DOCS_TOKEN}"]
