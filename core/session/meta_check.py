"""A message's meta as read from a session file, checked against MessageMeta's own annotations (one definition of
its shape: a field added there is checked here too). A key it does not name passes: an older or newer version's."""

from __future__ import annotations

import types
from typing import Any, TypeGuard, Union, get_args, get_origin, get_type_hints, is_typeddict

from contextual.core.messages import MessageMeta

_FIELDS = get_type_hints(MessageMeta)


def meta_problem(meta: dict[str, Any]) -> str | None:
    """The first field of the wrong type, in a few words ("meta.turn is not str"), or None."""
    for key, value in meta.items():
        hint = _FIELDS.get(key)
        if hint is not None and not _fits(value, hint):
            return f"meta.{key} is not {_named(hint)}"
    return None


def is_message_meta(meta: dict[str, Any]) -> TypeGuard[MessageMeta]:
    return meta_problem(meta) is None


def _fits(value: Any, hint: Any) -> bool:
    if hint is Any:
        return True
    origin = get_origin(hint)
    if origin in (Union, types.UnionType):
        return any(_fits(value, each) for each in get_args(hint))
    if origin is list:
        [item] = get_args(hint)
        return isinstance(value, list) and all(_fits(each, item) for each in value)
    if is_typeddict(hint):
        fields = get_type_hints(hint)
        return isinstance(value, dict) and all(key in value for key in hint.__required_keys__) \
            and all(_fits(each, fields[key]) for key, each in value.items() if key in fields)
    if hint is type(None):
        return value is None
    if hint is int:     # JSON's true and false are no whole numbers
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, hint)


def _named(hint: Any) -> str:
    if isinstance(hint, type) and get_origin(hint) is None:
        return "null" if hint is type(None) else hint.__name__
    return " | ".join(map(_named, get_args(hint))) if get_origin(hint) in (Union, types.UnionType) \
        else f"{_named(get_origin(hint))}[{', '.join(map(_named, get_args(hint)))}]"
