"""Mock interview: choose length and modules, answer against the clock, then read the report."""

from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from . import answers, selectors, services
from .course_links import module_titles, pretty_slug
from .mock import mock_report, mock_state
from .models import Kind, MockInterview
from .payload import AnswerError, read_payload
from .rounds import new_round, read_round
from .views import exercise_context, plain_400


def _mock_modules() -> list[tuple[str, str]]:
    titles = module_titles()
    slugs = {
        slug for slug, kinds in selectors.module_kind_counts().items() if kinds.get(Kind.CARD) or kinds.get(Kind.QUIZ)
    }
    return sorted(
        ((slug, titles.get(slug, (999, pretty_slug(slug)))[1]) for slug in slugs),
        key=lambda row: (titles.get(row[0], (999,))[0], row[0]),
    )


def _mock_settings(payload, modules) -> tuple[int, list[str]]:
    """The chosen length and modules, or AnswerError saying in words what to fix."""
    chosen = payload.getlist("module")
    known = {slug for slug, _title in modules}
    if not chosen or any(slug not in known for slug in chosen) or len(set(chosen)) != len(chosen):
        raise AnswerError("Tick one or more of the listed modules.")
    try:
        minutes = int(payload.get("minutes") or "")
    except ValueError:
        raise AnswerError("Choose a length of 10, 20 or 45 minutes.") from None
    return minutes, chosen


@login_required
@require_http_methods(["GET", "POST"])
def mock_start(request):
    """Bad settings come back as the same form with the error above it (status 400), never a bare text page."""
    modules = _mock_modules()
    context = {"modules": modules, "lengths": services.MOCK_MINUTES, "chosen": [], "minutes": None}
    if request.method == "POST":
        try:
            payload = read_payload(request)
            context.update(chosen=payload.getlist("module"), minutes=payload.get("minutes"))
            minutes, chosen = _mock_settings(payload, modules)
            mock = services.mock_start(learner=request.user, minutes=minutes, module_slugs=chosen)
        except AnswerError as error:
            return render(request, "drills/mock_start.html", {**context, "error": str(error)}, status=400)
        return redirect("drills:mock_run", pk=mock.pk)
    return render(request, "drills/mock_start.html", context)


def _own_state(request, pk):
    return mock_state(mock=get_object_or_404(MockInterview, pk=pk, learner=request.user))


@login_required
@require_GET
def mock_run(request, pk):
    state = _own_state(request, pk)
    if state.over:
        services.mock_finish(mock=state.mock)
        return redirect("drills:mock_report", pk=pk)
    drill, pending = state.current, state.pending_card_attempt
    context = {
        **exercise_context(drill, new_round()),
        "state": state,
        "pending": pending,
        "deadline_ms": int(state.deadline.timestamp() * 1000),
        "position": state.done_count + 1,
    }
    if pending is not None:
        context.update(card=drill.data, text=pending.answer.get("text", ""))
    return render(request, "drills/mock_run.html", context)


def _current_or_400(state, payload):
    if state.past_grace or state.mock.finished_at is not None:
        return None
    drill = state.current
    if drill is None or payload.get("drill") != str(drill.pk):
        raise AnswerError("That question is not the current one in this mock interview.")
    return drill


@login_required
@require_POST
@plain_400
def mock_answer(request, pk):
    state, payload = _own_state(request, pk), read_payload(request)
    drill = _current_or_400(state, payload)
    if drill is None:
        return redirect("drills:mock_report", pk=pk)
    if state.pending_card_attempt is not None:
        raise AnswerError("Rate your answer to this card first.")
    round_ = read_round(payload.get("round"))
    answer = answers.parse_card_text(payload) if drill.kind == Kind.CARD else answers.parse_answer(drill, payload)
    services.attempt_submit(
        learner=request.user,
        drill=drill,
        answer=answer,
        round_id=round_.round_id,
        duration_ms=round_.duration_ms(),
        mock=state.mock,
    )
    return redirect("drills:mock_run", pk=pk)


@login_required
@require_POST
@plain_400
def mock_rate(request, pk):
    state, payload = _own_state(request, pk), read_payload(request)
    drill = _current_or_400(state, payload)
    if drill is None:
        return redirect("drills:mock_report", pk=pk)
    if state.pending_card_attempt is None:
        raise AnswerError("There is no written answer to rate on this question.")
    parsed = answers.parse_card_rating(drill, payload)
    services.card_rate(learner=request.user, attempt=state.pending_card_attempt, **parsed)
    return redirect("drills:mock_run", pk=pk)


@login_required
@require_POST
def mock_finish(request, pk):
    services.mock_finish(mock=get_object_or_404(MockInterview, pk=pk, learner=request.user))
    return redirect("drills:mock_report", pk=pk)


@login_required
@require_GET
def mock_report_page(request, pk):
    state = _own_state(request, pk)
    if not state.over:
        return redirect("drills:mock_run", pk=pk)
    services.mock_finish(mock=state.mock)
    return render(request, "drills/mock_report.html", {"state": state, "report": mock_report(state=state)})
