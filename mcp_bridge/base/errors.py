"""Errors of the tool build, shared by the system checks and the endpoint.

A misconfigured group must fail loudly in two places (system checks do not run
under WSGI/ASGI in production): ``manage.py check`` reports each
:class:`Problem` as a Django check message, and every request to the group's
endpoint answers HTTP 500 while :class:`ToolSetError` stands. The modules that find
problems return them; :mod:`mcp_bridge.checks` alone turns them into check messages.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Problem:
    """One configuration fault: of a group, of the setup or of a setting.

    Attributes:
        id: a key of the check catalogue, :data:`mcp_bridge.checks.CHECK_IDS`
            (e.g. ``"mcp_bridge.E001"``).
        msg: what is wrong, naming the view and the tool.
        hint: what to do about it.
        obj: the culprit (usually the view class), for ``checks.Error(obj=...)``.
    """

    id: str
    msg: str
    hint: str
    obj: Any = None


class ToolSetError(Exception):
    """The tools of a group/version cannot be built.

    Attributes:
        group, version: which endpoint.
        problems: every :class:`Problem` found (all of them, not just the first).
    """

    def __init__(self, group: str, version: str | None, problems: list[Problem]) -> None:
        self.group = group
        self.version = version
        self.problems = problems
        where = f"group {group!r}" + (f", version {version!r}" if version else "")
        lines = "\n".join(f"  [{p.id}] {p.msg} Hint: {p.hint}" for p in problems)
        super().__init__(f"The MCP tools of {where} cannot be built:\n{lines}")

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled by its own arguments (a stored build keeps a refused group refused,
        # mcp_bridge.store.builds); Exception's default would call __init__ with the message.
        return (type(self), (self.group, self.version, self.problems))
