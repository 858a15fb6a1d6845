"""A tool's arguments, declared once: the runner validates against it and the prompt renders it.

`ArgSpec((Arg("file_path", STR), Arg("offset", INT, required=False, minimum=1)))` renders as
`{"file_path": str, "offset": int?}` and rejects anything else with ToolError("invalid_argument").
An MCP tool's JSON Schema becomes an ArgSpec too (``spec_from_json_schema``): one renderer for every tool's
Arguments line, and the line shows what the runner checks."""

from __future__ import annotations

from typing import Any

import json
from dataclasses import dataclass, field

from contextual.core.tools.base import ToolError

STR, INT, NUMBER, BOOL, LIST, OBJECT, ANY = "str", "int", "number", "bool", "list", "object", "any"
_PY_TYPES = {STR: (str,), INT: (int,), NUMBER: (int, float), BOOL: (bool,), LIST: (list,), OBJECT: (dict,),
             ANY: (object,)}
_A_NAME = {STR: "a string", INT: "an integer", NUMBER: "a number", BOOL: "a boolean", LIST: "an array",
           OBJECT: "an object"}


@dataclass(frozen=True)
class Arg:
    name: str
    kind: str
    required: bool = True
    minimum: int | None = None                 # numbers: smallest allowed value
    choices: tuple[str, ...] = ()              # strings: the only values allowed
    items: "ArgSpec | None" = None             # arrays: the shape of each element (an object)
    item_label: str = "item"                   # arrays: how an element is named in errors ("edit 2: …")
    min_items: int = 0
    shown: str = ""                            # the type as the prompt names it, when not `kind` (a schema's)
    listed: bool = True                        # False: accepted, but not offered in the prompt (costs tokens)

    def render(self) -> str:
        if self.shown:
            shown = self.shown
        elif self.choices:
            shown = alternatives(self.choices)
        elif self.items is not None:
            shown = f"[{self.items.render()}]"
        else:
            shown = self.kind
        return f"{json.dumps(self.name)}: {shown}" + ("" if self.required else "?")


@dataclass(frozen=True)
class ArgSpec:
    args: tuple[Arg, ...] = ()
    note: str = ""                             # prose after the Arguments line of the prompt
    extra_allowed: bool = False                # names not declared pass unchecked (open JSON schemas)
    _by_name: dict[str, Arg] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_name", {arg.name: arg for arg in self.args})

    def render(self) -> str:
        return "{" + ", ".join(arg.render() for arg in self.args if arg.listed) + "}"

    def validate(self, value: object) -> dict[str, Any]:
        """A copy of `value` without null optional arguments; ToolError on the first problem."""
        if not isinstance(value, dict):
            raise ToolError("invalid_argument", f"arguments must be a JSON object, got {_json_type(value)}")
        unknown = sorted(set(value) - set(self._by_name))
        if unknown and not self.extra_allowed:
            allowed = ", ".join(self._by_name) or "none"
            raise ToolError("invalid_argument", f"unknown argument(s): {', '.join(unknown)} (allowed: {allowed})")
        for arg in self.args:
            if arg.required and arg.name not in value:
                raise ToolError("invalid_argument", f"missing required argument: {arg.name}")
        clean: dict[str, Any] = {}
        for name, item in value.items():
            known = self._by_name.get(name)
            if known is None:
                clean[name] = item
                continue
            arg = known
            if item is None and not arg.required:
                continue
            clean[name] = _check(arg, item)
        return clean


def _check(arg: Arg, value: Any) -> Any:
    """JSON from the model, checked here against the argument's spec (the one place it is validated)."""
    kinds = _PY_TYPES[arg.kind]
    if arg.kind == ANY:
        return value
    of_kind = isinstance(value, kinds)        # a plain bool: the value stays Any, JSON checked right here
    if not of_kind or (isinstance(value, bool) and bool not in kinds):   # JSON true is no number
        raise ToolError("invalid_argument", f"argument {arg.name} must be {_A_NAME[arg.kind]}, got {_json_type(value)}")
    if arg.minimum is not None and value < arg.minimum:
        raise ToolError("invalid_argument", f"argument {arg.name} must be >= {arg.minimum}, got {value}")
    if arg.choices and value not in arg.choices:
        raise ToolError("invalid_argument",
                        f"{arg.name} must be one of {', '.join(arg.choices)}, got {value!r}")
    if arg.kind == LIST:
        if len(value) < arg.min_items:
            least = "one" if arg.min_items == 1 else str(arg.min_items)
            raise ToolError("invalid_argument", f"{arg.name} must hold at least {least} {arg.item_label}")
        if arg.items is not None:
            checked = []
            for number, element in enumerate(value, start=1):
                try:
                    checked.append(arg.items.validate(element))
                except ToolError as exc:
                    raise ToolError("invalid_argument", f"{arg.item_label} {number}: {exc}") from None
            return checked
    return value


