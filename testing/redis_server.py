"""A test's own redis-server, which the test may kill, pause and start again on the same port."""

import shutil
import signal
import socket
import subprocess
import tempfile
import time

import pytest


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class PrivateRedis:
    """redis-server on a free loopback port, no persistence (as under `make run`): a restart loses every key."""

    def __init__(self):
        self.binary = shutil.which("redis-server")
        if not self.binary:
            pytest.skip("needs redis-server")
        self.port = _free_port()
        self.workdir = tempfile.mkdtemp(prefix="test-private-redis-")
        self.process: subprocess.Popen | None = None

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def start(self) -> "PrivateRedis":
        argv = [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        self.process = subprocess.Popen(
            [*argv, "--dir", self.workdir], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as sock:
                    sock.sendall(b"PING\r\n")
                    if sock.recv(16).startswith(b"+PONG"):
                        return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"redis-server on port {self.port} did not start")

    def kill(self) -> None:
        """SIGKILL, as an operator's `kill -9` or the OOM killer would; the port is free at once."""
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def pause(self) -> None:
        self.process.send_signal(signal.SIGSTOP)  # keeps its keys but answers nothing: a network cut

    def resume(self) -> None:
        self.process.send_signal(signal.SIGCONT)

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGCONT)
        self.kill()
        shutil.rmtree(self.workdir, ignore_errors=True)
