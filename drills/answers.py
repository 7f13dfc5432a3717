"""Per kind: the public view of a drill, parsing a posted answer, and grading it with feedback."""

from dataclasses import dataclass, field
from functools import lru_cache

from django.conf import settings
from django.utils.crypto import salted_hmac

from .models import Drill, Kind
from .payload import AnswerError, Payload

MAX_CARD_TEXT = 10_000
RATINGS = {1: "Again", 2: "Hard", 3: "Good", 4: "Easy"}  # fsrs's Rating values, as the buttons name them
PASSING_RATING = 3  # Good and Easy pass: a card answered so is right, and counts as retained


@dataclass(frozen=True)
class Grade:
    is_correct: bool | None
    score: float | None
    feedback: dict = field(default_factory=dict)


def opaque_key(drill: Drill, role: str, text: str) -> str:
    """A stable key that names a choice or target without saying where it sits in the content."""
    return _keyed(f"{drill.module_slug}/{drill.kind}/{drill.slug}/{role}/{text}", settings.SECRET_KEY)


@lru_cache(maxsize=8192)
def _keyed(message: str, secret: str) -> str:
    """Every page and answer of a drill names its choices again: an HMAC each, so they are kept (by secret too)."""
    return "k" + salted_hmac("drills.key", message, secret=secret).hexdigest()[:10]


# --- spot the bug ---------------------------------------------------------------------------
def code_lines(drill: Drill) -> list[str]:
    return drill.data["code"].rstrip("\n").split("\n")


def parse_spot(drill: Drill, payload: Payload) -> dict:
    if payload.get("give_up"):
        return {"give_up": True}
    raw = payload.get("line")
    if raw is None:
        raise AnswerError("Choose a line: the field 'line' is missing.")
    try:
        line = int(raw)
    except ValueError:
        raise AnswerError("The line must be a whole number.") from None
    if not 1 <= line <= len(code_lines(drill)):
        raise AnswerError(f"There is no line {line} in this snippet.")
    return {"line": line}


def grade_spot(drill: Drill, answer: dict) -> Grade:
    bug_line = int(drill.data["bug_line"])
    right = answer.get("line") == bug_line
    reveal = right or bool(answer.get("give_up"))
    feedback = {"picked": answer.get("line"), "right": right, "reveal": reveal}
    if reveal:
        feedback.update(
            bug_line=bug_line,
            fix=drill.data["fix"],
            explanation_html=drill.data["explanation_html"],
            buggy=code_lines(drill)[bug_line - 1],
        )
    return Grade(is_correct=right, score=1.0 if right else 0.0, feedback=feedback)


# --- quiz -----------------------------------------------------------------------------------
def quiz_choices(drill: Drill) -> list[dict]:
    """Choices in a stable order unrelated to the content's, each with its opaque key."""
    choices = [{**choice, "key": opaque_key(drill, "choice", choice["text"])} for choice in drill.data["choices"]]
    return sorted(choices, key=lambda choice: choice["key"])


def parse_quiz(drill: Drill, payload: Payload) -> dict:
    picked = payload.getlist("choice")
    if not picked:
        raise AnswerError("Choose an answer: the field 'choice' is missing.")
    known = {choice["key"] for choice in quiz_choices(drill)}
    if any(key not in known for key in picked):
        raise AnswerError("A chosen answer is not one of this question's choices.")
    if len(set(picked)) != len(picked):
        raise AnswerError("The same choice was sent twice.")
    if not drill.data.get("multi") and len(picked) != 1:
        raise AnswerError("This question takes exactly one answer.")
    return {"choices": sorted(picked)}


def grade_quiz(drill: Drill, answer: dict) -> Grade:
    picked = set(answer["choices"])
    choices = quiz_choices(drill)
    rows = [{**choice, "picked": choice["key"] in picked} for choice in choices]
    right_rows = sum(1 for row in rows if row["picked"] == bool(row["correct"]))
    exact = right_rows == len(rows)
    return Grade(
        is_correct=exact,
        score=round(right_rows / len(rows), 4) if drill.data.get("multi") else float(exact),
        feedback={"rows": rows, "right": exact},
    )


