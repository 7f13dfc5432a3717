"""The drills app: it reads the course (modules by slug, the exercises the loader read) and never the reverse."""
from django.apps import AppConfig


class DrillsConfig(AppConfig):
    name = "drills"
    verbose_name = "Drills"
