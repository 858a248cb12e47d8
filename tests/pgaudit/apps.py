from django.apps import AppConfig


class PgauditConfig(AppConfig):
    name = "tests.pgaudit"
    label = "pgaudit"
