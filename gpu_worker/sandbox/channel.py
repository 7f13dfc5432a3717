"""Message framing between grader and harness: a JSON header plus optional tensors as raw bytes.

Standalone (standard library, torch imported only when tensors travel): the harness imports it
inside the sandbox. Nothing is unpickled or decompressed: the header's "__tensors__" manifest gives
each tensor's dtype (from DTYPES), shape and byte count, checked against the payload's real size
before anything is allocated, and the tensor is rebuilt with torch.frombuffer.
"""

import json
import math
import os
import select
import struct
import time

MAGIC = b"LAB1"
RELAY = b"RLY1"  # raw frames (payload = a tensor's bytes) between a ring rank and the grader's relay
PREFIX = struct.Struct(">4sII")  # magic, header bytes, payload bytes
MANIFEST = "__tensors__"  # header key: [[key, dtype, shape, nbytes], ...] in payload order
DTYPES = {  # name -> bytes per element; nothing else travels
    "float64": 8, "float32": 4, "float16": 2, "bfloat16": 2,
    "int64": 8, "int32": 4, "int16": 2, "int8": 1, "uint8": 1, "bool": 1,
}  # fmt: skip
MAX_DIMS = 16


class ChannelError(Exception):
    """The other side closed the channel, broke the framing, or missed the deadline."""


class ChannelClosed(ChannelError):
    pass


class ChannelTimeout(ChannelError):
    pass


