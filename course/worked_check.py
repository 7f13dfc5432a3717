"""Recomputes each module's worked examples (worked.yaml) so a figure in the prose cannot drift.

An item names its inputs, a plain arithmetic expression over them, the expected result and
the exact text under which the result appears in its section. The expression is walked
node by node over a whitelist; nothing is ever handed to eval, so a content file cannot
run code. Run `python -m course.check_content [content_dir]` to check every module by hand.
"""

import ast
import math
import operator

from .content_schema import SLUG, Checker, ContentError

DEFAULT_REL_TOL = 0.005
MAX_EXPONENT = 128  # 2**40-style byte counts are fine; 10**10**10 is not arithmetic we need
FUNCTIONS = {
    "ceil": math.ceil,
    "floor": math.floor,
    "log2": math.log2,
    "sqrt": math.sqrt,
    "min": min,
    "max": max,
    "round": round,
}
BINARY = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos}


class ExpressionError(ValueError):
    """An expression that uses something outside the whitelist, or cannot be computed."""


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _walk(node, inputs: dict):
    if isinstance(node, ast.Expression):
        return _walk(node.body, inputs)
    if isinstance(node, ast.Constant) and _number(node.value):
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in inputs:
            raise ExpressionError(f"unknown name {node.id!r} (not an input)")
        return inputs[node.id]
    if isinstance(node, ast.BinOp) and type(node.op) in BINARY:
        left, right = _walk(node.left, inputs), _walk(node.right, inputs)
        if isinstance(node.op, ast.Pow) and abs(right) > MAX_EXPONENT:
            raise ExpressionError(f"exponent {right} is larger than {MAX_EXPONENT}")
        return BINARY[type(node.op)](left, right)
    if isinstance(node, ast.UnaryOp) and type(node.op) in UNARY:
        return UNARY[type(node.op)](_walk(node.operand, inputs))
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in FUNCTIONS
        and not node.keywords
        and node.args
    ):
        return FUNCTIONS[node.func.id](*(_walk(arg, inputs) for arg in node.args))
    raise ExpressionError(
        f"{type(node).__name__} is not allowed (only numbers, input names, "
        f"+ - * / // % **, parentheses and {', '.join(FUNCTIONS)})"
    )


def evaluate(expr: str, inputs: dict) -> float:
    """The value of an arithmetic expression over `inputs`; ExpressionError for anything else."""
    try:
        tree = ast.parse(expr.strip(), mode="eval")
    except SyntaxError as error:
        raise ExpressionError(f"is not a valid expression ({error.msg})") from None
    try:
        value = _walk(tree, inputs)
    except (ZeroDivisionError, OverflowError, ValueError, TypeError) as error:
        if isinstance(error, ExpressionError):
            raise
        raise ExpressionError(f"cannot be computed ({error})") from None
    if not _number(value) or not math.isfinite(value):
        raise ExpressionError(f"gives {value!r}, not a finite number")
    return value


def _number_field(check: Checker, field: str, default=None):
    value = check.data.get(field, default)
    if not _number(value):
        check.fail(field, f"must be a number, got {value!r}")
    return value


def check_worked(file, data, sections: dict[str, str]) -> list[dict]:
    """Validate and recompute every item of one worked.yaml; `sections` maps slug -> markdown."""
    if not isinstance(data, list) or not data:
        raise ContentError(file, "expected a non-empty list of worked examples")
    result, ids = [], set()
    for index, raw in enumerate(data, start=1):
        label = (
            f"item {index} ({raw['id']})"
            if isinstance(raw, dict) and isinstance(raw.get("id"), str)
            else f"item {index}"
        )
        check = Checker(file, raw, label)
        check.only({"id", "section", "inputs", "expr", "expect", "rel_tol", "quote"})
        item_id = check.text("id")
        if not SLUG.match(item_id) or item_id in ids:
            check.fail("id", f"{item_id!r} must be a slug used once in this file")
        ids.add(item_id)
        section = check.text("section")
        if section not in sections:
            check.fail("section", f"{section!r} is not a section of this module ({', '.join(sorted(sections))})")
        inputs = raw.get("inputs")
        if not isinstance(inputs, dict) or not inputs:
            check.fail("inputs", "must be a mapping of name: number")
        for name, value in inputs.items():
            if not isinstance(name, str) or not name.isidentifier() or name in FUNCTIONS:
                check.fail(f"inputs.{name}", "is not a usable name")
            if not _number(value):
                hint = " (YAML reads 8e9 as text: write 8.0e+9 or 8000000000)" if isinstance(value, str) else ""
                check.fail(f"inputs.{name}", f"must be a number, got {value!r}{hint}")
        expect = _number_field(check, "expect")
        rel_tol = _number_field(check, "rel_tol", DEFAULT_REL_TOL)
        if not 0 <= rel_tol < 1:
            check.fail("rel_tol", f"{rel_tol} must be in 0..1")
        try:
            value = evaluate(check.text("expr"), inputs)
        except ExpressionError as error:
            check.fail("expr", str(error))
        if not math.isclose(value, expect, rel_tol=rel_tol, abs_tol=1e-12):
            check.fail("expect", f"{expect} but the expression gives {value:.6g} (rel_tol {rel_tol})")
        quote = check.text("quote")
        if quote not in sections[section]:
            check.fail("quote", f"{quote!r} does not appear in section {section!r}")
        result.append({"id": item_id, "section": section, "value": value, "expect": expect, "quote": quote})
    return result
