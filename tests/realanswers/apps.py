from django.apps import AppConfig


class RealAnswersConfig(AppConfig):
    name = "tests.realanswers"
    label = "realanswers"
