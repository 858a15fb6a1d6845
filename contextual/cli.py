"""The command line (CONTRACT "Command line"): `contextual`, `-p`, `replay`, `context`, `undo`, `export`."""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
import time
from pathlib import Path
from types import FrameType

from contextual.environ import drop_key_variables
from contextual.output import INTERRUPTED, OUTPUT_FORMATS, Printer, make_printer
from contextual.piped_input import read_piped, with_piped
from contextual.core import __version__, package_data
from contextual.core.config import PROVIDERS, Config, ConfigError, load_config
from contextual.core.config_files import MODE_ALIASES, PERMISSION_MODES

DESCRIPTION = """\
Contextual: a terminal coding agent whose context you can see.

Run it inside your project. With no -p it opens the full-screen app (sending
PROMPT first when given); with -p it runs one turn headless and prints the final
answer.

Configure a model once (flags > environment > .contextual/config.local.toml >
.contextual/config.toml > $CONTEXTUAL_HOME/config.toml), e.g. for any
OpenAI-compatible server (Ollama, llama.cpp, vLLM, OpenAI):
  export CONTEXTUAL_BASE_URL=http://localhost:11434/v1
  export CONTEXTUAL_MODEL=qwen2.5-coder
  export CONTEXTUAL_API_KEY=...       # or OPENAI_API_KEY / ANTHROPIC_API_KEY
  contextual --provider anthropic --model claude-sonnet-4-5 -p "explain app.py"
"""

EPILOG = """\
subcommands (no model is called):
  contextual replay PATH... [--policy NAME]... [--dump DIR] [--json FILE]
                    [--jobs N] [--progress]
      replay recorded agent trajectories through the context pipeline
  contextual context [-c | -r ID] [--input TEXT] [--json]
      print the prompt the next model call would send, layer by layer
  contextual undo [-r ID]
      undo the file changes of the latest turn of this project's latest session
  contextual export [-c | -r ID] [--as-sent] [-o FILE]
      write a session's transcript (tool calls and results), or every request
      as sent (rebuilt from the session), under $CONTEXTUAL_HOME/exports/

environment: CONTEXTUAL_HOME CONTEXTUAL_PROVIDER CONTEXTUAL_BASE_URL
  CONTEXTUAL_MODEL CONTEXTUAL_API_KEY CONTEXTUAL_CONTEXT_WINDOW
  CONTEXTUAL_SUMMARY_TIMEOUT CONTEXTUAL_KEEP_ROUNDS CONTEXTUAL_PERMISSION_MODE
  CONTEXTUAL_MAX_STEPS CONTEXTUAL_SUMMARY_MODEL CONTEXTUAL_AUTO_COMPACT
  CONTEXTUAL_TRIGGER_RATIO CONTEXTUAL_MAX_RETRIES CONTEXTUAL_TRUST_PROJECT
  CONTEXTUAL_DEBUG, and OPENAI_API_KEY OPENAI_BASE_URL ANTHROPIC_API_KEY
  ANTHROPIC_BASE_URL
"""


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="contextual", description=DESCRIPTION, epilog=EPILOG,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-p", "--print", dest="prompt", metavar="TEXT", help="run one turn headless and print the answer; piped standard input is added after TEXT "
                        "(read only when something arrives within 1 s), and -p - takes the task from it; "
                        "-c -p '/compact [N] [instructions]' compacts the session instead (the app's other "
                        "/commands are refused)")
    p.add_argument("first_message", nargs="?", metavar="PROMPT",
                   help="open the app with PROMPT sent as its first message (as `claude \"…\"` does)")
    p.add_argument("-c", "--continue", dest="continue_latest", action="store_true",
                   help="continue the most recent session of this project")
    p.add_argument("-r", "--resume", metavar="ID", help="continue session ID")
    p.add_argument("--fork", action="store_true", help="with -r ID or -c: continue in a new session holding a copy "
                                                       "of that one (which stays untouched)")
    p.add_argument("--provider", choices=PROVIDERS, help="wire protocol (default openai)")
    p.add_argument("--base-url", metavar="URL", help="endpoint, e.g. http://localhost:11434/v1")
    p.add_argument("--model", metavar="NAME", help="model name")
    p.add_argument("--context-window", type=int, metavar="N",
                   help="tokens (default: the window the server states, else the model table's, else 200000)")
    p.add_argument("--permission-mode", choices=(*PERMISSION_MODES, *MODE_ALIASES),
                   metavar="{" + ",".join(PERMISSION_MODES) + "}",
                   help="default: ask before Bash/Write/Edit/MultiEdit (headless: refuse); "
                        "accept-edits: edits allowed, Bash asks; plan: reads only, the answer is a plan; "
                        "bypass: allow all (Claude Code's " + " and ".join(MODE_ALIASES) + " are read as "
                        + " and ".join(MODE_ALIASES.values()) + ")")
    p.add_argument("--summary-timeout", type=float, metavar="S", help="seconds for summary generation (default 120)")
    p.add_argument("--keep-rounds", type=int, metavar="N", help="rounds kept verbatim at compaction (default 10)")
    p.add_argument("--max-steps", type=int, metavar="N", help="model calls allowed in one turn (default 50)")
    p.add_argument("--summary-model", metavar="NAME", help="model for summaries (default: the current one)")
    p.add_argument("--no-auto-compact", dest="auto_compact", action="store_const", const=False,
                   help="never compact by itself: warn and let the user decide")
    p.add_argument("--output-format", choices=OUTPUT_FORMATS, default="text",
                   help="with -p: text (the answer), json (one object at the end) or stream-json (one object "
                        "per line as events happen, the last of type result)")
    p.add_argument("--trust-project", action="store_true",
                   help="use this project's .mcp.json servers, widening rules, hooks and commands' tool grants "
                        "and shell lines without approval (also CONTEXTUAL_TRUST_PROJECT=1); for CI jobs that "
                        "trust the checkout")
    p.add_argument("--version", action="version", version=f"contextual {__version__}")
    return p


