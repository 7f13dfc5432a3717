"""`{% experiment_links module_slug section_slug %}`: the "Try it on the engine" block on a course section."""

from django import template

from experiments.presets import presets_for_section

register = template.Library()


@register.inclusion_tag("experiments/links.html")
def experiment_links(module_slug, section_slug):
    return {"presets": presets_for_section(str(module_slug), str(section_slug))}
