from django.apps import AppConfig


class AuditConfig(AppConfig):
    name = "tests.audit"
    label = "audit"
