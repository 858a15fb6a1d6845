"""What the real Anthropic Messages API refuses with a 400 invalid_request_error, checked by the fake server.

The fake answered any body, so a request the real API rejects passed every test. Each rule below is one the API
states in its error (the wording follows the API's messages as users report them):
- messages: a non-empty list; the first one a user turn; roles user/assistant; content a non-blank string or a
  non-empty list of blocks; a text block's text holds non-whitespace; the final assistant turn (a prefill) does
  not end in whitespace;
- system: a string or a list of text blocks, each with non-blank text;
- at most 4 blocks with cache_control in the whole request (system, tools and messages);
- tool_use / tool_result: every tool_use is answered by a tool_result in the next (user) message, and every
  tool_result answers a tool_use of the message just before it;
- thinking blocks: in assistant turns only, each with its signature;
- stop_sequences: each holds non-whitespace;
- input tokens + max_tokens within the window ("input length and `max_tokens` exceed context limit").
"""

from __future__ import annotations

from typing import Any

MAX_CACHE_BREAKPOINTS = 4


def _blocks(content: Any) -> list[Any]:
    return content if isinstance(content, list) else []


def _cache_marks(body: dict[str, Any]) -> int:
    marks = sum(1 for b in _blocks(body.get("system")) if isinstance(b, dict) and "cache_control" in b)
    marks += sum(1 for t in body.get("tools") or [] if isinstance(t, dict) and "cache_control" in t)
    for message in body.get("messages") or []:
        if isinstance(message, dict):
            marks += sum(1 for b in _blocks(message.get("content")) if isinstance(b, dict) and "cache_control" in b)
    return marks


def _system_problems(system: Any) -> list[str]:
    if system is None or (isinstance(system, str) and system.strip()):
        return []
    if isinstance(system, str):
        return ["system: text content blocks must contain non-whitespace text"]
    if not isinstance(system, list):
        return ["system: Input should be a valid list"]
    problems = []
    for i, block in enumerate(system):
        if not isinstance(block, dict) or block.get("type") != "text":
            problems.append(f"system.{i}: Input tag does not match the expected tag 'text'")
        elif not str(block.get("text") or "").strip():
            problems.append(f"system.{i}: text content blocks must contain non-whitespace text")
    return problems


def _tool_ids(content: Any, kind: str, key: str) -> list[str]:
    return [str(b.get(key)) for b in _blocks(content) if isinstance(b, dict) and b.get("type") == kind]


def _message_problems(i: int, message: Any, messages: list[Any]) -> list[str]:
    if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
        return [f"messages.{i}.role: Input should be 'user' or 'assistant'"]
    role, content = message["role"], message.get("content")
    if isinstance(content, str):
        return [] if content.strip() else [f"messages.{i}: text content blocks must contain non-whitespace text"]
    if not isinstance(content, list) or not content:
        return [f"messages.{i}: all messages must have non-empty content"]
    problems = []
    for j, block in enumerate(content):
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text" and not str(block.get("text") or "").strip():
            problems.append(f"messages.{i}.content.{j}: text content blocks must contain non-whitespace text")
        elif kind in ("thinking", "redacted_thinking") and role != "assistant":
            problems.append(f"messages.{i}.content.{j}: thinking blocks are only allowed in assistant messages")
        elif kind == "thinking" and not block.get("signature"):
            problems.append(f"messages.{i}.content.{j}.thinking.signature: Field required")
    previous = messages[i - 1] if i > 0 and isinstance(messages[i - 1], dict) else {}
    asked = set(_tool_ids(previous.get("content"), "tool_use", "id")) if previous.get("role") == "assistant" else set()
    for answered in _tool_ids(content, "tool_result", "tool_use_id"):
        if answered not in asked:
            problems.append(f"messages.{i}.content: unexpected `tool_use_id` found in `tool_result` blocks: "
                            f"{answered}. Each `tool_result` block must have a corresponding `tool_use` block "
                            f"in the previous message.")
    following = messages[i + 1] if i + 1 < len(messages) and isinstance(messages[i + 1], dict) else {}
    results = set(_tool_ids(following.get("content"), "tool_result", "tool_use_id"))
    missing = [t for t in _tool_ids(content, "tool_use", "id") if t not in results]
    if role == "assistant" and missing:
        problems.append(f"messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately after: "
                        f"{', '.join(missing)}. Each `tool_use` block must have a corresponding `tool_result` "
                        f"block in the next message.")
    return problems


def _final_text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    texts = [b for b in _blocks(content) if isinstance(b, dict) and b.get("type") == "text"]
    return str(texts[-1].get("text") or "") if texts else ""


def problems(body: dict[str, Any]) -> list[str]:
    """Every rule of the real API this body breaks, in the API's words; empty when it would be accepted."""
    found = _system_problems(body.get("system"))
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return found + ["messages: at least one message is required"]
    if not isinstance(messages[0], dict) or messages[0].get("role") != "user":
        found.append("messages: first message must use the \"user\" role")
    for i, message in enumerate(messages):
        found += _message_problems(i, message, messages)
    last = messages[-1]
    if isinstance(last, dict) and last.get("role") == "assistant" and _final_text(last) != _final_text(last).rstrip():
        found.append("messages: final assistant content cannot end with trailing whitespace")
    marks = _cache_marks(body)
    if marks > MAX_CACHE_BREAKPOINTS:
        found.append(f"A maximum of {MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. Found {marks}.")
    max_tokens = body.get("max_tokens")
    if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1:
        found.append("max_tokens: Field required (an integer of at least 1)")
    stops = body.get("stop_sequences") or []
    if any(not isinstance(s, str) or not s.strip() for s in stops):
        found.append("stop_sequences: each stop sequence must contain non-whitespace")
    return found


def over_window(tokens: int, max_tokens: Any, window: int) -> str | None:
    """The API's refusal of a prompt that fits the window but leaves less than max_tokens for the answer."""
    if not isinstance(max_tokens, int) or tokens > window or tokens + max_tokens <= window:
        return None
    return (f"input length and `max_tokens` exceed context limit: {tokens} + {max_tokens} > {window}, "
            f"decrease input length or `max_tokens` and try again")
