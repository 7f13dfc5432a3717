from .roles import is_instructor


def roles(request):
    return {"is_instructor": is_instructor(getattr(request, "user", None)) if hasattr(request, "user") else False}
