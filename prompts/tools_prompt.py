"""What the model is told about each tool (part of L1: it must render byte-identically every time)."""

from __future__ import annotations

TOOL_ORDER = ("LS", "Glob", "Grep", "Read", "Edit", "MultiEdit", "Write", "Bash", "TodoWrite")

TOOL_DESCRIPTIONS: dict[str, str] = {
    "LS": """\
LS — list one folder of the project (not recursive). Folders end with "/". Files ignored by .gitignore and the .git folder are left out.
Arguments: {"path": str?} — folder relative to the project root (default: the root).
Example: Action: LS[{"path": "src"}]""",

    "Glob": """\
Glob — find files by path pattern, newest first (at most 1000). Files only; .gitignore'd files are left out.
Patterns are matched against the path below `path`: "*" stays inside one folder, "**" spans folders, "{a,b}" gives alternatives. "*.py" matches only the top folder; use "**/*.py" to search every folder.
Arguments: {"pattern": str, "path": str?} — path is the folder to search (default: the project root).
Example: Action: Glob[{"pattern": "**/*.py", "path": "src"}]""",

    "Grep": """\
Grep — search file contents with a Python regular expression, line by line. Returns "path:line: text" for each match (at most 500). Skips .gitignore'd, binary and very large files.
Arguments: {"pattern": str, "path": str?, "glob": str?, "ignore_case": bool?} — path is a folder or one file (default: the project root); glob filters files by name ("*.py") or by path below `path` ("tests/**/*.py").
Example: Action: Grep[{"pattern": "def load_\\\\w+", "glob": "*.py"}]""",

    "Read": """\
Read — show a text file with line numbers ("     1<TAB>text"). Reads up to 2000 lines; use offset (1-based first line) and limit (number of lines) for more or for big files. Lines over 2000 characters are cut. Binary files and folders are refused. If the file changed since you last read it, the result starts with "Note: <file> was modified externally."
Arguments: {"file_path": str, "offset": int?, "limit": int?}
Example: Action: Read[{"file_path": "src/app.py", "offset": 120, "limit": 80}]""",

    "Edit": """\
Edit — replace an exact piece of text in a file. old_string must match the file exactly (indentation and whitespace included, without the line-number prefix Read shows) and must occur exactly once, unless replace_all is true. Read the file first. The file keeps its line endings and encoding. An empty old_string creates a file that does not exist yet.
Arguments: {"file_path": str, "old_string": str, "new_string": str, "replace_all": bool?}
Example: Action: Edit[{"file_path": "src/app.py", "old_string": "    return 1\\n", "new_string": "    return 2\\n"}]""",

    "MultiEdit": """\
MultiEdit — several Edit steps on one file, applied in order (each sees the result of the previous one). All succeed or none is applied.
Arguments: {"file_path": str, "edits": [{"old_string": str, "new_string": str, "replace_all": bool?}]}
Example: Action: MultiEdit[{"file_path": "src/app.py", "edits": [{"old_string": "import os\\n", "new_string": "import os\\nimport sys\\n"}, {"old_string": "foo(", "new_string": "bar(", "replace_all": true}]}]""",

    "Write": """\
Write — create a file or replace its whole content; missing folders are created. Prefer Edit for changes to an existing file.
Arguments: {"file_path": str, "content": str}
Example: Action: Write[{"file_path": "notes/plan.md", "content": "# Plan\\n\\n1. Read the code\\n"}]""",

    "Bash": """\
Bash — run a shell command with /bin/bash in the project root (no input; stdout and stderr are returned separately with the exit code). Default timeout 120 seconds, at most 600; on timeout the command and all its children are killed. Very long output keeps its beginning and end.
Arguments: {"command": str, "timeout": int?}
Example: Action: Bash[{"command": "python -m pytest -q tests/test_app.py", "timeout": 300}]""",

    "TodoWrite": """\
TodoWrite — keep a task list for multi-step work. Send the whole list every time (it replaces the previous one); status is "pending", "in_progress" or "completed". Keep one task in progress at a time.
Arguments: {"todos": [{"content": str, "status": "pending"|"in_progress"|"completed"}]}
Example: Action: TodoWrite[{"todos": [{"content": "Find the bug", "status": "completed"}, {"content": "Fix it", "status": "in_progress"}]}]""",
}


def render_tools_prompt() -> str:
    """All tool descriptions, in a fixed order, separated by blank lines."""
    return "\n\n".join(TOOL_DESCRIPTIONS[name] for name in TOOL_ORDER)
