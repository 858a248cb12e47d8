from django.apps import AppConfig


class BillingConfig(AppConfig):
    name = "tests.realistic.billing"
    label = "billing"
    default_auto_field = "django.db.models.BigAutoField"
