"""Course pages: the home with progress, module sections, mark-read, and the KV calculator endpoint."""

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from . import kv_math, selectors, services
from .forms import KvCalculatorForm
from .kv_words import kv_problems


def index(request):
    modules = list(selectors.module_list())
    progress = selectors.progress_by_module(request.user, modules)
    for module in modules:
        module.progress = progress[module.slug]
    context = {
        "modules": modules,
        "continue_section": selectors.continue_section(request.user),
        "has_progress": any(p["read"] for p in progress.values()),
    }
    return render(request, "course/index.html", context)


def _page_or_404(request, module_slug: str, section_slug: str | None) -> dict:
    module = selectors.module_by_slug(module_slug)
    page = selectors.section_page(module, section_slug, request.user) if module else None
    if page is None:
        raise Http404("No such module or section.")
    return page


def _wants_partial(request) -> bool:
    return bool(request.htmx) and not request.htmx.boosted and not request.htmx.history_restore_request


@require_GET
def section(request, module_slug: str, section_slug: str | None = None):
    page = _page_or_404(request, module_slug, section_slug)
    template = "course/module.html#section_swap" if _wants_partial(request) else "course/module.html"
    return render(request, template, page)


@require_POST
def mark_read(request, module_slug: str, section_slug: str):
    page = _page_or_404(request, module_slug, section_slug)
    if not request.user.is_authenticated:
        if _wants_partial(request):
            return render(request, "course/module.html#read_status", {**page, "login_needed": True})
        return redirect_to_login(selectors.section_url(module_slug, section_slug))
    services.section_mark_read(user=request.user, section=page["section"])
    if _wants_partial(request):
        page = _page_or_404(request, module_slug, section_slug)
        return render(request, "course/module.html#mark_read_swap", page)
    messages.success(request, f"Marked “{page['section'].title}” as read.")
    return redirect("course:section", module_slug, section_slug)


@require_GET
def kv_calculator(request):
    form = KvCalculatorForm(request.GET)
    if not form.is_valid():
        return JsonResponse({"errors": {name: errors[0] for name, errors in form.errors.items()}}, status=400)
    arguments = form.report_arguments()
    report = kv_math.kv_report(**arguments)
    problems = kv_problems(
        report=report,
        **{
            key: arguments[key]
            for key in (
                "gpu_memory_bytes",
                "gpu_memory_utilization",
                "weight_bytes",
                "activation_bytes",
                "batch",
                "context_len",
                "max_model_len",
            )
        },
    )
    return JsonResponse({"report": report, "problems": problems})
