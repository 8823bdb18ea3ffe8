#!/usr/bin/env bash
# Build torchtpu against the torch found on this machine and test it on its
# accelerator, with no network; write one JSON of results.
#
#   tools/accelerator_check.sh [--plugin cuda|tpu|cpu|PATH] [--pjrt-include DIR]
#                              [--python PY] [--out DIR] [--jobs N] [--wheels DIR]
#                              [--time-factor F]
#
# Made for a lent GPU machine (python3 with a CUDA build of torch, jax-cuda13-pjrt,
# CMake, Ninja), which has neither the network nor the xla-cpu-pjrt wheel that a
# normal build takes pjrt_c_api.h from: the header comes from --pjrt-include (or
# PJRT_C_API_INCLUDE_DIR), by default build/pjrt_include, which `make pjrt-header`
# fills here and which travels with the work tree as an ignored path. Nothing is
# installed into the machine's Python: _C is built with CMake (what
# scikit-build-core runs) into DIR/build and staged with the Python packages and
# their entry points in DIR/site, which the tests import through PYTHONPATH.
#
# Steps, each with a time limit, in order: build, import (torch, plugin, devices),
# tests/test_device.py, tests/test_modes.py, tests/test_compile.py, the GPT model
# test (strict, defer, compiled), and the GPT rows of benchmarks/run.py --quick.
# A failing step does not stop the others (except a failed build). Results:
# DIR/results.json (default DIR build/accel), with every step's log beside it.
# The whole check fits in 15 minutes on 16 cores (limits: build 420 s, tests
# 120-180 s each, benchmarks 240 s, all steps under 840 s); --time-factor F
# multiplies every limit, for a machine with fewer cores.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

PLUGIN=${TORCHTPU_PJRT_PLUGIN:-cuda}
PJRT_INCLUDE=${PJRT_C_API_INCLUDE_DIR:-$ROOT/build/pjrt_include}
PY=${PYTHON:-python3}
OUT=$ROOT/build/accel
JOBS=$(nproc)
WHEELS=$ROOT/build/accel_wheels
TIME_FACTOR=1
while [ $# -gt 0 ]; do
  case "$1" in
    --plugin) PLUGIN=$2; shift 2 ;;
    --pjrt-include) PJRT_INCLUDE=$2; shift 2 ;;
    --python) PY=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --jobs) JOBS=$2; shift 2 ;;
    --wheels) WHEELS=$2; shift 2 ;;
    --time-factor) TIME_FACTOR=$2; shift 2 ;;
    -h|--help) sed -n '2,26p' "$0"; exit 0 ;;
    *) echo "unknown argument: $1 (see --help)" >&2; exit 2 ;;
  esac
done
PY=$(command -v "$PY") || { echo "no python: $PY" >&2; exit 2; }
mkdir -p "$OUT/logs"
OUT=$(cd "$OUT" && pwd)
SITE=$OUT/site
STEPS=$OUT/steps.tsv
: >"$STEPS"
START=$(date +%s)

# step NAME LIMIT_S COMMAND...: run it with a time limit, log to logs/NAME.log,
# and record name, exit status and seconds in steps.tsv. COMMAND may be one of
# this script's functions (build): timeout runs it in a bash given their definitions.
step() {
  local name=$1 limit
  limit=$(awk -v s="$2" -v f="$TIME_FACTOR" 'BEGIN { printf "%d", s * f }')
  shift 2
  echo "== $name (limit ${limit}s)"
  local t0 rc ms
  t0=$(date +%s%3N)
  if declare -F "$1" >/dev/null; then
    set -- bash -c "set -uo pipefail; $(declare -p ROOT OUT SITE PJRT_INCLUDE PY JOBS); \
$(declare -f); \"\$@\"" "$1" "$@"
  fi
  timeout --kill-after=10 "$limit" "$@" >"$OUT/logs/$name.log" 2>&1
  rc=$?
  ms=$(($(date +%s%3N) - t0))
  printf '%s\t%s\t%d.%03d\n' "$name" "$rc" $((ms / 1000)) $((ms % 1000)) >>"$STEPS"
  tail -n 3 "$OUT/logs/$name.log"
  return $rc
}

