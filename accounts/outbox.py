"""The local outbox `make run` sends mail to: one file per connection under var/outbox, private to the site's user.

Django's file backend writes with the process's umask (0644 by default); here the folder is 0700 and
each file is created 0600, so a reset link can be read by the operator (`ls var/outbox`) and nobody else.
"""

import os

from django.core.mail.backends import filebased


class EmailBackend(filebased.EmailBackend):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        os.chmod(self.file_path, 0o700)

    def open(self):
        if self.stream is None:
            fd = os.open(self._get_filename(), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            self.stream = os.fdopen(fd, "ab")
            return True
        return False
