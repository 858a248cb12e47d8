"""The benchmark site with its URLs laid out as a project mounts its APIs
(:mod:`bench.site.urls_mounted`)."""

from .settings import *

ROOT_URLCONF = "bench.site.urls_mounted"
