"""Runs inside the sandbox: imports the learner's file and answers the grader's calls over the channel.

Usage: python harness.py IN_FD OUT_FD. Nothing here is trusted by the grader: it only moves
inputs in and answers out; every answer is checked outside the sandbox.
"""

import importlib
import importlib.util
import os
import re
import resource
import signal
import sys
import tempfile
import time
import traceback

import channel

MEMORY_MARKERS = ("out of memory", "can't allocate memory", "defaultcpuallocator", "cannot allocate memory")
state = {"module": None, "path": "", "ours": [os.path.dirname(os.path.abspath(__file__))], "fds": (-1, -1)}
SITE_PACKAGES = re.compile(r"[^\"']*/(site|dist)-packages/")


def classify(error: BaseException) -> str:
    if isinstance(error, MemoryError):
        return "memory"
    if isinstance(error, RuntimeError) and any(m in str(error).lower() for m in MEMORY_MARKERS):
        return "memory"
    return "runtime"


def describe(error: BaseException) -> str:
    """The traceback of the learner's own code, as a learner would want to read it: from their
    first frame on, without the harness's frames (our paths are none of their business), and
    library paths cut to the package (torch/..., not the host's site-packages)."""
    frames = traceback.extract_tb(error.__traceback__)
    learner = [i for i, frame in enumerate(frames) if frame.filename == state["path"]]
    frames = frames[learner[0] :] if learner else frames[-1:]
    frames = [frame for frame in frames if not _ours(frame.filename)]
    text = "".join(traceback.format_list(frames)).replace(state["path"], "submission.py")
    if isinstance(error, SystemExit):
        return text + f"SystemExit: the code called exit({error.code!r}) instead of returning"
    text += "".join(traceback.format_exception_only(type(error), error))
    for folder in state["ours"]:
        text = text.replace(folder + "/", "")
    return SITE_PACKAGES.sub("", text)[-4000:]


def _ours(filename: str) -> bool:
    return any(filename.startswith(folder + "/") for folder in state["ours"])


def load(header: dict) -> dict:
    workdir = tempfile.mkdtemp(prefix="work-")
    path = os.path.join(workdir, "submission.py")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(header["source"])
    state["path"] = path
    state["ours"] += [folder.rstrip("/") for folder in header.get("python_path", [])]
    sys.path[:0] = [workdir, *header.get("python_path", [])]
    for name in header.get("preload", []):  # e.g. the ring lab's rank: forbid torch.distributed first
        importlib.import_module(name).prepare()
    spec = importlib.util.spec_from_file_location("submission", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["submission"] = module
    try:
        spec.loader.exec_module(module)
    except BaseException as error:
        return {"ok": False, "error": {"kind": classify(error), "message": describe(error)}}
    state["module"] = module
    missing = [name for name in header.get("functions", []) if not callable(getattr(module, name, None))]
    return {"ok": True, "missing": missing}


def call(header: dict, tensors: dict) -> tuple[dict, dict]:
    args = channel.decode(header.get("args", []), tensors)
    device = header.get("device", "cpu")
    if device != "cpu":
        args = _to_device(args, device)
    function = getattr(state["module"], header["name"])
    repeats, warmup, times = header.get("repeats", 1), header.get("warmup", 0), []
    for index in range(warmup + repeats):
        started = time.perf_counter()
        result = function(*args)
        if device != "cpu":
            import torch

            torch.cuda.synchronize()
        if index >= warmup:
            times.append(time.perf_counter() - started)
    out_tensors = {}
    answer = {"ok": True, "result": channel.encode(result, out_tensors), "times": times}
    return answer, {key: value.cpu() for key, value in out_tensors.items()}


def plugin(header: dict, tensors: dict) -> tuple[dict, dict]:
    """A lab-specific operation (e.g. launching ring ranks) from a module bound next to us."""
    module = importlib.import_module(header["module"])
    out_tensors = {}
    value = module.run(state["module"], channel.decode(header.get("args", []), tensors))
    return {"ok": True, "result": channel.encode(value, out_tensors)}, out_tensors


def _to_device(value, device):
    if isinstance(value, list):
        return [_to_device(item, device) for item in value]
    return value.to(device) if hasattr(value, "to") and type(value).__name__ == "Tensor" else value


def serve(in_fd: int, out_fd: int) -> None:
    state["fds"] = (in_fd, out_fd)  # a plugin that talks to the grader mid-call (the ring relay) uses them
    while True:
        try:
            magic, header, payload = channel.receive_frame(in_fd)
        except channel.ChannelClosed:
            return
        if magic == channel.RELAY:  # a relay message that came after its call ended (a late abort): stale
            continue
        tensors = channel.load_tensors(header, payload)
        op = header.get("op")
        if op == "exit":
            return
        out_tensors = {}
        try:
            if op == "load":
                answer = load(header)
            elif op == "call":
                answer, out_tensors = call(header, tensors)
            elif op == "plugin":
                answer, out_tensors = plugin(header, tensors)
            else:
                answer = {"ok": False, "error": {"kind": "protocol", "message": f"unknown op {op!r}"}}
        except BaseException as error:
            answer = {"ok": False, "error": {"kind": classify(error), "message": describe(error)}}
        answer["nonce"] = header.get("nonce")  # proves the answer is ours: learner code never saw this request
        try:
            channel.send(out_fd, answer, out_tensors)
        except (TypeError, ValueError, channel.ChannelError) as error:
            channel.send(
                out_fd,
                {
                    "ok": False,
                    "nonce": header.get("nonce"),
                    "error": {"kind": "runtime", "message": f"cannot send result: {error}"},
                },
            )


def bound_tasks() -> None:
    """Inside the run's user namespace the kernel counts this run's tasks alone: bound them there, soft and hard
    (so learner code cannot raise it), when the worker asks (a worker that is not root; process.py)."""
    bound = os.environ.pop("SANDBOX_NPROC", "")
    if bound.isdigit():
        resource.setrlimit(resource.RLIMIT_NPROC, (int(bound), int(bound)))


def keep_worker_priority() -> None:
    """bwrap's --new-session put this run in a new scheduler autogroup, which Linux runs at nice 0 as
    one unit whatever this process's own nice value; give the group the worker's nice value again so
    that grading keeps yielding the CPU to the web server."""
    try:
        with open("/proc/self/autogroup", "w") as autogroup:
            autogroup.write(str(os.nice(0)))
    except OSError:
        pass  # no autogroups here: the inherited nice value is all there is


if __name__ == "__main__":
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # oversized writes raise OSError instead of killing us
    bound_tasks()
    keep_worker_priority()
    serve(int(sys.argv[1]), int(sys.argv[2]))
    sys.stdout.flush()
    os._exit(0)
