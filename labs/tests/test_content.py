"""`manage.py load_labs`: loads labs/content idempotently; an invalid file fails naming file and field."""

from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from labs.content_reader import CONTENT_DIR
from labs.models import Lab

pytestmark = pytest.mark.django_db

LAB_YAML = """title: KV cache sizing
module: kv-cache
order: 1
summary: Bytes per token and blocks that fit.
contract: |
  def kv_bytes_per_token(config: dict, dtype_bytes: int) -> int
limits:
  wall_s: 15
"""


def _write_lab(
    root: Path,
    slug="kv-sizing",
    yaml_text=LAB_YAML,
    statement="# KV cache sizing\n\nSize **it**.\n<script>x</script>",
    starter="def kv_bytes_per_token(config, dtype_bytes):\n    ...\n",
) -> Path:
    folder = root / slug
    folder.mkdir(parents=True)
    (folder / "lab.yaml").write_text(yaml_text)
    (folder / "statement.md").write_text(statement)
    (folder / "starter.py").write_text(starter)
    return folder


def test_loads_and_is_idempotent(tmp_path, capsys):
    _write_lab(tmp_path)
    call_command("load_labs", path=str(tmp_path))
    lab = Lab.objects.get()
    assert (lab.slug, lab.title, lab.module_slug, lab.order, lab.limits) == (
        "kv-sizing",
        "KV cache sizing",
        "kv-cache",
        1,
        {"wall_s": 15},
    )
    assert "<strong>it</strong>" in lab.statement_html and "<script>" not in lab.statement_html
    assert "KV cache sizing" not in lab.statement_html  # the page's own heading shows the title
    assert lab.contract.startswith("def kv_bytes_per_token") and "..." in lab.starter_code
    call_command("load_labs", path=str(tmp_path))
    assert "0 created, 0 updated, 1 unchanged" in capsys.readouterr().out
    assert Lab.objects.count() == 1
    (tmp_path / "kv-sizing" / "lab.yaml").write_text(LAB_YAML.replace("order: 1", "order: 4"))
    call_command("load_labs", path=str(tmp_path))
    assert Lab.objects.get().order == 4 and Lab.objects.count() == 1


@pytest.mark.parametrize(
    "yaml_text, words",
    [
        (LAB_YAML.replace("title: KV cache sizing\n", ""), "lab.yaml: field 'title' is required"),
        (LAB_YAML.replace("order: 1", "order: first"), "lab.yaml: field 'order' must be a whole number"),
        (LAB_YAML.replace("wall_s: 15", "wall_s: -1"), "lab.yaml: field 'limits.wall_s' must be a positive"),
        (LAB_YAML.replace("wall_s: 15", "walls: 15"), "lab.yaml: field 'limits.walls' is unknown"),
        (LAB_YAML + "slug: other\n", "lab.yaml: field 'slug' is 'other'"),
        ("title: [unclosed", "lab.yaml: invalid YAML"),
    ],
)
def test_invalid_yaml_names_file_and_field(tmp_path, yaml_text, words):
    _write_lab(tmp_path, yaml_text=yaml_text)
    with pytest.raises(CommandError, match=words.replace("[", r"\[")) as error:
        call_command("load_labs", path=str(tmp_path))
    assert "kv-sizing" in str(error.value)
    assert not Lab.objects.exists()


def test_missing_starter_names_the_file(tmp_path):
    folder = _write_lab(tmp_path)
    (folder / "starter.py").unlink()
    with pytest.raises(CommandError, match=r"kv-sizing/starter.py: file is missing"):
        call_command("load_labs", path=str(tmp_path))


@pytest.mark.skipif(not CONTENT_DIR.is_dir(), reason="labs/content is not written yet")
def test_the_shipped_catalogue_loads():
    call_command("load_labs")
    slugs = set(Lab.objects.values_list("slug", flat=True))
    assert "kv-sizing" in slugs
    assert all(lab.title and lab.starter_code and lab.statement_html for lab in Lab.objects.all())
