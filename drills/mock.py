"""Reads for a mock interview: where the learner is in it, and the report at the end."""

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.urls import reverse
from django.utils import timezone

from .course_links import module_titles, pretty_slug, section_titles, section_url
from .models import Attempt, Drill, Kind, MockInterview

GRACE = timedelta(seconds=30)


@dataclass
class MockState:
    mock: MockInterview
    drills: list[Drill]
    attempts: dict[int, Attempt]
    deadline: datetime

    @property
    def time_up(self) -> bool:
        return timezone.now() > self.deadline

    @property
    def past_grace(self) -> bool:
        return timezone.now() > self.deadline + GRACE

    @property
    def done_count(self) -> int:
        return sum(1 for drill in self.drills if self._done(drill))

    def _done(self, drill: Drill) -> bool:
        attempt = self.attempts.get(drill.pk)
        return attempt is not None and not (drill.kind == Kind.CARD and attempt.rating is None)

    @property
    def current(self) -> Drill | None:
        return next((drill for drill in self.drills if not self._done(drill)), None)

    @property
    def pending_card_attempt(self) -> Attempt | None:
        drill = self.current
        return self.attempts.get(drill.pk) if drill is not None else None

    @property
    def over(self) -> bool:
        return self.mock.finished_at is not None or self.time_up or self.current is None


def mock_state(*, mock: MockInterview) -> MockState:
    by_id = Drill.objects.in_bulk(mock.drill_ids)
    drills = [by_id[pk] for pk in mock.drill_ids if pk in by_id]
    attempts: dict[int, Attempt] = {}
    for attempt in Attempt.objects.filter(mock=mock).order_by("created_at", "pk"):
        attempts[attempt.drill_id] = attempt  # the latest per drill wins
    return MockState(
        mock=mock, drills=drills, attempts=attempts, deadline=mock.started_at + timedelta(minutes=mock.minutes)
    )


def mock_report(*, state: MockState) -> dict:
    """Score by module (unanswered items count as 0), each item missed with a link to retry it, the weakest
    topics, and where they are taught."""
    titles, sections = module_titles(), section_titles()
    modules: dict[str, list[float]] = defaultdict(list)
    topics: dict[str, list[float]] = defaultdict(list)
    topic_links: dict[str, dict[str, str]] = defaultdict(dict)
    missed = []
    for drill in state.drills:
        attempt = state.attempts.get(drill.pk)
        score = attempt.score if attempt is not None and attempt.score is not None else 0.0
        if score < 1:
            missed.append(
                {
                    "drill": drill,
                    "score": score,
                    "answered": state._done(drill),
                    "url": reverse("drills:drill", args=[drill.module_slug, drill.kind, drill.slug]),
                }
            )
        modules[drill.module_slug].append(score)
        topic = drill.topic or drill.title
        topics[topic].append(score)
        if drill.section:
            label = sections.get((drill.module_slug, drill.section), pretty_slug(drill.section))
            topic_links[topic][section_url(drill.module_slug, drill.section)] = label
    by_module = [
        {
            "module_slug": slug,
            "title": titles.get(slug, (0, pretty_slug(slug)))[1],
            "score": sum(scores) / len(scores),
            "items": len(scores),
        }
        for slug, scores in sorted(modules.items())
    ]
    weakest = sorted(((sum(s) / len(s), topic) for topic, s in topics.items() if sum(s) / len(s) < 1))[:5]
    return {
        "by_module": by_module,
        "overall": sum(sum(s) for s in modules.values()) / max(1, len(state.drills)),
        "answered": state.done_count,
        "total": len(state.drills),
        "missed": missed,
        "weakest": [
            {"topic": topic, "score": score, "links": sorted(topic_links[topic].items())} for score, topic in weakest
        ],
    }