FLAG_KEYS = ("provider", "base_url", "model", "context_window", "permission_mode", "summary_timeout",
             "keep_rounds", "max_steps", "summary_model", "auto_compact")


def _damaged_install() -> str | None:
    """One line naming a data file this install lacks, or None (checked before anything reads one)."""
    absent = package_data.missing()
    return str(package_data.InstallDamaged(absent[0], "missing")) if absent else None


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    subcommand = bool(argv) and argv[0] in ("replay", "context", "undo", "export")
    headless = not subcommand and any(a in ("-p", "--print") or a.startswith("--print=") for a in argv)
    if not headless and not {"--version", "-h", "--help"} & set(argv):    # -p says it in its own output format
        damaged = _damaged_install()
        if damaged:
            print(f"error: {damaged}", file=sys.stderr)
            return 1
    if subcommand:
        try:
            return _subcommand(argv[0], argv[1:])
        except KeyboardInterrupt:       # Ctrl-C: one line and the shell's status for it, never a traceback
            print(f"contextual {argv[0]}: interrupted", file=sys.stderr)
            return 130
    args = build_parser().parse_args(argv)
    if args.first_message is not None and args.prompt is not None:
        return make_printer(args.output_format).fail(
            f"two tasks: -p {args.prompt!r} runs one headless, {args.first_message!r} opens the app with it; "
            "give one (quote a task of several words)")
    if args.fork:
        failed = _fork(args)
        if failed is not None:
            return make_printer("text").fail(failed)
    if args.prompt is None:
        if args.output_format != "text":
            return make_printer("text").fail("--output-format needs -p TEXT (the app has its own screen)")
        try:
            return _open_app(args)
        except KeyboardInterrupt:       # before the app takes the terminal (it reads Ctrl-C as a key)
            print("contextual: interrupted", file=sys.stderr)
            return 130
    return _print_mode(args)


def _subcommand(name: str, argv: list[str]) -> int:
    if name == "replay":
        from contextual.core.replay.cli import replay_main
        return replay_main(argv)
    if name == "context":
        from contextual.context_cmd import context_main
        return context_main(argv)
    if name == "export":
        from contextual.export_cmd import export_main
        return export_main(argv)
    from contextual.undo_cmd import undo_main
    return undo_main(argv)


def _load(args: argparse.Namespace, ask_server: bool = True) -> Config:
    if args.trust_project:
        from contextual.core import trust
        trust.trust_this_run()
    config = load_config(Path.cwd(), {k: getattr(args, k) for k in FLAG_KEYS})
    drop_key_variables()            # read once, now out of reach of Bash and other children
    if not ask_server:              # the app asks after its first frame (tui/host.py: RealHost.connect)
        return config
    from contextual.core.model_facts import resolve_window
    return asyncio.run(resolve_window(config))   # once, 2 s at most (8 s for a local server): the server's window unless the user set one


