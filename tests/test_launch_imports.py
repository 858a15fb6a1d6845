"""The app's first frame waits for nothing it does not show: importing the app does not import the engine, the
tools, the session schema or the shell parser (they load when the first engine is opened, after the frame, and
the parser and the option table at the first Bash line a rule checks: it was 28 ms of the launch's 190 ms of imports)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_importing_the_app_leaves_the_engine_unloaded():
    code = ("import json, sys\nimport contextual.tui.app\n"
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith(('contextual.core.agent', "
            "'contextual.core.engine', 'contextual.core.tools.registry', 'contextual.core.session.schema', "
            "'contextual.core.context.compaction_review', 'contextual.core.shell.parse', "
            "'contextual.core.files_run', 'contextual.core.shell.option_spellings')))))")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []
