"""Drill pages: index, module, review queue, and each exercise with its answer and rating posts."""

from functools import wraps

from django.http import Http404, HttpResponseBadRequest
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from . import answers, selectors, services
from .course_links import module_titles, pretty_slug
from .models import Drill, Kind, ReviewLog
from .payload import AnswerError, read_payload
from .review import rates_early, rating_hints
from .review_log import undoable_attempt_id
from .rounds import new_round, read_round

PLURALS = {
    Kind.SPOT_THE_BUG: "spot the bug",
    Kind.MATCH: "drag to match",
    Kind.QUIZ: "conceptual questions",
    Kind.CARD: "interview cards",
}
KIND_TEMPLATES = {kind: f"drills/{kind.replace('-', '_')}.html" for kind in Kind.values}


def plain_400(view):
    """Malformed or tampered posts get a 400 with a plain message and store nothing."""

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        try:
            return view(request, *args, **kwargs)
        except AnswerError as error:
            return HttpResponseBadRequest(str(error), content_type="text/plain; charset=utf-8")

    return wrapper


def _module_rows(request) -> list[dict]:
    titles, counts = module_titles(), selectors.module_kind_counts()
    mastery = selectors.mastery_by_module(user=request.user)
    rows = [
        {
            "slug": slug,
            "title": titles.get(slug, (999, pretty_slug(slug)))[1],
            "order": titles.get(slug, (999,))[0],
            "counts": [
                (PLURALS[kind] if kinds[kind] > 1 else Kind(kind).label.lower(), kinds[kind])
                for kind in Kind.values
                if kind in kinds
            ],
            "total": sum(kinds.values()),
            "mastery": mastery.get(slug),
        }
        for slug, kinds in counts.items()
    ]
    return sorted(rows, key=lambda row: (row["order"], row["slug"]))


@require_GET
def index(request):
    return render(request, "drills/index.html", {"modules": _module_rows(request)})


@require_GET
def module(request, module_slug):
    drills = selectors.module_drills(module_slug=module_slug)
    if not drills:
        raise Http404("No drills for this module.")
    states = selectors.review_states(learner=request.user, drill_ids=[d.pk for d in drills])
    groups = [(label, [(d, states.get(d.pk)) for d in drills if d.kind == kind]) for kind, label in Kind.choices]
    title = module_titles().get(module_slug, (0, pretty_slug(module_slug)))[1]
    return render(
        request,
        "drills/module.html",
        {"module_slug": module_slug, "module_title": title, "groups": [group for group in groups if group[1]]},
    )


@require_GET
def review(request):
    if not request.user.is_authenticated:
        return render(request, "drills/review.html", {"due": []})
    due = list(selectors.drills_due_for(learner=request.user))
    return render(request, "drills/review.html", {"due": due, "session": selectors.review_day(learner=request.user)})


def drill_or_404(module_slug, kind, slug) -> Drill:
    drill = selectors.drill_by_slug(module_slug=module_slug, kind=kind, slug=slug)
    if drill is None:
        raise Http404("No such drill.")
    return drill


def exercise_context(drill: Drill, round_token: str) -> dict:
    """Only what a learner may see before answering: never `drill.data` itself."""
    context = {"drill": drill, "round": round_token, "prompt_html": drill.data.get("prompt_html", "")}
    if drill.kind == Kind.SPOT_THE_BUG:
        context["lines"] = list(enumerate(answers.code_lines(drill), start=1))
        context["language"] = drill.data.get("language", "text")
    elif drill.kind == Kind.QUIZ:
        context["choices"] = [{"key": c["key"], "text_html": c["text_html"]} for c in answers.quiz_choices(drill)]
        context["multi"], context["question_html"] = bool(drill.data.get("multi")), drill.data["question_html"]
    elif drill.kind == Kind.MATCH:
        context["items"], context["targets"] = answers.match_board(drill)
    else:
        context["question"], context["level"] = drill.data["question"], drill.data.get("level", "")
    return context


def card_rating_context(learner, drill: Drill, attempt) -> dict:
    """The rating buttons' intervals: what each rating schedules, with when the card was due if this rating
    reviews it early; or, for a retry in a round already rated, that rating it moves nothing."""
    if attempt.counts:
        return {"rating_hints": rating_hints(learner=learner, drill=drill)}
    card = selectors.review_states(learner=learner, drill_ids=[drill.pk]).get(drill.pk)
    if rates_early(attempt, card):
        return {
            "rating_hints": rating_hints(learner=learner, drill=drill),
            "early_due_at": card.due,
            "now": timezone.now(),
        }
    return {"practice_due_at": card.due if card else None, "now": timezone.now()}


def render_exercise(request, drill: Drill, context: dict, status: int = 200):
    template = KIND_TEMPLATES[drill.kind]
    if request.htmx and request.method == "POST":
        template += "#exercise"
    if request.method == "POST" and request.user.is_authenticated:
        context["session"] = selectors.review_session(learner=request.user, current=drill)
    return render(request, template, context, status=status)


@require_GET
def drill_detail(request, module_slug, kind, slug):
    drill = drill_or_404(module_slug, kind, slug)
    return render_exercise(request, drill, exercise_context(drill, new_round()))


@require_POST
@plain_400
def drill_answer(request, module_slug, kind, slug):
    drill = drill_or_404(module_slug, kind, slug)
    payload = read_payload(request)
    round_ = read_round(payload.get("round"))
    context = exercise_context(drill, payload.get("round"))
    result = None
    if drill.kind == Kind.CARD:
        answer = answers.parse_card_text(payload)
        context.update(revealed=True, text=answer["text"], card=drill.data)
    else:
        answer = answers.parse_answer(drill, payload)
        result = answers.grade(drill, answer)
        context["result"] = result.feedback
    if request.user.is_authenticated:
        context["attempt"] = services.attempt_submit(
            learner=request.user,
            drill=drill,
            answer=answer,
            result=result,
            round_id=round_.round_id,
            duration_ms=round_.duration_ms(),
        )
        if drill.kind == Kind.CARD:
            context.update(card_rating_context(request.user, drill, context["attempt"]))
    return render_exercise(request, drill, context)


@require_POST
@plain_400
def card_rate(request, module_slug, slug):
    drill = drill_or_404(module_slug, Kind.CARD, slug)
    payload = read_payload(request)
    parsed = answers.parse_card_rating(drill, payload)
    context = {
        **exercise_context(drill, payload.get("round") or ""),
        "revealed": True,
        "card": drill.data,
        "text": (payload.get("text") or "")[: answers.MAX_CARD_TEXT],
        "covered": parsed["covered"],
    }
    if request.user.is_authenticated:
        attempt = selectors.open_card_attempt(learner=request.user, drill=drill, attempt_id=payload.get("attempt"))
        if attempt is None:
            raise AnswerError("No unrated answer of yours on this card; reload the page.")
        context["attempt"] = services.card_rate(learner=request.user, attempt=attempt, **parsed)
        context["reviewed_early"] = not attempt.counts and ReviewLog.objects.filter(attempt=attempt).exists()
        context["undo_attempt"] = undoable_attempt_id(learner=request.user, drill=drill)
        context["text"] = attempt.answer["text"]
    context["rated"] = answers.grade_card(parsed["rating"]).feedback
    return render_exercise(request, drill, context)
