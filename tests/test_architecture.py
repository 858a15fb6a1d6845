"""Architecture rules that a reviewer would otherwise check by hand."""

from __future__ import annotations

import ast
import json
import pkgutil
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import contextual.core

REPO = Path(__file__).resolve().parents[1]


def _core_modules() -> list[str]:
    return sorted(m.name for m in pkgutil.walk_packages(contextual.core.__path__, "contextual.core."))


def test_core_never_imports_textual_or_rich():
    modules = _core_modules()
    assert len(modules) > 20
    # httpx's own __init__ imports rich for its CLI when rich is installed: that is not core's doing,
    # so what httpx loads is taken as the baseline and only what core adds on top is judged.
    code = ("import importlib, json, sys\n"
            "import httpx\n"
            "baseline = set(sys.modules)\n"
            f"for name in {modules!r}:\n"
            "    importlib.import_module(name)\n"
            "added = set(sys.modules) - baseline\n"
            "print(json.dumps(sorted(m for m in added | set(sys.modules) if m.split('.')[0] == 'textual'\n"
            "                        or (m in added and m.split('.')[0] == 'rich'))))")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []


def test_no_core_source_imports_textual_or_rich():
    offenders = []
    for path in (REPO / "core").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            if any(n.split(".")[0] in ("textual", "rich") for n in names):
                offenders.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert offenders == []


def _lint_imports(site: Path, config: Path) -> subprocess.CompletedProcess:
    """import-linter on an installed tree: there the mapped folders are `contextual.core`, `.tui`, `.prompts`
    (from the checkout, grimp would see only contextual/). Run as a module of this interpreter, not from PATH."""
    code = "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"
    env = {**os.environ, "PYTHONPATH": str(site)}
    return subprocess.run([sys.executable, "-c", code, "--no-cache", "--config", str(config)], cwd=config.parent,
                          capture_output=True, text=True, env=env, timeout=120)


def test_import_contracts_hold(installed_wheel, tmp_path):
    """pyproject's [tool.importlinter]: core imports no UI and no entry code; the prompt texts import nothing of
    ours; core's modules keep their layers; no cycles between siblings."""
    config = tmp_path / "pyproject.toml"
    shutil.copy2(REPO / "pyproject.toml", config)
    out = _lint_imports(installed_wheel.site, config)
    assert out.returncode == 0, out.stdout + out.stderr
    kept = [line for line in out.stdout.splitlines() if line.rstrip().endswith("KEPT")]
    assert len(kept) == 5, out.stdout
    assert "Analyzed" in out.stdout and int(out.stdout.split("Analyzed ")[1].split()[0]) > 150


CORE_ONLY = "core must not import tui/textual/rich"
LAYERS = "entry above TUI above engine above prompt texts"
CORE_LAYERS = "core's layers, top to bottom"
CYCLES = "no import cycles between sibling modules"


@pytest.mark.parametrize("module, planted, broken", [
    ("core/tokens.py", "import contextual.tui.format  # planted\n", CORE_ONLY),
    ("prompts/tools_prompt.py", "import contextual.core.clock  # planted\n", LAYERS),
    ("core/clock.py", "import textual  # planted\n", CORE_ONLY),
    ("core/context/digest.py", "import contextual.core.replay.scorers  # planted\n",
     "the context policy never imports the replay scorers"),
    # Upward in core without making a cycle: a foundation reading the config, the context engine driving the engine.
    ("core/clock.py", "import contextual.core.config  # planted\n", CORE_LAYERS),
    ("core/memory.py", "import contextual.core.engine.turn  # planted\n", CORE_LAYERS),
    # A new module of core has no layer until the contract gives it one.
    ("core/unplaced.py", "import contextual.core.clock  # planted\n", CORE_LAYERS),
    # Two files of a subpackage that import each other.
    ("core/context/names.py", "import contextual.core.context.pins  # planted\n", CYCLES),
])
def test_a_planted_forbidden_import_breaks_the_contracts(tmp_path, module, planted, broken):
    """The contracts see the moved modules: a forbidden import planted in a copy of the tree fails the one it
    breaks."""
    site = tmp_path / "site"
    shutil.copytree(REPO / "contextual", site / "contextual", ignore=shutil.ignore_patterns("__pycache__"))
    for folder in ("core", "tui", "prompts"):
        shutil.copytree(REPO / folder, site / "contextual" / folder, ignore=shutil.ignore_patterns("__pycache__"))
    target = site / "contextual" / module
    target.write_text(planted + (target.read_text() if target.exists() else ""))
    config = tmp_path / "pyproject.toml"
    shutil.copy2(REPO / "pyproject.toml", config)
    out = _lint_imports(site, config)
    assert out.returncode != 0 and f"{broken} BROKEN" in out.stdout, out.stdout + out.stderr


