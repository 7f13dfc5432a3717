from django.apps import AppConfig


class LabsConfig(AppConfig):
    name = "labs"
    verbose_name = "Labs"

    def ready(self):
        """A saved lab drops every cached lookup of course content (common/readcache.py)."""
        from django.db.models.signals import post_delete, post_save

        from common.readcache import content_saved

        from .models import Lab

        post_save.connect(content_saved, sender=Lab, dispatch_uid="labs.lab_saved")
        post_delete.connect(content_saved, sender=Lab, dispatch_uid="labs.lab_deleted")
