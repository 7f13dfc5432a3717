"""Grader for `ring-allreduce`: sums and bytes sent on N in {2, 3, 4} ranks, then a bandwidth table."""
import ast
import random
import re
from pathlib import Path

import torch

from gpu_worker.collectives.bandwidth import algbw_gbps, busbw_gbps
from gpu_worker.graders.cases import figure, line

SLUG = "ring-allreduce"
FUNCTIONS = ("ring_all_reduce",)
LIMITS = {"wall_s": 90.0, "cpu_s": 40}
WORLD_SIZES = (2, 3, 4)
BANDWIDTH_SIZES = (1024, 16384, 262144, 1048576)  # float32 elements: 4 KiB .. 4 MiB
LIBRARY_COLLECTIVES = {"all_reduce", "allreduce", "all_gather", "allgather", "all_gather_into_tensor",
                       "reduce_scatter", "reduce_scatter_tensor", "broadcast", "all_to_all", "all_to_all_single",
                       "reduce", "gather", "scatter", "all_reduce_coalesced", "_allreduce_base"}
_PACKAGE = Path(__file__).resolve().parents[1]
# gloo's reverse lookup of loopback peers fails without DNS in the sandbox; the warning is noise to learners
_HOSTNAME_WARNING = re.compile(r"^\[W[^\]]*\] \[c10d\] The hostname of the client socket cannot be retrieved.*\n?",
                               re.MULTILINE)


def clean_stdout(text: str) -> str:
    return _HOSTNAME_WARNING.sub("", text)


def session_options() -> dict:
    """Bind the launcher and Comm (not the reference ring) plus our plugin into the sandbox."""
    files = {f"gpu_worker/{name}": _PACKAGE / name for name in (
        "__init__.py", "collectives/__init__.py", "collectives/comm.py", "collectives/launcher.py",
        "collectives/bandwidth.py")}
    files["ring_harness.py"] = Path(__file__).resolve().parent / "ring_harness.py"
    return {"file_binds": files}


