"""MCP Tasks: slow tool calls as durable handles (the Tasks extension, SEP-2663).

Between dispatch and the call pipeline: dispatch sends a 2026-07-28 ``tools/call`` that declares
the extension, and ``tasks/get``, ``tasks/update`` and ``tasks/cancel``, here; a task runs its
tool through the executor of :mod:`mcp_bridge.toolcall` (in a worker of the task engine), or
reads its job's URL through the same request building, so the normal DRF pipeline, the signals
and the errors hold. It never imports the transport: stdio and HTTP clients get the same tasks.

* :mod:`~mcp_bridge.tasks.negotiation`: the extension's identifier, who declared it, -32021;
* :mod:`~mcp_bridge.tasks.policy`: which calls may become tasks (``@mcp_tool(task=...)``, the
  ``"tasks"`` rules of ``GROUPS``), and the rule that reads a job's answer (:class:`JobState`);
* :mod:`~mcp_bridge.tasks.methods`: the methods; :mod:`~mcp_bridge.tasks.jobs`: job tasks
  (``202 Accepted`` + ``Location``); :mod:`~mcp_bridge.tasks.runs`: run tasks on the task engine
  (:mod:`~mcp_bridge.tasks.django_engine` for Django's tasks framework);
* :mod:`~mcp_bridge.tasks.records`: the state of a task, in a shared Django cache;
  :mod:`~mcp_bridge.tasks.callers`: whose task it is, and as whom a run runs.

The public name is :class:`JobState`, what a ``job_status`` rule returns (docs/tasks.md).
"""

from mcp_bridge.tasks.policy import JobState

__all__ = ["JobState"]