def encode(value, tensors: dict):
    """JSON-safe form of `value`; tensors go to `tensors` and leave a reference behind."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if value == value and abs(value) != float("inf") else {"__float__": repr(value)}
    if isinstance(value, (list, tuple)):
        return [encode(item, tensors) for item in value]
    if isinstance(value, dict):
        if all(isinstance(key, str) and not key.startswith("__") for key in value):
            return {key: encode(item, tensors) for key, item in value.items()}
        return {"__pairs__": [[encode(key, tensors), encode(item, tensors)] for key, item in value.items()]}
    if type(value).__module__ == "torch" and type(value).__name__ in ("Tensor", "Parameter"):
        key = f"t{len(tensors)}"
        tensors[key] = value.detach()
        return {"__tensor__": key}
    return {"__object__": type(value).__name__, "repr": repr(value)[:200]}


def decode(value, tensors: dict):
    if isinstance(value, list):
        return [decode(item, tensors) for item in value]
    if isinstance(value, dict):
        if "__tensor__" in value:
            return tensors[value["__tensor__"]]
        if "__pairs__" in value:
            return {_hashable(decode(key, tensors)): decode(item, tensors) for key, item in value["__pairs__"]}
        if "__float__" in value:
            return float(value["__float__"])
        if "__object__" in value:
            return Opaque(value["__object__"], value.get("repr", ""))
        return {key: decode(item, tensors) for key, item in value.items()}
    return value


def _hashable(key):
    return tuple(key) if isinstance(key, list) else key


class Opaque:
    """A value of a type the channel does not carry (numpy scalar, custom class...), by name only."""

    def __init__(self, type_name: str, text: str):
        self.type_name, self.text = type_name, text

    def __repr__(self):
        return f"<{self.type_name} {self.text}>"


def pack(header: dict, tensors: dict | None = None) -> bytes:
    payload = []
    if tensors:
        manifest = []
        for key, tensor in tensors.items():
            raw = _tensor_bytes(tensor)
            manifest.append([key, str(tensor.dtype).removeprefix("torch."), list(tensor.shape), len(raw)])
            payload.append(raw)
        header = {**header, MANIFEST: manifest}
    head = json.dumps(header, separators=(",", ":")).encode()
    body = b"".join(payload)
    return PREFIX.pack(MAGIC, len(head), len(body)) + head + body


def _tensor_bytes(tensor) -> bytes:
    import torch

    if str(tensor.dtype).removeprefix("torch.") not in DTYPES:
        raise ChannelError(f"tensors of dtype {tensor.dtype} do not travel")
    flat = tensor.detach().to("cpu").contiguous().reshape(-1)
    return flat.view(torch.uint8).numpy().tobytes() if flat.numel() else b""


def _until(deadline) -> float:
    """Seconds left before `deadline`: a time.monotonic() value, or a callable giving one (a deadline that moves)."""
    return (deadline() if callable(deadline) else deadline) - time.monotonic()


def send(fd: int, header: dict, tensors: dict | None = None, deadline: float | None = None) -> None:
    """Write one message. With a deadline, `fd` must be non-blocking: a reader that stops reading
    (the learner's code can close or replace its end) cannot hang the sender past the deadline."""
    view = memoryview(pack(header, tensors))
    while view:
        try:
            written = os.write(fd, view)
        except BlockingIOError:
            if deadline is None:
                select.select([], [fd], [], None)
                continue
            while not select.select([], [fd], [], max(_until(deadline), 0.0))[1]:
                if _until(deadline) <= 0:
                    raise ChannelTimeout("the other side stopped reading") from None
            continue
        view = view[written:]


def _read_exact(fd: int, size: int, deadline: float | None) -> bytes:
    chunks, remaining = [], size
    while remaining:
        if deadline is not None:
            wait = _until(deadline)
            # data already waiting is read even past the deadline: the grader may be the one that was late
            while not select.select([fd], [], [], max(wait, 0.0))[0]:
                wait = _until(deadline)  # a moving deadline (a callable) may have moved on
                if wait <= 0:
                    raise ChannelTimeout("no answer before the deadline")
        chunk = os.read(fd, min(remaining, 1 << 20))
        if not chunk:
            raise ChannelClosed("the other side closed the channel")
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def receive(fd: int, deadline: float | None = None, max_bytes: int = 64 << 20) -> tuple[dict, dict]:
    """(header, tensors) of the next message; tensors are checked against the header's manifest."""
    magic, header, payload = receive_frame(fd, deadline, max_bytes)
    if magic != MAGIC:
        raise ChannelError(f"malformed message (magic {magic!r})")
    return header, load_tensors(header, payload)


def receive_frame(fd: int, deadline: float | None = None, max_bytes: int = 64 << 20) -> tuple[bytes, dict, bytes]:
    """(magic, header, raw payload) of the next frame of either kind."""
    magic, head_size, payload_size = PREFIX.unpack(_read_exact(fd, PREFIX.size, deadline))
    if magic not in (MAGIC, RELAY) or head_size + payload_size > max_bytes:
        raise ChannelError(f"malformed message (magic {magic!r}, {head_size}+{payload_size} bytes)")
    header = parse_header(_read_exact(fd, head_size, deadline))
    return magic, header, _read_exact(fd, payload_size, deadline) if payload_size else b""


def parse_header(raw: bytes) -> dict:
    try:
        header = json.loads(raw)
    except (ValueError, RecursionError) as error:
        raise ChannelError(f"malformed message header: {error}") from None
    if not isinstance(header, dict):
        raise ChannelError("malformed message header: not an object")
    return header


def load_tensors(header: dict, payload: bytes) -> dict:
    """The tensors of a LAB1 frame: the header's manifest (popped) checked against the payload, then
    each tensor rebuilt with torch.frombuffer. A manifest that lies about sizes is refused before
    anything is allocated; a payload the manifest does not account for byte for byte is refused."""
    manifest = header.pop(MANIFEST, [])
    entries = _checked_manifest(manifest)
    if sum(entry[3] for entry in entries) != len(payload):
        raise ChannelError(
            f"malformed tensor payload: {len(payload)} bytes, the manifest accounts for a different size"
        )
    if not entries:
        return {}
    import torch

    tensors, offset = {}, 0
    for key, dtype, shape, nbytes in entries:
        kind = getattr(torch, dtype)
        if nbytes:
            flat = torch.frombuffer(bytearray(payload[offset : offset + nbytes]), dtype=kind)
            tensors[key] = flat.reshape(shape)
        else:
            tensors[key] = torch.empty(shape, dtype=kind)
        offset += nbytes
    return tensors


def _checked_manifest(manifest) -> list:
    if not isinstance(manifest, list):
        raise ChannelError("malformed tensor manifest: not a list")
    entries = []
    for entry in manifest:
        if not (isinstance(entry, list) and len(entry) == 4):
            raise ChannelError("malformed tensor manifest entry")
        key, dtype, shape, nbytes = entry
        if not isinstance(key, str) or dtype not in DTYPES:
            raise ChannelError(f"malformed tensor manifest: dtype {str(dtype)[:40]!r} is not carried")
        if not (isinstance(shape, list) and len(shape) <= MAX_DIMS and all(_count(n) for n in shape)):
            raise ChannelError("malformed tensor manifest: bad shape")
        if not _count(nbytes) or math.prod(shape) * DTYPES[dtype] != nbytes:
            raise ChannelError(f"malformed tensor manifest: shape {shape[:MAX_DIMS]} does not take {nbytes} bytes")
        entries.append((key, dtype, shape, nbytes))
    return entries


def _count(value) -> bool:
    return type(value) is int and 0 <= value < 1 << 40


def pack_raw(header: dict, payload=b"", magic: bytes = RELAY) -> bytes:
    head = json.dumps(header, separators=(",", ":")).encode()
    return PREFIX.pack(magic, len(head), len(payload)) + head + bytes(payload)


def send_raw(fd: int, header: dict, payload=b"") -> None:
    """Write one RELAY frame on a blocking fd (the rank side of the ring relay)."""
    view = memoryview(pack_raw(header, payload))
    while view:
        view = view[os.write(fd, view) :]


def split_frames(buffer: bytearray, max_bytes: int) -> list[tuple[bytes, dict, bytes]]:
    """Take every complete frame off the front of `buffer` (bytes read so far from a non-blocking fd)."""
    frames = []
    while len(buffer) >= PREFIX.size:
        magic, head_size, payload_size = PREFIX.unpack_from(buffer)
        if magic not in (MAGIC, RELAY) or head_size + payload_size > max_bytes:
            raise ChannelError(f"malformed message (magic {bytes(magic)!r}, {head_size}+{payload_size} bytes)")
        end = PREFIX.size + head_size + payload_size
        if len(buffer) < end:
            break
        header = parse_header(bytes(buffer[PREFIX.size : PREFIX.size + head_size]))
        frames.append((magic, header, bytes(buffer[PREFIX.size + head_size : end])))
        del buffer[:end]
    return frames
