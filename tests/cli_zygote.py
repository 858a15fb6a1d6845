"""A Python process that has imported the CLI once and forks a child per `contextual` run of a test.

Starting `python -m contextual` costs about a second of CPU (the interpreter, ~0.5 s of imports, ~0.3 s to load the
tokenizer) and the suite starts it a few hundred times on two cores. A forked child gets all of that for free and
then runs exactly what `python -m contextual ARGS` runs: the real `contextual/__main__.py` with the test's argv,
working folder, environment and stdio, exiting through the interpreter's own shutdown. tests/cli_helpers.py talks
to it; `fresh=True` there (or CONTEXTUAL_TEST_FRESH=1) starts a new interpreter instead, for tests about the
process itself (its /proc environment block, its start-up).

Protocol: one JSON line a request on fd 0 ({"args", "cwd", "env", "out", "err"}); the answer is a line
"pid N" when the child starts and "exit CODE" when it ends (CODE negative for a signal, as subprocess says).
"""

from __future__ import annotations

import gc
import json
import os
import sys


def _preload() -> None:
    import contextual.cli  # noqa: F401  (everything `-p` imports, loaded once)
    import contextual.context_cmd  # noqa: F401
    import contextual.headless  # noqa: F401
    import contextual.core.mcp.manager  # noqa: F401
    import contextual.core.providers.model_info  # noqa: F401
    import contextual.core.runtime  # noqa: F401
    import contextual.core.tools.registry  # noqa: F401
    import httpcore  # noqa: F401  (httpx loads it when a run makes its first client: ~0.1 s a run)
    # The MCP SDK, as a run imports it once a server is configured (about 0.6 s of CPU a run; dozens of runs do)
    import contextual.core.mcp.connection  # noqa: F401
    import contextual.core.mcp.http_bound  # noqa: F401
    import contextual.core.mcp.stdio  # noqa: F401
    import mcp  # noqa: F401
    import mcp.client.sse  # noqa: F401
    import mcp.client.stdio  # noqa: F401
    import mcp.client.streamable_http  # noqa: F401
    import mcp.shared._httpx_utils  # noqa: F401
    import mcp.shared.exceptions  # noqa: F401
    import mcp.shared.message  # noqa: F401
    from contextual.core import tokens
    tokens.encoding()


def _lines():
    pending = b""
    while True:
        chunk = os.read(0, 65536)
        if not chunk:
            return
        pending += chunk
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            yield json.loads(line)


def _say(text: str) -> None:
    os.write(1, (text + "\n").encode())


def _child(request: dict) -> None:
    """Become `python -m contextual ARGS` in the request's folder, environment and files; never returns."""
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    for fd, path, flags in ((0, request.get("stdin") or os.devnull, os.O_RDONLY), (1, request["out"], os.O_WRONLY | os.O_TRUNC),
                            (2, request["err"], os.O_WRONLY | os.O_TRUNC)):
        opened = os.open(path, flags)
        os.dup2(opened, fd)
        os.close(opened)
    import runpy
    sys.argv = ["contextual", *request["args"]]
    runpy.run_module("contextual", run_name="__main__", alter_sys=True)
    sys.exit(0)


def main() -> None:
    _preload()
    # What is loaded stays shared with the children: frozen, the collector never walks it, neither in a child's
    # collections nor in its shutdown's final one, which otherwise wrote to every page of it (copy-on-write) and
    # cost each run about 0.4 s of CPU, more than the CLI's own work in most tests (the gc.freeze docs' advice for
    # a process that forks without exec).
    gc.freeze()
    _say("ready")
    for request in _lines():
        pid = os.fork()
        if pid == 0:
            _child(request)             # SystemExit unwinds to the interpreter's own exit, atexit hooks and all
        _say(f"pid {pid}")
        _, status = os.waitpid(pid, 0)
        _say(f"exit {os.waitstatus_to_exitcode(status)}")


if __name__ == "__main__":
    main()
