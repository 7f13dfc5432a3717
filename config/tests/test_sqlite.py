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
