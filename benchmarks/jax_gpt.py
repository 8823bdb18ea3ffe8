"""The reference for what XLA on this machine can do: the GPT-style model of
examples/gpt.py (same configuration and batch) written in JAX, its training
step (forward, backward, AdamW) and its inference step each one `jax.jit`
program on JAX's own CPU backend. Our overhead above it is ours to remove."""

from __future__ import annotations

from typing import Any

VOCAB, CONTEXT, DIM, HEADS, LAYERS, BATCH = 96, 64, 128, 4, 2, 16


def _init(key: Any) -> dict[str, Any]:
    import jax
    import jax.numpy as jnp

    def normal(k: Any, shape: tuple[int, ...]) -> Any:
        return 0.02 * jax.random.normal(k, shape, jnp.float32)

    keys = iter(jax.random.split(key, 4 + 4 * LAYERS))
    params: dict[str, Any] = {
        "tok": normal(next(keys), (VOCAB, DIM)),
        "pos": normal(next(keys), (CONTEXT, DIM)),
        "ln_g": jnp.ones(DIM),
        "ln_b": jnp.zeros(DIM),
        "blocks": [],
    }
    for _ in range(LAYERS):
        params["blocks"].append(
            {
                "ln1_g": jnp.ones(DIM),
                "ln1_b": jnp.zeros(DIM),
                "qkv_w": normal(next(keys), (DIM, 3 * DIM)),
                "qkv_b": jnp.zeros(3 * DIM),
                "proj_w": normal(next(keys), (DIM, DIM)),
                "proj_b": jnp.zeros(DIM),
                "ln2_g": jnp.ones(DIM),
                "ln2_b": jnp.zeros(DIM),
                "fc1_w": normal(next(keys), (DIM, 4 * DIM)),
                "fc1_b": jnp.zeros(4 * DIM),
                "fc2_w": normal(next(keys), (4 * DIM, DIM)),
                "fc2_b": jnp.zeros(DIM),
            }
        )
    return params


def _forward(params: dict[str, Any], idx: Any) -> Any:
    import jax
    import jax.numpy as jnp

    def ln(x: Any, g: Any, b: Any) -> Any:
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) * jax.lax.rsqrt(var + 1e-5) * g + b

    b, t = idx.shape
    x = params["tok"][idx] + params["pos"][:t]
    mask = jnp.tril(jnp.ones((t, t), bool))
    hd = DIM // HEADS
    for p in params["blocks"]:
        qkv = ln(x, p["ln1_g"], p["ln1_b"]) @ p["qkv_w"] + p["qkv_b"]
        q, k, v = (z.reshape(b, t, HEADS, hd).transpose(0, 2, 1, 3) for z in jnp.split(qkv, 3, -1))
        att = (q @ k.transpose(0, 1, 3, 2)) / jnp.sqrt(hd)
        att = jax.nn.softmax(jnp.where(mask, att, -jnp.inf), -1)
        y = (att @ v).transpose(0, 2, 1, 3).reshape(b, t, DIM)
        x = x + y @ p["proj_w"] + p["proj_b"]
        h = jax.nn.gelu(ln(x, p["ln2_g"], p["ln2_b"]) @ p["fc1_w"] + p["fc1_b"], approximate=False)
        x = x + h @ p["fc2_w"] + p["fc2_b"]
    return ln(x, params["ln_g"], params["ln_b"]) @ params["tok"].T


def _loss(params: dict[str, Any], idx: Any, tgt: Any) -> Any:
    import jax
    import jax.numpy as jnp

    logp = jax.nn.log_softmax(_forward(params, idx), -1)
    return -jnp.take_along_axis(logp, tgt[..., None], -1).mean()


def bench_jax_gpt(bench: str, quick: bool) -> tuple[Any, int]:
    import jax
    import jax.numpy as jnp
    import numpy as np

    key = jax.random.PRNGKey(0)
    params = _init(key)
    idx = jax.random.randint(jax.random.PRNGKey(1), (BATCH, CONTEXT), 0, VOCAB)
    tgt = jax.random.randint(jax.random.PRNGKey(2), (BATCH, CONTEXT), 0, VOCAB)

    if bench == "gpt_inference":
        forward = jax.jit(_forward)

        def infer() -> None:
            np.asarray(forward(params, idx)[:, -1].argmax(-1))

        return infer, 5 if quick else 20

    if bench != "gpt_train_step":
        raise ValueError(f"no JAX reference for {bench}")
    lr, b1, b2, eps, wd = 1e-3, 0.9, 0.999, 1e-8, 0.01

    def step(params: Any, m: Any, v: Any, count: Any) -> Any:
        loss, grads = jax.value_and_grad(_loss)(params, idx, tgt)
        count = count + 1
        m = jax.tree.map(lambda m_, g: b1 * m_ + (1 - b1) * g, m, grads)
        v = jax.tree.map(lambda v_, g: b2 * v_ + (1 - b2) * g * g, v, grads)
        c1 = 1 - b1**count
        c2 = 1 - b2**count

        def update(p: Any, m_: Any, v_: Any) -> Any:
            p = p * (1 - lr * wd)
            return p - lr * (m_ / c1) / (jnp.sqrt(v_ / c2) + eps)

        return jax.tree.map(update, params, m, v), m, v, count, loss

    jitted = jax.jit(step, donate_argnums=(0, 1, 2))
    state = [params, jax.tree.map(jnp.zeros_like, params), jax.tree.map(jnp.zeros_like, params)]
    count = jnp.zeros((), jnp.float32)

    def train() -> None:
        nonlocal state, count
        p, m, v, count, loss = jitted(state[0], state[1], state[2], count)
        state = [p, m, v]
        float(loss)

    return train, 3 if quick else 10
