"""The sandbox's /etc: only what the dynamic loader, Python and torch read, nothing about the host.

Host files that carry no secrets (the loader cache, the time zone, the alternatives links some
/usr/bin entries point through) are bound read-only; the user and host databases are generated so
learner code sees uid nobody and `localhost`, not the worker's accounts or network names.
"""

import atexit
import functools
import os
import shutil
import tempfile
from pathlib import Path

HOST_FILES = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/localtime", "/etc/alternatives")
GENERATED = {
    "passwd": "root:x:0:0:root:/nonexistent:/usr/sbin/nologin\nnobody:x:65534:65534:nobody:/tmp:/usr/sbin/nologin\n",
    "group": "root:x:0:\nnogroup:x:65534:\n",
    "hosts": "127.0.0.1 localhost\n::1 localhost ip6-localhost ip6-loopback\n",
    "nsswitch.conf": "passwd: files\ngroup: files\nshadow: files\nhosts: files\nnetworks: files\n",
    "host.conf": "multi on\n",
}


@functools.cache
def _generated_dir() -> Path:
    folder = Path(tempfile.mkdtemp(prefix="gpu-worker-etc-"))  # private name: nobody else can plant files
    os.chmod(folder, 0o755)
    for name, text in GENERATED.items():
        (folder / name).write_text(text)
        os.chmod(folder / name, 0o644)
    creator = os.getpid()
    atexit.register(lambda: os.getpid() == creator and shutil.rmtree(folder, ignore_errors=True))
    return folder


def generated_dir() -> Path:
    """The folder of generated files, made again if something (a tmp cleaner) removed it."""
    folder = _generated_dir()
    if not all((folder / name).is_file() for name in GENERATED):
        _generated_dir.cache_clear()
        folder = _generated_dir()
    return folder


def bwrap_args() -> list[str]:
    """bwrap arguments that build /etc inside the sandbox root."""
    args = ["--perms", "0755", "--dir", "/etc"]
    for name in HOST_FILES:
        path = Path(name)
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), name]
        elif path.exists():
            args += ["--ro-bind", name, name]
    folder = generated_dir()
    for name in GENERATED:
        args += ["--ro-bind", str(folder / name), f"/etc/{name}"]
    return args
