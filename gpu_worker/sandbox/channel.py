"""Message framing between grader and harness: a JSON header plus optional tensors (torch.save bytes).

Standalone (standard library, torch imported only when tensors travel): the harness imports it
inside the sandbox. The grader loads what comes back with torch.load(weights_only=True) and
never unpickles anything else.
"""

import io
import json
import os
import select
import struct
import time

MAGIC = b"LAB1"
RELAY = b"RLY1"  # raw frames (payload = a tensor's bytes) between a ring rank and the grader's relay
PREFIX = struct.Struct(">4sII")  # magic, header bytes, payload bytes


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
    payload = b""
    if tensors:
        import torch

        buffer = io.BytesIO()
        torch.save({key: tensor.contiguous().clone() for key, tensor in tensors.items()}, buffer)
        payload = buffer.getvalue()
    head = json.dumps(header, separators=(",", ":")).encode()
    return PREFIX.pack(MAGIC, len(head), len(payload)) + head + payload


def send(fd: int, header: dict, tensors: dict | None = None, deadline: float | None = None) -> None:
    """Write one message. With a deadline, `fd` must be non-blocking: a reader that stops reading
    (the learner's code can close or replace its end) cannot hang the sender past the deadline."""
    view = memoryview(pack(header, tensors))
    while view:
        try:
            written = os.write(fd, view)
        except BlockingIOError:
            wait = deadline - time.monotonic() if deadline is not None else None
            if wait is not None and (wait <= 0 or not select.select([], [fd], [], wait)[1]):
                raise ChannelTimeout("the other side stopped reading") from None
            continue
        view = view[written:]


def _read_exact(fd: int, size: int, deadline: float | None) -> bytes:
    chunks, remaining = [], size
    while remaining:
        if deadline is not None:
            wait = deadline - time.monotonic()
            if wait <= 0 or not select.select([fd], [], [], wait)[0]:
                raise ChannelTimeout("no answer before the deadline")
        chunk = os.read(fd, min(remaining, 1 << 20))
        if not chunk:
            raise ChannelClosed("the other side closed the channel")
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def receive(fd: int, deadline: float | None = None, max_bytes: int = 64 << 20) -> tuple[dict, dict]:
    """(header, tensors) of the next message; tensors are loaded with weights_only=True."""
    magic, header, payload = receive_frame(fd, deadline, max_bytes)
    if magic != MAGIC:
        raise ChannelError(f"malformed message (magic {magic!r})")
    return header, load_tensors(payload)


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


def load_tensors(payload: bytes) -> dict:
    """The tensors of a LAB1 payload (torch.save of a dict of tensors), loaded with weights_only=True."""
    if not payload:
        return {}
    import torch

    try:
        tensors = torch.load(io.BytesIO(payload), weights_only=True, map_location="cpu")
    except Exception as error:
        raise ChannelError(f"malformed tensor payload: {type(error).__name__}") from None
    if not isinstance(tensors, dict) or not all(type(t).__name__ == "Tensor" for t in tensors.values()):
        raise ChannelError("malformed tensor payload: not a dict of tensors")
    return tensors


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
