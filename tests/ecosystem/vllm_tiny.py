"""A tiny random Llama checkpoint that vLLM can load, made on the spot (nothing
downloaded), and its greedy continuation by the Hugging Face model on the CPU.
Shared by tests/ecosystem/test_vllm.py and benchmarks/vllm_tiny.py.

The tokenizer is a word-level one built with ``tokenizers``: the words
``w0`` ... ``w252`` are the ids 3 ... 255, so a prompt's ids are known.
"""

from __future__ import annotations

import os

import torch

VOCAB = 256
FIRST_WORD_ID = 3  # after <unk>, <s>, </s>


def words(ids: list[int]) -> str:
    """The prompt text whose tokens are `ids` (each at least FIRST_WORD_ID)."""
    return " ".join(f"w{i - FIRST_WORD_ID}" for i in ids)


def build_tiny_llama(path: str | os.PathLike[str], seed: int = 0) -> str:
    """Writes a random-weight LlamaForCausalLM (2 layers, hidden size 64, 4 query
    and 2 key/value heads, float32) and its tokenizer to `path`; returns it."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    path = os.fspath(path)
    vocab = ["<unk>", "<s>", "</s>"] + [f"w{i}" for i in range(VOCAB - FIRST_WORD_ID)]
    tok = Tokenizer(models.WordLevel({w: i for i, w in enumerate(vocab)}, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok.decoder = decoders.WordPiece(prefix="##")  # joins words with spaces
    PreTrainedTokenizerFast(
        tokenizer_object=tok, unk_token="<unk>", bos_token="<s>", eos_token="</s>"
    ).save_pretrained(path)
    config = LlamaConfig(
        vocab_size=VOCAB,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=256,
        bos_token_id=1,
        eos_token_id=2,
        dtype="float32",
    )
    torch.manual_seed(seed)
    LlamaForCausalLM(config).eval().save_pretrained(path)
    return path


def hf_greedy(path: str, prompts: list[list[int]], new_tokens: list[int]) -> list[list[int]]:
    """Each prompt's greedy continuation (``new_tokens[i]`` tokens for prompt i) by
    the Hugging Face model on the CPU: the argmax of the full forward pass at every
    step (no EOS handling, as vLLM's ``ignore_eos=True``)."""
    from transformers import LlamaForCausalLM

    model = LlamaForCausalLM.from_pretrained(path, dtype=torch.float32).eval()
    out = []
    with torch.no_grad():
        for prompt, count in zip(prompts, new_tokens, strict=True):
            ids = torch.tensor([prompt])
            for _ in range(count):
                nxt = model(ids).logits[0, -1].argmax()
                ids = torch.cat([ids, nxt.view(1, 1)], dim=1)
            out.append(ids[0, len(prompt) :].tolist())
    return out
