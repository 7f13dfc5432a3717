"""`make run`'s process supervisor: a private Redis, the web server, a web worker, beat and grading workers.

Each process runs in its own session (Ctrl-C reaches only this supervisor, which then stops them
all in order). One that exits is started again after a short back-off, and the others stay up: a
crashed grading worker does not take the site down. Whatever a dead process left in its session is
killed before it starts again, and every process is told to stop when the supervisor dies, even by
SIGKILL: nothing outlives `make run`. Beat is its own process, not a worker's `-B` child, so a
killed worker cannot leave a second beat behind. Logs: var/<name>.log.

Settings (environment): HOST, PORT, GRADING_WORKERS (runs graded at once; default 1 on a CUDA
host, else half the cores, at most 4), GPU_WORKER_MEMORY_LIMIT (each grading worker's own memory, as
docker-compose.yml's container limit: default 16g, Docker's units), WEB_PROCESSES (default: one per core, 2 to 4) and WEB_THREADS
(default 4) for gunicorn. BROKER_BIND (an address of this host other hosts reach) opens the private
Redis to second grading hosts: it keeps its password (var/broker.secret) and port (BROKER_PORT,
default 16379) across restarts, and the supervisor prints the `make join` line for them.

A second grading host runs scripts/join.py (`make join`): only the grading workers, supervised by
this module's code, against the first site's broker.
"""

import ctypes
import os
import resource
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VAR = Path(os.environ.get("VAR_DIR") or ROOT / "var")  # as the settings read it: a test moves both
BIN = Path(sys.executable).parent
sys.path.insert(0, str(ROOT))
from gpu_worker.contract import wire  # noqa: E402  (standard library only)


def free_port(start: int) -> int:
    for port in range(start, start + 200):
        with socket.socket() as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as servers bind: TIME_WAIT is free
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise SystemExit(f"!! no free port from {start}")


