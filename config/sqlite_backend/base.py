"""Django's SQLite backend, with the threads of one process taking turns to write on a lock.

SQLite lets one connection write at a time; a connection that finds the write lock taken sleeps
in growing steps (1, 2, 5, 10 ... 100 ms) before it tries again, so under a class's load an answer
could wait a step longer than the write it waited for. Threads of the same process queue on a
lock instead and start the moment the write before them commits. Other processes still wait on
SQLite's busy timeout, as before."""
import threading

from django.db.backends.sqlite3 import base

_WRITER = threading.Lock()  # one per process: each thread's connection takes it for its write transaction


class DatabaseWrapper(base.DatabaseWrapper):
    holds_writer_lock = False

    def _start_transaction_under_autocommit(self):
        if not self.holds_writer_lock:
            # past SQLite's own busy timeout go ahead anyway, and let SQLite answer "database is locked"
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
