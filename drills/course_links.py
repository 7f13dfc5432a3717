"""What drills needs from the course app: module titles and order, and links to sections."""

from django.urls import NoReverseMatch


def module_titles() -> dict[str, tuple[int, str]]:
    """{slug: (order, title)} for loaded modules; empty if the course app has none (one query)."""
    try:
        from course.models import Module
    except ImportError:
        return {}
    return {slug: (order, title) for slug, order, title in Module.objects.values_list("slug", "order", "title")}


def section_titles() -> dict[tuple[str, str], str]:
    """{(module_slug, section_slug): title} for loaded sections (one query)."""
    try:
        from course.models import Section
    except ImportError:
        return {}
    return {
        (module, slug): title for module, slug, title in Section.objects.values_list("module__slug", "slug", "title")
    }


def section_url(module_slug: str, section_slug: str) -> str:
    try:
        from course.selectors import section_url as course_section_url
    except ImportError:
        course_section_url = None
    if course_section_url is not None:
        try:
            return course_section_url(module_slug, section_slug)
        except (NoReverseMatch, LookupError):
            pass
    return f"/course/{module_slug}/#{section_slug}" if section_slug else f"/course/{module_slug}/"


def pretty_slug(slug: str) -> str:
    return slug.replace("-", " ").capitalize()
