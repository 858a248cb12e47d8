from django.apps import AppConfig


class CommerceConfig(AppConfig):
    name = "tests.realistic.commerce"
    label = "commerce"
    default_auto_field = "django.db.models.BigAutoField"