def _fork(args: argparse.Namespace) -> str | None:
    """--fork: copy the chosen session into a new one and continue that (args now name it); or the error."""
    if not (args.resume or args.continue_latest):
        return "--fork needs the session to copy: -r ID or -c"
    from contextual.core.runtime import session_path
    from contextual.core.session import SessionError
    from contextual.core.session.fork import fork_session
    try:
        config = load_config(Path.cwd(), {k: getattr(args, k) for k in FLAG_KEYS})
        parent = session_path(config, args.resume, args.continue_latest)
        assert parent is not None
        writer = fork_session(config.home, config.project_root, parent)
        writer.close_sync()
    except (ConfigError, SessionError) as exc:
        return str(exc)
    print(f"forked session {parent.stem} into {writer.session_id}", file=sys.stderr)
    args.resume, args.continue_latest = writer.session_id, False
    return None


def _open_app(args: argparse.Namespace) -> int:
    try:
        config = _load(args, ask_server=False)
    except ConfigError as exc:
        return make_printer("text").fail(str(exc))
    from contextual.tui.launch import run_app   # imported only when the app is asked for: -p never loads textual
    return run_app(config, resume_id=args.resume, continue_latest=args.continue_latest,
                   first_message=args.first_message or "")


def _print_mode(args: argparse.Namespace) -> int:
    started = time.monotonic()
    for stream in (sys.stdout, sys.stderr):     # a terminal that cannot show a character gets a '?', not a crash
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="replace")
    printer = make_printer(args.output_format)
    damaged = _damaged_install()
    if damaged:
        return printer.fail(damaged, started)
    piped = read_piped(wait=args.prompt == "-")
    if piped.error:
        return printer.fail(piped.error, started)
    if piped.notice:
        print(piped.notice, file=sys.stderr)
    args.prompt = with_piped(args.prompt, piped.text)
    if not args.prompt.strip():
        return printer.fail("empty prompt: give -p the text of the task (nothing was sent to the model)", started)
    try:
        config = _load(args)
    except ConfigError as exc:
        return printer.fail(str(exc), started)
    missing = config.missing_model_message()
    if missing:
        return printer.fail(missing, started)
    _end_as_interrupted_on(signal.SIGTERM, signal.SIGHUP)
    try:
        return asyncio.run(_headless(config, args, printer, started))
    except KeyboardInterrupt:
        return printer.fail(INTERRUPTED, started)     # a second Ctrl-C: the result keeps what the run had
    except package_data.InstallDamaged as exc:
        return printer.fail(str(exc), started)
    except Exception as exc:        # a bug must still end in one line (and a JSON result), never a traceback
        if os.environ.get("CONTEXTUAL_DEBUG"):
            raise
        return printer.fail(f"internal error: {type(exc).__name__}: {exc} (CONTEXTUAL_DEBUG=1 shows where)", started)


def _end_as_interrupted_on(*signals: signal.Signals) -> None:
    """SIGTERM (`kill`, a CI job's timeout) and SIGHUP (the terminal closed) end a headless run as Ctrl-C does: the
    turn recorded as interrupted, Bash's children ended, one line. They go to SIGINT's handler (asyncio's, which
    cancels the turn, while the run is on), or raise KeyboardInterrupt where SIGINT is ignored."""
    def interrupt(signum: int, frame: FrameType | None) -> None:
        handler = signal.getsignal(signal.SIGINT)
        if not callable(handler):
            raise KeyboardInterrupt
        handler(signum, frame)
    for sig in signals:
        signal.signal(sig, interrupt)


async def _headless(config: Config, args: argparse.Namespace, printer: Printer, started: float) -> int:
    from contextual.headless import run_headless
    from contextual.print_commands import refusal
    from contextual.core.runtime import open_engine, window_problem
    refused = refusal(args.prompt, config, bool(args.resume or args.continue_latest))
    if refused is None and not args.prompt.startswith("/"):     # a command's text is known once it is expanded
        refused = window_problem(config, args.prompt)
    if refused is not None:         # before any session is opened (the turn says a too small window again, with MCP)
        return printer.fail(refused, started)
    try:
        engine, closer = await open_engine(config, resume_id=args.resume, continue_latest=args.continue_latest)
    except ConfigError as exc:
        return printer.fail(str(exc), started)
    return await run_headless(engine, args.prompt, printer, started=started, closer=closer)
