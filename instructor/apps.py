from django.apps import AppConfig


class InstructorConfig(AppConfig):
    name = "instructor"
    verbose_name = "Instructor dashboard"
