from django.apps import AppConfig


class CohortsConfig(AppConfig):
    name = "cohorts"
    verbose_name = "Cohorts"

    def ready(self):
        from cohorts import signals  # noqa: F401  connects the sign-in receiver
