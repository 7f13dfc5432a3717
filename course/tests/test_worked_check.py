"""Worked examples: the expression whitelist, the loader's validation of worked.yaml, and the real course."""

import pytest
from django.core.management import CommandError, call_command

from course.content_reader import read_course
from course.worked_check import ExpressionError, evaluate

from .conftest import REAL_CONTENT, real_module_folders


def load(path):
    call_command("load_course", path=str(path), stdout=open("/dev/null", "w"))


@pytest.mark.parametrize(
    ("expr", "inputs", "value"),
    [
        ("2 * layers * heads * dim * b", {"layers": 32, "heads": 8, "dim": 128, "b": 2}, 131072),
        ("ceil(tokens / block)", {"tokens": 1000, "block": 16}, 63),
        ("2 * (n - 1) / n * size", {"n": 8, "size": 1.0}, 1.75),
        (
            "log2(n) * alpha + max(a, b) - min(a, b) + floor(x) + round(x) + sqrt(16) + 7 // 2 + 7 % 4 + -1",
            {"n": 8, "alpha": 5, "a": 1, "b": 3, "x": 2.6},
            15 + 2 + 2 + 3 + 4 + 3 + 3 - 1,
        ),
        ("2 ** 40", {"unused": 0}, 1099511627776),
    ],
)
def test_evaluate_computes_plain_arithmetic(expr, inputs, value):
    assert evaluate(expr, inputs) == pytest.approx(value)


@pytest.mark.parametrize(
    ("expr", "message"),
    [
        ("__import__('os').system('true')", "Call is not allowed"),
        ("open('x')", "not allowed"),
        ("n.real", "Attribute is not allowed"),
        ("[n, n]", "List is not allowed"),
        ("n if n else 1", "IfExp is not allowed"),
        ("lambda: 1", "Lambda is not allowed"),
        ("m * 2", "unknown name 'm'"),
        ("'ab' * 3", "Constant is not allowed"),
        ("n / 0", "cannot be computed"),
        ("10 ** 10 ** 10", "exponent"),
        ("n +", "not a valid expression"),
        ("max(n, key=abs)", "Call is not allowed"),
    ],
)
def test_evaluate_refuses_anything_but_arithmetic(expr, message):
    with pytest.raises(ExpressionError, match=message):
        evaluate(expr, {"n": 8})


def edit(path, old, new):
    text = path.read_text()
    assert old in text, f"fixture no longer holds {old!r}"
    path.write_text(text.replace(old, new, 1))


BREAKAGES = [
    (
        "expect: 131072",
        "expect: 130000",
        "01-alpha/worked.yaml: item 1 (kv-bytes-per-token): field 'expect': 130000 but the expression gives 131072",
    ),
    (
        'quote: "131072"',
        'quote: "131 072"',
        "01-alpha/worked.yaml: item 1 (kv-bytes-per-token): field 'quote': '131 072' does not appear in section",
    ),
    (
        "section: first-steps",
        "section: last-steps",
        "01-alpha/worked.yaml: item 1 (kv-bytes-per-token): field 'section': 'last-steps' is not a section",
    ),
    (
        "expr: 2 * layers",
        "expr: __import__('os').getcwd() + 2 * layers",
        "01-alpha/worked.yaml: item 1 (kv-bytes-per-token): field 'expr': Call is not allowed",
    ),
    (
        "bytes: 2}",
        "bytes: two}",
        "01-alpha/worked.yaml: item 1 (kv-bytes-per-token): field 'inputs.bytes': must be a number",
    ),
    ("rel_tol: 0.001", "rel_tol: 2", "01-alpha/worked.yaml: item 2 (ring-factor): field 'rel_tol': 2 must be in 0..1"),
    (
        "id: ring-factor",
        "id: kv-bytes-per-token",
        "01-alpha/worked.yaml: item 2 (kv-bytes-per-token): field 'id': 'kv-bytes-per-token' must be a slug used once",
    ),
    (
        '  quote: "2(N−1)/N"\n',
        "  qoute: x\n",
        "01-alpha/worked.yaml: item 2 (ring-factor): field 'qoute': unknown field",
    ),
]


@pytest.mark.django_db
@pytest.mark.parametrize(("old", "new", "message"), BREAKAGES)
def test_broken_worked_file_fails_the_load_naming_file_item_and_field(broken_content, old, new, message):
    edit(broken_content / "01-alpha" / "worked.yaml", old, new)
    with pytest.raises(CommandError) as caught:
        load(broken_content)
    assert message in str(caught.value)


@pytest.mark.django_db
def test_worked_file_that_is_not_a_list_is_named(broken_content):
    (broken_content / "01-alpha" / "worked.yaml").write_text("id: x\n")
    with pytest.raises(CommandError, match=r"01-alpha/worked.yaml: expected a non-empty list"):
        load(broken_content)


def test_fixture_worked_examples_recompute(broken_content):
    alpha = read_course(broken_content)[0]
    assert [(item["id"], item["value"]) for item in alpha.worked] == [
        ("kv-bytes-per-token", 131072),
        ("ring-factor", 1.75),
    ]


def test_every_worked_example_of_the_real_course_recomputes_and_is_quoted():
    if not real_module_folders():
        pytest.skip("course/content holds no modules yet")
    modules = read_course(REAL_CONTENT)  # raises ContentError naming the first wrong figure
    counts = {module.slug: len(module.worked) for module in modules}
    shipped_with_examples = [m for m in modules if m.order <= 8]
    assert all(counts[m.slug] >= 4 for m in shipped_with_examples), counts
    assert sum(counts.values()) >= 60, counts
