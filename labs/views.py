from django.shortcuts import render


def index(request):
    return render(request, "labs/index.html")


def detail(request, slug):
    return render(request, "labs/index.html")
