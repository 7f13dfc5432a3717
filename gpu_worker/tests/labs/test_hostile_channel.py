"""Issue 25 point 1: nothing a learner sends is decoded without a bound. Tensor frames are raw bytes
behind a JSON manifest; a lying manifest, a deflate bomb and a pickle are refused before anything
is allocated, and the grader's memory stays bounded."""

import os
import resource
import threading

import pytest
import torch

from gpu_worker.sandbox import channel

MIB = 1024**2


def deliver(frame: bytes, **options):
    """What channel.receive makes of `frame`, written from a thread (it may exceed the pipe's buffer)."""
    read_end, write_end = os.pipe()

    def write():
        try:
            view = memoryview(frame)
            while view:
                view = view[os.write(write_end, view) :]
        except OSError:
            pass  # the reader refused the frame and closed its end
        finally:
            os.close(write_end)

    writer = threading.Thread(target=write)
    writer.start()
    try:
        return channel.receive(read_end, **options)
    finally:
        os.close(read_end)
        writer.join()


def frame(header: dict, body: bytes) -> bytes:
    return channel.pack_raw(header, body, magic=channel.MAGIC)


def peak_rss() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def test_tensors_of_every_carried_dtype_round_trip():
    tensors = {
        "a": torch.randn(3, 4),
        "b": torch.tensor(7),
        "c": torch.zeros(0, 2, dtype=torch.int64),
        "d": torch.ones(5, dtype=torch.bfloat16),
        "e": torch.tensor([True, False]),
        "f": torch.arange(6, dtype=torch.int8).reshape(2, 3).t(),  # not contiguous
    }
    header, out = deliver(channel.pack({"op": "x"}, tensors))
    assert header == {"op": "x"}
    for key, tensor in tensors.items():
        assert out[key].dtype == tensor.dtype and torch.equal(out[key], tensor)


def test_a_dtype_off_the_allow_list_does_not_travel():
    with pytest.raises(channel.ChannelError, match="complex64"):
        channel.pack({}, {"t": torch.zeros(2, dtype=torch.complex64)})


@pytest.mark.parametrize(
    "manifest, body, message",
    [
        ([["t", "float32", [1 << 15, 1 << 15], 4 << 30]], b"\0" * 64, "different size"),
        ([["t", "float32", [4], 8]], b"\0" * 8, "does not take"),
        ([["t", "object", [1], 8]], b"\0" * 8, "not carried"),
        ([["t", "float32", [-1], 4]], b"\0" * 4, "bad shape"),
        ([["t", "float32", [1] * 40, 4]], b"\0" * 4, "bad shape"),
        ("all", b"", "not a list"),
        ([["t", "float32", [2]]], b"\0" * 8, "entry"),
    ],
)
def test_a_manifest_that_lies_is_refused(manifest, body, message):
    with pytest.raises(channel.ChannelError, match=message):
        deliver(frame({"ok": True, "__tensors__": manifest}, body))


def test_a_deflate_bomb_is_refused_without_inflating():
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("archive/data/0", b"\0" * (1 << 30))  # 1 GiB in about 1 MiB
    before = peak_rss()
    with pytest.raises(channel.ChannelError, match="different size"):
        deliver(frame({"ok": True}, buffer.getvalue()))
    assert peak_rss() - before < 256 * MIB


def test_a_pickle_is_never_unpickled():
    import pickle

    ran = []
    payload = pickle.dumps(ran.append)  # unpickling would only build a reference; it is never tried
    with pytest.raises(channel.ChannelError, match="different size"):
        deliver(frame({"ok": True}, payload))


def test_a_frame_over_the_cap_is_refused_before_it_is_read():
    head = b"{}"
    prefix = channel.PREFIX.pack(channel.MAGIC, len(head), 1 << 30)  # claims 1 GiB, sends nothing more
    with pytest.raises(channel.ChannelError, match="malformed message"):
        deliver(prefix + head, max_bytes=64 * MIB)


@pytest.mark.sandbox
@pytest.mark.parametrize("kind", ["bomb", "pickle", "liar"])
def test_a_hostile_frame_from_the_sandbox_is_a_protocol_verdict(grade, fixture_source, kind):
    source = fixture_source("hostile", "channel_bomb").replace('KIND = "bomb"', f'KIND = "{kind}"')
    before = peak_rss()
    result = grade("kv-sizing", source, limits={"wall_s": 8.0, "cpu_s": 6})
    assert result["verdict"] == "runtime_error", result["message"]
    assert "protocol" in result["message"] and result["score"] < 0.5
    assert peak_rss() - before < 256 * MIB
