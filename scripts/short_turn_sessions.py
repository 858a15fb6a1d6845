"""Sessions of short turns replayed under `ours` and `raw` (docs/economy.md, round 17): billed with a prompt cache.

Each turn reads a 900-line file, makes N-2 more calls (test runs) and answers; four turns a session. Run from the
repository root: python scripts/short_turn_sessions.py [--calls 3 4 5 7 11]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from contextual.core.replay.session_policies import replay_session  # noqa: E402
from tests.engine_helpers import make_config  # noqa: E402
from tests.short_turns import session  # noqa: E402


async def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, nargs="+", default=[3, 4, 5, 7, 11], help="model calls per turn")
    args = parser.parse_args(argv)
    print("calls a turn | ours billed | raw billed | ours / raw")
    with tempfile.TemporaryDirectory() as tmp:
        config = make_config(Path(tmp), "http://127.0.0.1:9/v1")
        for calls in args.calls:
            ours = (await replay_session(session(calls), "ours", config)).figures.billed_tokens
            raw = (await replay_session(session(calls), "raw", config)).figures.billed_tokens
            print(f"{calls:>12} | {ours:>11,.0f} | {raw:>10,.0f} | {ours / raw:.3f}")


if __name__ == "__main__":
    asyncio.run(main())
