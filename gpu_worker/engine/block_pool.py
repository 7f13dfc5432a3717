"""The KV block pool: reference counts, prefix caching of full blocks by a hash chain, lazy LRU eviction.

Blocks hold no tensors here; `kv_cache.py` owns the memory and this pool owns which block is whose.
"""

import hashlib
from collections import OrderedDict
from dataclasses import dataclass


def hash_block(parent_hash: bytes | None, token_ids: tuple[int, ...], cache_salt: str | None = None) -> bytes:
    """sha256 over the parent block's hash, this block's token ids and the tenant's salt."""
    digest = hashlib.sha256()
    digest.update(parent_hash or b"\x00" * 32)
    digest.update(",".join(map(str, token_ids)).encode())
    digest.update(b"|" + (cache_salt or "").encode())
    return digest.digest()


@dataclass
class Block:
    block_id: int
    ref_count: int = 0
    block_hash: bytes | None = None
    token_ids: tuple[int, ...] | None = None  # kept to confirm a hash hit


class BlockPool:
    def __init__(self, num_blocks: int, enable_prefix_caching: bool = True):
        if num_blocks <= 0:
            raise ValueError(f"num_blocks must be positive, got {num_blocks}")
        self.blocks = [Block(i) for i in range(num_blocks)]
        self.enable_prefix_caching = enable_prefix_caching
        # Free blocks in eviction order: the least recently freed first. Cached blocks stay here with
        # their hash until reused (lazy eviction), so a later request can still hit them.
        self.free_queue: OrderedDict[int, None] = OrderedDict((i, None) for i in range(num_blocks))
        self.cached: dict[bytes, int] = {}
        self.num_evictions = 0

    @property
    def num_blocks(self) -> int:
        return len(self.blocks)

    @property
    def num_free(self) -> int:
        return len(self.free_queue)

    @property
    def num_used(self) -> int:
        return self.num_blocks - self.num_free

    def allocate(self) -> int:
        """A fresh block with reference count 1, evicting its cached content if it had any."""
        if not self.free_queue:
            raise RuntimeError("block pool exhausted")
        block_id, _ = self.free_queue.popitem(last=False)
        block = self.blocks[block_id]
        if block.block_hash is not None:
            if self.cached.get(block.block_hash) == block_id:
                del self.cached[block.block_hash]
            block.block_hash, block.token_ids = None, None
            self.num_evictions += 1
        block.ref_count = 1
        return block_id

    def acquire(self, block_id: int) -> None:
        """One more user of a block: a prefix-cache hit or a fork of a block table."""
        block = self.blocks[block_id]
        if block.ref_count == 0:
            del self.free_queue[block_id]
        block.ref_count += 1

    def free(self, block_ids: list[int]) -> None:
        """Drop one reference to each block; tail blocks go first so they are evicted first."""
        for block_id in reversed(block_ids):
            block = self.blocks[block_id]
            if block.ref_count <= 0:
                raise RuntimeError(f"block {block_id} freed with reference count {block.ref_count}")
            block.ref_count -= 1
            if block.ref_count == 0:
                self.free_queue[block_id] = None

    def lookup(self, block_hash: bytes, token_ids: tuple[int, ...]) -> int | None:
        """The cached block with this hash, only if its tokens really match."""
        if not self.enable_prefix_caching:
            return None
        block_id = self.cached.get(block_hash)
        if block_id is None or self.blocks[block_id].token_ids != token_ids:
            return None
        return block_id

    def register(self, block_id: int, block_hash: bytes, token_ids: tuple[int, ...]) -> None:
        """Make a full, computed block findable by its hash (the first block with a hash keeps it)."""
        if not self.enable_prefix_caching or block_hash in self.cached:
            return
        block = self.blocks[block_id]
        if block.block_hash is None:
            block.block_hash, block.token_ids = block_hash, tuple(token_ids)
            self.cached[block_hash] = block_id

    def ref_count(self, block_id: int) -> int:
        return self.blocks[block_id].ref_count
