"""The Tasks extension (``io.modelcontextprotocol/tasks``, SEP-2663) for the official MCP Python
SDK 2.x client, which ships the extension points but no tasks client of its own.

``Client(..., extensions=[TasksExtension()])`` declares the extension on every request; when a
``tools/call`` is answered with a ``CreateTaskResult`` (``resultType: "task"``), the extension
polls ``tasks/get`` (with the ``Mcp-Name`` header of the task id) every ``pollIntervalMs``
until the task is terminal, and ``call_tool`` returns the tool's own ``CallToolResult``. A
``failed`` task raises ``MCPError`` with its JSON-RPC error; a ``cancelled`` one too.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Literal

from mcp import MCPError
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp_types import CallToolResult, Request, RequestParams, Result

EXTENSION = "io.modelcontextprotocol/tasks"


class CreateTaskResult(Result):
    """A ``CreateTaskResult``: the task that stands for the call's result."""

    result_type: Literal["task"]
    task_id: str
    status: str
    status_message: str | None = None
    ttl_ms: int | None = None
    poll_interval_ms: int | None = None


class TaskParams(RequestParams):
    task_id: str


class GetTaskRequest(Request[TaskParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    name_param: ClassVar[str | None] = "taskId"


class CancelTaskRequest(Request[TaskParams, Literal["tasks/cancel"]]):
    method: Literal["tasks/cancel"] = "tasks/cancel"
    name_param: ClassVar[str | None] = "taskId"


class DetailedTask(Result):
    """The answer of ``tasks/get``."""

    task_id: str
    status: str
    status_message: str | None = None
    poll_interval_ms: int | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None


class TasksExtension(ClientExtension):
    """Declare the Tasks extension and poll the tasks a server answers with.

    Args:
        on_status: called with each ``tasks/get`` answer (e.g. to show progress).
        polls: when given, a list that gets one entry per ``tasks/get`` sent.
    """

    identifier = EXTENSION

    def __init__(
        self,
        on_status: Callable[[DetailedTask], None] | None = None,
        polls: list[str] | None = None,
    ) -> None:
        self.on_status = on_status
        self.polls = polls

    def claims(self) -> Sequence[ResultClaim[Any]]:
        return (ResultClaim(result_type="task", model=CreateTaskResult, resolve=self.resolve),)

    async def resolve(self, created: CreateTaskResult, ctx: ClaimContext) -> CallToolResult:
        interval = (created.poll_interval_ms or 1000) / 1000
        while True:
            await asyncio.sleep(interval)
            task = await ctx.session.send_request(
                GetTaskRequest(params=TaskParams(task_id=created.task_id)), DetailedTask
            )
            if self.polls is not None:
                self.polls.append(task.status)
            if self.on_status is not None:
                self.on_status(task)
            interval = (task.poll_interval_ms or interval * 1000) / 1000
            if task.status == "completed" and task.result is not None:
                return CallToolResult.model_validate(task.result)
            if task.status in ("failed", "cancelled"):
                error = task.error or {"code": -32603, "message": f"The task was {task.status}."}
                raise MCPError(error["code"], error["message"], error.get("data"))
