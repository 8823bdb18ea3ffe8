"""vLLM offline generation on "tpu" (torchtpu's vLLM platform): tokens per second
of the tiny random Llama of tests/ecosystem/vllm_tiny.py, in the .venv-vllm of
``make setup-vllm``:

    .venv-vllm/bin/python benchmarks/vllm_tiny.py [--prompts 4] [--tokens 32]

The engine runs in this process. Each round generates `--tokens` tokens greedily
for `--prompts` prompts of 4 to 40 tokens; the first round compiles torchtpu's
programs (counted), the next ones find them compiled. Prints one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "ecosystem"))
os.environ["VLLM_ENABLE_V1_MULTIPROCESSING"] = "0"

import vllm  # noqa: E402
from vllm_tiny import build_tiny_llama, words  # noqa: E402

import torchtpu  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompts", type=int, default=4)
    parser.add_argument("--tokens", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        llm = vllm.LLM(
            model=build_tiny_llama(tmp),
            dtype="float32",
            kv_cache_memory_bytes=16 << 20,
            max_num_seqs=args.prompts,
            seed=0,
        )
        lengths = [4 + (36 * i) // max(args.prompts - 1, 1) for i in range(args.prompts)]
        prompts = [words([3 + (7 * j + i) % 250 for j in range(n)]) for i, n in enumerate(lengths)]
        params = vllm.SamplingParams(max_tokens=args.tokens, temperature=0.0, ignore_eos=True)
        rounds = []
        for _ in range(args.rounds):
            torchtpu.metrics.reset()
            start = time.perf_counter()
            outs = llm.generate(prompts, params, use_tqdm=False)
            seconds = time.perf_counter() - start
            c = torchtpu.metrics.counters()
            generated = sum(len(o.outputs[0].token_ids) for o in outs)
            rounds.append(
                {
                    "seconds": round(seconds, 2),
                    "tokens_per_s": round(generated / seconds, 1),
                    "compiles": c["compiles"],
                    "compile_seconds": round(c["compile_seconds"], 2),
                    "fallbacks": sum(c["fallbacks"].values()),
                }
            )
    print(
        json.dumps(
            {
                "plugin": os.path.basename(torchtpu.resolve()),
                "prompts": args.prompts,
                "prompt_tokens": lengths,
                "new_tokens": args.tokens,
                "rounds": rounds,
            }
        )
    )


if __name__ == "__main__":
    main()
