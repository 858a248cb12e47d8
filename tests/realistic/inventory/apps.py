from django.apps import AppConfig


class InventoryConfig(AppConfig):
    name = "tests.realistic.inventory"
    label = "inventory"
    default_auto_field = "django.db.models.BigAutoField"
