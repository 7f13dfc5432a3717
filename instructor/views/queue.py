"""Queue health: waiting and running lab runs, and the workers that sent a heartbeat."""

from django.shortcuts import render

from accounts.decorators import instructor_required
from health import selectors
from instructor import sources


@instructor_required
def queue_health(request):
    template = "instructor/queue.html#health" if request.htmx else "instructor/queue.html"
    return render(request, template, {"stats": sources.queue_stats(), "workers": selectors.workers()})
