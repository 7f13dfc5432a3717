"""Experiment pages: the knobs form with presets and past runs, one run's live result, two runs side by side."""

from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from common.polling import polled_page
from experiments import presets, selectors
from experiments.forms import ExperimentForm
from experiments.services import ExperimentRefused, experiment_create, experiment_expire_stale


def _initial(request) -> tuple[dict, presets.Preset | None]:
    preset = presets.preset_by_slug(request.GET.get("preset", ""))
    if preset:
        return {**preset.config, "preset": preset.slug}, preset
    earlier = selectors.experiment_for(owner=request.user, experiment_id=request.GET.get("from", ""))
    return (dict(earlier.config) if earlier else {}), None


@require_http_methods(["GET", "POST"])
@login_required
def index(request):
    initial, preset = _initial(request)
    if request.method == "POST":  # the question stays on screen while the learner fixes a knob
        preset = presets.preset_by_slug(request.POST.get("preset", ""))
    form = ExperimentForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            experiment = experiment_create(
                owner=request.user, config=form.config(), preset=preset.slug if preset else ""
            )
            return redirect(experiment)
        except ExperimentRefused as refused:
            form.add_error(refused.field if refused.field in form.fields else None, str(refused))
    context = {
        "form": form,
        "preset": preset,
        "presets": presets.preset_list(),
        "runs": selectors.experiment_list(owner=request.user)[:50],
    }
    return render(request, "experiments/index.html", context, status=400 if form.errors else 200)


@require_GET
@login_required
def detail(request, pk):
    experiment = selectors.experiment_for(owner=request.user, experiment_id=pk)
    if experiment is None:
        raise Http404("No such experiment.")
    experiment = experiment_expire_stale(experiment=experiment)
    context = {
        "experiment": experiment,
        "rows": selectors.metric_rows(experiment),
        "figures": selectors.figures(experiment),
        "preset": presets.preset_by_slug(experiment.preset),
        "ahead": selectors.experiments_ahead_of(experiment) if experiment.status == experiment.Status.QUEUED else 0,
    }
    return polled_page(request, "experiments/detail.html", context, finished=experiment.is_finished)


@require_GET
@login_required
def compare(request):
    ids = [request.GET.get(key, "") for key in ("a", "b")]
    runs = [selectors.experiment_for(owner=request.user, experiment_id=i) for i in ids]
    if None in runs:
        raise Http404("Pick two of your own experiments to compare.")
    context = selectors.comparison(first=runs[0], second=runs[1])
    return render(request, "experiments/compare.html", context)
