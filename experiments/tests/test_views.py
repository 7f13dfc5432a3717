"""The experiment pages through Django's test client: form errors, cache hits, polling, compare, privacy."""

import pytest
from django.core.management import call_command
from django.urls import reverse

from accounts.tests.factories import UserFactory
from course.tests.conftest import FIXTURE_CONTENT
from experiments.models import Experiment
from experiments.services import config_hash, experiment_create, experiment_mark_running, result_ingest
from gpu_worker.contract.knobs import DEFAULTS, normalize

from .conftest import SMALL

pytestmark = pytest.mark.django_db
INDEX = reverse("experiments:index")


def form_data(**changes) -> dict:
    data = {name: value for name, value in DEFAULTS.items() if name not in ("model", "gpu_memory_utilization")}
    data.update(changes)
    return {name: ("on" if value is True else value) for name, value in data.items() if value is not False}


def done_experiment(owner, result: dict) -> Experiment:
    experiment = experiment_create(owner=owner, config=result["config"])
    assert result_ingest(result={**result, "experiment_id": experiment.pk})
    experiment.refresh_from_db()
    return experiment


def finished_experiment(owner, config: dict) -> Experiment:
    experiment = experiment_create(owner=owner, config=config)
    result_ingest(result={"experiment_id": experiment.pk, "ok": False, "error": "stopped"})
    return experiment


