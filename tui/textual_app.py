"""Textual's own App API as the app's parts and slash commands call it, declared once and typed as Textual types it.

Each part knows the app only through a Protocol of its own (``TurnsApp``, ``KeysApp``, ``AppPort``, …): those list
what is ours and extend this one for Textual's. Declared in each, loosely (``query_one(...) -> Any``), a widget
reached through a part was unchecked: a misspelt attribute of the prompt or the meter passed the type check."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any, Callable, Protocol, TypeVar, overload

from textual.geometry import Size
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.widget import Widget
from textual.worker import Worker
from textual.worker_manager import WorkerManager

QueryType = TypeVar("QueryType", bound=Widget)


class TextualApp(Protocol):
    @property
    def size(self) -> Size: ...
    @property
    def screen(self) -> Screen[object]: ...
    @property
    def screen_stack(self) -> list[Screen[Any]]: ...
    @property
    def focused(self) -> Widget | None: ...
    @property
    def workers(self) -> WorkerManager: ...

    @overload
    def query_one(self, selector: str) -> Widget: ...
    @overload
    def query_one(self, selector: type[QueryType]) -> QueryType: ...
    @overload
    def query_one(self, selector: str, expect_type: type[QueryType]) -> QueryType: ...

    @overload
    def query_one_optional(self, selector: str) -> Widget | None: ...
    @overload
    def query_one_optional(self, selector: type[QueryType]) -> QueryType | None: ...
    @overload
    def query_one_optional(self, selector: str, expect_type: type[QueryType]) -> QueryType | None: ...

    def call_later(self, callback: Callable[..., Any], *args: Any, **kwargs: Any) -> bool: ...
    def call_after_refresh(self, callback: Callable[..., Any], *args: Any, **kwargs: Any) -> bool: ...
    def call_from_thread(self, callback: Callable[..., Any], *args: Any, **kwargs: Any) -> Any: ...
    def batch_update(self) -> AbstractContextManager[None]: ...

    # `work` as Textual's WorkType, generic over its result, took no coroutine function of ours (mypy infers Never)
    def run_worker(self, work: Any, name: str | None = "", group: str = "default", description: str = "",
                   exit_on_error: bool = True, start: bool = True, exclusive: bool = False,
                   thread: bool = False) -> Worker[Any]: ...

    # Textual's overloads return an awaitable mount or a future by `wait_for_dismiss`; the parts use neither
    def push_screen(self, screen: Any, callback: Any = None) -> Any: ...

    # the app's own (tui/app.py: ContextualApp.notify) shows the text as written, not as markup
    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = False) -> None: ...

    def copy_to_clipboard(self, text: str) -> None: ...

    def exit(self, result: Any = None, return_code: int = 0, message: Any = None) -> None: ...
