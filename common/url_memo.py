"""Reversed URLs, remembered: `reverse_cached`, and the `{% url %}` tag every template uses (a builtin, so no
template loads it; settings.TEMPLATES).

A page names the same URLs on every request (the navigation alone has eleven), and reversing one costs
about 50 µs: a quarter of a drill page's server time went there. A URL depends only on its name, its
arguments, the app namespace it is asked from, the URLconf and the script prefix the site is mounted
under, so all of these make the key, and a URL is reversed once per process. Only plain str and int
arguments are remembered; anything else is reversed every time.
"""

from django import template
from django.conf import settings
from django.template.defaulttags import URLNode
from django.template.defaulttags import url as django_url
from django.urls import NoReverseMatch, get_script_prefix, get_urlconf, reverse
from django.utils.html import conditional_escape

MAX_REMEMBERED = 5000  # URLs naming one submission each keep coming: start afresh past this many
_remembered: dict[tuple, str] = {}

register = template.Library()


def reverse_cached(viewname: str, args=(), kwargs=None, current_app: str | None = None) -> str:
    """`django.urls.reverse`, remembered for plain arguments; NoReverseMatch as reverse raises it."""
    kwargs = kwargs or {}
    values = [*args, *kwargs.values()]
    if not all(type(value) in (str, int) for value in values):
        return reverse(viewname, args=args, kwargs=kwargs, current_app=current_app)
    key = (
        get_script_prefix(),
        get_urlconf() or settings.ROOT_URLCONF,
        current_app,
        viewname,
        tuple(args),
        tuple(sorted(kwargs.items())),
    )
    found = _remembered.get(key)
    if found is None:
        found = reverse(viewname, args=args, kwargs=kwargs, current_app=current_app)
        if len(_remembered) >= MAX_REMEMBERED:
            _remembered.clear()
        _remembered[key] = found
    return found


def _current_app(context) -> str | None:
    """The namespace `{% url %}` reverses in, as Django's tag finds it."""
    request = getattr(context, "request", None)
    if hasattr(request, "current_app"):
        return request.current_app
    return getattr(getattr(request, "resolver_match", None), "namespace", None)


class RememberedURLNode(URLNode):
    def render(self, context):
        try:
            found = reverse_cached(
                self.view_name.resolve(context),
                [arg.resolve(context) for arg in self.args],
                {name: value.resolve(context) for name, value in self.kwargs.items()},
                _current_app(context),
            )
        except NoReverseMatch:
            if self.asvar is None:
                raise
            found = ""
        if self.asvar:
            context[self.asvar] = found
            return ""
        return conditional_escape(found) if context.autoescape else found


@register.tag
def url(parser, token):
    """Django's `{% url %}` (same syntax, same errors), answered from `reverse_cached`."""
    node = django_url(parser, token)
    return RememberedURLNode(node.view_name, node.args, node.kwargs, node.asvar)