build() {
  if [ ! -f "$PJRT_INCLUDE/pjrt_c_api.h" ]; then
    echo "pjrt_c_api.h not found in $PJRT_INCLUDE: give --pjrt-include DIR (make pjrt-header" \
      "copies it into build/pjrt_include from the xla-cpu-pjrt wheel)"
    return 1
  fi
  local gen=()
  command -v ninja >/dev/null && gen=(-G Ninja)
  cmake -S "$ROOT" -B "$OUT/build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DTORCHTPU_BUILD_PYTHON=ON -DTORCHTPU_BUILD_TESTS=OFF \
    -DPython_EXECUTABLE="$PY" -DPJRT_C_API_INCLUDE_DIR="$PJRT_INCLUDE" &&
    cmake --build "$OUT/build" --parallel "$JOBS" &&
    stage
}

# The packages as an install would lay them out: sources, _C, and a dist-info
# with pyproject's entry points (torch's backend autoload, the "tpu" dynamo backend).
stage() {
  rm -rf "$SITE" && mkdir -p "$SITE" &&
    cp -r "$ROOT/torchtpu" "$ROOT/torchtpu_autoload" "$SITE/" &&
    find "$SITE" -name '__pycache__' -prune -exec rm -rf {} + &&
    cp "$OUT"/build/_C*.so "$SITE/torchtpu/" &&
    "$PY" - "$ROOT/pyproject.toml" "$SITE" <<'EOF'
import pathlib
import sys

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

project = tomllib.loads(pathlib.Path(sys.argv[1]).read_text())["project"]
info = pathlib.Path(sys.argv[2]) / f"torchtpu-{project['version']}.dist-info"
info.mkdir()
(info / "METADATA").write_text(
    f"Metadata-Version: 2.1\nName: torchtpu\nVersion: {project['version']}\n"
)
groups = project.get("entry-points", {})
(info / "entry_points.txt").write_text(
    "".join(
        f"[{g}]\n" + "".join(f"{k} = {v}\n" for k, v in eps.items()) + "\n"
        for g, eps in groups.items()
    )
)
EOF
  # A torchtpu of that Python's own would win: an editable install's import hook
  # comes before PYTHONPATH (SKBUILD_EDITABLE_SKIP does not turn it off).
  local found
  found=$(PYTHONPATH=$SITE "$PY" -P -c \
    "import importlib.util as u; print(u.find_spec('torchtpu').origin)") || return 1
  if [ "$found" != "$SITE/torchtpu/__init__.py" ]; then
    echo "$PY imports torchtpu from $found, not from $SITE: use a Python that has" \
      "no torchtpu installed (an editable install's import hook wins over PYTHONPATH)"
    return 1
  fi
}

# pytest: the machine's, else from wheels carried in --wheels (pip download pytest
# here), installed into the staging folder.
ensure_pytest() {
  "$PY" -c "import pytest" 2>/dev/null && return 0
  if [ -d "$WHEELS" ]; then
    "$PY" -m pip install -q --no-index --find-links "$WHEELS" --target "$OUT/pytest" pytest &&
      return 0
  fi
  echo "pytest is not installed and no wheels in $WHEELS" >&2
  return 1
}

GPT_MODEL_TESTS=()
for m in strict defer compiled; do
  GPT_MODEL_TESTS+=("tests/models/test_models.py::test_model_trains_as_on_cpu[gpt-$m]")
done

build_ok=0
step build 420 build && build_ok=1
export PYTHONPATH=$SITE:$OUT/pytest
# The tests start `python -c` in this checkout, whose torchtpu/ (the sources,
# without _C) would come before PYTHONPATH's; safe paths leave the working
# folder (and a script's folder) off sys.path, as -P does.
export PYTHONSAFEPATH=1
export TORCHTPU_CACHE_DIR=$OUT/cache
export HF_HUB_OFFLINE=1
rm -rf "$OUT/cache"

if [ $build_ok = 1 ]; then
  # The plugin: a short name resolved by torchtpu, else a file of the jax_plugins
  # packages (jax-cuda13-pjrt's xla_cuda13, ...) matching it.
  PLUGIN_PATH=$("$PY" -P - "$PLUGIN" 2>"$OUT/logs/plugin.log" <<'EOF'
import glob
import os
import sys

import torchtpu

spec = sys.argv[1]
try:
    print(torchtpu.resolve(spec))
except Exception as e:
    print(f"torchtpu.resolve({spec!r}): {e}", file=sys.stderr)
    found = [
        f
        for d in torchtpu._plugin.search_dirs()
        for f in sorted(glob.glob(os.path.join(d, "jax_plugins", f"*{spec}*", "*.so")))
    ]
    if not found:
        raise SystemExit(f"no PJRT plugin for {spec!r}")
    print(found[0])
EOF
  ) || PLUGIN_PATH=""
  [ -n "$PLUGIN_PATH" ] && export TORCHTPU_PJRT_PLUGIN=$PLUGIN_PATH
  step import 120 "$PY" -P -c "
