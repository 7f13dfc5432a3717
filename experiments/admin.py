from django.contrib import admin

from experiments.models import Experiment


@admin.register(Experiment)
class ExperimentAdmin(admin.ModelAdmin):
    list_display = ("pk", "owner", "status", "preset", "from_cache", "created")
    list_filter = ("status", "from_cache")
    search_fields = ("owner__username", "config_hash", "preset")
    readonly_fields = ("config", "config_hash", "result", "created", "finished")
