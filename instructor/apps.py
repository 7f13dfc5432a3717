from django.apps import AppConfig


class InstructorConfig(AppConfig):
    name = "instructor"
    verbose_name = "Instructor dashboard"

    def ready(self):
        from instructor import signals  # noqa: F401  connects the sign-in receiver
