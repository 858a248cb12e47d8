"""MCP Tasks: slow tool calls as durable handles (the place is reserved; nothing lives here yet).

What will live here (docs/architecture.md, "Where the next capabilities go"): the Tasks
extension's negotiation, the rule that makes a call a task (a view that answers ``202
Accepted`` with a job, a rule the project declares, a slow synchronous view run by the project's
task engine), and the ``tasks/get``, ``tasks/update`` and ``tasks/cancel`` methods.

Its layer is between dispatch and the call pipeline: dispatch routes the task methods and the
calls that become tasks here, and a task runs a tool (or reads its job's URL) through the
executor of :mod:`mcp_bridge.toolcall`, so the normal DRF pipeline, signals and errors hold.
It never imports the transport: stdio and HTTP clients get the same tasks.
"""
