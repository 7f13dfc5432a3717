"""Test helpers: URLs of fixture drills and the round token a rendered page carries."""

import re

from django.urls import reverse

from drills import answers


def drill_url(drill, action: str = "drill") -> str:
    if action == "rate":
        return reverse("drills:rate", args=[drill.module_slug, drill.slug])
    return reverse(f"drills:{action}", args=[drill.module_slug, drill.kind, drill.slug])


def round_from(html: str) -> str:
    return re.search(r'name="round" value="([^"]+)"', html).group(1)


def fresh_round(client, drill) -> str:
    return round_from(client.get(drill_url(drill)).content.decode())


def choice_key(drill, text: str) -> str:
    return next(c["key"] for c in answers.quiz_choices(drill) if c["text"] == text)


def match_fields(drill, swap_first_two: bool = False) -> dict:
    pairs = [
        (answers.opaque_key(drill, "item", p["item"]), answers.opaque_key(drill, "target", p["target"]))
        for p in drill.data["pairs"]
    ]
    if swap_first_two:
        (i0, t0), (i1, t1) = pairs[0], pairs[1]
        pairs[0], pairs[1] = (i0, t1), (i1, t0)
    return {f"item-{item}": target for item, target in pairs}
