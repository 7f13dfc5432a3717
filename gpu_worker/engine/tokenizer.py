"""Byte-level tokenizer: token id = byte value, plus BOS and EOS ids above 255, so text works with no download."""


class ByteTokenizer:
    def __init__(self, bos_token_id: int = 256, eos_token_id: int = 257):
        if min(bos_token_id, eos_token_id) < 256:
            raise ValueError("bos_token_id and eos_token_id must be >= 256 (ids below are bytes)")
        self.bos_token_id, self.eos_token_id = bos_token_id, eos_token_id

    def encode(self, text: str, add_bos: bool = True) -> list[int]:
        ids = list(text.encode("utf-8"))
        return [self.bos_token_id, *ids] if add_bos else ids

    def decode(self, token_ids: list[int]) -> str:
        return bytes(t for t in token_ids if t < 256).decode("utf-8", errors="replace")
