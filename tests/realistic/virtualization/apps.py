from django.apps import AppConfig


class VirtualizationConfig(AppConfig):
    name = "tests.realistic.virtualization"
    label = "virtualization"
    default_auto_field = "django.db.models.BigAutoField"
