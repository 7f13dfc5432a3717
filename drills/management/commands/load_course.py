"""`manage.py load_course [--path DIR]`: validate and load the course content and its drills, idempotently.

The one place `course` calls into `drills`: the drills loader writes each module's exercises after the module."""

from django.core.management.base import BaseCommand, CommandError

from course.content_schema import ContentError
from drills.loader import load_course_with_drills


class Command(BaseCommand):
    help = "Validate every module folder and load modules, sections and exercises in one transaction."

    def add_arguments(self, parser):
        parser.add_argument("--path", help="content directory (default: course/content)")

    def handle(self, *args, path=None, **options):
        try:
            report = load_course_with_drills(path)
        except ContentError as error:
            raise CommandError(f"Invalid course content: {error}") from error
        if not report.modules:
            raise CommandError(f"No module folders found in {path or 'course/content'}")
        self.stdout.write(self.style.SUCCESS(report.summary()))
        for label in report.deleted:
            self.stdout.write(f"  deleted {label}")
