"""The settings that mypy's Django plugin loads (``[tool.django-stubs]`` in pyproject.toml).

Only the package's app and what it depends on at run time, so that mypy runs in an environment
of the type checker, the stubs and the dependency floors alone (the pins of
``.pre-commit-config.yaml`` and ``.ci/run``), without the packages of the test apps. The
package's code refers to no model of the test apps, so the types mypy sees are the same.
"""

SECRET_KEY = "mypy-only-not-secret"
USE_TZ = True
ROOT_URLCONF = "tests.urls"  # read by the package (a string here: nothing is imported)
INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "rest_framework",
    "drf_spectacular",
    "mcp_bridge",
]
