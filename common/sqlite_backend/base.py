"""Django's SQLite backend, with writers that wait their turn closely instead of in SQLite's long sleeps.

SQLite lets one connection write at a time; a connection that finds the write lock taken sleeps
in growing steps (1, 2, 5, 10 ... 100 ms) before it tries again, so under a class's load an answer
could wait a step longer than the write it waited for (measured under bench.load_mixed: 4% of write
transactions waited, the slowest 1% over 8 ms, for writes that hold the lock about 1 ms; 2 ms with
the waiting below). So:

- threads of the same process queue on a lock and start the moment the write before them commits;
- a statement that finds the lock held by another process (a web process, a worker) is tried again
  in short steps (0.2 ms, doubling to 2 ms) until the busy timeout (OPTIONS "timeout"), then fails
  with SQLite's "database is locked". SQLite's own busy handler is off, so it never sleeps first.
"""

import sqlite3
import threading
import time

from django.db.backends.sqlite3 import base

_WRITER = threading.Lock()  # one per process: each thread's connection takes it for its write transaction
_BUSY = (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_BUSY_RECOVERY)  # not BUSY_SNAPSHOT: that transaction must restart
FIRST_PAUSE_S, LONGEST_PAUSE_S = 0.0002, 0.002


def _patiently(statement, patience_s: float):
    """Run `statement()`, trying again while another connection holds the lock, for up to `patience_s`."""
    deadline, pause = time.monotonic() + patience_s, FIRST_PAUSE_S
    while True:
        try:
            return statement()
        except sqlite3.OperationalError as error:
            if getattr(error, "sqlite_errorcode", None) not in _BUSY or time.monotonic() + pause > deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, LONGEST_PAUSE_S)


class WaitingCursor(base.SQLiteCursorWrapper):
    patience_s = 5.0

    def execute(self, query, params=None):
        return _patiently(lambda: super(WaitingCursor, self).execute(query, params), self.patience_s)

    def executemany(self, query, param_list):
        param_list = list(param_list)  # a second try needs the rows again
        return _patiently(lambda: super(WaitingCursor, self).executemany(query, param_list), self.patience_s)


class DatabaseWrapper(base.DatabaseWrapper):
    holds_writer_lock = False

    def get_new_connection(self, conn_params):
        connection = super().get_new_connection(conn_params)
        connection.execute("PRAGMA busy_timeout = 0")  # WaitingCursor does the waiting
        return connection

    def create_cursor(self, name=None):
        cursor = self.connection.cursor(factory=WaitingCursor)
        cursor.patience_s = self.settings_dict["OPTIONS"].get("timeout", 5)
        return cursor

    def _start_transaction_under_autocommit(self):
        if not self.holds_writer_lock:
            # past the busy timeout go ahead anyway, and let SQLite answer "database is locked"
            self.holds_writer_lock = _WRITER.acquire(timeout=self.settings_dict["OPTIONS"].get("timeout", 5))
        try:
            super()._start_transaction_under_autocommit()
        except BaseException:
            self._release_writer_lock()
            raise

    def _commit(self):
        return self._then_release(super()._commit)

    def _rollback(self):
        return self._then_release(super()._rollback)

    def _close(self):
        return self._then_release(super()._close)

    def _then_release(self, end):
        """End the transaction (or the connection) and give the turn to the next thread, whatever happens."""
        try:
            return end()
        finally:
            self._release_writer_lock()

    def _release_writer_lock(self):
        if self.holds_writer_lock:
            self.holds_writer_lock = False
            _WRITER.release()
