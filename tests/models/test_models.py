"""Real models, unchanged except for the device, train on "tpu" as on the CPU.

Each model trains for a few steps (forward, backward, optimizer step) on the
CPU and on "tpu" from the same initial weights and batches, in the strict and
defer modes and compiled with torch.compile(backend="tpu"); the losses of
every step and the final weights must agree within the tolerances stated in
model_compare.py, and the ops that fell back to the CPU must be exactly the
expected ones (none). The models:

- gpt:    the GPT-style decoder of examples/gpt.py (embeddings, causal
          attention through scaled_dot_product_attention, LayerNorm, GELU), AdamW;
- bert:   Hugging Face transformers' BertForSequenceClassification, a small
          random configuration with a padding attention mask, AdamW;
- resnet: transformers' ResNetForImageClassification (convolutions, batch
          norm, max pooling, adaptive average pooling), SGD with momentum;
- cnn:    a convolutional network with batch norm and max/average pooling, SGD;
- lstm:   embedding, 2-layer nn.LSTM, linear head, Adam;
- gru:    embedding, 2-layer nn.GRU, linear head, RMSprop;
- gpt2:   transformers' GPT2LMHeadModel, whose lm_head is the token embedding
          (tied weights), AdamW; final weights within 1e-4 of the CPU's;
- bart:   transformers' BartForConditionalGeneration, an encoder-decoder whose
          encoder and decoder embeddings and lm_head are one tied matrix,
          AdamW; final weights within 1e-4 of the CPU's.

Dropout is 0: CPU and "tpu" draw different random numbers. Nothing is
downloaded (HF_HUB_OFFLINE=1; models are built from configurations).
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

os.environ["HF_HUB_OFFLINE"] = "1"

import pytest
import torch
import transformers
from model_compare import Batch, Case, compare
from torch import nn
from torch.nn import functional as F

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _load_gpt():
    spec = importlib.util.spec_from_file_location("examples_gpt", EXAMPLES / "gpt.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


gpt = _load_gpt()


def adamw(params: list[nn.Parameter]) -> torch.optim.Optimizer:
    return torch.optim.AdamW(params, lr=1e-2, weight_decay=0.01)


# ---- gpt ---------------------------------------------------------------------

GPT_CFG = gpt.GPTConfig(vocab=64, context=16, dim=32, heads=4, layers=2)


def gpt_batches(g: torch.Generator, n: int) -> list[Batch]:
    tokens = torch.randint(0, GPT_CFG.vocab, (n, 4, GPT_CFG.context + 1), generator=g)
    return [(t[:, :-1], t[:, 1:]) for t in tokens]


GPT = Case(
    "gpt",
    lambda: gpt.GPT(GPT_CFG),
    gpt_batches,
    lambda m, b: m.loss(b[0], b[1]),
    adamw,
)

# ---- bert (transformers) -----------------------------------------------------------


def bert() -> nn.Module:
    cfg = transformers.BertConfig(
        vocab_size=100,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=64,
        max_position_embeddings=32,
        hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0,
        num_labels=3,
    )
    return transformers.BertForSequenceClassification(cfg)


def bert_batches(g: torch.Generator, n: int) -> list[Batch]:
    out = []
    for _ in range(n):
        ids = torch.randint(0, 100, (4, 12), generator=g)
        lengths = torch.randint(4, 13, (4,), generator=g)
        mask = (torch.arange(12) < lengths[:, None]).long()  # right padding
        out.append((ids, mask, torch.randint(0, 3, (4,), generator=g)))
    return out


BERT = Case(
    "bert",
    bert,
    bert_batches,
    lambda m, b: m(input_ids=b[0], attention_mask=b[1], labels=b[2]).loss,
    adamw,
)

# ---- resnet (transformers) ---------------------------------------------------------


def resnet() -> nn.Module:
    cfg = transformers.ResNetConfig(
        num_channels=3,
        embedding_size=8,
        hidden_sizes=[8, 16],
        depths=[1, 1],
        layer_type="basic",
        num_labels=5,
    )
    return transformers.ResNetForImageClassification(cfg)


def image_batches(g: torch.Generator, n: int, size: int = 32) -> list[Batch]:
    return [
        (torch.randn(8, 3, size, size, generator=g), torch.randint(0, 5, (8,), generator=g))
        for _ in range(n)
    ]


def sgd(params: list[nn.Parameter]) -> torch.optim.Optimizer:
    return torch.optim.SGD(params, lr=0.05, momentum=0.9, weight_decay=1e-4)


RESNET = Case(
    "resnet",
    resnet,
    image_batches,
    lambda m, b: m(pixel_values=b[0], labels=b[1]).loss,
    sgd,
)

# ---- cnn ---------------------------------------------------------------------------


def cnn() -> nn.Module:
    return nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1, bias=False),
        nn.BatchNorm2d(8),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(8, 16, 3, padding=1, bias=False),
        nn.BatchNorm2d(16),
        nn.ReLU(),
        nn.AvgPool2d(2),
        nn.Conv2d(16, 16, 3, padding=1),
        nn.ReLU(),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(16, 5),
    )


CNN = Case(
    "cnn",
    cnn,
    lambda g, n: image_batches(g, n, size=16),
    lambda m, b: F.cross_entropy(m(b[0]), b[1]),
    sgd,
)

# ---- lstm / gru ------------------------------------------------------------------------

VOCAB = 20


class SequenceModel(nn.Module):
    """Token embedding, a 2-layer recurrent network, a per-step linear head."""

    def __init__(self, rnn: type[nn.LSTM] | type[nn.GRU]) -> None:
        super().__init__()
        self.emb = nn.Embedding(VOCAB, 16)
        self.rnn = rnn(16, 24, num_layers=2, batch_first=True)
        self.head = nn.Linear(24, VOCAB)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h, _ = self.rnn(self.emb(x))
        return self.head(h)


def sequence_batches(g: torch.Generator, n: int) -> list[Batch]:
    tokens = torch.randint(0, VOCAB, (n, 4, 11), generator=g)
    return [(t[:, :-1], t[:, 1:]) for t in tokens]


def sequence_loss(m: nn.Module, b: Batch) -> torch.Tensor:
    return F.cross_entropy(m(b[0]).reshape(-1, VOCAB), b[1].reshape(-1))


LSTM = Case(
    "lstm",
    lambda: SequenceModel(nn.LSTM),
    sequence_batches,
    sequence_loss,
    lambda p: torch.optim.Adam(p, lr=1e-2),
)
GRU = Case(
    "gru",
    lambda: SequenceModel(nn.GRU),
    sequence_batches,
    sequence_loss,
    lambda p: torch.optim.RMSprop(p, lr=1e-2),
)

# ---- tied weights (transformers) ---------------------------------------------------
# Models whose output projection is their input embedding: `.to("tpu")` must
# keep the one Parameter (untied, the two copies would train apart).

TIED_VOCAB = 64


def gpt2() -> nn.Module:
    cfg = transformers.GPT2Config(
        vocab_size=TIED_VOCAB,
        n_positions=32,
        n_embd=32,
        n_layer=2,
        n_head=4,
        resid_pdrop=0.0,
        embd_pdrop=0.0,
        attn_pdrop=0.0,
        bos_token_id=0,
        eos_token_id=0,
    )
    model = transformers.GPT2LMHeadModel(cfg)
    assert model.lm_head.weight is model.transformer.wte.weight
    return model


def lm_batches(g: torch.Generator, n: int) -> list[Batch]:
    return [(torch.randint(0, TIED_VOCAB, (4, 12), generator=g),) for _ in range(n)]


GPT2 = Case(
    "gpt2",
    gpt2,
    lm_batches,
    lambda m, b: m(input_ids=b[0], labels=b[0]).loss,
    adamw,
    param_atol=1e-4,
    param_rtol=0.0,
)


def bart() -> nn.Module:
    cfg = transformers.BartConfig(
        vocab_size=TIED_VOCAB,
        d_model=32,
        encoder_layers=1,
        decoder_layers=1,
        encoder_attention_heads=4,
        decoder_attention_heads=4,
        encoder_ffn_dim=64,
        decoder_ffn_dim=64,
        max_position_embeddings=32,
        dropout=0.0,
        attention_dropout=0.0,
        activation_dropout=0.0,
        pad_token_id=1,
        bos_token_id=0,
        eos_token_id=2,
        decoder_start_token_id=2,
    )
    model = transformers.BartForConditionalGeneration(cfg)
    assert model.lm_head.weight is model.model.shared.weight
    return model


def seq2seq_batches(g: torch.Generator, n: int) -> list[Batch]:
    return [
        (
            torch.randint(3, TIED_VOCAB, (4, 10), generator=g),
            torch.randint(3, TIED_VOCAB, (4, 8), generator=g),
        )
        for _ in range(n)
    ]


BART = Case(
    "bart",
    bart,
    seq2seq_batches,
    lambda m, b: m(input_ids=b[0], labels=b[1]).loss,
    adamw,
    param_atol=1e-4,
    param_rtol=0.0,
)

CASES = {c.name: c for c in (GPT, BERT, RESNET, CNN, LSTM, GRU, GPT2, BART)}


@pytest.mark.parametrize("mode", ["strict", "defer", "compiled"])
@pytest.mark.parametrize("name", list(CASES))
def test_model_trains_as_on_cpu(name: str, mode: str) -> None:
    compare(CASES[name], mode)
