"""The history's unit: one message, as stored (seed 002 D1, E1).

Roles:
- ``summary``   an archived-history summary (A5); never compressed again.
- ``user``      a user input; starts a round (D1).
- ``assistant`` the model's ``Thought/Action`` text of one step, or the final answer.
- ``tool``      a tool result in its *stored* (compressed) form; ``full`` keeps the whole
                observation for browsing, it is never sent once the turn is over.
"""

from __future__ import annotations

import uuid as _uuid
from dataclasses import dataclass, field, replace
from typing import Any, Literal

Role = Literal["summary", "user", "assistant", "tool"]


def new_id() -> str:
    return str(_uuid.uuid4())


@dataclass(frozen=True)
class Message:
    role: Role
    content: str
    # The full observation (tool messages only): shown side by side with ``content``.
    full: str | None = None
    # tool_name, step, call_id, thinking, interrupted, turn, timestamp, preprocessed_from ...
    meta: dict[str, Any] = field(default_factory=dict)
    id: str = field(default_factory=new_id)

    def with_content(self, content: str, **meta: Any) -> "Message":
        return replace(self, content=content, meta={**self.meta, **meta})

    @property
    def tool_name(self) -> str | None:
        return self.meta.get("tool_name")

    @property
    def call_id(self) -> str | None:
        return self.meta.get("call_id")
