"""A page whose `#outcome` part polls itself with htmx until its run finishes (a lab submission, an experiment)."""

from django.shortcuts import render
from django_htmx.http import HttpResponseStopPolling


def polled_page(request, template: str, context: dict, *, finished: bool):
    """The whole page; for the page's own poll only its `outcome` partial, with htmx's stop-polling status
    once the run has finished."""
    if not request.htmx:
        return render(request, template, context)
    response = render(request, f"{template}#outcome", context)
    return HttpResponseStopPolling(response.content) if finished else response