# --- match ----------------------------------------------------------------------------------
def match_board(drill: Drill) -> tuple[list[dict], list[dict]]:
    """Items in content order and targets in key order, each with an opaque key."""
    items = [{"key": opaque_key(drill, "item", pair["item"]), "text": pair["item"]} for pair in drill.data["pairs"]]
    targets = [
        {"key": opaque_key(drill, "target", pair["target"]), "text": pair["target"]} for pair in drill.data["pairs"]
    ]
    return items, sorted(targets, key=lambda target: target["key"])


def parse_match(drill: Drill, payload: Payload) -> dict:
    items, targets = match_board(drill)
    item_keys = {item["key"] for item in items}
    target_keys = {target["key"] for target in targets}
    sent = [name for name in payload.names() if name.startswith("item-")]
    if any(name[5:] not in item_keys for name in sent):
        raise AnswerError("An item in the answer is not part of this exercise.")
    pairs = {}
    for item in items:
        target = payload.get(f"item-{item['key']}")
        if not target:
            raise AnswerError(f"Place every item: {item['text']!r} has no target.")
        if target not in target_keys:
            raise AnswerError("A target in the answer is not part of this exercise.")
        pairs[item["key"]] = target
    if len(set(pairs.values())) != len(pairs):
        raise AnswerError("Each target takes exactly one item; a target was used twice.")
    return {"pairs": pairs}


def grade_match(drill: Drill, answer: dict) -> Grade:
    text_of = {opaque_key(drill, "target", pair["target"]): pair["target"] for pair in drill.data["pairs"]}
    rows = []
    for pair in drill.data["pairs"]:
        chosen = answer["pairs"][opaque_key(drill, "item", pair["item"])]
        rows.append(
            {
                "item": pair["item"],
                "chosen": text_of[chosen],
                "target": pair["target"],
                "right": text_of[chosen] == pair["target"],
            }
        )
    right = sum(row["right"] for row in rows)
    return Grade(
        is_correct=right == len(rows),
        score=round(right / len(rows), 4),
        feedback={
            "rows": rows,
            "right_count": right,
            "total": len(rows),
            "explanation_html": drill.data.get("explanation_html", ""),
        },
    )


# --- interview cards ------------------------------------------------------------------------
def parse_card_text(payload: Payload) -> dict:
    text = (payload.get("text") or "").strip()
    if not text:
        raise AnswerError("Write your answer before revealing the model answer.")
    if len(text) > MAX_CARD_TEXT:
        raise AnswerError(f"The answer is too long (limit {MAX_CARD_TEXT} characters).")
    return {"text": text}


def parse_card_rating(drill: Drill, payload: Payload) -> dict:
    raw = payload.get("rating")
    if raw not in {str(value) for value in RATINGS}:
        raise AnswerError("Rate yourself: 'rating' must be 1 (Again), 2 (Hard), 3 (Good) or 4 (Easy).")
    covered = payload.getlist("covered")
    points = len(drill.data["listens_for"])
    try:
        indexes = [int(value) for value in covered]
    except ValueError:
        raise AnswerError("A ticked point is not a number.") from None
    if any(not 0 <= index < points for index in indexes) or len(set(indexes)) != len(indexes):
        raise AnswerError("A ticked point is not on this card's list, or was sent twice.")
    return {"rating": int(raw), "covered": sorted(indexes)}


def grade_card(rating: int) -> Grade:
    return Grade(
        is_correct=rating >= PASSING_RATING,
        score=round((rating - 1) / 3, 4),
        feedback={"rating_label": RATINGS[rating]},
    )


PARSERS = {Kind.SPOT_THE_BUG: parse_spot, Kind.QUIZ: parse_quiz, Kind.MATCH: parse_match}
GRADERS = {Kind.SPOT_THE_BUG: grade_spot, Kind.QUIZ: grade_quiz, Kind.MATCH: grade_match}


def parse_answer(drill: Drill, payload: Payload) -> dict:
    return PARSERS[drill.kind](drill, payload)


def grade(drill: Drill, answer: dict) -> Grade:
    return GRADERS[drill.kind](drill, answer)
