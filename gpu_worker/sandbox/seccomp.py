"""A seccomp filter for learner code, as the classic-BPF program bubblewrap's `--seccomp FD` loads.

It refuses (EPERM) the system calls learner code never needs and that widen the kernel's attack
surface: debugging other processes, mounts and namespaces, kernel modules and keys, eBPF and perf,
io_uring, memfd_secret, AF_VSOCK sockets, file locks (flock, fcntl record locks), clocks, swap and reboot. Threads, fork/spawn, sockets on loopback (gloo) and everything
`import torch` does stay allowed. Built in pure Python so the worker needs no libseccomp.
"""

import os
import platform
import struct

# name: (x86_64 number, aarch64 number); None where the arch has no such call
DENIED = {
    "ptrace": (101, 117),
    "process_vm_readv": (310, 270),
    "process_vm_writev": (311, 271),
    "kcmp": (312, 272),
    "mount": (165, 40),
    "umount2": (166, 39),
    "pivot_root": (155, 41),
    "chroot": (161, 51),
    "open_tree": (428, 428),
    "move_mount": (429, 429),
    "fsopen": (430, 430),
    "fsconfig": (431, 431),
    "fsmount": (432, 432),
    "fspick": (433, 433),
    "mount_setattr": (442, 442),
    "unshare": (272, 97),
    "setns": (308, 268),
    "open_by_handle_at": (304, 265),
    "name_to_handle_at": (303, 264),
    "init_module": (175, 105),
    "finit_module": (313, 273),
    "delete_module": (176, 106),
    "kexec_load": (246, 104),
    "kexec_file_load": (320, 294),
    "reboot": (169, 142),
    "swapon": (167, 224),
    "swapoff": (168, 225),
    "acct": (163, 89),
    "quotactl": (179, 60),
    "bpf": (321, 280),
    "perf_event_open": (298, 241),
    "userfaultfd": (323, 282),
    "fanotify_init": (300, 262),
    "keyctl": (250, 219),
    "add_key": (248, 217),
    "request_key": (249, 218),
    "io_uring_setup": (425, 425),
    "io_uring_enter": (426, 426),
    "io_uring_register": (427, 427),
    "settimeofday": (164, 170),
    "clock_settime": (227, 112),
    "adjtimex": (159, 171),
    "clock_adjtime": (305, 266),
    "sethostname": (170, 161),
    "setdomainname": (171, 162),
    "syslog": (103, 116),
    "vhangup": (153, 58),
    "lookup_dcookie": (212, 18),
    "nfsservctl": (180, 42),
    "memfd_secret": (447, 447),
    "flock": (73, 32),  # a lock on a file every rank can open would signal outside the relay
    "iopl": (172, None),
    "ioperm": (173, None),
    "uselib": (134, None),
    "_sysctl": (156, None),
    "create_module": (174, None),
    "get_kernel_syms": (177, None),
    "query_module": (178, None),
}
CLONE = (56, 220)
CLONE3 = (435, 435)  # its flags sit behind a pointer BPF cannot follow: ENOSYS makes glibc fall back to clone
PERSONALITY = (135, 92)
SOCKET = (41, 198)
AF_VSOCK = 40  # host<->VM sockets: nothing of ours uses them
FCNTL = (72, 25)
LOCK_COMMANDS = (5, 6, 7, 36, 37, 38)  # F_GETLK, F_SETLK, F_SETLKW and their open-file (OFD) forms
# clone flags that make new namespaces (CLONE_NEWTIME shares its bit with the exit signal, so it is not here)
NAMESPACE_FLAGS = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000
# personality values glibc and Python ask for (query, PER_LINUX variants); ADDR_NO_RANDOMIZE & co are refused
ALLOWED_PERSONALITIES = (0x0, 0x8, 0x20000, 0x20008, 0xFFFFFFFF)
ARCHES = {"x86_64": (0, 0xC000003E), "aarch64": (1, 0xC00000B7)}  # column in the tables, AUDIT_ARCH_*
X32_SYSCALL_BIT = 0x40000000

EPERM, ENOSYS = 1, 38
RET_KILL_PROCESS, RET_ALLOW, RET_ERRNO = 0x80000000, 0x7FFF0000, 0x00050000
LD_ABS_W, JEQ, JGE, JSET, RET = 0x20, 0x15, 0x35, 0x45, 0x06
NR_OFFSET, ARCH_OFFSET, ARG0_LOW_OFFSET, ARG1_LOW_OFFSET = 0, 4, 16, 24  # struct seccomp_data, little-endian