import torch, torchtpu
i = torchtpu.info()
print('torch', torch.__version__, 'built against', torchtpu._C._torch_version)
print('plugin', i.path, i.platform, i.platform_version, 'PJRT C API', i.api_version)
print('devices', torchtpu.devices())
x = torch.arange(6.0, device='tpu').reshape(2, 3)
print('x @ x.T =', (x @ x.T).cpu().tolist())
"
  if ensure_pytest >"$OUT/logs/pytest_install.log" 2>&1; then
    pytest_step() {
      local name=$1 limit=$2
      shift 2
      step "$name" "$limit" "$PY" -P -m pytest -q -p no:cacheprovider \
        --junitxml="$OUT/logs/$name.xml" "$@"
    }
    pytest_step test_device 150 tests/test_device.py
    pytest_step test_modes 150 tests/test_modes.py
    pytest_step test_compile 180 tests/test_compile.py
    pytest_step test_model_gpt 150 "${GPT_MODEL_TESTS[@]}"
  fi
  step bench_gpt 240 "$PY" -P benchmarks/run.py --quick --only gpt --out "$OUT/bench"
fi

"$PY" - "$OUT" "$START" "$PLUGIN" "${TORCHTPU_PJRT_PLUGIN:-}" <<'EOF'
import json
import pathlib
import platform
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

out, start, plugin_spec, plugin_path = pathlib.Path(sys.argv[1]), int(sys.argv[2]), *sys.argv[3:]
steps = {}
for line in (out / "steps.tsv").read_text().splitlines():
    name, rc, secs = line.split("\t")
    s = {"rc": int(rc), "seconds": float(secs), "ok": rc == "0", "timed_out": rc in ("124", "137")}
    log = out / "logs" / f"{name}.log"
    s["log_tail"] = log.read_text(errors="replace").splitlines()[-15:] if log.exists() else []
    xml = out / "logs" / f"{name}.xml"
    if xml.exists():
        suite = ET.parse(xml).getroot()
        suite = suite if suite.tag == "testsuite" else suite.find("testsuite")
        n = {k: int(suite.get(k, 0)) for k in ("tests", "failures", "errors", "skipped")}
        s["passed"] = n["tests"] - n["failures"] - n["errors"] - n["skipped"]
        s.update(failed=n["failures"], errors=n["errors"], skipped=n["skipped"])
        s["failures"] = [
            f"{c.get('classname')}::{c.get('name')}"
            for c in suite.iter("testcase")
            if c.find("failure") is not None or c.find("error") is not None
        ]
    steps[name] = s
bench = out / "bench" / "latest.json"


def probe(code):
    r = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True)
    return r.stdout.strip() or r.stderr.strip().splitlines()[-1:] or None


result = {
    "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    "machine": f"{platform.node()} ({platform.machine()}, {__import__('os').cpu_count()} cores)",
    "python": platform.python_version(),
    "torch": probe("import torch; print(torch.__version__)"),
    "gpu": probe(
        "import shutil, subprocess; print(subprocess.run(['nvidia-smi', '--query-gpu=name,"
        "driver_version', '--format=csv,noheader'], capture_output=True, text=True).stdout.strip()"
        " if shutil.which('nvidia-smi') else 'none (no nvidia-smi)')"
    ),
    "plugin_spec": plugin_spec,
    "plugin": plugin_path,
    "plugin_info": probe(
        "import torchtpu; i = torchtpu.info();"
        " print(i.platform, i.platform_version, 'PJRT C API %d.%d' % i.api_version)"
    ),
    "total_seconds": round(time.time() - start, 1),
    "steps": steps,
    "benchmarks": json.loads(bench.read_text())["results"] if bench.exists() else None,
    "ok": bool(steps) and all(s["ok"] for s in steps.values()),
}
(out / "results.json").write_text(json.dumps(result, indent=1))
print(json.dumps({k: v for k, v in result.items() if k not in ("steps", "benchmarks")}, indent=1))
for name, s in steps.items():
    counts = f" {s['passed']} passed, {s['failed'] + s['errors']} failed" if "passed" in s else ""
    print(f"{name:<16} rc={s['rc']:<4} {s['seconds']:>7.1f}s{counts}")
print(f"results: {out / 'results.json'}")
sys.exit(0 if result["ok"] else 1)
EOF
