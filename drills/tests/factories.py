"""A small module of exercises as the course loader reads them, loaded through the drills loader; and factories
for the rows a learner's answers leave (review cards, mock interviews) and for bare drills."""

import copy

import factory
from django.utils import timezone

from accounts.tests.factories import UserFactory
from drills.loader import load_module_exercises
from drills.models import Drill, Kind, MockInterview, ReviewCard

MODULE = "kv-basics"
OTHER_MODULE = "ring-basics"

SPOT = {
    "slug": "low-utilization",
    "title": "The server will not start",
    "order": 1,
    "prompt_html": "<p>The engine exits: no memory for KV blocks. Which line?</p>",
    "language": "python",
    "code": 'from vllm import LLM\nllm = LLM(\n    model="meta-llama/Llama-3.1-8B-Instruct",\n'
    "    gpu_memory_utilization=0.30,\n    max_model_len=131072,\n)\n",
    "bug_line": 4,
    "fix": "    gpu_memory_utilization=0.90,",
    "explanation_html": "<p>Starved cache budget: SPOT-EXPLANATION-SECRET.</p>",
    "section": "startup-budget",
}
MATCH = {
    "slug": "os-analogy",
    "title": "Map virtual memory onto paging",
    "order": 1,
    "prompt_html": "<p>Drag each idea onto its counterpart.</p>",
    "pairs": [
        {"item": "Page", "target": "A KV block"},
        {"item": "Process", "target": "A sequence"},
        {"item": "Page table", "target": "The block table"},
        {"item": "Byte in a page", "target": "A token slot"},
    ],
    "explanation_html": "<p>MATCH-EXPLANATION-SECRET</p>",
    "section": "paging",
}
QUIZ_SINGLE = {
    "slug": "what-paging-improves",
    "question_html": "<p>What does PagedAttention improve?</p>",
    "multi": False,
    "choices": [
        {
            "text": "Memory density",
            "text_html": "<p>Memory density</p>",
            "correct": True,
            "explanation_html": "<p>QUIZ-RIGHT-EXPLANATION-SECRET</p>",
        },
        {
            "text": "Attention FLOPs",
            "text_html": "<p>Attention FLOPs</p>",
            "correct": False,
            "explanation_html": "<p>QUIZ-FLOPS-EXPLANATION-SECRET</p>",
        },
        {
            "text": "Weight size",
            "text_html": "<p>Weight size</p>",
            "correct": False,
            "explanation_html": "<p>QUIZ-WEIGHTS-EXPLANATION-SECRET</p>",
        },
    ],
    "section": "why-kv",
    "topic": "PagedAttention purpose",
    "order": 1,
}
QUIZ_MULTI = {
    "slug": "what-grows-kv",
    "question_html": "<p>Which of these grow the KV cache?</p>",
    "multi": True,
    "choices": [
        {
            "text": "More layers",
            "text_html": "<p>More layers</p>",
            "correct": True,
            "explanation_html": "<p>M-LAYERS</p>",
        },
        {
            "text": "Longer context",
            "text_html": "<p>Longer context</p>",
            "correct": True,
            "explanation_html": "<p>M-CONTEXT</p>",
        },
        {
            "text": "A bigger vocabulary",
            "text_html": "<p>A bigger vocabulary</p>",
            "correct": False,
            "explanation_html": "<p>M-VOCAB</p>",
        },
        {
            "text": "Faster GPUs",
            "text_html": "<p>Faster GPUs</p>",
            "correct": False,
            "explanation_html": "<p>M-GPU</p>",
        },
    ],
    "section": "sizing",
    "topic": "KV sizing",
    "order": 2,
}
CARD = {
    "slug": "what-is-paged-attention",
    "level": "mid",
    "question": "What is PagedAttention?",
    "why_asked_html": "<p>WHY-ASKED-SECRET</p>",
    "answer_html": "<p>MODEL-ANSWER-SECRET blocks and tables.</p>",
    "listens_for": ["Fixed-size blocks", "A block table per sequence", "Waste bounded by the last block"],
    "follow_ups": [
        {"question": "What if no block is free?", "hint": "FOLLOWUP-HINT-SECRET", "answer": "FOLLOWUP-ANSWER-SECRET"},
        {"question": "Why a special kernel?", "hint": "Where do tokens live?", "answer": "Scattered."},
    ],
    "mistakes": ["MISTAKE-SECRET: calling it a FLOPs optimisation"],
    "section": "paging",
    "topic": "Paging",
    "order": 1,
}
OTHER_QUIZ = {
    "slug": "ring-bytes",
    "question_html": "<p>How many bytes does a ring move per rank?</p>",
    "multi": False,
    "choices": [
        {
            "text": "2(N-1)/N of the tensor",
            "text_html": "<p>2(N-1)/N</p>",
            "correct": True,
            "explanation_html": "<p>R1</p>",
        },
        {
            "text": "N times the tensor",
            "text_html": "<p>N times</p>",
            "correct": False,
            "explanation_html": "<p>R2</p>",
        },
        {"text": "Nothing", "text_html": "<p>Nothing</p>", "correct": False, "explanation_html": "<p>R3</p>"},
    ],
    "section": "ring",
    "topic": "Ring cost",
    "order": 1,
}
OTHER_CARD = {
    **copy.deepcopy(CARD),
    "slug": "explain-ring",
    "question": "Explain ring all-reduce.",
    "topic": "Rings",
    "section": "ring",
}


def exercises() -> dict:
    return copy.deepcopy({"spot_the_bug": [SPOT], "match": [MATCH], "quiz": [QUIZ_SINGLE, QUIZ_MULTI], "cards": [CARD]})


def other_exercises() -> dict:
    return copy.deepcopy({"spot_the_bug": [], "match": [], "quiz": [OTHER_QUIZ], "cards": [OTHER_CARD]})


def load_fixture() -> dict[str, Drill]:
    """Both fixture modules; returns the first module's drills by short name."""
    load_module_exercises(module_slug=MODULE, exercises=exercises())
    load_module_exercises(module_slug=OTHER_MODULE, exercises=other_exercises())
    drills = {d.kind: d for d in Drill.objects.filter(module_slug=MODULE).exclude(slug=QUIZ_MULTI["slug"])}
    return {
        "spot": drills[Kind.SPOT_THE_BUG],
        "match": drills[Kind.MATCH],
        "quiz": drills[Kind.QUIZ],
        "quiz_multi": Drill.objects.get(slug=QUIZ_MULTI["slug"]),
        "card": drills[Kind.CARD],
    }


class DrillFactory(factory.django.DjangoModelFactory):
    """A bare quiz drill, for tests that count drills rather than read them (`load_fixture` for real ones)."""

    class Meta:
        model = Drill

    module_slug = "m1"
    kind = Kind.QUIZ
    slug = factory.Sequence(lambda n: f"drill-{n}")
    title = factory.Sequence(lambda n: f"Drill {n}")
    data = factory.Dict({})


class ReviewCardFactory(factory.django.DjangoModelFactory):
    """A card as the drills app leaves it after an answer rated 3: passing, and due as soon as reviewed."""

    class Meta:
        model = ReviewCard

    learner = factory.SubFactory(UserFactory)
    drill = factory.SubFactory(DrillFactory)
    card = factory.Dict({})
    reviewed_at = factory.LazyFunction(timezone.now)
    due = factory.SelfAttribute("reviewed_at")
    last_rating = 3
    passing = True


class MockInterviewFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = MockInterview

    learner = factory.SubFactory(UserFactory)
    minutes = 10
    module_slugs = factory.List([])
    drill_ids = factory.List([])
