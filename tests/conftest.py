"""Fixtures every test module may use: a project folder for the CLI tests, both wire formats and a tool context
rooted in an empty folder; and, for the whole suite, the tokenizer loaded before any test starts.

The app loads the tokenizer in a thread after its first frame, so for about a second the meter and History show
placeholders; tests read counted figures, as a person does a second after launch. The placeholder second itself is
tested in tests/test_tui_meter.py (the loader gated by the test).
"""

from __future__ import annotations

import gc
import json
import os
import tempfile
from pathlib import Path

import pytest
from filelock import FileLock

from contextual.core import tokens
from contextual.core.tools.base import ToolContext
from tests import pilot_settle
from tests.wheel_helpers import Installed, build_and_install

WIRES = ["openai", "anthropic"]


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto` runs one worker more than there are cores: most tests spend part of their time waiting (on a CLI
    child starting, a fake server, a timeout that is the point of the test), and the extra worker fills those
    waits. On this 2-core machine a CLI-heavy subset took 208 s with 3 workers against 228 s with 2."""
    return (os.cpu_count() or 1) + 1


# The longest tests (30–50 s each on two cores). They go first: workers steal only tests not yet started, so one of
# these started late ends the suite up to its length after every other test is done.
LONGEST_FIRST = ("tests/test_tui_walk.py::", "tests/test_types.py::", "tests/test_tui_walk_mid_turn.py::")


def _share_ends(count: int, workers: int) -> list[int]:
    """Where each worker's first share of the collection ends: --dist worksteal hands the list out in `workers`
    consecutive runs (each the count still pending over the workers left) and later steals only from a run's end."""
    ends, end = [], 0
    for left in range(workers, 0, -1):
        end += (count - end) // left
        ends.append(end)
    return ends


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The longest tests go first, one at the head of each worker's share in turn: all at the head of the list,
    they were all the first worker's, one after the other (about 150 s of it before its next test)."""
    longest = [item for item in items if item.nodeid.startswith(LONGEST_FIRST)]
    rest = [item for item in items if not item.nodeid.startswith(LONGEST_FIRST)]     # they keep their order
    workers = getattr(config, "workerinput", {}).get("workercount", 1)
    placed: list[pytest.Item] = []
    for share, end in enumerate(_share_ends(len(items), workers)):
        placed += longest[share::workers]
        take = max(0, end - len(placed))
        placed, rest = placed + rest[:take], rest[take:]
    items[:] = placed + rest


# The cycle collector took about a third of the CPU of the Pilot tests: every full collection walks all that lives
# in the process, and Textual's render caches keep a few hundred thousand objects alive across tests. Collections
# start after 10,000 new container objects instead of 700 (what the tests create is collected as before, in fewer
# and larger batches), and what collection loaded (modules, the app's classes, Hypothesis, the SDK) is frozen out of
# them: it lives as long as the process. CLI children keep the defaults (tests/cli_zygote.py).
gc.set_threshold(10_000, 10, 10)


pilot_settle.install()        # Pilot's waits in 5 ms steps, over once no frame is due (tests/pilot_settle.py)


def pytest_collection_finish(session: pytest.Session) -> None:
    gc.collect()
    gc.freeze()


@pytest.fixture(scope="session", autouse=True)
def tokenizer_loaded() -> None:
    tokens.encoding()


@pytest.fixture(autouse=True)
def trusted_project(monkeypatch: pytest.MonkeyPatch) -> None:
    """The projects tests write are their own: their .mcp.json and widening rules take effect, as after the user's
    approval (core/trust.py). Tests of the approval itself delete CONTEXTUAL_TRUST_PROJECT (tests/test_trust.py)."""
    monkeypatch.setenv("CONTEXTUAL_TRUST_PROJECT", "1")


@pytest.fixture(autouse=True)
def permission_answers_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pilot answers a permission the moment it opens; a person's keys in that first moment are ignored
    (PermissionModal.GRACE_S), which tests/test_tui_permission_grace.py checks with the real delay."""
    from contextual.tui.screens.permission import PermissionModal
    monkeypatch.setattr(PermissionModal, "GRACE_S", 0.0)


@pytest.fixture(scope="session")
def installed_wheel(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """The wheel built from this checkout and installed into a folder, once per run: under xdist the first worker
    to ask builds it into the run's own temporary folder (the parent of every worker's), under a lock, and the
    others wait for it and share it (they only read it: a test that damages an install copies it first)."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return build_and_install(tmp_path_factory.mktemp("wheel"))
    run_folder = tmp_path_factory.getbasetemp().parent
    with FileLock(run_folder / "wheel.lock"):
        made = run_folder / "wheel.json"
        if not made.exists():
            installed = build_and_install(Path(tempfile.mkdtemp(prefix="wheel-", dir=run_folder)))
            made.write_text(json.dumps({"wheel": str(installed.wheel), "site": str(installed.site)}))
        paths = json.loads(made.read_text())
    return Installed(Path(paths["wheel"]), Path(paths["site"]))


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    """An empty project folder; its CONTEXTUAL_HOME is the sibling tests.cli_helpers.home_of gives. A module that
    needs files in it overrides this fixture by the same name and asks for it."""
    root = tmp_path / "proj"
    root.mkdir()
    return root


@pytest.fixture(params=WIRES)
def kind(request: pytest.FixtureRequest) -> str:
    """Each test that asks for it runs once per wire format (a test's own parametrize of `kind` overrides this)."""
    return request.param


@pytest.fixture()
def ctx(tmp_path: Path) -> ToolContext:
    """What a tool runs with, its project root an empty folder (tool modules that need files override it)."""
    return ToolContext(root=tmp_path.resolve())
