"""An MCP `CallToolResult` as a C1 tool result (status, data, text, stats, context, error).

Text that is JSON becomes JSON (so the stored form can keep its structure; nested past bounded_json's limit it
stays text, since every later walk of the value recurses); images and audio are
described, never inlined; resource links keep their URI. Works on the SDK's content blocks by their
`type` attribute, so this module needs no SDK import.

Each result is capped (the server's `max_output_tokens`): past it, the text is cut, the stored data holds only
the cut text, and the observation says so — a 50 MB answer is neither stored nor sent.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from contextual.core import bounded_json, tokens
from contextual.core.tools.base import fail, ok

CHARS_PER_TOKEN_AT_MOST = 8      # bounds the text the tokenizer reads to cut at the cap


def _json_or_text(text: str) -> dict[str, Any]:
    stripped = text.strip()
    if stripped[:1] in ("{", "[") and stripped[-1:] in ("}", "]"):
        try:
            return {"type": "json", "json": bounded_json.loads(stripped)}
        except ValueError:
            pass
    return {"type": "text", "text": text}


def _size(data: str | None) -> int:
    try:
        return len(base64.b64decode(data or "", validate=False))
    except (binascii.Error, ValueError):
        return len(data or "")


def _described(kind: str, mime: str | None, data: str | None) -> dict[str, Any]:
    return {"type": kind, "mime_type": mime, "bytes": _size(data),
            "note": f"{kind} content is not shown to the model"}


def block_data(block: Any) -> dict[str, Any]:
    kind = getattr(block, "type", None)
    if kind == "text":
        return _json_or_text(block.text)
    if kind in ("image", "audio"):
        return _described(kind, getattr(block, "mime_type", None), getattr(block, "data", None))
    if kind == "resource_link":
        out = {"type": "resource_link", "uri": str(block.uri), "name": getattr(block, "name", None)}
        for key in ("mime_type", "description"):
            if getattr(block, key, None):
                out[key] = getattr(block, key)
        return out
    if kind == "resource":
        res = block.resource
        out = {"type": "resource", "uri": str(res.uri), "mime_type": getattr(res, "mime_type", None)}
        if getattr(res, "text", None) is not None:
            out.update(_json_or_text(res.text), type="resource", uri=str(res.uri))
        else:
            out.update(bytes=_size(getattr(res, "blob", None)), note="binary resource is not shown to the model")
        return out
    return {"type": str(kind), "note": "unsupported content type"}


def _plain(blocks: list[dict[str, Any]], structured: Any = None) -> str:
    """C1 `text`: what the model reads in full this turn and the UI shows (compact JSON: every indent is tokens)."""
    parts = []
    for b in blocks:
        if b["type"] == "text":
            parts.append(b["text"])
        elif b["type"] == "resource" and ("text" in b or "json" in b):
            # an embedded text resource is the answer itself (a file's content): it read "bytes: not shown"
            said = b["text"] if "text" in b else json.dumps(b["json"], ensure_ascii=False)
            parts.append(f"<{b['uri']}>\n{said}")
        elif "json" in b:
            parts.append(json.dumps(b["json"], ensure_ascii=False))
        elif b["type"] == "resource_link":
            parts.append(f"{b.get('name') or ''} <{b['uri']}>".strip())
        else:
            parts.append(f"[{b['type']} {b.get('mime_type') or ''} {b.get('bytes', '')} bytes: not shown]")
    if structured is not None:
        parts.append(json.dumps(structured, ensure_ascii=False))
    return "\n".join(parts)


def _repeats(block: dict[str, Any], structured: Any) -> bool:
    """Whether a content block says what `structuredContent` says (SDKs wrap plain returns as {"result": ...})."""
    values = [structured]
    if isinstance(structured, dict) and list(structured) == ["result"]:
        values.append(structured["result"])
    said = block.get("json", block.get("text"))
    return any(said == v or (isinstance(v, str) and block.get("type") == "json" and _json_or_text(v) == block)
               for v in values)


def cut_to_tokens(text: str, cap: int) -> str | None:
    """The first `cap` tokens of `text`, or None when it holds no more than that (a token is at least a character,
    so a short text is not counted at all)."""
    if len(text) <= cap:
        return None
    head = text[: cap * CHARS_PER_TOKEN_AT_MOST]
    ids = tokens.encoding().encode(head, disallowed_special=())
    if len(ids) > cap:
        return tokens.encoding().decode(ids[:cap])
    return head if len(head) < len(text) else None


def _cut_note(server: str, tool: str, total: int, cap: int) -> str:
    return (f"[cut: {tool} on MCP server {server} answered {total:,} characters; only the first {cap:,} tokens are "
            f"shown (the server's max_output_tokens). Ask for less: a narrower query, a filter or a page]")


def _resource_text(block: Any) -> str | None:
    """An embedded resource's text (None for any other block, or a binary resource)."""
    if getattr(block, "type", None) != "resource":
        return None
    text = getattr(getattr(block, "resource", None), "text", None)
    return text if isinstance(text, str) else None


