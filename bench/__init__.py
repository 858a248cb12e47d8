"""Benchmarks of mcp_bridge (issue #6): see docs/benchmarks.md. Run with ``bash bench/run``."""