def _json_type(value: object) -> str:
    names = {bool: "boolean", int: "integer", float: "number", str: "string", list: "array",
             dict: "object", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def alternatives(values: tuple[Any, ...] | list[Any]) -> str:
    """Allowed values as the prompt shows them: "open"|"closed"|3."""
    return "|".join(json.dumps(value, ensure_ascii=False) for value in values)


_SCHEMA_KINDS = {"string": STR, "integer": INT, "number": NUMBER, "boolean": BOOL, "array": LIST, "object": OBJECT}
_SCHEMA_SHOWN = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "null",
                 "object": "object", "array": "list"}
SCHEMA_DEPTH = 3       # nested arrays and objects are spelled out this deep; deeper ones read "list" / "object"
ENUM_SHOWN = 12        # values of an enum the prompt lists


def schema_type(schema: object, depth: int = 0) -> str:
    """A JSON Schema type in the prompt's notation: str, [str], {"k": int?}, "a"|"b", str|int."""
    if not isinstance(schema, dict):
        return ANY
    if isinstance(schema.get("enum"), list):
        return alternatives(schema["enum"][:ENUM_SHOWN])
    if "const" in schema:
        return alternatives([schema["const"]])
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list):
            parts = [schema_type(option, depth) for option in schema[key]]
            return "|".join(dict.fromkeys(part for part in parts if part != "null")) or "null"
    kind = schema.get("type")
    if isinstance(kind, list):
        return "|".join(_SCHEMA_SHOWN.get(k, str(k)) for k in kind if k != "null") or "null"
    if kind == "array" or "items" in schema:
        return f"[{schema_type(schema.get('items'), depth + 1)}]" if depth < SCHEMA_DEPTH else "list"
    if kind == "object" or "properties" in schema:
        props = schema.get("properties")
        if not isinstance(props, dict) or not props or depth >= SCHEMA_DEPTH:
            return "object"
        return spec_from_json_schema(schema, depth=depth + 1).render()
    return _SCHEMA_SHOWN.get(kind, ANY) if isinstance(kind, str) else ANY


def spec_from_json_schema(schema: dict[str, Any], note: str = "", depth: int = 0) -> ArgSpec:
    """An ArgSpec for a JSON-Schema object (e.g. an MCP tool's inputSchema): property names, types, required,
    enums and arrays of objects; a property of no single type accepts any value. Each argument shows its
    schema's type (``schema_type``; ``depth``: how deep this object sits in the tool's schema)."""
    props = schema.get("properties") if isinstance(schema, dict) else None
    required = set(schema.get("required") or ()) if isinstance(schema, dict) else set()
    args = []
    for name, prop in (props if isinstance(props, dict) else {}).items():
        prop = prop if isinstance(prop, dict) else {}
        kind = _SCHEMA_KINDS.get(prop["type"], ANY) if isinstance(prop.get("type"), str) else ANY
        items = prop.get("items")
        nested = spec_from_json_schema(items, depth=depth + 1) if kind == LIST and isinstance(items, dict) \
            and items.get("type") == "object" and items.get("properties") else None
        enum = tuple(prop["enum"]) if kind == STR and isinstance(prop.get("enum"), list) \
            and all(isinstance(v, str) for v in prop["enum"]) else ()
        args.append(Arg(name, kind, required=name in required, items=nested, choices=enum,
                        shown=schema_type(prop, depth)))
    extra = not isinstance(schema, dict) or schema.get("additionalProperties", True) is not False
    return ArgSpec(tuple(args), note, extra_allowed=extra)
