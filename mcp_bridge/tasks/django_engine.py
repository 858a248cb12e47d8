"""The ``"django_tasks"`` engine: Django's tasks framework runs the background runs.

Django 6's ``django.tasks``, else the ``django-tasks`` backport on Django 5.2 (``pip install
django-mcp-bridge[tasks]``, which also brings ``django-tasks-db``, the database backend whose
``manage.py db_worker`` runs the tasks). The task takes the task id only: the rest is in the
task's record (:mod:`mcp_bridge.tasks.records`), and no credential ever goes into the queue.
"""

from __future__ import annotations

try:
    from django.tasks import task  # type: ignore[import-not-found,unused-ignore]
except ImportError:  # Django 5.2: the backport
    from django_tasks import task  # type: ignore[no-redef,import-not-found,unused-ignore]

from mcp_bridge.tasks import runs


@task()
def run_task(task_id: str) -> None:
    """Run the MCP task ``task_id`` (:func:`mcp_bridge.tasks.runs.run`)."""
    runs.run(task_id)


def enqueue(task_id: str) -> None:
    """Enqueue the run of ``task_id`` on the ``default`` task backend."""
    run_task.enqueue(task_id)