def supported() -> bool:
    return platform.machine() in ARCHES


def _op(code: int, k: int = 0, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def program(machine: str | None = None) -> bytes:
    """The filter as `struct sock_filter[]` bytes for this machine's architecture."""
    machine = machine or platform.machine()
    if machine not in ARCHES:
        raise ValueError(f"no seccomp filter for {machine}; known: {sorted(ARCHES)}")
    column, audit_arch = ARCHES[machine]
    deny, nosys = _op(RET, RET_ERRNO | EPERM), _op(RET, RET_ERRNO | ENOSYS)
    code = [
        _op(LD_ABS_W, ARCH_OFFSET),
        _op(JEQ, audit_arch, jt=1),
        _op(RET, RET_KILL_PROCESS),
        _op(LD_ABS_W, NR_OFFSET),
    ]
    if machine == "x86_64":  # the x32 ABI is a second syscall table: nothing of ours uses it
        code += [_op(JGE, X32_SYSCALL_BIT, jf=1), nosys]
    for numbers in DENIED.values():
        if numbers[column] is not None:
            code += [_op(JEQ, numbers[column], jf=1), deny]
    code += [_op(JEQ, CLONE3[column], jf=1), nosys]
    # socket: allowed unless it is AF_VSOCK
    code += _on_argument(SOCKET[column], ARG0_LOW_OFFSET, [(JEQ, AF_VSOCK)], on_match=deny)
    # clone: allowed unless it asks for a namespace
    code += _on_argument(CLONE[column], ARG0_LOW_OFFSET, [(JSET, NAMESPACE_FLAGS)], on_match=deny)
    # fcntl: no record locks (a lock on a file every rank can open is a channel outside the relay)
    code += _on_argument(FCNTL[column], ARG1_LOW_OFFSET, [(JEQ, cmd) for cmd in LOCK_COMMANDS], on_match=deny)
    # personality: only the harmless values
    tests = [(JEQ, value) for value in ALLOWED_PERSONALITIES]
    code += _on_argument(PERSONALITY[column], ARG0_LOW_OFFSET, tests, on_match=_op(RET, RET_ALLOW), otherwise=deny)
    code.append(_op(RET, RET_ALLOW))  # every other call
    return b"".join(code)


def _on_argument(number: int, offset: int, tests: list, on_match: bytes, otherwise: bytes | None = None) -> list:
    """For system call `number`: load the argument word at `offset`; if any (jump op, k) test holds, return
    `on_match`, else `otherwise` (allow). Other calls fall through to what follows."""
    body = [_op(LD_ABS_W, offset)]
    body += [_op(op, k, jt=len(tests) - index) for index, (op, k) in enumerate(tests)]  # to on_match
    body += [otherwise or _op(RET, RET_ALLOW), on_match]
    return [_op(JEQ, number, jf=len(body))] + body


def program_fd() -> int:
    """A readable fd holding the program, for `bwrap --seccomp FD` (the caller passes it and closes it)."""
    fd = os.memfd_create("learner-seccomp", os.MFD_CLOEXEC)
    os.write(fd, program())
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


# What bubblewrap itself calls to build a sandbox as an unprivileged user: the worker container must allow these.
BWRAP_NEEDS = ("mount", "umount2", "pivot_root", "chroot", "unshare", "sethostname")
WORKER_NEEDS = ("flock",)  # the worker's own locks (uids.py): refused to learner code only


def container_profile() -> dict:
    """The GPU worker container's seccomp profile (docker/gpu-worker-seccomp.json): everything the learner
    filter refuses, except what bubblewrap needs to make its namespaces and mounts. Docker's default
    profile allows those only with CAP_SYS_ADMIN, which the worker does not get."""
    names = {
        column: sorted(
            name
            for name, numbers in DENIED.items()
            if name not in BWRAP_NEEDS + WORKER_NEEDS and numbers[column] is not None
        )
        for column in (0, 1)
    }
    return {
        "defaultAction": "SCMP_ACT_ALLOW",
        "archMap": [
            {"architecture": "SCMP_ARCH_X86_64", "subArchitectures": ["SCMP_ARCH_X86", "SCMP_ARCH_X32"]},
            {"architecture": "SCMP_ARCH_AARCH64", "subArchitectures": ["SCMP_ARCH_ARM"]},
        ],
        "syscalls": [{"names": sorted(set(names[0]) | set(names[1])), "action": "SCMP_ACT_ERRNO", "errnoRet": EPERM}],
    }