def grading_workers() -> int:
    if os.environ.get("GRADING_WORKERS"):
        return max(1, int(os.environ["GRADING_WORKERS"]))
    if shutil.which("nvidia-smi") and subprocess.run(["nvidia-smi", "-L"], capture_output=True).returncode == 0:
        return 1  # one GPU: runs take turns on it
    return max(1, min(4, (os.cpu_count() or 2) // 2))  # leave half the cores to the site


def redis_answers(port: int, password: str, host: str = "127.0.0.1") -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.5) as sock:
            sock.sendall((f"AUTH {password}\r\n" if password else "").encode() + b"PING\r\n")
            answer = b""
            while b"PONG" not in answer and b"-" not in answer:
                chunk = sock.recv(64)
                if not chunk:
                    break
                answer += chunk
            return b"PONG" in answer
    except OSError:
        return False


UNITS = {"b": 1, "k": 2**10, "m": 2**20, "g": 2**30}
MIN_WORKER_MEMORY = 1 << 30  # below this a grading worker could not import torch


def worker_memory_limit() -> int:
    """Bytes of memory each grading worker may hold itself: GPU_WORKER_MEMORY_LIMIT ("16g", "4096m", bytes)."""
    text = (os.environ.get("GPU_WORKER_MEMORY_LIMIT") or "16g").strip().lower()
    number, unit = (text[:-1], text[-1]) if text[-1:] in UNITS else (text, "b")
    try:
        limit = int(float(number) * UNITS[unit])
    except ValueError:
        raise SystemExit(f"!! GPU_WORKER_MEMORY_LIMIT={text!r}: give a size such as 16g or 4096m") from None
    if limit < MIN_WORKER_MEMORY:
        raise SystemExit(f"!! GPU_WORKER_MEMORY_LIMIT={text!r} is under 1g: a grading worker could not start")
    return limit


def limit_own_memory(limit: int) -> None:
    """In a freshly started child: its heap and writable mappings may grow to `limit` bytes, then allocations
    fail (MemoryError) in it alone. RLIMIT_DATA, not RLIMIT_AS: CUDA reserves address space it never uses,
    as the sandbox's own choice for GPU hosts (gpu_worker/sandbox/process.py). Only the soft limit: the
    sandbox sets its own, for learner code, below or above this one; it counts per process, not the runs'."""
    resource.setrlimit(resource.RLIMIT_DATA, (limit, resource.getrlimit(resource.RLIMIT_DATA)[1]))


def broker_password(shared: bool) -> str:
    """A new password each start; kept in var/broker.secret (0600) once other hosts join, so a restart
    of this site does not lock out the grading hosts that joined it."""
    if not shared:
        return secrets.token_hex(16)
    path = VAR / "broker.secret"
    if not path.exists():
        path.write_text(secrets.token_hex(16))
        path.chmod(0o600)
    return path.read_text().strip()


def listen_addresses(bind: str) -> list[str]:
    """Loopback (this site's own processes) and BROKER_BIND; a wildcard covers loopback already, and Redis
    cannot listen on both it and 127.0.0.1 at the same port."""
    if bind in ("0.0.0.0", "::", "*"):
        return [bind]
    return ["127.0.0.1"] if bind == "127.0.0.1" else ["127.0.0.1", bind]


def join_address(bind: str) -> str:
    """The address a second host uses for this one: the bound one, or this host's name for 0.0.0.0."""
    return socket.getfqdn() if bind in ("0.0.0.0", "::", "*") else bind


PR_SET_PDEATHSIG = 1


def die_with_supervisor() -> None:
    """In a freshly started child: SIGTERM when the supervisor's thread that started it ends, however it ends."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except (OSError, AttributeError):
        pass  # not Linux: Ctrl-C still stops everything, a SIGKILLed supervisor may leave its children


def lower_priority(niceness: int) -> None:
    """In a freshly started session: be `niceness` nicer, and so be its scheduler autogroup.

    Linux schedules each session (autogroup) as one unit, so a plain `nice` in a new session is
    fair only against processes of that same session; the autogroup's own nice value is what
    makes grading yield the CPU to the web server."""
    os.nice(niceness)
    try:
        Path("/proc/self/autogroup").write_text(str(niceness))
    except OSError:
        pass  # no autogroups (kernel option off, or not Linux): plain nice is all there is


class Child:
    def __init__(self, name: str, argv: list[str], env: dict, niceness: int = 0, memory_bytes: int | None = None):
        self.name, self.argv, self.env, self.niceness = name, argv, env, niceness
        self.memory_bytes = memory_bytes  # its own memory limit (limit_own_memory), None: as the supervisor's
        self.process: subprocess.Popen | None = None
        self.started = 0.0
        self.delay = 1.0
        self.restart_at: float | None = None
        self.session_ended = False  # it exited and what it left was killed: its session id may be anyone's now

    def start(self) -> None:
        log = (VAR / f"{self.name}.log").open("a")
        self.process = subprocess.Popen(
            self.argv,
            cwd=ROOT,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            preexec_fn=self._in_child,
        )
        self.started, self.restart_at, self.session_ended = time.monotonic(), None, False

    def _in_child(self) -> None:
        die_with_supervisor()
        if self.niceness:
            lower_priority(self.niceness)
        if self.memory_bytes:
            limit_own_memory(self.memory_bytes)

    def check(self) -> None:
        """Start it again if it exited: at once after a long life, else with a growing back-off."""
        now = time.monotonic()
        if self.restart_at is not None:
            if now >= self.restart_at:
                self.start()
            return
        code = self.process.poll()
        if code is None:
            return
        self.kill_leftovers()
        self.delay = 1.0 if now - self.started > 60 else min(self.delay * 2, 30.0)
        self.restart_at = now + self.delay
        print(
            f"==> {self.name} exited ({code}); starting it again in {self.delay:.0f} s (see var/{self.name}.log)",
            flush=True,
        )

    def signal(self, signum: int) -> None:
        """Signal its whole session (it and what it started), even once it has exited itself."""
        if self.process and not self.session_ended:
            try:
                os.killpg(self.process.pid, signum)
            except (ProcessLookupError, PermissionError):
                pass  # no one left in it

    def kill_leftovers(self) -> None:
        """What an exited process left in its session (a `-B` beat, a pool child): while one is left, the
        session's id stays theirs, so this reaches nobody else."""
        self.signal(signal.SIGKILL)
        self.session_ended = True


def stop(children: list[Child], grace: float = 10.0) -> None:
    print("\n==> stopping the site, the workers and Redis", flush=True)
    for group in (children[1:], children[:1]):  # Redis last, so workers can ack on the way out
        for child in group:
            child.signal(signal.SIGTERM)
        deadline = time.monotonic() + grace
        for child in group:
            if child.process:
                try:
                    child.process.wait(timeout=max(0.1, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    child.signal(signal.SIGKILL)
                    child.process.wait()
                child.kill_leftovers()


def grading_worker(number: int, env: dict, level: str, memory_bytes: int, prefix: str = "gpu") -> Child:
    """Grading worker `number` as `make run` (or `make join`) starts it: solo pool, nicer than the site, its own
    memory limit (a bug decoding what a run sent ends this worker, which is started again, not the host)."""
    argv = [str(BIN / "celery"), "-A", "gpu_worker.celery_app", "worker", "-Q", wire.GRADING_QUEUE, "--pool=solo"]
    argv += ["-n", f"{prefix}{number}@%h", "--without-mingle", "--without-gossip", "-l", level]
    return Child(f"{prefix}-worker-{number}", argv, env, niceness=10, memory_bytes=memory_bytes)


def web_argv(host: str, port: int) -> list[str]:
    """gunicorn with threads. One request per process (its sync worker) served pages 1-2 ms faster at p95 under
    bench.load_mixed, since threads of one process share its GIL, but a sync process waits on a connection that
    has sent nothing yet: five such (a browser's speculative connections, or anyone's) stopped the whole site.
    gunicorn's threads keep those in a poller until a request arrives."""
    cores = os.cpu_count() or 2
    return [
        str(BIN / "gunicorn"),
        "config.wsgi:application",
        "-b",
        f"{host}:{port}",
        "-w",
        os.environ.get("WEB_PROCESSES", str(max(2, min(4, cores)))),
        "--threads",
        os.environ.get("WEB_THREADS", "4"),
        "--timeout",
        "60",
        "--graceful-timeout",
        "5",
    ]


def grading_children(env: dict, level: str, prefix: str = "gpu") -> list[Child]:
    """GRADING_WORKERS grading workers (one run at a time each), each with GPU_WORKER_MEMORY_LIMIT."""
    memory = worker_memory_limit()
    return [grading_worker(number, env, level, memory, prefix) for number in range(1, grading_workers() + 1)]


class StopFlag:
    """Set by SIGINT or SIGTERM: the supervisor's loop then ends and stops its children."""

    def __init__(self):
        self.set = False
        signal.signal(signal.SIGINT, self._on_signal)
        signal.signal(signal.SIGTERM, self._on_signal)

    def _on_signal(self, signum, _frame) -> None:
        self.set = True


def main() -> None:
    (VAR / "redis").mkdir(parents=True, exist_ok=True)
    host = os.environ.get("HOST", "127.0.0.1")
    port = int(os.environ.get("PORT") or free_port(8000))
    bind = os.environ.get("BROKER_BIND", "127.0.0.1")
    if not (os.environ.get("BROKER_PORT") or "16379").isdigit():
        raise SystemExit(f"!! BROKER_PORT must be a port number, not {os.environ['BROKER_PORT']!r}")
    redis_port = int(os.environ.get("BROKER_PORT") or free_port(16379))
    password = broker_password(shared=bind != "127.0.0.1")
    broker = f"redis://:{password}@127.0.0.1:{redis_port}/0"
    env = {**os.environ, "CELERY_BROKER_URL": broker, "CELERY_RESULT_BACKEND": broker, "PYTHONUNBUFFERED": "1"}
    env.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.dev")
    # the web processes share login-failure counts and sessions through the same private Redis
    env.setdefault("CACHE_URL", f"redis://:{password}@127.0.0.1:{redis_port}/1")
    # For a shell on the same machine (README, "Grading from a shell"): `source var/run.env`.
    (VAR / "run.env").write_text(f"export CELERY_BROKER_URL={broker}\nexport CELERY_RESULT_BACKEND={broker}\n")
    (VAR / "run.env").chmod(0o600)

    level = os.environ.get("WORKER_LOG_LEVEL", "warning")
    celery = [str(BIN / "celery")]
    children = [
        Child(
            "redis",
            [
                "redis-server",
                "--port",
                str(redis_port),
                "--bind",
                *listen_addresses(bind),  # BROKER_BIND: where second grading hosts reach it
                "--requirepass",
                password,
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(VAR / "redis"),
            ],
            env,
        )
    ]
    # The CPU goes to pages first, then to the web worker's short tasks (a run started, a result stored), then to
    # grading: a learner's page stays quick while another's run is graded.
    children.append(
        Child(
            "web-worker",
            celery
            + [
                "-A",
                "config",
                "worker",
                "-Q",
                wire.WEB_QUEUE,
                "--pool=threads",
                "-c",
                "4",
                "-n",
                "web@%h",
                "-l",
                level,
            ],
            env,
            niceness=5,
        )
    )
    # The reaper's clock: one beat, supervised like the rest (a worker's -B child outlived its killed parent).
    children.append(
        Child("beat", celery + ["-A", "config", "beat", "-s", str(VAR / "celerybeat-schedule"), "-l", level], env, 5)
    )
    children += grading_children(env, level)
    children.append(Child("web", web_argv(host, port), env))

    stopping = StopFlag()

    children[0].start()
    for _ in range(100):
        if redis_answers(redis_port, password):
            break
        time.sleep(0.1)
    else:
        stop(children)
        raise SystemExit("!! redis-server did not start; see var/redis.log")
    for child in children[1:]:
        child.start()
    url = f"http://{host}:{port}/"
    announced = ready = False
    since = next_check = time.monotonic()
    while not stopping.set:
        for child in children:
            child.check()
        if not announced and _answers(f"{url}accounts/login/"):
            announced = True
            print(
                f"\n==> the course is up at  {url}\n    health:               {url}healthz\n"
                f"    grading workers:      {len(children) - 4} (GRADING_WORKERS)\n"
                "    logs: var/*.log. Press Ctrl-C to stop.",
                flush=True,
            )
            if bind != "127.0.0.1":
                joined = f"redis://:{password}@{join_address(bind)}:{redis_port}/0"
                print(f"    a second grading host joins with:\n      make join BROKER_URL={joined}", flush=True)
        if announced and not ready and time.monotonic() >= next_check:
            next_check = time.monotonic() + 3
            ready = _answers(f"{url}healthz")
            if ready:
                print("==> labs are ready (every part of /healthz is ok)", flush=True)
            elif time.monotonic() - since > 120:
                ready = True  # say it once, then stay quiet
                print(f"!! labs are not ready after 2 minutes; {url}status/ (as an instructor) says why", flush=True)
        time.sleep(0.5)
    stop(children)


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status == 200
    except Exception:
        return False


if __name__ == "__main__":
    main()
