from django.apps import AppConfig


class IpamConfig(AppConfig):
    name = "tests.realistic.ipam"
    label = "ipam"
    default_auto_field = "django.db.models.BigAutoField"
