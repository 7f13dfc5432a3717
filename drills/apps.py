"""The drills app: it reads the course (modules by slug, the exercises the loader read) and never the reverse."""

from django.apps import AppConfig


class DrillsConfig(AppConfig):
    name = "drills"
    verbose_name = "Drills"

    def ready(self):
        """Cached reads (common/readcache.py) forget what a saved drill or review card changes."""
        from django.db.models.signals import post_delete, post_save

        from common.readcache import content_saved

        from .models import Drill, ReviewCard
        from .selectors import card_saved

        post_save.connect(content_saved, sender=Drill, dispatch_uid="drills.drill_saved")
        post_delete.connect(content_saved, sender=Drill, dispatch_uid="drills.drill_deleted")
        post_save.connect(card_saved, sender=ReviewCard, dispatch_uid="drills.card_saved")
        post_delete.connect(card_saved, sender=ReviewCard, dispatch_uid="drills.card_deleted")
