"""/init: a starter instruction file (AGENTS.md or CODE_LAW.md) written from a quick look at the project (its
manifests, folders and tests), for the agent to check and improve. It states only what the files show."""

from __future__ import annotations

from pathlib import Path

# manifest file -> (language/tooling, test command a person would try first)
MANIFESTS = (
    ("pyproject.toml", "Python", "python -m pytest -q"),
    ("setup.py", "Python", "python -m pytest -q"),
    ("requirements.txt", "Python", "python -m pytest -q"),
    ("package.json", "JavaScript/TypeScript", "npm test"),
    ("Cargo.toml", "Rust", "cargo test"),
    ("go.mod", "Go", "go test ./..."),
    ("pom.xml", "Java (Maven)", "mvn test"),
    ("build.gradle", "Java/Kotlin (Gradle)", "./gradlew test"),
    ("Gemfile", "Ruby", "bundle exec rake test"),
    ("Makefile", "make", "make test"),
)
SKIP = {".git", "node_modules", "__pycache__", ".venv", "venv", ".contextual", "dist", "build", ".mypy_cache"}


def starter_code_law(root: Path, name: str = "CODE_LAW.md") -> str:
    """The starter for `name` (its heading: headed CODE_LAW.md, a starter for AGENTS.md was written under that)."""
    found = [(name, lang, test) for name, lang, test in MANIFESTS if (root / name).is_file()]
    folders = sorted(p.name + "/" for p in root.iterdir() if p.is_dir() and p.name not in SKIP
                     and not p.name.startswith("."))
    tests = [f for f in folders if f.rstrip("/") in ("tests", "test", "spec", "__tests__")]
    top_tests = sorted(p.name for p in root.glob("test_*.py")) + sorted(p.name for p in root.glob("*_test.py"))
    if not found and top_tests:           # test files at the top and no manifest: pytest finds them there
        found = [(top_tests[0], "Python", "python -m pytest -q")]
    if not tests and top_tests:
        tests = [f"{', '.join(top_tests[:3])}, at the top level"]
    lines = [f"# {name}", "",
             "Rules for the agent working in this project. Every prompt starts with this file: keep it short.", ""]
    lines.append("## Project")
    if found:
        kinds = sorted({lang for _name, lang, _test in found})
        lines.append(f"- Written in {', '.join(kinds)} (from {', '.join(name for name, _l, _t in found)}).")
    if folders:
        lines.append(f"- Top-level folders: {', '.join(folders[:15])}.")
    lines += ["", "## Checks"]
    if found:
        lines.append(f"- Run the tests with `{found[0][2]}`" + (f" (they live in {tests[0]})." if tests else "."))
    else:
        lines.append("- (say how to run the tests)")
    lines += ["- Run the tests after every change and before the final answer.", "",
              "## Rules",
              "- Read a file before editing it; keep edits small and in the existing style.",
              "- Do not add dependencies without asking.",
              "- Never commit, push or delete files unless asked.", ""]
    return "\n".join(lines)
