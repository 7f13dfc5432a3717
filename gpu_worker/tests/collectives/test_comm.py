"""`Comm` argument checks and `forbid_library_collectives` (in process: no ranks needed)."""

import pytest
import torch
import torch.distributed as dist
import torch.distributed.distributed_c10d as c10d

from gpu_worker.collectives.comm import Comm, ForbiddenCollective, forbid_library_collectives

FORBIDDEN = [
    "all_reduce",
    "all_reduce_coalesced",
    "reduce_scatter",
    "reduce_scatter_tensor",
    "_reduce_scatter_base",
    "all_gather",
    "all_gather_into_tensor",
    "_all_gather_base",
    "all_gather_coalesced",
    "all_gather_object",
    "broadcast",
    "broadcast_object_list",
    "reduce",
    "all_to_all",
    "all_to_all_single",
    "gather",
    "scatter",
]
FORBIDDEN += [name for name in ("reduce_scatter_single", "all_gather_single") if hasattr(dist, name)]


@pytest.mark.parametrize("name", FORBIDDEN)
def test_library_collectives_raise_naming_the_call(name):
    original = getattr(dist, name)
    with forbid_library_collectives():
        for module in (dist, c10d):
            with pytest.raises(ForbiddenCollective, match=name) as caught:
                getattr(module, name)(torch.zeros(1))
            assert caught.value.name == name
    assert getattr(dist, name) is original


def test_process_group_methods_are_forbidden_and_restored():
    original = dist.ProcessGroup.allreduce
    with forbid_library_collectives():
        with pytest.raises(ForbiddenCollective, match="allreduce"):
            dist.ProcessGroup.allreduce(None, [torch.zeros(1)])
        assert dist.send is not None and dist.barrier is not None  # point-to-point stays
    assert dist.ProcessGroup.allreduce is original


def test_restored_even_when_the_body_raises():
    original = dist.all_reduce
    with pytest.raises(KeyError), forbid_library_collectives():
        raise KeyError("learner bug")
    assert dist.all_reduce is original


def test_comm_refuses_self_out_of_range_and_strided_tensors():
    comm = Comm(rank=1, world_size=3)
    with pytest.raises(ValueError, match="dst=1"):
        comm.send(torch.zeros(2), 1)
    with pytest.raises(ValueError, match="src=3"):
        comm.recv(torch.zeros(2), 3)
    with pytest.raises(ValueError, match="contiguous"):
        comm.isend(torch.zeros(4, 4).t(), 0)
    assert comm.bytes_sent == 0 and comm.bytes_received == 0
    with pytest.raises(ValueError, match="rank"):
        Comm(rank=3, world_size=3)


def test_a_rank_calling_the_library_under_the_guard_is_refused(launched):
    """In live ranks (process group up), from the shared 2-rank launch."""
    for rank in launched(2):
        assert rank["forbidden"].startswith("torch.distributed.all_reduce is not allowed")