def test_the_form_asks_for_login(client):
    response = client.get(INDEX)
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_a_preset_fills_the_form_and_shows_its_question(learner_client):
    response = learner_client.get(INDEX + "?preset=shrink-kv-until-preemption")
    page = response.content.decode()
    assert response.status_code == 200
    assert "Shrink the KV budget until preemptions start" in page and "At which budget do preemptions appear" in page
    assert 'name="num_requests" value="16"' in page and '<option value="h100-model" selected>' in page
    assert 'name="preset" value="shrink-kv-until-preemption"' in page


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"max_num_seqs": "0"}, "greater than or equal to 1"),
        ({"max_num_seqs": "lots"}, "Enter a whole number"),
        ({"request_rate": "nan"}, "Enter a number"),
        ({"block_size": "7"}, "Select a valid choice"),
        ({"enable_chunked_prefill": False, "max_num_batched_tokens": "256"}, "without chunked prefill"),
        ({"workload": "shared-prefix", "num_requests": "48"}, "engine steps"),
    ],
)
def test_bad_knobs_come_back_as_form_errors(learner_client, changes, message, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks() as callbacks:
        response = learner_client.post(INDEX, form_data(**changes))
    assert response.status_code == 400 and message in response.content.decode()
    assert not Experiment.objects.exists() and not callbacks


def test_a_preset_run_keeps_its_question_through_errors_and_an_unknown_preset_is_dropped(learner_client):
    response = learner_client.post(INDEX, form_data(preset="goodput-under-load", max_num_seqs="0"))
    assert (
        response.status_code == 400 and "Find the request rate where goodput stops growing" in response.content.decode()
    )
    assert learner_client.post(INDEX, form_data(preset="../../etc", max_num_seqs=7)).status_code == 302
    assert Experiment.objects.get().preset == ""
    learner_client.post(INDEX, form_data(preset="goodput-under-load", max_num_seqs=7))  # refused: one waits already
    Experiment.objects.update(status="failed")
    learner_client.post(INDEX, form_data(preset="goodput-under-load", max_num_seqs=8))
    assert Experiment.objects.latest("pk").preset == "goodput-under-load"


def test_a_new_configuration_is_queued_for_the_worker(learner_client, learner, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks() as callbacks:
        response = learner_client.post(INDEX, form_data(max_num_seqs=8))
    experiment = Experiment.objects.get()
    assert response.status_code == 302 and response["Location"] == experiment.get_absolute_url()
    assert (experiment.owner, experiment.status, experiment.config["max_num_seqs"]) == (learner, "queued", 8)
    assert experiment.config_hash == config_hash(normalize(experiment.config)) and len(callbacks) == 1
    page = learner_client.get(experiment.get_absolute_url()).content.decode()
    assert "Waiting for a worker" in page and 'hx-trigger="every 1s"' in page


def test_an_identical_configuration_is_served_from_the_cache(
    learner_client, small_result, django_capture_on_commit_callbacks
):
    other = UserFactory(username="bo")
    done_experiment(other, small_result)
    with django_capture_on_commit_callbacks() as callbacks:
        response = learner_client.post(INDEX, form_data(**SMALL))
    mine = Experiment.objects.latest("pk")
    assert not callbacks and mine.from_cache and mine.status == "done"  # nothing sent to the worker
    page = learner_client.get(response["Location"]).content.decode()
    assert "served from an earlier identical run" in page and "TTFT p95 (ms)" in page
    assert page.count("data-plot") == 5


def test_polling_stops_once_the_result_is_in(learner_client, learner, small_result):
    experiment = experiment_create(owner=learner, config=small_result["config"])
    url = experiment.get_absolute_url()
    waiting = learner_client.get(url, HTTP_HX_REQUEST="true")
    assert waiting.status_code == 200 and "Waiting for a worker" in waiting.content.decode()
    result_ingest(result={**small_result, "experiment_id": experiment.pk})
    done = learner_client.get(url, HTTP_HX_REQUEST="true")
    assert done.status_code == 286 and "Goodput under the SLO" in done.content.decode()


def test_a_failed_run_shows_the_workers_message(learner_client, learner):
    experiment = experiment_create(owner=learner, config={"max_num_seqs": 3})
    assert result_ingest(result={"experiment_id": experiment.pk, "ok": False, "error": "the run passed 60 s"})
    assert not result_ingest(result={"experiment_id": experiment.pk, "ok": True, "metrics": {}})  # only once
    page = learner_client.get(experiment.get_absolute_url()).content.decode()
    assert "The run failed:" in page and "the run passed 60 s" in page


def test_the_hourly_cap_refuses_new_runs_but_not_cached_ones(learner_client, learner, settings, small_result):
    settings.EXPERIMENTS_HOURLY_CAP = 1
    done_experiment(learner, small_result)
    response = learner_client.post(INDEX, form_data(max_num_seqs=9))
    assert response.status_code == 400 and "used your 1 experiment runs for this hour" in response.content.decode()
    assert learner_client.post(INDEX, form_data(**SMALL)).status_code == 302  # a cache hit costs nothing


def test_one_run_waits_at_a_time_and_a_lost_one_is_dropped(learner_client, learner, settings):
    waiting = experiment_create(owner=learner, config={"max_num_seqs": 5})
    response = learner_client.post(INDEX, form_data(max_num_seqs=6))
    assert response.status_code == 400 and "still waiting for the worker" in response.content.decode()
    settings.EXPERIMENTS_STALE_S = 0  # as if the worker never answered
    page = learner_client.get(waiting.get_absolute_url()).content.decode()
    assert "No worker answered in time" in page and "hx-trigger" not in page
    assert learner_client.post(INDEX, form_data(max_num_seqs=6)).status_code == 302


def test_a_learner_sees_only_their_own_runs(learner_client, learner, small_result, django_assert_num_queries):
    other = UserFactory(username="bo")
    theirs = done_experiment(other, small_result)
    mine = [finished_experiment(learner, {"max_num_seqs": n}) for n in (2, 3, 4)]
    with django_assert_num_queries(5):  # session, user, two for the site header, one for the runs
        page = learner_client.get(INDEX).content.decode()
    assert all(f"#{run.pk}</a>" in page for run in mine) and f"#{theirs.pk}</a>" not in page
    assert learner_client.get(theirs.get_absolute_url()).status_code == 404
    compare = reverse("experiments:compare")
    assert learner_client.get(f"{compare}?a={mine[0].pk}&b={theirs.pk}").status_code == 404
    assert learner_client.get(f"{compare}?a=x&b=99999999999999999999999").status_code == 404
    assert learner_client.get(INDEX + f"?from={theirs.pk}").content.decode().count('value="16"') >= 1


def test_compare_lays_two_runs_side_by_side(learner_client, learner, small_result):
    first = done_experiment(learner, small_result)
    second = experiment_create(owner=learner, config={**small_result["config"], "max_num_seqs": 2})
    result_ingest(result={**small_result, "config": second.config, "experiment_id": second.pk})
    page = learner_client.get(reverse("experiments:compare") + f"?a={first.pk}&b={second.pk}").content.decode()
    assert f"#{first.pk} beside #{second.pk}" in page
    assert "<code>max_num_seqs</code></th><td>16</td><td>2</td>" in page
    assert page.count("data-plot") == 5 and "Goodput under the SLO" in page
    assert f'"name": "#{second.pk} KV blocks in use"' in page  # both runs on one set of axes


def test_section_pages_link_their_presets(client, fixture_presets):
    call_command("load_course", path=str(FIXTURE_CONTENT), stdout=open("/dev/null", "w"))
    page = client.get("/course/alpha/batching/").content.decode()
    assert "Try it on the engine" in page and 'href="/experiments/?preset=tiny-batch"' in page
    assert "Try it on the engine" not in client.get("/course/alpha/first-steps/").content.decode()


def test_the_page_says_where_a_run_waits_then_that_it_runs(learner_client, learner, small_result):
    other = UserFactory(username="cy")
    first = experiment_create(owner=other, config={**small_result["config"], "max_num_seqs": 3})
    mine = experiment_create(owner=learner, config=small_result["config"])
    page = learner_client.get(mine.get_absolute_url()).content.decode()
    assert "1 experiment ahead of yours" in page
    assert experiment_mark_running(experiment_id=first.pk)
    assert "Yours is next" in learner_client.get(mine.get_absolute_url()).content.decode()
    assert experiment_mark_running(experiment_id=mine.pk) and not experiment_mark_running(experiment_id=mine.pk)
    assert not experiment_mark_running(experiment_id="not-an-id")
    running = learner_client.get(mine.get_absolute_url(), HTTP_HX_REQUEST="true")
    assert running.status_code == 200 and "Running…" in running.content.decode()  # still polled
    assert result_ingest(result={**small_result, "experiment_id": mine.pk})  # a running experiment takes its result
    assert Experiment.objects.get(pk=mine.pk).status == "done"
