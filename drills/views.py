from django.shortcuts import render


def index(request):
    return render(request, "drills/index.html")


def review(request):
    return render(request, "drills/index.html")


def module(request, module_slug):
    return render(request, "drills/index.html")
