from django.apps import AppConfig


class CrmConfig(AppConfig):
    name = "tests.realistic.crm"
    label = "crm"
    default_auto_field = "django.db.models.BigAutoField"
