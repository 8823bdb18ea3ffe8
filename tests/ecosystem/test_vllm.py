"""vLLM on "tpu" through torchtpu's platform plugin (torchtpu/vllm, issue 16):
offline generation with ``vllm.LLM`` on a tiny random Llama, against the same
model's greedy tokens from Hugging Face on the CPU.

Needs vllm 0.32.0, which the main venv does not have: ``make setup-vllm``
makes ``.venv-vllm`` (README, "vLLM") and ``make test-vllm`` runs this file
there. The engine runs in this process (``VLLM_ENABLE_V1_MULTIPROCESSING=0``)
so that torchtpu's metrics see its ops; one test runs vLLM's default, an
engine process of its own, in a child interpreter.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import textwrap
from collections.abc import Iterator

import pytest

vllm = pytest.importorskip(
    "vllm", reason="vllm is not installed here: `make setup-vllm`, then `make test-vllm`"
)

import torch  # noqa: E402
from vllm_tiny import build_tiny_llama, hf_greedy, words  # noqa: E402

import torchtpu  # noqa: E402
import torchtpu.vllm  # noqa: E402

# Prompts of 1, 4, 11 and 40 tokens (one block of the KV cache and several), each
# with its own number of new tokens, so that requests finish at different steps.
PROMPT_IDS = [
    [7],
    [4, 5, 6, 7],
    [12, 11, 10, 9, 8, 7, 6, 5, 4, 103, 203],
    [(i * 7) % 250 + 3 for i in range(40)],
]
NEW_TOKENS = [12, 6, 10, 8]
# The engine: a small KV cache (4 MiB: 8192 tokens of this model); two requests at a
# time and 32 tokens a step, so that the 40-token prompt is prefilled in two chunks and
# the later prompts' prefills share steps with the earlier ones' decoding.
ENGINE_ARGS = dict(
    dtype="float32",
    kv_cache_memory_bytes=4 << 20,
    max_num_seqs=2,
    max_num_batched_tokens=32,
    max_model_len=128,
    seed=0,
)


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> str:
    return build_tiny_llama(tmp_path_factory.mktemp("tiny-llama"))


@pytest.fixture(scope="module")
def reference(model_dir: str) -> list[list[int]]:
    return hf_greedy(model_dir, PROMPT_IDS, NEW_TOKENS)


@pytest.fixture(scope="module")
def llm(model_dir: str) -> Iterator[vllm.LLM]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("VLLM_ENABLE_V1_MULTIPROCESSING", "0")
        engine = vllm.LLM(model=model_dir, **ENGINE_ARGS)
        yield engine
        del engine


def greedy(new_tokens: int) -> vllm.SamplingParams:
    return vllm.SamplingParams(max_tokens=new_tokens, temperature=0.0, ignore_eos=True)


def test_platform_is_torchtpu(llm: vllm.LLM) -> None:
    from vllm.platforms import current_platform

    from torchtpu.vllm.platform import TorchTPUPlatform

    assert isinstance(current_platform, TorchTPUPlatform)
    assert current_platform.device_type == "tpu"
    assert llm.llm_engine.vllm_config.device_config.device.type == "tpu"
    devices = llm.apply_model(lambda model: {p.device.type for p in model.parameters()})
    assert devices == [{"tpu"}]


def test_greedy_matches_hugging_face_on_cpu(llm: vllm.LLM, reference: list[list[int]]) -> None:
    # Text prompts go through the checkpoint's tokenizer; the ids say they did.
    outs = llm.generate([words(ids) for ids in PROMPT_IDS], [greedy(n) for n in NEW_TOKENS])
    assert [o.prompt_token_ids for o in outs] == PROMPT_IDS
    assert [list(o.outputs[0].token_ids) for o in outs] == reference
    assert outs[1].outputs[0].text.strip() == words(reference[1])


def test_seeded_sampling_is_reproducible(llm: vllm.LLM) -> None:
    params = vllm.SamplingParams(
        max_tokens=12, temperature=0.8, top_k=50, top_p=0.9, seed=1234, ignore_eos=True
    )
    prompts = [words(ids) for ids in PROMPT_IDS[:3]]
    first = [list(o.outputs[0].token_ids) for o in llm.generate(prompts, params)]
    second = [list(o.outputs[0].token_ids) for o in llm.generate(prompts, params)]
    assert first == second
    assert all(len(t) == 12 for t in first)
    # It samples: not the greedy tokens, and another seed gives other tokens.
    assert first != [list(o.outputs[0].token_ids) for o in llm.generate(prompts, greedy(12))]
    params.seed = 4321
    assert first != [list(o.outputs[0].token_ids) for o in llm.generate(prompts, params)]


def test_no_cpu_fallbacks(llm: vllm.LLM) -> None:
    torchtpu.sync()
    torchtpu.metrics.reset()
    llm.generate([words(ids) for ids in PROMPT_IDS], greedy(4))
    sampled = vllm.SamplingParams(max_tokens=4, temperature=1.0, top_k=10, top_p=0.8, seed=7)
    llm.generate([words(ids) for ids in PROMPT_IDS], sampled)
    counters = torchtpu.metrics.counters()
    assert counters["fallbacks"] == {}
    assert counters["launches"] > 0


def subprocess_env() -> dict[str, str]:
    # Without the start method the platform chose for this process (below).
    return {k: v for k, v in os.environ.items() if k != "VLLM_WORKER_MULTIPROC_METHOD"}


def run_python(code: str, env: dict[str, str] | None = None, timeout: int = 300) -> object:
    """Runs `code` in a fresh interpreter; returns what it printed as JSON on a
    line of its own after "RESULT " (vLLM logs to stdout too)."""
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**subprocess_env(), **(env or {})},
        cwd=pathlib.Path(__file__).parent,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    results = [line for line in proc.stdout.splitlines() if line.startswith("RESULT ")]
    assert len(results) == 1, proc.stdout[-4000:]
    return json.loads(results[0].removeprefix("RESULT "))


def test_register_starts_nothing_and_can_be_turned_off() -> None:
    code = """
        import json
        import torchtpu.vllm
        platform = torchtpu.vllm.register()
        print("RESULT", json.dumps([platform, torchtpu._C._runtime_initialized()]))
    """
    assert run_python(code) == [torchtpu.vllm.PLATFORM, False]
    assert run_python(code, {"TORCHTPU_VLLM": "0"}) == [None, False]


def test_default_engine_process(model_dir: str, reference: list[list[int]]) -> None:
    """vLLM's default: the engine in a process of its own, forked, since neither
    vLLM nor the plugin starts torchtpu's runtime in the parent."""
    code = f"""
        import json, os
        import vllm, torchtpu
        llm = vllm.LLM(model={model_dir!r}, **{ENGINE_ARGS!r})
        outs = llm.generate(
            [{{"prompt_token_ids": ids}} for ids in {PROMPT_IDS!r}],
            [
                vllm.SamplingParams(max_tokens=n, temperature=0.0, ignore_eos=True)
                for n in {NEW_TOKENS!r}
            ],
        )
        print("RESULT", json.dumps({{
            "tokens": [list(o.outputs[0].token_ids) for o in outs],
            "parent_started_tpu": torchtpu._C._runtime_initialized(),
            "start_method": os.environ.get("VLLM_WORKER_MULTIPROC_METHOD", "fork"),
        }}))
    """
    env = {"VLLM_ENABLE_V1_MULTIPROCESSING": "1"}
    assert run_python(code, env) == {
        "tokens": reference,
        "parent_started_tpu": False,
        "start_method": "fork",
    }


def test_spawn_where_the_runtime_is_started(llm: vllm.LLM, monkeypatch: pytest.MonkeyPatch) -> None:
    """A process that has started torchtpu's runtime cannot fork a working child:
    the platform has vLLM spawn its processes there."""
    from torchtpu.vllm.platform import TorchTPUPlatform, runtime_started

    assert runtime_started()  # the engine runs in this process
    monkeypatch.delenv("VLLM_WORKER_MULTIPROC_METHOD", raising=False)
    TorchTPUPlatform.check_and_update_config(llm.llm_engine.vllm_config)
    assert os.environ["VLLM_WORKER_MULTIPROC_METHOD"] == "spawn"


def test_unsupported_features_are_refused(model_dir: str) -> None:
    with pytest.raises(ValueError, match="does not support LoRA"):
        vllm.LLM(model=model_dir, enable_lora=True, **ENGINE_ARGS)


def test_torch_is_unchanged() -> None:
    assert torch.__version__.split("+")[0] == "2.13.0"
    assert vllm.__version__ == torchtpu.vllm.VLLM_VERSION
