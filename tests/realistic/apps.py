from django.apps import AppConfig


class RealisticConfig(AppConfig):
    """The project package itself: it holds the German catalogue of the apps' verbose names."""

    name = "tests.realistic"
    label = "realistic"
    verbose_name = "Realistic API"