def test_tokenizer_loads_from_an_installed_package_without_network():
    code = ("import socket\n"
            "def refuse(*a, **k): raise OSError('network used')\n"
            "socket.socket.connect = refuse\n"
            "socket.create_connection = refuse\n"
            "from contextual.core import tokens\n"
            "print(tokens.count('hello world'))")
    env = {"PATH": "/usr/bin:/bin", "HOME": "/nonexistent", "TIKTOKEN_CACHE_DIR": "/nonexistent/cache"}
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "2"


def test_one_module_per_tool():
    tools = {p.stem for p in (REPO / "core" / "tools").glob("*.py")}
    assert {"ls", "glob", "grep", "read", "edit", "multiedit", "write", "bash", "todowrite"} <= tools


def test_compression_rules_are_a_table_with_one_row_per_tool():
    from contextual.core.context.compressor import ROWS
    assert set(ROWS) == {"Read", "Grep", "LS", "Glob", "Edit", "MultiEdit", "Write", "Bash", "TodoWrite"}


# httpx's own byte and text iterators are closed by the response's context manager around them.
CLOSED_BY_THEIR_RESPONSE = {"aiter_bytes", "aiter_text"}


def test_every_stream_we_iterate_is_closed_where_it_is_iterated():
    """An async generator left by a cancelled consumer runs its `finally` only when the garbage collector finds it:
    a turn went on 'running' after the app closed its session (quit on a card inside a turn died of it). So a
    stream is iterated inside `async with aclosing(...)`, never straight from the call that makes it."""
    offenders = []
    for folder in ("core", "tui", "contextual"):
        for path in (REPO / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.AsyncFor) and isinstance(node.iter, ast.Call):
                    called = node.iter.func
                    name = called.attr if isinstance(called, ast.Attribute) else getattr(called, "id", "")
                    if name not in CLOSED_BY_THEIR_RESPONSE:
                        offenders.append(f"{path.relative_to(REPO)}:{node.lineno} {name}")
    assert offenders == []


def test_system_reminders_are_written_in_one_place():
    """Every note the system adds to a user message has one shape (core/reminder.py): a string literal that opens
    a <system-reminder> block anywhere else is a second implementation of the rule."""
    offenders = []
    for folder in ("core", "tui", "contextual"):
        for path in (REPO / folder).rglob("*.py"):
            if path == REPO / "core" / "reminder.py":
                continue
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Constant) and isinstance(node.value, str) and "<system-reminder>\n" in node.value:
                    offenders.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert offenders == []


# The engine's parts as the façade (core/agent.py) and the other parts (core/engine/) hold them.
ENGINE_PARTS = {"settings", "prompt", "recorder", "toolbox", "gate", "controls", "compactor", "turn",
                "_settings", "_prompt", "_recorder", "_toolbox", "_gate", "_controls", "_compactor",
                "_fitted", "_ends", "_input", "_model_call", "_tool_step"}


def _part_field(target: ast.expr) -> str | None:
    """`self.<part>.<field>` (also under a subscript: `self.gate.decided[:]`) as text, else None."""
    while isinstance(target, ast.Subscript):
        target = target.value
    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Attribute) \
            and isinstance(target.value.value, ast.Name) and target.value.value.id == "self" \
            and target.value.attr in ENGINE_PARTS:
        return f"self.{target.value.attr}.{target.attr}"
    return None


def test_each_engine_part_changes_only_its_own_state():
    """ARCHITECTURE.md's "Engine state": each part owns its fields and the others call its methods. A field of
    another part assigned from outside it, or the session written past the Recorder that owns it, is a second
    owner of that state."""
    offenders = []
    for path in [REPO / "core" / "agent.py", *(REPO / "core" / "engine").glob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text())):
            targets = node.targets if isinstance(node, ast.Assign) else \
                [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
            offenders += [f"{path.name}:{node.lineno} {found}" for found in map(_part_field, targets) if found]
            if path.name != "recorder.py" and isinstance(node, ast.Attribute) and node.attr.startswith("append_") \
                    and isinstance(node.value, ast.Attribute) and node.value.attr == "session":
                offenders.append(f"{path.name}:{node.lineno} {ast.unparse(node)}")
    assert offenders == []


def test_session_entries_are_built_in_the_schema():
    """core/session/schema.py builds every entry that is not a message (entries.py maps messages): a `subtype`
    written as a dict literal elsewhere is a second definition of that entry's shape."""
    offenders = []
    for path in (REPO / "core").rglob("*.py"):
        if path.relative_to(REPO).as_posix() in ("core/session/schema.py", "core/session/entries.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Dict) and any(isinstance(k, ast.Constant) and k.value == "subtype" for k in node.keys):
                offenders.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert offenders == []
