"""What makes an exchange a ring, as the `ring-allreduce` statement says, checked on every message.

A rank sends only to its neighbours (right, or left for a ring running the other way), in chunks of
at most ceil(K/N) elements, and no message ends a chain longer than 2(N-1) (each message sent after
the one before it was handed over). The bytes each rank sends are bounded by `bytes_bound`.
"""

from dataclasses import dataclass


class RuleBroken(Exception):
    """A message a ring would not send: the exchange fails as a wrong answer, with this message."""


def ring_steps(world_size: int) -> int:
    return 2 * (world_size - 1)


def chunk_elements(numel: int, world_size: int) -> int:
    return -(-numel // world_size)


def bytes_bound(numel: int, world_size: int, element_size: int = 4) -> int:
    """Bytes one rank may send: 2(N-1)/N of the tensor, rounded up, plus N-1 elements for uneven chunks
    (a ring over near-equal chunks, or two rings running opposite ways over the two halves, fit)."""
    return (-(-ring_steps(world_size) * numel // world_size) + world_size - 1) * element_size


@dataclass(frozen=True)
class RingRules:
    world_size: int
    numel: int  # K, the elements of each rank's tensor
    element_size: int
    repeats: int = 1  # all-reduces in a row in one exchange: steps add up

    @classmethod
    def for_exchange(cls, shards: list, repeats: int = 1) -> "RingRules":
        return cls(len(shards), shards[0].numel(), shards[0].element_size(), repeats)

    @property
    def max_steps(self) -> int:
        return self.repeats * ring_steps(self.world_size)

    def neighbours(self, rank: int) -> tuple[int, int]:
        """(right, left)"""
        return (rank + 1) % self.world_size, (rank - 1) % self.world_size

    def check_send(self, rank: int, dst: int, nbytes: int, clock: int) -> None:
        right, left = self.neighbours(rank)
        if dst not in (right, left):
            raise RuleBroken(
                f"rank {rank} sent a message to rank {dst}, which is not its neighbour: in a ring each rank sends "
                f"only to rank {right} (or to rank {left}, for a ring running the other way)"
            )
        chunk = chunk_elements(self.numel, self.world_size)
        if nbytes > chunk * self.element_size:
            raise RuleBroken(
                f"rank {rank} sent {self._elements(nbytes)} to rank {dst} in one message; a ring's chunks "
                f"hold at most ceil(K/N) = {chunk} of the {self.numel} elements"
            )
        if clock > self.max_steps:
            raise RuleBroken(
                f"rank {rank}'s message to rank {dst} is number {clock} in a chain of messages, each sent after "
                f"the one before it arrived; a ring all-reduce on {self.world_size} ranks needs "
                f"{self.max_steps}: post each step's send before you wait for that step's receive"
            )

    def check_recv(self, rank: int, src: int) -> None:
        right, left = self.neighbours(rank)
        if src not in (right, left):
            raise RuleBroken(
                f"rank {rank} waits for a message from rank {src}, which is not its neighbour: in a ring only "
                f"rank {left} and rank {right} send to it"
            )

    def _elements(self, nbytes: int) -> str:
        count, rest = divmod(nbytes, self.element_size)
        return f"{count} elements" if not rest else f"{nbytes} bytes"
