"""Signals other apps listen to without course importing them."""
from django.dispatch import Signal

# Sent once per module by `load_course`, inside its transaction, with
# module_slug=str and exercises={"spot_the_bug": [...], "match": [...], "quiz": [...], "cards": [...]}.
module_loaded = Signal()
