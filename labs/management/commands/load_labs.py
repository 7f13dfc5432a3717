"""`manage.py load_labs [--path DIR]`: load the lab catalogue from labs/content, idempotently."""

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from labs.content_reader import CONTENT_DIR, LabContentError, read_all
from labs.models import Lab


class Command(BaseCommand):
    help = "Load (or update) the labs from labs/content/<slug>/{lab.yaml, statement.md, starter.py}."

    def add_arguments(self, parser):
        parser.add_argument("--path", default=str(CONTENT_DIR), help="folder holding one folder per lab")

    def handle(self, *args, path, **options):
        try:
            labs = read_all(path)
        except LabContentError as error:
            raise CommandError(str(error)) from None
        created = updated = 0
        with transaction.atomic():
            for lab in labs:
                if lab.unknown_fields:
                    self.stderr.write(f"{lab.slug}/lab.yaml: ignoring unknown field(s) {', '.join(lab.unknown_fields)}")
                row, was_created = Lab.objects.get_or_create(slug=lab.slug, defaults=lab.model_fields())
                if was_created:
                    created += 1
                    continue
                fields = lab.model_fields()
                changed = [name for name, value in fields.items() if getattr(row, name) != value]
                for name in changed:
                    setattr(row, name, fields[name])
                if changed:
                    row.save(update_fields=changed)
                    updated += 1
        self.stdout.write(f"labs: {created} created, {updated} updated, {len(labs) - created - updated} unchanged")
