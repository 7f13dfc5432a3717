"""`{% lab_links module.labs %}`: a course module's labs, each with its leaderboard when it has one."""

from django import template

from labs.selectors import labs_named

register = template.Library()


@register.inclusion_tag("labs/lab_links.html")
def lab_links(lab_slugs):
    return {"labs": labs_named(slugs=[str(slug) for slug in lab_slugs or []])}
