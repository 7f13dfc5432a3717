"""The drills app: it listens to the course loader and never the reverse."""
from django.apps import AppConfig


class DrillsConfig(AppConfig):
    name = "drills"
    verbose_name = "Drills"

    def ready(self) -> None:
        from course.signals import module_loaded

        from .loader import on_module_loaded

        module_loaded.connect(on_module_loaded, dispatch_uid="drills.load_module_exercises")
