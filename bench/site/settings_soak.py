"""Settings of the soak (bench/soak.py): the demo project's, with SQLite made fit for two
processes writing at once (a busy timeout, and write transactions that take the lock when
they begin, so that two of them never deadlock upgrading a read lock)."""

from demo_project.settings import *

DATABASES["default"]["OPTIONS"] = {"timeout": 30, "transaction_mode": "IMMEDIATE"}
