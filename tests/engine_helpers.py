"""Shared set-up for engine tests: a real Engine talking to a real fake server on 127.0.0.1."""

from __future__ import annotations

import contextlib
from dataclasses import replace
from pathlib import Path

from contextual.core.agent import Engine
from contextual.core.config import Config
from contextual.core.events import TurnFinished
from contextual.core.providers.factory import make_provider
from tests.fakes.llm_server import FakeLLMServer


def make_config(root: Path, base_url: str, **overrides) -> Config:
    cfg = Config(project_root=root.resolve(), home=root.parent / (root.name + "-home"), provider="openai",
                 base_url=base_url, model="fake-model", permission_mode="bypass")
    return replace(cfg, **overrides)


@contextlib.asynccontextmanager
async def engine_with(root: Path, script: list, kind: str = "openai", session=None, interactive=True,
                      snapshots=None, **cfg):
    with FakeLLMServer(kind=kind, script=script) as srv:
        config = make_config(root, srv.base_url, provider=kind, **cfg)
        provider = make_provider(config, base_delay=0.01, max_delay=0.05)
        engine = Engine(config, provider, session=session, interactive=interactive, snapshots=snapshots)
        try:
            yield engine, srv
        finally:
            await provider.aclose()


async def run(engine: Engine, text: str) -> list:
    return [ev async for ev in engine.run_turn(text)]


def finished(events: list) -> TurnFinished:
    done = [e for e in events if isinstance(e, TurnFinished)]
    assert done, f"turn did not finish: {events[-3:]}"
    return done[-1]


def read_action(path: str) -> str:
    return f'Thought: look at {path}\nAction: Read[{{"file_path": "{path}"}}]'


def finish(answer: str = "done") -> str:
    return f"Thought: done\nAction: Finish[{answer}]"
