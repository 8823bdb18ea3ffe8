"""A small text corpus generated on the spot (nothing is downloaded): sentences
from a tiny grammar, so that a character-level model has real structure to learn."""

from __future__ import annotations

import random

SUBJECTS = ["the cat", "a dog", "the old man", "my sister", "the robot", "a small bird", "the cook"]
VERBS = ["sees", "likes", "follows", "paints", "finds", "carries", "remembers"]
OBJECTS = [
    "the red ball",
    "a green apple",
    "the quiet river",
    "a long letter",
    "the moon",
    "an open door",
    "the warm bread",
]
PLACES = [
    "in the garden",
    "at night",
    "by the sea",
    "after lunch",
    "in the old house",
    "under the bridge",
    "on monday",
]


def sentence(rng: random.Random) -> str:
    s = f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(OBJECTS)}"
    if rng.random() < 0.6:
        s += f" {rng.choice(PLACES)}"
    return s + ". "


def make_corpus(chars: int = 200_000, seed: int = 0) -> str:
    rng = random.Random(seed)
    parts: list[str] = []
    n = 0
    while n < chars:
        parts.append(sentence(rng))
        n += len(parts[-1])
    return "".join(parts)[:chars]
