"""Forms of the dashboard; each rejects bad input with a message the page shows."""
from django import forms

from config.converters import MAX_ID
from instructor.models import ScoreOverride

DATETIME_FORMATS = ["%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M", "%Y-%m-%d %H:%M:%S", "%Y-%m-%d"]


class LocalDateTimeInput(forms.DateTimeInput):
    input_type = "datetime-local"

    def __init__(self):
        super().__init__(format="%Y-%m-%dT%H:%M")


class CohortForm(forms.Form):
    name = forms.CharField(max_length=120, strip=True)


class JoinForm(forms.Form):
    code = forms.CharField(max_length=16, strip=True, label="Join code")


class InviteForm(forms.Form):
    email = forms.EmailField(label="Invite by e-mail")


class DrillWeightForm(forms.Form):
    drill_weight = forms.FloatField(min_value=0, max_value=1000, label="Weight of drill mastery")


class LabPolicyForm(forms.Form):
    lab_slug = forms.ChoiceField(label="Lab")
    due_at = forms.DateTimeField(required=False, input_formats=DATETIME_FORMATS, widget=LocalDateTimeInput())
    late_due_at = forms.DateTimeField(required=False, input_formats=DATETIME_FORMATS, widget=LocalDateTimeInput(),
                                      label="Late due (zero after)")
    percent_per_day = forms.FloatField(min_value=0, max_value=100, initial=0, label="% off per day late")
    weight = forms.FloatField(min_value=0, max_value=1000, initial=1)

    def __init__(self, *args, lab_slugs: list[str], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["lab_slug"].choices = [(slug, slug) for slug in lab_slugs]

    def clean(self):
        data = super().clean()
        due, late = data.get("due_at"), data.get("late_due_at")
        if late and not due:
            self.add_error("late_due_at", "Set a due date before a late due date.")
        elif due and late and late < due:
            self.add_error("late_due_at", "The late due date must not be before the due date.")
        return data


class OverrideForm(forms.Form):
    learner = forms.IntegerField(widget=forms.HiddenInput, min_value=1, max_value=MAX_ID)
    kind = forms.ChoiceField(choices=ScoreOverride.Kind.choices)
    target_slug = forms.CharField(max_length=120, label="Lab or module")
    score = forms.FloatField()
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), strip=True,
                             error_messages={"required": "Give a reason for the override."})

    def __init__(self, *args, max_scores: dict[tuple[str, str], float], **kwargs):
        """`max_scores` maps (kind, slug) to that target's maximum: it also says which targets exist."""
        super().__init__(*args, **kwargs)
        self.max_scores = max_scores

    def clean(self):
        data = super().clean()
        kind, slug, score = data.get("kind"), data.get("target_slug"), data.get("score")
        if kind and slug:
            if (kind, slug) not in self.max_scores:
                self.add_error("target_slug", f"There is no {kind} {slug!r}.")
            elif score is not None:
                data["max_score"] = maximum = self.max_scores[(kind, slug)]
                if score < 0:
                    self.add_error("score", "The score cannot be negative.")
                elif score > maximum:
                    self.add_error("score", f"The score cannot be above the maximum, {maximum:g}.")
        return data


def target_choices(targets: dict[tuple[str, str], float]) -> list[tuple[str, str, float]]:
    """(kind, slug, maximum) of every override target, for the form's suggestions."""
    return sorted((kind, slug, maximum) for (kind, slug), maximum in targets.items())
