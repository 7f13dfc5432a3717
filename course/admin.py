"""Admin views of the course; content itself is edited in course/content and loaded with load_course."""

from django.contrib import admin

from .models import Module, Section, SectionRead


class SectionInline(admin.TabularInline):
    model = Section
    fields = ("order", "slug", "title")
    readonly_fields = fields
    extra = 0
    can_delete = False


@admin.register(Module)
class ModuleAdmin(admin.ModelAdmin):
    list_display = ("order", "title", "slug", "bound_resource")
    readonly_fields = ("slug", "order", "labs", "widgets")
    inlines = [SectionInline]


@admin.register(SectionRead)
class SectionReadAdmin(admin.ModelAdmin):
    list_display = ("user", "section", "read_at")
    list_filter = ("section__module",)
    search_fields = ("user__username",)
    list_select_related = ("user", "section__module")
