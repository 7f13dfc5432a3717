"""SQLite under a class's writes: WAL, a busy timeout and BEGIN IMMEDIATE, so writers wait, not fail."""
import threading

import pytest
from django.contrib.auth import get_user_model
from django.db import connection, connections, transaction

pytestmark = [pytest.mark.django_db(transaction=True),
              pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite settings only")]


def test_the_database_runs_in_wal_mode():
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA journal_mode")
        assert cursor.fetchone()[0] == "wal"
        cursor.execute("PRAGMA busy_timeout")
        assert cursor.fetchone()[0] >= 5000


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
    """config.sqlite_backend: a thread's write transaction holds the process's writer lock from BEGIN to
    COMMIT or ROLLBACK, so another thread waits on the lock (not in SQLite's sleeping busy handler), and
    neither a rollback nor a closed connection leaves the lock taken."""
    from config.sqlite_backend.base import _WRITER
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
