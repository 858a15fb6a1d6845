"""How the permission rules' shell parse reads real agent commands: how many are opaque (every Bash deny rule
refuses them), how many for a syntax error, and how many carry latent commands (quoted text bash may evaluate).

    python scripts/shell_parse_census.py ../shared/trajectories      # every ```bash block of every *.traj.json
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path

from contextual.core.shell.parse import parse_command

BLOCK = re.compile(r"```bash\n(.*?)\n```", re.S)


def commands(root: Path) -> list[str]:
    found: list[str] = []
    for path in sorted(root.rglob("*.traj.json")):
        for message in json.loads(path.read_text(encoding="utf-8")).get("messages", []):
            if message.get("role") == "assistant" and isinstance(message.get("content"), str):
                found += BLOCK.findall(message["content"])
    return found


def main(argv: list[str]) -> None:
    lines = [c for arg in argv for c in commands(Path(arg))]
    counts: Counter[str] = Counter()
    for line in lines:
        parsed = parse_command(line)
        counts["syntax error (opaque)"] += parsed.syntax_error
        counts["opaque, other reasons"] += parsed.opaque and not parsed.syntax_error
        counts["with latent commands"] += bool(parsed.latent)
    print(f"{len(lines):,} commands")
    for what, n in counts.items():
        print(f"  {what:<24} {n:>6,}  ({n / max(1, len(lines)):.2%})")


if __name__ == "__main__":
    main(sys.argv[1:] or ["../shared/trajectories"])
