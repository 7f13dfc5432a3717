"""SQLite under a class's writes: WAL, a busy timeout and BEGIN IMMEDIATE, so writers wait, not fail."""

import sqlite3
import threading
import time

import pytest
from django.contrib.auth import get_user_model
from django.db import OperationalError, connection, connections, transaction

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite settings only"),
]


def test_the_database_runs_in_wal_mode():
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA journal_mode")
        assert cursor.fetchone()[0] == "wal"
        cursor.execute("PRAGMA busy_timeout")
        assert cursor.fetchone()[0] == 0  # common.sqlite_backend waits instead, in shorter steps
    assert connection.settings_dict["OPTIONS"]["timeout"] >= 5


def _held_elsewhere(seconds: float) -> threading.Thread:
    """Another process's connection (a plain sqlite3 one) holding the write lock for `seconds`."""
    held = threading.Event()

    def hold() -> None:
        other = sqlite3.connect(connection.settings_dict["NAME"], isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        held.set()
        time.sleep(seconds)
        other.execute("COMMIT")
        other.close()

    holder = threading.Thread(target=hold)
    holder.start()
    held.wait(10)
    return holder


def test_a_write_waits_for_another_process_to_commit_then_goes_ahead():
    """A transaction and a single autocommitted statement both wait for another connection's write lock
    (SQLite's own busy handler is off, so without the backend's waiting both would fail at once)."""
    users = get_user_model().objects
    holder = _held_elsewhere(0.3)
    with transaction.atomic():
        users.create(username="after-the-other")
    holder.join()
    holder = _held_elsewhere(0.3)
    users.filter(username="after-the-other").update(first_name="Ada")
    holder.join()
    assert users.get(username="after-the-other").first_name == "Ada"


def test_a_write_still_fails_past_the_busy_timeout(settings):
    users = get_user_model().objects
    connection.close()
    connection.settings_dict["OPTIONS"]["timeout"] = 0.2
    try:
        holder = _held_elsewhere(1.0)
        with pytest.raises(OperationalError, match="database is locked"):
            users.create(username="too-late")
        holder.join()
    finally:
        connection.settings_dict["OPTIONS"]["timeout"] = settings.SQLITE_BUSY_TIMEOUT_S
        connection.close()
    assert not users.filter(username="too-late").exists()


def test_concurrent_read_then_write_transactions_all_commit():
    """The shape of a drill answer: read, then write, in one transaction, from many threads at once.
    With deferred transactions two readers both try to upgrade and one fails at once with "database
    is locked" (the busy timeout cannot help); BEGIN IMMEDIATE makes the second wait its turn."""
    users = get_user_model().objects
    errors: list[str] = []
    start = threading.Barrier(8)

    def writer(number: int) -> None:
        try:
            start.wait()
            for turn in range(15):
                with transaction.atomic():
                    users.filter(username__startswith="w").count()
                    users.create(username=f"w{number}-{turn}")
        except Exception as error:
            errors.append(f"{type(error).__name__}: {error}")
        finally:
            connections.close_all()

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert users.filter(username__startswith="w").count() == 8 * 15


def test_threads_of_one_process_take_turns_and_every_ending_gives_the_turn_back():
    """common.sqlite_backend: a thread's write transaction holds the process's writer lock from BEGIN to
    COMMIT or ROLLBACK, so another thread waits on the lock (not in SQLite's sleeping busy handler), and
    neither a rollback nor a closed connection leaves the lock taken."""
    from common.sqlite_backend.base import _WRITER

    users = get_user_model().objects
    inside, order = threading.Event(), []

    def first() -> None:
        try:
            with transaction.atomic():
                users.create(username="first")
                inside.set()
                threading.Event().wait(0.3)
                order.append("first commits")
        finally:
            connections.close_all()

    holder = threading.Thread(target=first)
    holder.start()
    inside.wait(10)
    assert _WRITER.locked()
    with transaction.atomic():
        order.append("second begins")
        users.create(username="second")
    holder.join()
    assert order == ["first commits", "second begins"]
    with pytest.raises(ValueError), transaction.atomic():
        users.create(username="rolled-back")
        raise ValueError("the view failed")
    assert not _WRITER.locked() and not users.filter(username="rolled-back").exists()
    connection._start_transaction_under_autocommit()  # BEGIN, as atomic() does; then the connection drops
    connection.close()
    assert not _WRITER.locked()
