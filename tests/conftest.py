"""Test-session settings: a private compile cache, so tests that count compiles
see the same counts on every run (the user's cache is left alone)."""

from __future__ import annotations

import os
import tempfile

os.environ["TORCHTPU_CACHE_DIR"] = tempfile.mkdtemp(prefix="torchtpu-test-cache-")
# Every reuse of an operator's last call signature is checked against the
# call's full key (a wrong reuse would run another call's program).
os.environ.setdefault("TORCHTPU_VERIFY_SIGNATURE_MEMO", "1")
