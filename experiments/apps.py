from django.apps import AppConfig


class ExperimentsConfig(AppConfig):
    name = "experiments"
    verbose_name = "Experiments"
    default_auto_field = "django.db.models.BigAutoField"
