"""The leaderboard page as learners and instructors see it, and the instructor's switch that hides it."""

import re

import pytest
from django.urls import reverse

from accounts.roles import instructor_group
from accounts.tests.factories import UserFactory
from cohorts.tests.factories import CohortFactory, MembershipFactory
from labs.models import CohortBoard
from labs.tests.factories import LabFactory, speed_lab, timed_submission

pytestmark = pytest.mark.django_db


@pytest.fixture
def spring(learner, instructor):
    """Cohort Spring: ada (the `learner`) and bob, taught by grace (the `instructor`); cy is in no cohort."""
    bob = UserFactory(username="bob", first_name="Robert", last_name="Tables")
    cohort = CohortFactory(name="Spring", instructors=[instructor], learners=[learner, bob])
    lab = speed_lab("paged-attention")
    timed_submission(learner, lab, 2.5)
    timed_submission(bob, lab, 1.25)
    timed_submission(UserFactory(username="cy"), lab, 0.75)
    return cohort


def shown_names(page: str) -> list[str]:
    """The learner column of the board, top to bottom, as the page prints it."""
    return re.findall(r'<td class="board-name">([^<]+?)[ <]', page)


def board_url(**query) -> str:
    url = reverse("labs:leaderboard", args=["paged-attention"])
    return url + ("?" + "&".join(f"{key}={value}" for key, value in query.items()) if query else "")


def test_a_learner_sees_their_cohort_first_with_their_own_row_marked(learner_client, spring):
    response = learner_client.get(board_url())
    assert response.status_code == 200
    page = response.content.decode()
    assert "Ranked by <strong>median latency (ms)</strong>, lower is better." in page
    assert "context 1024, timed by the grader" in page
    assert shown_names(page) == ["bob", "ada"]  # cy is not in Spring
    assert 'class="own-row" aria-current="true"' in page and "ada <strong>(you)</strong>" in page
    assert "You are <strong>#2</strong> of 2." in page
    assert "Robert" not in page and "Tables" not in page and "@example.com" not in page  # usernames only
    assert "board-hiding" not in page  # no switch for learners


def test_the_site_scope_ranks_everyone(learner_client, spring):
    page = learner_client.get(board_url(scope="site")).content.decode()
    assert shown_names(page) == ["cy", "bob", "ada"]
    assert "You are <strong>#3</strong> of 3." in page


def test_anonymous_visitors_are_sent_to_log_in(client, spring):
    response = client.get(board_url())
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))


def test_a_lab_without_a_speed_says_it_has_no_board(learner_client):
    LabFactory()
    response = learner_client.get(reverse("labs:leaderboard", args=["kv-sizing"]))
    assert response.status_code == 200
    assert "has no leaderboard" in response.content.decode()
    assert "graded on correctness alone" in response.content.decode()
    assert learner_client.get(reverse("labs:leaderboard", args=["no-such-lab"])).status_code == 404


def test_odd_query_values_fall_back_to_a_board(learner_client, spring):
    response = learner_client.get(board_url(scope="nonsense", device="no-such-gpu", cohort="99999999999999999999"))
    assert response.status_code == 200 and shown_names(response.content.decode()) == ["bob", "ada"]


def test_the_lab_page_and_the_labs_list_link_to_the_board(learner_client, spring):
    url = reverse("labs:leaderboard", args=["paged-attention"])
    assert f'href="{url}"' in learner_client.get(reverse("labs:detail", args=["paged-attention"])).content.decode()
    assert f'href="{url}"' in learner_client.get(reverse("labs:index")).content.decode()


def test_an_instructor_hides_the_board_from_their_cohort_only(client, learner, instructor, spring):
    client.force_login(instructor)
    hide = reverse("labs:leaderboard_hide", args=["paged-attention", spring.pk])
    response = client.post(hide, {"hidden": "1"})
    assert response.status_code == 302
    assert CohortBoard.objects.get(cohort=spring).hidden
    page = client.get(board_url()).content.decode()
    assert "Spring: <strong>hidden</strong>" in page and "Show to Spring" in page  # the instructor still sees it
    assert 'id="leaderboard"' in page
    client.force_login(learner)
    for scope in ("cohort", "site"):
        page = client.get(board_url(scope=scope)).content.decode()
        assert "hidden by your instructor" in page and shown_names(page) == []
    client.force_login(UserFactory(username="dee"))  # in no cohort: the site board is still there
    page = client.get(board_url()).content.decode()
    assert "hidden by your instructor" not in page and shown_names(page) == ["cy", "bob", "ada"]
    client.force_login(instructor)
    assert client.post(hide, {"hidden": "0"}).status_code == 302
    client.force_login(learner)
    assert "hidden by your instructor" not in client.get(board_url()).content.decode()


def test_only_the_cohorts_instructor_may_hide_its_board(client, learner, spring):
    hide = reverse("labs:leaderboard_hide", args=["paged-attention", spring.pk])
    client.force_login(learner)
    assert client.post(hide, {"hidden": "1"}).status_code == 403
    other = UserFactory(username="other")
    other.groups.add(instructor_group())
    client.force_login(other)
    assert client.post(hide, {"hidden": "1"}).status_code == 404
    assert not CohortBoard.objects.exists()


def test_a_bad_choice_is_a_plain_400(instructor_client, spring):
    hide = reverse("labs:leaderboard_hide", args=["paged-attention", spring.pk])
    response = instructor_client.post(hide, {"hidden": "maybe"})
    assert response.status_code == 400 and "hidden=1" in response.content.decode()
    assert instructor_client.get(hide).status_code == 405


def test_the_page_costs_the_same_queries_for_many_learners(
    learner_client, learner, spring, django_assert_max_num_queries
):
    lab = speed_lab("paged-attention")
    for index in range(12):
        extra = UserFactory()
        MembershipFactory(cohort=spring, learner=extra)
        timed_submission(extra, lab, 3.0 + index)
    with django_assert_max_num_queries(12):
        response = learner_client.get(board_url())
    assert len(shown_names(response.content.decode())) == 14


def test_each_device_kind_has_its_own_board_to_pick(learner_client, learner, spring):
    lab = speed_lab("paged-attention")
    timed_submission(learner, lab, 0.02, gpu="NVIDIA H200")
    older = timed_submission(UserFactory(username="old-gpu"), lab, 0.5)
    older.result["worker"] = {"device": "cuda"}  # a worker that did not name its GPU
    older.result["metrics"]["device"] = "cuda"
    older.save(update_fields=["result"])
    page = learner_client.get(board_url(scope="site")).content.decode()
    assert ">CPU</a>" in page and ">NVIDIA H200</a>" in page and ">GPU (model not reported)</a>" in page
    assert shown_names(page) == ["cy", "bob", "ada"]  # unasked: the CPU board, where ada has a row too
    page = learner_client.get(board_url(scope="site", device="NVIDIA H200")).content.decode()
    assert "Whole site, NVIDIA H200</h2>" in page and shown_names(page) == ["ada"]
    assert "You are <strong>#1</strong> of 1." in page
    page = learner_client.get(board_url(scope="site", device="cuda")).content.decode()
    assert shown_names(page) == ["old-gpu"] and "You have no accepted submission on this board yet." in page