def _raw_size(result: Any) -> int:
    """Characters the content holds as text, before any parsing (a 50 MB answer is not parsed as JSON): text blocks,
    embedded text resources, and a link's name and description."""
    return sum(len(s) for b in result.content or []
               for s in (getattr(b, "text", None), _resource_text(b), getattr(b, "name", None),
                         getattr(b, "description", None)) if isinstance(s, str))


def _unparsed(block: Any) -> dict[str, Any]:
    """A block as the cut path reads it: text (a block's or an embedded resource's) as written, never parsed."""
    if getattr(block, "type", None) == "text":
        return {"type": "text", "text": getattr(block, "text", None) or ""}
    text = _resource_text(block)
    if text is not None:
        return {"type": "resource", "uri": str(block.resource.uri), "text": text}
    return block_data(block)


def _capped(server: str, tool: str, result: Any, duration_ms: int, cap: int) -> dict[str, Any] | None:
    """The C1 result of an answer over the cap, or None when it is within it."""
    if _raw_size(result) <= cap and len(json.dumps(getattr(result, "structured_content", None))) <= cap:
        return None
    full = _plain([_unparsed(b) for b in result.content or []],
                  None if result.content else getattr(result, "structured_content", None))
    cut = cut_to_tokens(full, cap)
    if cut is None:
        return None
    note = _cut_note(server, tool, len(full), cap)
    data = {"server": server, "tool": tool, "content": [{"type": "text", "text": cut}],
            "cut": {"chars": len(full), "max_output_tokens": cap}}
    stats = {"duration_ms": duration_ms, "blocks": len(result.content or []), "truncated": True}
    if getattr(result, "is_error", False):
        out = fail("mcp_tool_error", f"{tool} on MCP server {server}: {cut[:2000]}", data=data)
        out["stats"] = stats
        return out
    return ok(data, f"{cut}\n{note}", stats=stats, context={"server": server})


def to_c1(server: str, tool: str, result: Any, duration_ms: int, max_tokens: int | None = None) -> dict[str, Any]:
    if max_tokens is not None:
        capped = _capped(server, tool, result, duration_ms, max_tokens)
        if capped is not None:
            return capped
    blocks = [block_data(b) for b in result.content or []]
    structured = getattr(result, "structured_content", None)
    if structured is not None and any(_repeats(b, structured) for b in blocks):
        structured = None          # the spec has servers repeat structured content as text: keep one copy
    data: dict[str, Any] = {"server": server, "tool": tool, "content": blocks}
    if structured is not None:
        data["structured"] = structured
    stats = {"duration_ms": duration_ms, "blocks": len(blocks)}
    if getattr(result, "is_error", False):
        message = _plain(blocks).strip() or "the tool reported an error without a message"
        out = fail("mcp_tool_error", f"{tool} on MCP server {server}: {message[:2000]}", data=data)
        out["stats"] = stats
        return out
    return ok(data, _plain(blocks, structured), stats=stats, context={"server": server})
