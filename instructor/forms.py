"""Forms of the dashboard; each rejects bad input with a message the page shows."""

from datetime import datetime

from django import forms
from django.forms.utils import pretty_name
from django.utils import timezone

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


class CohortLabForm(forms.Form):
    """One lab's terms, pre-filled in that lab's row of the table; `terms_data` fills what a post leaves out."""

    lab_slug = forms.ChoiceField(label="Lab", widget=forms.HiddenInput)
    due_at = forms.DateTimeField(
        required=False, input_formats=DATETIME_FORMATS, widget=LocalDateTimeInput(), label="Due"
    )
    late_due_at = forms.DateTimeField(
        required=False, input_formats=DATETIME_FORMATS, widget=LocalDateTimeInput(), label="Late due (zero after)"
    )
    percent_per_day = forms.FloatField(min_value=0, max_value=100, initial=0, label="% off per day late")
    weight = forms.FloatField(min_value=0, max_value=1000, initial=1)

    def __init__(self, *args, lab_slugs: list[str], slug: str = "", **kwargs):
        """`slug` names the row: its inputs get their own ids and belong to the row's <form id="terms-slug">."""
        if slug:
            kwargs.setdefault("auto_id", f"id_{slug}_%s")
        super().__init__(*args, **kwargs)
        self.fields["lab_slug"].choices = [(lab, lab) for lab in lab_slugs]
        self.slug = slug
        if slug:
            for name, field in self.fields.items():
                label = field.label or pretty_name(name)
                field.widget.attrs.update({"form": f"terms-{slug}", "aria-label": f"{label} of {slug}"})

    def clean(self):
        data = super().clean()
        due, late = data.get("due_at"), data.get("late_due_at")
        if late and not due:
            self.add_error("late_due_at", "Set a due date before a late due date.")
        elif due and late and late < due:
            self.add_error("late_due_at", "The late due date must not be before the due date.")
        return data


def terms_values(terms, lab_slug: str) -> dict:
    """The form's values for a lab's current terms (the defaults when it has none)."""
    if terms is None:
        return {"lab_slug": lab_slug, "due_at": None, "late_due_at": None, "percent_per_day": 0, "weight": 1}
    return {
        "lab_slug": lab_slug,
        "due_at": terms.due_at,
        "late_due_at": terms.late_due_at,
        "percent_per_day": terms.percent_per_day,
        "weight": terms.weight,
    }


def terms_data(posted, current: dict) -> dict:
    """The posted fields over the current values: a field the post leaves out keeps its value, never blanks it."""
    data = {
        key: ""
        if value is None
        else (timezone.localtime(value).strftime("%Y-%m-%dT%H:%M") if isinstance(value, datetime) else value)
        for key, value in current.items()
    }
    data.update({key: posted[key] for key in current if key in posted})
    return data


def _learner_label(learner) -> str:
    name = learner.get_full_name()
    return f"{learner.username} ({name})" if name else learner.username


class OverrideForm(forms.Form):
    """Pickers, not typed slugs: the learner from the cohort's roster, the target from its labs and modules."""

    learner = forms.TypedChoiceField(
        coerce=int, label="Learner", error_messages={"invalid_choice": "That learner is not in this cohort."}
    )
    target = forms.ChoiceField(
        label="Lab or module", error_messages={"invalid_choice": "Pick a lab or module of this course."}
    )
    score = forms.FloatField()
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 2}),
        strip=True,
        label="Reason (required)",
        error_messages={"required": "Give a reason for the override."},
    )

    def __init__(self, *args, targets: list[dict], learners, fixed_learner=None, **kwargs):
        """`targets`: [{kind, slug, title, max_score}]; `learners`: the roster's users (or just `fixed_learner`)."""
        super().__init__(*args, **kwargs)
        self.max_scores = {(t["kind"], t["slug"]): t["max_score"] for t in targets}
        groups = {"lab": [], "module": []}
        for t in targets:
            label = f"{t['title']} ({t['slug']}, max {t['max_score']:g})"
            groups[t["kind"]].append((f"{t['kind']}:{t['slug']}", label))
        self.fields["target"].choices = [
            ("", "Pick a lab or module"),
            ("Labs", groups["lab"]),
            ("Modules (drill mastery %)", groups["module"]),
        ]
        self.fields["learner"].choices = [(user.pk, _learner_label(user)) for user in learners]
        if fixed_learner is not None:
            self.fields["learner"].widget = forms.HiddenInput()
            self.fields["learner"].initial = fixed_learner.pk

    def clean(self):
        data = super().clean()
        target, score = data.get("target"), data.get("score")
        if target:
            kind, _, slug = target.partition(":")
            data["kind"], data["target_slug"] = kind, slug
            data["max_score"] = maximum = self.max_scores[(kind, slug)]
            if score is not None:
                if score < 0:
                    self.add_error("score", "The score cannot be negative.")
                elif score > maximum:
                    self.add_error("score", f"The score cannot be above the maximum, {maximum:g}.")
        return data


class ExtensionForm(forms.Form):
    """One learner's new due date for one of the cohort's dated labs, read in the instructor's time zone."""

    lab_slug = forms.ChoiceField(label="Lab", error_messages={"invalid_choice": "Pick a lab that has a due date."})
    due_at = forms.DateTimeField(input_formats=DATETIME_FORMATS, widget=LocalDateTimeInput(), label="New due date")
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 2}),
        strip=True,
        label="Reason (required)",
        error_messages={"required": "Give a reason for the extension."},
    )

    def __init__(self, *args, cohort_labs, **kwargs):
        """`cohort_labs`: the cohort's CohortLabs; only a lab with a due date can be extended."""
        kwargs.setdefault("prefix", "extension")
        super().__init__(*args, **kwargs)
        self.fields["lab_slug"].choices = [
            (terms.lab_slug, f"{terms.lab_slug} (due {timezone.localtime(terms.due_at):%Y-%m-%d %H:%M})")
            for terms in cohort_labs
            if terms.due_at is not None
        ]
