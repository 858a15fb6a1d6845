"""`contextual export [-c | -r ID] [--as-sent] [-o FILE]`: write a session's transcript (tool calls and results
included) or, with --as-sent, every request as it went on the wire (rebuilt from the session); core/export.py is
the one implementation, shared with the app's /export. Nothing is sent and the session is only read."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from contextual.core.config import ConfigError, load_config
from contextual.settings_flags import add_settings, settings_of


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="contextual export", description="write a session's transcript, or every "
                                "request as sent (--as-sent), to a file under $CONTEXTUAL_HOME/exports/")
    p.add_argument("-c", "--continue", dest="continue_latest", action="store_true",
                   help="the most recent session of this project (the default)")
    p.add_argument("-r", "--resume", metavar="ID", help="session ID")
    p.add_argument("--as-sent", action="store_true", help="every model request as it went on the wire, rebuilt "
                                                          "deterministically from the session (JSON Lines)")
    p.add_argument("-o", "--output", metavar="FILE", help="where to write ('-' for stdout); default "
                                                          "$CONTEXTUAL_HOME/exports/<session>.md or .as-sent.jsonl")
    add_settings(p)         # --as-sent renders each request for the provider and model the session used
    return p


def export_main(argv: list[str]) -> int:
    from contextual.core import export
    from contextual.core.runtime import session_path
    from contextual.core.session import SessionError, load_session
    args = build_parser().parse_args(argv)
    try:
        config = load_config(Path.cwd(), settings_of(args))
        path = session_path(config, args.resume, continue_latest=not args.resume)
        assert path is not None
        loaded = load_session(path)
        text = asyncio.run(export.as_sent(loaded, config)) if args.as_sent else export.transcript(loaded)
    except (ConfigError, SessionError) as exc:
        print(f"contextual export: {exc}", file=sys.stderr)
        return 1
    for warning in loaded.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if args.output == "-":
        sys.stdout.write(text if not args.as_sent else text)
        return 0
    target = Path(args.output) if args.output else export.default_path(config.home, loaded.session_id, args.as_sent)
    try:
        written = export.write(text, target)
    except OSError as exc:
        print(f"contextual export: cannot write {target}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    print(written)
    return 0
