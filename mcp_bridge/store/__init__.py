"""The build store: a built tool set written once and loaded by every process.

Without a store, each process (each Gunicorn worker, after every deploy or restart) runs
drf-spectacular and the whole build for every group it serves. With one, the first process
to need a group/version builds it and writes it to the store; every other process, on any
machine that shares the store, loads it instead, in a small fraction of the build's time.
``manage.py mcp_build`` writes every group and version ahead of time, as a deploy step
(docs/deploy.md).

Open the modules in this order:

1. :mod:`~mcp_bridge.store.builds`: :func:`~mcp_bridge.store.builds.load_or_build`, what the
   registry calls: load the build stored under its key, or take the key's lease, build, store;
2. :mod:`~mcp_bridge.store.keys`: the key, a digest of everything a build depends on, so that a
   stale build is never served;
3. :mod:`~mcp_bridge.store.backends`: where builds live (files, a Django cache) and the system
   checks of the ``BUILD_STORE`` setting;
4. :mod:`~mcp_bridge.store.codec`: a build as bytes (pickle, with equal JSON values shared and
   the view classes made at run time referred to by their URL pattern);
5. :mod:`~mcp_bridge.store.packing`: what a loaded build keeps packed until a call reads it.

The store stands on the build (it stores what the build made) and knows nothing of the call:
an import-linter contract (``pyproject.toml``) keeps it so.
"""