def library_calls(source: str) -> list[str]:
    """Library collectives the source names (torch.distributed.X, dist.X, from ... import X)."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr in LIBRARY_COLLECTIVES:
            found.add(node.attr)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("torch.distributed"):
            found.update(alias.name for alias in node.names if alias.name in LIBRARY_COLLECTIVES)
    return sorted(found)


def cases_for(world_size: int, hidden: bool, rng: random.Random) -> list[tuple[str, str, int]]:
    cases = [(f"n{world_size}-size-{(8, 7, 1)[world_size - 2]}", "public", (8, 7, 1)[world_size - 2])]
    if hidden:
        sizes = [1, world_size + 1, rng.randint(2, 97), 1000, rng.randint(4000, 5000) * world_size + 1, 65536]
        cases += [(f"hidden-n{world_size}-size-{size}", "hidden", size) for size in sizes]
    return cases


def bytes_bound(numel: int, world_size: int, element_size: int = 4) -> int:
    """What a ring sends per rank: 2(N-1) chunks of at most ceil(K/N) elements (~2(N-1)/N of the tensor)."""
    return 2 * (world_size - 1) * -(-numel // world_size) * element_size


def grade(session, report, rng: random.Random) -> None:
    named = library_calls(session.source)
    if named:
        report.fail("rejected", f"uses the library's collectives ({', '.join(named)}); build the all-reduce from "
                                "comm.send / comm.recv / comm.isend / comm.irecv")
        return
    plan_cases = {n: cases_for(n, report.hidden_included, rng) for n in WORLD_SIZES}
    for cases in plan_cases.values():
        for name, visibility, _ in cases:
            report.declare(name, visibility)
    timeout = max(5.0, session.limits.wall_s * 0.6)
    plan, expected = [], {}
    for world_size, cases in plan_cases.items():
        per_case = []
        for index, (name, _, numel) in enumerate(cases):
            integers = index % 2 == 0  # integer-valued floats: the sum is exact in any order
            per_rank = [(torch.randint(-100, 100, (numel,)).float() if integers else torch.randn(numel))
                        for _ in range(world_size)]  # world_size x [numel]
            per_case.append(per_rank)
            expected[name] = (torch.stack(per_rank).sum(0), integers)
        plan.append([world_size, per_case])
    sizes = list(BANDWIDTH_SIZES) if report.hidden_included else []
    answer = session.plugin("ring_harness", plan, sizes, timeout)
    if not _launch_ok(report, answer, timeout):
        return
    for result, (world_size, cases) in zip(answer["sizes"], plan_cases.items()):
        for index, (name, _, numel) in enumerate(cases):
            report.record(name, *_check(result, index, world_size, numel, *expected[name]))
    report.metrics["bytes_bound"] = "2(N-1) * ceil(K/N) * element_size per rank"
    if report.hidden_included and all(test.passed for test in report.tests.values()):
        _bandwidth(report, answer.get("rows"))


def _launch_ok(report, answer, timeout: float) -> bool:
    if not isinstance(answer, dict) or not ("sizes" in answer or "timeout" in answer or "failed_rank" in answer):
        report.fail("runtime_error", "the ranks' results could not be read")
        return False
    if answer.get("timeout"):
        report.fail("time_limit", f"ranks {answer.get('pending')} had not finished after "
                                  f"{timeout:g} s (a deadlock: every rank waiting in recv?)")
        return False
    if "failed_rank" in answer:
        verdict = "rejected" if answer.get("forbidden") else "runtime_error"
        lead = ("a library collective was called; use comm's point-to-point calls" if answer.get("forbidden")
                else f"rank {answer['failed_rank']} failed")
        report.fail(verdict, f"{lead}:\n{str(answer.get('traceback', ''))[-2000:]}")
        return False
    return True


def _check(answer: dict, index: int, world_size: int, numel: int, expected, exact: bool) -> tuple[bool, str]:
    try:
        outputs = [answer["outputs"][rank][index] for rank in range(world_size)]
        sent = [answer["sent"][rank][index] for rank in range(world_size)]
    except (KeyError, IndexError, TypeError):
        return False, "the ranks' results are incomplete"
    for rank, tensor in enumerate(outputs):
        if not isinstance(tensor, torch.Tensor) or tensor.shape != expected.shape or tensor.dtype != expected.dtype:
            return False, f"rank {rank}: the tensor's shape or dtype changed (must be reduced in place)"
        close = torch.equal(tensor, expected) if exact else torch.allclose(tensor, expected, atol=1e-5, rtol=1e-5)
        if not close:
            where = int((tensor - expected).abs().argmax())
            return False, (f"rank {rank}: element {where} is {float(tensor[where]):g}, the sum over ranks is "
                           f"{float(expected[where]):g}")
    bound = bytes_bound(numel, world_size)
    for rank, count in enumerate(sent):
        if not isinstance(count, int) or count > bound:
            return False, (f"rank {rank} sent {count} bytes; a ring sends at most {bound} "
                           f"(2(N-1)/N of the {numel * 4}-byte tensor, rounded up to whole chunks)")
    return True, ""


def _bandwidth(report, rows) -> None:
    """nccl-tests style rows (time, algbw, busbw) for the learner's ring and the library all-reduce."""
    world_size = WORLD_SIZES[-1]
    if not isinstance(rows, list) or not rows:
        report.metrics["bandwidth_error"] = "the bandwidth run did not finish"
        return
    table = []
    for row in rows:
        numel, yours, library = (float(value) for value in row)
        size = int(numel) * 4
        table.append({"size": size, "count": int(numel), "type": "float", "ranks": world_size,
                      "time_us": round(yours * 1e6, 1), "algbw": round(algbw_gbps(size, yours), 4),
                      "busbw": round(busbw_gbps("all_reduce", size, yours, world_size), 4),
                      "library_time_us": round(library * 1e6, 1),
                      "library_busbw": round(busbw_gbps("all_reduce", size, library, world_size), 4)})
    report.metrics["bandwidth"] = table
    report.metrics["device"] = "cpu (gloo)"
    sizes = [row["size"] for row in table]
    report.plots.append(figure(f"All-reduce bus bandwidth, {world_size} ranks", [
        line("your ring", sizes, [row["busbw"] for row in table]),
        line("library all_reduce", sizes, [row["library_busbw"] for row in table], "dash")],
        "message size (bytes)", "busbw (GB/s)", xaxis={"title": {"text": "message size (bytes)"}, "type": "log"}))
