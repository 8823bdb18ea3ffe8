"""The torch releases torchtpu supports: an unsupported torch, or a torchtpu._C
built against another torch release, is refused at import with an ImportError
that says what to do (torchtpu/_torch_compat.py, csrc/aten/torch_compat.h)."""

from __future__ import annotations

import os
import re
import shutil
import site
import subprocess
import sys
from pathlib import Path

import pytest
import torch

import torchtpu
from torchtpu import _torch_compat as tc

ROOT = Path(__file__).resolve().parent.parent


def test_release_parses_torch_versions() -> None:
    assert tc.release("2.14.1+cu130") == (2, 14)
    assert tc.release("2.13.0+cpu") == (2, 13)
    assert tc.release("2.11.0a0+gitabc") == (2, 11)
    assert tc.release("nonsense") == (-1, -1)


@pytest.mark.parametrize("version", ["2.11.0+cu128", "2.13.0", "2.14.1+cu130"])
def test_supported_releases_pass(version: str) -> None:
    tc.check(version)


@pytest.mark.parametrize("version", ["2.10.0", "2.12.1", "2.15.0", "3.0.0"])
def test_unsupported_torch_is_refused_naming_the_supported_ones(version: str) -> None:
    with pytest.raises(ImportError, match=re.escape("torchtpu supports torch 2.11, 2.13, 2.14")):
        tc.check(version)


def test_extension_built_against_another_release_is_refused() -> None:
    tc.check_built("2.13.0", "2.13.1+cpu")  # a patch release is the same ABI
    with pytest.raises(ImportError, match="built against torch 2.13.0.*rebuild torchtpu"):
        tc.check_built("2.13.0", "2.14.1+cu130")


def test_the_extension_says_which_torch_it_was_built_against() -> None:
    assert tc.release(torchtpu._C._torch_version) == tc.release(torch.__version__)
    assert tc.TORCH_RELEASE in tc.SUPPORTED


def _other_builds() -> list[Path]:
    """torchtpu._C files in this checkout's build folders made for another torch
    (build/py, build/py214, tools/accelerator_check.sh's build/accel/build, ...)."""
    here = Path(torch.__file__).resolve().parent / "lib"
    found = []
    caches = [
        *(ROOT / "build").glob("*/CMakeCache.txt"),
        *(ROOT / "build").glob("*/*/CMakeCache.txt"),
    ]
    for cache in sorted(caches):
        m = re.search(r"^TORCH_torch_cpu_LIBRARY:FILEPATH=(.*)$", cache.read_text(), re.M)
        if m and Path(m.group(1)).resolve().parent != here:
            found += sorted(cache.parent.glob("_C*.so"))
    return found


def _import_copy(tmp_path: Path, extension: Path | None) -> subprocess.CompletedProcess[str]:
    """`import torchtpu` under this torch, from a copy of this torchtpu's sources
    with `extension` as its _C (or none)."""
    pkg = tmp_path / "torchtpu"
    shutil.copytree(ROOT / "torchtpu", pkg, ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    if extension is not None:
        shutil.copy(extension, pkg)
    # -S: no site hooks. An editable install's import hook (the venv's own torchtpu
    # and _C) comes before PYTHONPATH, and SKBUILD_EDITABLE_SKIP does not turn it
    # off; so the path is spelled out: the copy, then the site-packages with torch.
    paths = [str(tmp_path), str(Path(torch.__file__).resolve().parent.parent)]
    paths += [p for p in site.getsitepackages() if p not in paths]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(paths), TORCH_DEVICE_BACKEND_AUTOLOAD="0")
    code = "import torchtpu, sys; print(torchtpu.__file__, file=sys.stderr)"
    return subprocess.run(
        [sys.executable, "-S", "-P", "-c", code], env=env, capture_output=True, text=True
    )


def test_import_without_the_extension_says_it_is_not_built(tmp_path: Path) -> None:
    r = _import_copy(tmp_path, None)
    assert r.returncode != 0, r.stderr
    last = r.stderr.strip().splitlines()[-1]
    expected = f"ImportError: torchtpu._C is not built for torch {torch.__version__}"
    assert last.startswith(expected), r.stderr
    assert tc.REBUILD in last, r.stderr


@pytest.mark.skipif(not _other_builds(), reason="no build for another torch in build/")
def test_import_with_another_releases_build_is_refused(tmp_path: Path) -> None:
    """The real thing: the _C of the other venv's build (e.g. build/py214 from the
    default venv), next to this torchtpu's sources, imported under this torch."""
    r = _import_copy(tmp_path, _other_builds()[0])
    assert r.returncode != 0, r.stderr
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: torchtpu._C"), r.stderr
    assert "rebuild torchtpu against this torch" in last, r.stderr
