from django.shortcuts import render

from accounts.decorators import instructor_required


@instructor_required
def index(request):
    return render(request, "instructor/index.html")
