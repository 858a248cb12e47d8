from django.apps import AppConfig


class ThirdpartyConfig(AppConfig):
    name = "tests.thirdparty"
    label = "thirdparty"
