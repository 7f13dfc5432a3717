"""The GPU worker container runs bubblewrap with the least privilege: no capabilities, our seccomp profile."""

import json
from pathlib import Path

import yaml

from gpu_worker.sandbox import seccomp

REPO = Path(__file__).resolve().parents[3]


def test_the_committed_container_profile_is_the_generated_one():
    committed = json.loads((REPO / "docker" / "gpu-worker-seccomp.json").read_text())
    assert committed == seccomp.container_profile(), "regenerate docker/gpu-worker-seccomp.json from seccomp.py"


def test_the_container_profile_refuses_what_learner_code_never_needs_but_lets_bubblewrap_work():
    refused = set(seccomp.container_profile()["syscalls"][0]["names"])
    assert {"ptrace", "bpf", "kexec_load", "init_module", "setns", "io_uring_setup", "keyctl"} <= refused
    assert not refused & {"mount", "umount2", "pivot_root", "unshare", "clone", "sethostname"}


def test_the_gpu_worker_service_gets_no_capability_and_no_unconfined_seccomp():
    service = yaml.safe_load((REPO / "docker-compose.yml").read_text())["services"]["gpu-worker"]
    assert "cap_add" not in service and service["cap_drop"] == ["ALL"]
    assert "seccomp=./docker/gpu-worker-seccomp.json" in service["security_opt"]
    assert not any(option.startswith("seccomp") and "unconfined" in option for option in service["security_opt"])
    assert service.get("privileged") is not True
    dockerfile = (REPO / "docker" / "Dockerfile.gpu-worker").read_text()
    assert "\nUSER worker\n" in dockerfile
