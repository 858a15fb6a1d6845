"""The compressor row for MCP results (issue 17; seed 002 A3 style): keep the structure, cut the bulk.

MCP results are often big JSON blobs (issue lists, search hits, database rows). The stored form keeps
what lets the model refer back to them: the keys, every id, URLs and names, counts, and the first few
items in full shape; long strings are clipped and the rest is counted, never silently dropped.
"""

from __future__ import annotations

import json
import re
from typing import Any

from contextual.core.context.truncate import head_tail

# Keys whose values identify an item: kept for every item of a list, not just the first few.
_ID_KEY = re.compile(r"(^|_)(id|key|uuid|slug|sha|number|url|uri|href|path|name|title)$", re.I)


class _Lim:
    def __init__(self, lim: Any, tight: bool = False) -> None:
        normal = lim.default_chars >= 2_000 and not tight
        self.sample = 3 if normal else 1            # list items kept in full shape
        self.ids = 100 if normal else (10 if tight else 30)   # identifying values kept for the whole list
        self.string = 200 if normal else 80         # characters kept of a long string
        self.keys = 40 if normal else 15            # keys kept of one object
        self.depth = 4 if normal else 2
        self.text = lim.default_chars               # plain text blocks: head + tail


def _short(text: str, lim: _Lim) -> str:
    return text if len(text) <= lim.string else text[:lim.string] + f"… ({len(text):,} chars)"


def shape(value: Any, lim: _Lim, depth: int = 0) -> Any:
    """A bounded copy of a JSON value with the same structure."""
    if isinstance(value, str):
        return _short(value, lim)
    if isinstance(value, dict):
        if depth >= lim.depth:
            return {"keys": list(value)[:lim.keys], "omitted": "nested object not kept"}
        items = list(value.items())
        out = {k: shape(v, lim, depth + 1) for k, v in items[:lim.keys]}
        if len(items) > lim.keys:
            out["omitted_keys"] = len(items) - lim.keys
        return out
    if isinstance(value, list):
        return _list(value, lim, depth)
    return value


def _ids(items: list[Any], lim: _Lim) -> dict[str, list[Any]]:
    """Identifying fields (id, url, name, ...) of every object in a list."""
    keys = [k for k in dict.fromkeys(k for item in items if isinstance(item, dict) for k in item) if _ID_KEY.search(k)]
    out = {}
    for key in keys[:4]:
        values = [item.get(key) for item in items if isinstance(item, dict) and key in item]
        values = [_short(v, lim) if isinstance(v, str) else v for v in values if not isinstance(v, (dict, list))]
        if values:
            out[key] = values[:lim.ids] + ([f"… {len(values) - lim.ids} more"] if len(values) > lim.ids else [])
    return out


def _list(items: list[Any], lim: _Lim, depth: int) -> Any:
    if len(items) <= lim.sample:
        return [shape(v, lim, depth + 1) for v in items]
    out: dict[str, Any] = {"count": len(items)}
    dicts = [v for v in items if isinstance(v, dict)]
    if dicts:
        out["keys"] = list(dict.fromkeys(k for d in dicts for k in d))[:lim.keys]
    out["first"] = [shape(v, lim, depth + 1) for v in items[:lim.sample]]
    ids = _ids(items, lim)
    if ids:
        out["all"] = ids
    out["omitted"] = f"{len(items) - lim.sample} more items not kept in full; call the tool again to see them"
    return out


def _block(block: dict[str, Any], lim: _Lim) -> dict[str, Any]:
    if "json" in block:
        return {**{k: v for k, v in block.items() if k != "json"}, "json": shape(block["json"], lim)}
    if block.get("type") in ("text", "resource") and isinstance(block.get("text"), str):
        return {**block, "text": head_tail(block["text"], lim.text)}
    return block


def stored(args: dict[str, Any], data: dict[str, Any], limits: Any) -> Any:
    """The row registered in core/context/compressor.py for every `mcp__*` tool. Wide results (many keys,
    each a long list) are shaped again more tightly, and as a last resort cut head + tail like any text."""
    cap = limits.default_chars * 4
    for tight in (False, True):
        out = _stored(data, _Lim(limits, tight))
        text = json.dumps(out, ensure_ascii=False, default=str)
        if len(text) <= cap:
            return out
    return head_tail(text, cap)


def _stored(data: dict[str, Any], lim: _Lim) -> Any:
    if not isinstance(data.get("content"), list):      # not our conversion (e.g. a replayed record): shape it all
        return shape(data, lim)
    blocks = data["content"]
    out: dict[str, Any] = {"content": [_block(b, lim) for b in blocks if isinstance(b, dict)]}
    if "structured" in data:
        out["structured"] = shape(data["structured"], lim)
    return out
