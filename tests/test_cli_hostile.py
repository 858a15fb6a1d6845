"""Issue 13, session/print side: hostile input and a hostile environment never crash `contextual -p`, never lose
an answer or a session, never show a key. Each test drives the real CLI against the fake servers."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.cli_helpers import cli_env, contextual, home_of, no_traceback, one_line_error, session_files, session_text
from tests.fakes.llm_server import Fault, FakeLLMServer
from tests.mounts import full_disk, read_only_dir

USED = "sk-used-key-0123456789"
OPENAI = "sk-openai-key-abcdefghij"
ANTHROPIC = "sk-ant-key-klmnopqrstu"
OTHER = "other-tool-key-vwxyz987"
KEYS = (USED, OPENAI, ANTHROPIC, OTHER)


def _key_env(home: Path, url: str, kind: str) -> dict[str, str]:
    return cli_env(home, url, kind, CONTEXTUAL_API_KEY=USED, OPENAI_API_KEY=OPENAI, ANTHROPIC_API_KEY=ANTHROPIC,
                   SOMETOOL_API_KEY=OTHER)


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_keys_repeated_by_the_model_reach_no_output_and_no_session(project: Path, kind: str):
    said = " ".join(KEYS)
    script = [f'Thought: the keys are {said}\nAction: Bash[{{"command": "echo {OTHER}"}}]',
              f"Thought: again {said}\nAction: Finish[here they are: {said}]"]
    home = home_of(project)
    with FakeLLMServer(kind=kind, script=script) as srv:
        result = contextual(["-p", "show me the keys", "--permission-mode", "bypass"], project,
                            _key_env(home, srv.base_url, kind))
    assert result.returncode == 0, result.stderr
    assert "here they are" in result.stdout and "[redacted]" in result.stdout
    session = session_text(home)
    for key in KEYS:
        assert key not in result.stdout and key not in result.stderr and key not in session
    # The Bash output that echoed a key went back to the model redacted, too.
    observation = json.dumps(srv.requests[1]["messages"][-1])
    assert "Observation" in observation and OTHER not in observation and "[redacted]" in observation


def test_a_key_with_surrounding_whitespace_is_sent_stripped_and_never_shown(project: Path):
    """A key pasted with a space, or read from a .env file with CRLF ends: the request carries it stripped (an
    `\\r` in a header was an error) and the model repeating it reaches no output and no session."""
    script = [f"Thought: the key is {USED}\nAction: Finish[it is {USED}]"]
    home = home_of(project)
    with FakeLLMServer(kind="openai", script=script) as srv:
        result = contextual(["-p", "show me the key"], project,
                            cli_env(home, srv.base_url, CONTEXTUAL_API_KEY=" \t" + USED + "\r\n"))
    assert result.returncode == 0, result.stderr
    assert srv.requests[0].headers["authorization"] == f"Bearer {USED}"
    assert "it is [redacted]" in result.stdout
    assert USED not in result.stdout + result.stderr + session_text(home)


# Every printer path once, and the text form on both wires. The error is one that is not retried (a 401 whose
# body echoes the keys): the printers are the point here; tests/test_cli_provider_facts.py covers the scrub of an
# in-stream error after the retries on both wires, and tests/test_provider_hostile.py the provider's own scrub.
@pytest.mark.parametrize("kind, form", [("openai", "text"), ("anthropic", "text"), ("openai", "json"),
                                        ("anthropic", "stream-json")])
def test_keys_echoed_by_the_server_in_an_error_are_redacted(project: Path, kind: str, form: str):
    echoed = f"bad key {USED} (also saw {OPENAI} and {ANTHROPIC})"
    home = home_of(project)
    with FakeLLMServer(kind=kind, script=[Fault("401", message=echoed)]) as srv:
        result = contextual(["-p", "hi", "--output-format", form], project, _key_env(home, srv.base_url, kind))
    assert result.returncode == 1
    no_traceback(result)
    for key in KEYS:
        assert key not in result.stdout and key not in result.stderr
    assert "bad key" in result.stderr and "[redacted]" in result.stderr
    assert len(srv.requests) == 1


def test_key_variables_are_not_readable_by_bash_children(project: Path):
    """Neither the inherited environment nor /proc/$PPID/environ of the agent shows the keys it read."""
    command = "env > child_env.txt; tr '\\\\0' '\\\\n' < /proc/$PPID/environ > parent_env.txt"
    script = ['Thought: look\nAction: Bash[' + json.dumps({"command": command}) + ']',
              "Thought: done\nAction: Finish[done]"]
    with FakeLLMServer(kind="openai", script=script) as srv:
        result = contextual(["-p", "env", "--permission-mode", "bypass"], project,   # its own interpreter: the
                            _key_env(home_of(project), srv.base_url, "openai"), fresh=True)   # /proc block is the point
    assert result.returncode == 0, result.stderr
    child, parent = (project / "child_env.txt").read_text(), (project / "parent_env.txt").read_text()
    assert "CONTEXTUAL_MODEL=fake-model" in child          # the files hold real environments
    for key in (USED, OPENAI, ANTHROPIC):
        assert key not in child and key not in parent
    # A key variable of the user's own tools stays for children (their test suite may need it).
    assert f"SOMETOOL_API_KEY={OTHER}" in child


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_surrogates_in_replies_and_finish_break_neither_print_nor_session_nor_next_request(project: Path, kind: str):
    home = home_of(project)
    (project / "a.txt").write_text("text\n")
    script = ['Thought: odd \udc80 bytes \ud83d\nAction: Read[{"file_path": "a.txt"}]',   # a next request in the turn
              "Thought: seen \udc81\nAction: Finish[answer \udcff end]", "Thought: ok\nAction: Finish[fine]"]
    with FakeLLMServer(kind=kind, script=script) as srv:
        env = cli_env(home, srv.base_url, kind)
        first = contextual(["-p", "hi"], project, env)
        second = contextual(["-p", "again", "-c"], project, env)
    assert first.returncode == 0, first.stderr
    assert first.stdout == "answer \\xff end\n"
    no_traceback(first)
    assert second.returncode == 0, second.stderr
    assert second.stdout == "fine\n"
    session_text(home).encode("utf-8")                  # the session file is valid UTF-8 throughout
    for request in srv.requests:                          # every request, in the turn and after -c, was valid text
        json.dumps(request, ensure_ascii=False).encode("utf-8")
    assert len(srv.requests) == 3


def test_escape_sequences_from_the_model_are_stripped_from_the_terminal(project: Path):
    hostile = "\x1b]0;pwned\x07\x1b[2J\x1b[31mred\x1b[0m \x9b1mbold\x07"
    script = [f"Thought: {hostile}\nAction: Finish[{hostile} done]"]
    with FakeLLMServer(kind="openai", script=script) as srv:
        text = contextual(["-p", "hi"], project, cli_env(home_of(project), srv.base_url))
    with FakeLLMServer(kind="openai", script=script) as srv:
        streamed = contextual(["-p", "hi", "--output-format", "stream-json"], project,
                              cli_env(home_of(project), srv.base_url))
    assert text.returncode == 0 and text.stdout == "red bold done\n"
    for out in (text.stdout, text.stderr, streamed.stdout, streamed.stderr):
        assert "\x1b" not in out and "\x9b" not in out and "\x07" not in out
    final = json.loads(streamed.stdout.splitlines()[-1])
    assert final["result"] == f"{hostile} done"            # the JSON forms keep the data exact, escaped


def test_a_key_split_by_an_escape_sequence_reaches_no_output(project: Path):
    """The answer was redacted, then stripped of escapes: `sk-…\x1b[m…` printed the key in use (helper57)."""
    split = f"{USED[:7]}\x1b[m{USED[7:]}"
    script = [f"Thought: {split}\nAction: Finish[key {split} done]"]
    for form in ("text", "stream-json"):
        with FakeLLMServer(kind="openai", script=script) as srv:
            result = contextual(["-p", "hi", "--output-format", form], project, _key_env(home_of(project), srv.base_url, "openai"))
        assert result.returncode == 0, result.stderr
        assert USED not in result.stdout and USED not in result.stderr
        if form == "text":
            assert result.stdout == "key [redacted] done\n"


@pytest.mark.parametrize("prompt", ["", "   ", " \n\t "])
def test_empty_or_blank_prompt_is_refused_in_one_line_without_a_call(project: Path, prompt: str):
    with FakeLLMServer(kind="openai", script=["Thought: x\nAction: Finish[should not be asked]"]) as srv:
        result = contextual(["-p", prompt], project, cli_env(home_of(project), srv.base_url))
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "empty prompt" in result.stderr
    assert srv.requests == []
    assert not (home_of(project) / "projects").exists()


def test_read_only_home_gives_one_line_naming_it_and_still_answers(project: Path, tmp_path: Path):
    with read_only_dir(tmp_path / "home") as home, \
            FakeLLMServer(kind="openai", script=["Thought: ok\nAction: Finish[still answered]"]) as srv:
        result = contextual(["-p", "hi"], project, cli_env(home, srv.base_url))
    assert result.returncode == 0, result.stderr
    assert result.stdout == "still answered\n"
    no_traceback(result)
    [line] = [line for line in result.stderr.splitlines() if "not be saved" in line]
    assert str(home) in line and ("Read-only" in line or "Permission denied" in line)


def test_full_disk_still_prints_the_answer_and_says_the_session_was_not_saved(project: Path, tmp_path: Path):
    with full_disk(tmp_path / "home") as home, \
            FakeLLMServer(kind="openai", script=["Thought: ok\nAction: Finish[answered anyway]"]) as srv:
        result = contextual(["-p", "hi", "--output-format", "json"], project, cli_env(home, srv.base_url))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["result"] == "answered anyway"
    no_traceback(result)
    [line] = [line for line in result.stderr.splitlines() if "not saved" in line or "not be saved" in line]
    assert "No space left on device" in line and str(home) in line


def test_wrong_shaped_session_lines_are_skipped_with_a_warning_and_the_session_continues(project: Path):
    home = home_of(project)
    with FakeLLMServer(kind="openai", script=["Thought: a\nAction: Finish[first]", "Thought: b\nAction: Finish[second]"]) as srv:
        env = cli_env(home, srv.base_url)
        assert contextual(["-p", "one"], project, env).returncode == 0
        [path] = session_files(home)
        good = len(path.read_text().splitlines())
        bad = [{"type": "system", "subtype": "compact_boundary", "compactMetadata": "x", "keptFromUuid": None},
               {"type": "system", "subtype": "usage", "usage": "x"},
               {"type": "system", "subtype": "usage", "usage": {"input_tokens": "12", "output_tokens": 3}},
               {"type": "system", "subtype": "todos", "todos": [1, 2]},
               {"type": "system", "subtype": "todos", "todos": [{"content": "no status"}]},
               {"type": "user", "uuid": "u1", "message": {"role": "user", "content": ["not", "text"]}},
               {"type": "system", "subtype": "ghost_snapshot", "turnId": "t", "mode": "git", "files": "x"}]
        with path.open("a") as handle:
            handle.writelines(json.dumps(entry) + "\n" for entry in bad)
        result = contextual(["-p", "two", "-c"], project, env)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "second\n"
    no_traceback(result)
    warned = [line for line in result.stderr.splitlines() if "malformed" in line]
    assert [int(line.split("line ")[1].split(":")[0]) for line in warned] == list(range(good + 1, good + 1 + len(bad)))
    # The first round is still in the prompt the second call sent.
    assert "first" in json.dumps(srv.requests[1]["messages"])


def test_a_message_whose_meta_has_a_wrong_type_is_skipped_with_the_field_named(project: Path):
    """A message's meta is checked as it is read (core/session/meta_check.py), like the rest of its entry: a field of
    the wrong type skips that line with a warning naming the field; the session goes on without it."""
    home = home_of(project)
    script = ["Thought: a\nAction: Finish[first]", "Thought: b\nAction: Finish[second]"]
    with FakeLLMServer(kind="openai", script=script) as srv:
        env = cli_env(home, srv.base_url)
        assert contextual(["-p", "one"], project, env).returncode == 0
        [path] = session_files(home)
        good = len(path.read_text().splitlines())
        user = {"type": "user", "message": {"role": "user", "content": "planted question"}}
        bad = [{**user, "uuid": "u1", "meta": {"turn": 5}},
               {**user, "uuid": "u2", "meta": {"shell": [{"command": ["not", "text"], "lines": 1}]}},
               {"type": "assistant", "uuid": "a1", "message": {"role": "assistant", "content": "Thought: x"},
                "meta": {"step": True}},
               {"type": "tool_result", "uuid": "r1", "toolResult": {"callId": "c1", "stored": "planted result"},
                "meta": {"tool_name": 7}}]
        with path.open("a") as handle:
            handle.writelines(json.dumps(entry) + "\n" for entry in bad)
        result = contextual(["-p", "two", "-c"], project, env)
    assert result.returncode == 0 and result.stdout == "second\n", result.stderr
    no_traceback(result)
    warned = [line.split("line ", 1)[1] for line in result.stderr.splitlines() if "malformed" in line]
    assert warned == [f"{good + 1}: malformed user entry (meta.turn is not str), skipped",
                      f"{good + 2}: malformed user entry (meta.shell is not list[ShellRun]), skipped",
                      f"{good + 3}: malformed assistant entry (meta.step is not int), skipped",
                      f"{good + 4}: malformed tool_result entry (meta.tool_name is not str | null), skipped"]
    sent = json.dumps(srv.requests[1]["messages"])
    assert "first" in sent and "planted" not in sent


def test_a_lone_surrogate_escape_in_tool_arguments_is_an_ordinary_argument(project: Path):
    """`"\\ud800"` is valid JSON but no path, file or request body can hold what it decodes to: every tool gets
    the argument made valid (the surrogate written out as `\\ud800`, core/textsafe.py) instead of the run ending
    in a UnicodeEncodeError."""
    bad = "\\\\ud800"
    script = [f'Thought: a\nAction: Read[{{"file_path": "a{bad}.txt"}}]',
              f'Thought: b\nAction: Write[{{"file_path": "w{bad}.txt", "content": "x{bad}y"}}]',
              f'Thought: c\nAction: Bash[{{"command": "echo {bad}"}}]',
              f'Thought: d\nAction: Grep[{{"pattern": "a{bad}"}}]',
              "Thought: e\nAction: Finish[survived]"]
    with FakeLLMServer(kind="openai", script=script) as srv:
        result = contextual(["-p", "go", "--permission-mode", "bypass"], project, cli_env(home_of(project), srv.base_url))
    assert result.returncode == 0 and result.stdout.strip() == "survived", result.stderr
    no_traceback(result)
    assert len(srv.requests) == 5 and (project / "w\\ud800.txt").read_text() == "x\\ud800y"


@pytest.mark.parametrize("kind, bad", [("openai", "\n"), ("anthropic", "\r"), ("openai", " "), ("anthropic", "\u201c")],
                         ids=["newline", "return", "space", "curly-quote"])
def test_a_key_no_header_can_carry_is_refused_in_one_line_that_does_not_show_it(project: Path, kind: str, bad: str):
    """Two keys on two lines (a pasted file): httpx's error quoted the header whole, and the newline defeated the
    redaction; it was also retried five times (hostile-input red team)."""
    key = "sk-live-ABCDEF123456"
    with FakeLLMServer(kind=kind, script=[]) as srv:
        variable = "ANTHROPIC_API_KEY" if kind == "anthropic" else "CONTEXTUAL_API_KEY"
        result = contextual(["-p", "hi", "--provider", kind], project,
                            cli_env(home_of(project), srv.base_url, **{variable: key + bad + key}))
        assert not srv.requests
    assert result.returncode != 0
    assert key not in result.stdout + result.stderr
    assert "no HTTP header can carry" in one_line_error(result.stderr)


CONFIGS = {   # built in the test: a parameter of megabytes would be the test's id
    "toml-deep": (".contextual/config.toml", lambda: "a = " + "[" * 3000 + "]" * 3000),
    "toml-large": (".contextual/config.toml", lambda: 'model = "' + "x" * (2 << 20) + '"'),
    "mcp-deep": (".mcp.json", lambda: '{"mcpServers": ' + "[" * 3000 + "]" * 3000 + "}"),
    # Parses on every Python (3.13's decoder takes 3,000 too): the depth is bounded before the parse, not by it.
    "mcp-deep-server": (".mcp.json", lambda: '{"mcpServers": {"s": {"command": "x", "args": '
                                             + "[" * 200 + "]" * 200 + "}}}"),
    "mcp-large": (".mcp.json", lambda: '{"mcpServers": {"s": {"command": "' + "x" * (2 << 20) + '"}}}'),
}


@pytest.mark.parametrize("case", sorted(CONFIGS))
def test_a_checkouts_config_that_nests_too_deeply_or_is_too_large_is_one_line_naming_it(project: Path, case: str):
    """Read before any trust question: 6 kB of brackets ended the launch in a 3,000-line RecursionError, and a
    400 MB .mcp.json took 1.6 GB (hostile-input red team). A config file is read up to 1 MB, its parse guarded."""
    name, make = CONFIGS[case]
    text = make()
    (project / name).parent.mkdir(exist_ok=True)
    (project / name).write_text(text)
    with FakeLLMServer(kind="openai", script=["Thought: ok\nAction: Finish[fine]"]) as srv:
        result = contextual(["-p", "hi"], project, cli_env(home_of(project), srv.base_url))
    no_traceback(result)
    said = result.stderr
    assert name.split("/")[-1] in said and ("nest too deeply" in said or "too large for a config file" in said), said
    assert len(said.splitlines()) <= 3, said
    if name == ".mcp.json":              # its servers are skipped; the turn goes on
        assert result.returncode == 0 and result.stdout == "fine\n"
    else:                                # a project's config that cannot be read stops the launch, as a malformed one does
        assert result.returncode != 0 and not srv.requests


SPECIAL = {"fifo": "a named pipe (FIFO)", "folder": "a directory"}


@pytest.mark.parametrize("name, kind, app", [
    (".contextual/config.toml", "fifo", False), (".contextual/config.toml", "fifo", True),
    (".contextual/config.local.toml", "fifo", False), (".contextual/config.toml", "folder", False),
    ("HOME/config.toml", "fifo", False), ("HOME/config.toml", "folder", True),
    (".mcp.json", "fifo", False), (".mcp.json", "folder", False), ("HOME/mcp.json", "fifo", False)])
def test_a_config_file_that_is_a_fifo_or_a_folder_is_said_in_one_line_as_an_unreadable_one(
        project: Path, name: str, kind: str, app: bool):
    """Only a regular file was read: a FIFO or a folder where a config file goes was skipped without a word, its
    settings and deny rules with it (red team). It is said as any unreadable config file is: a settings file stops
    the launch (app or -p) in one line, an MCP file's servers are skipped with one line and the turn goes on."""
    home = home_of(project)
    path = home / name.removeprefix("HOME/") if name.startswith("HOME/") else project / name
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path) if kind == "fifo" else path.mkdir()
    with FakeLLMServer(kind="openai", script=["Thought: ok\nAction: Finish[fine]"]) as srv:
        result = contextual([] if app else ["-p", "hi"], project, cli_env(home, srv.base_url), timeout=20)
    no_traceback(result)
    said = [line for line in result.stderr.splitlines() if str(path) in line]
    assert len(said) == 1 and f"cannot read {path}: it is {SPECIAL[kind]}, not a regular file" in said[0], \
        result.stderr
    if name.endswith("mcp.json"):
        assert said[0].endswith("its servers are skipped")
        assert result.returncode == 0 and result.stdout == "fine\n"
    else:
        assert result.returncode == 1 and said == [one_line_error(result.stderr)] and not srv.requests
