# torchtpu: the two commands of the README, and their building blocks.
#   make run    set up (if needed) and run the main job on the embedded CPU plugin
#   make test   set up (if needed) and run every test (lint, ctest, then pytest), then
#               the C++ suites and a pytest subset on the second torch (test-torch214),
#               then vLLM's tests in .venv-vllm (test-vllm)
#   make coverage  the full OpInfo sweep -> docs/coverage.{md,json}
#   make op-index  the op index -> docs/ops.md
#   make test-vllm vLLM on "tpu" (tests/ecosystem/test_vllm.py) in .venv-vllm (make setup-vllm)
#   make bench-peers  torchtpu against PyTorch/XLA and torchax -> benchmarks/results/peers.*
#   make wheel     a wheel of torchtpu in dist/, for an environment that already has torch
# Both are idempotent: a second run skips the steps whose inputs did not change.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check -q
CSRC := $(shell find csrc -name '*.cc' -o -name '*.h') CMakeLists.txt pyproject.toml \
        $(wildcard cmake/*.cmake)
PYTEST_ARGS ?=

# Pinned: torch's CPU build (local wheel), the CPU PJRT plugin (runtime), the
# xla-cpu-pjrt wheel (pjrt_c_api.h at build time; also a second plugin to test).
DEPS := torch==2.13.0 numpy lammps-jax-pjrt-cpu==0.11.2 xla-cpu-pjrt==0.0.1 \
        scikit-build-core pytest ruff==0.17.6 clang-format==23.1.5 transformers==5.23.0 \
        expecttest==0.3.0 accelerate==1.15.0 peft==0.21.2

# Custom kernels (torchtpu[kernels]): JAX for JAX and Pallas kernels, and
# Helion's own dependencies for the PyTorch-style kernel example. Helion itself
# installs with --no-deps (see setup) so that nothing can replace torch.
KERNEL_DEPS := jax==0.10.2 jaxlib==0.10.2 filecheck==1.0.6 psutil==7.2.2 scikit-learn==1.9.1
HELION := helion==1.5.1

# TorchTitan (tests/ecosystem/test_torchtitan.py) and everything it imports, all
# pinned and installed with --no-deps: datasets 4.7 pins huggingface-hub<2.0 and
# fsspec<=2026.2.0, which would replace the hub transformers 5.23 needs (datasets
# works beside them); its other pins are torch-free. TorchTitan imports triton
# (its MoE kernels, imported by every model) and tensorboard (its metrics) at
# start-up; neither runs here. Debian's lspci is not needed (it only names GPUs).
TITAN := torchtitan==0.3.0 spmd_types==0.2.3 torch_checkpointing==0.1.1 tyro==1.0.17 \
         docstring_parser==0.18.0 typeguard==4.6.1 torchdata==0.11.0 einops==0.8.2 \
         triton==3.7.1 tensorboard==2.21.0 protobuf==7.36.2 absl-py==2.5.1 \
         datasets==4.7.0 pyarrow==26.0.1 pandas==3.1.1 python-dateutil==4.0.0 tzdata==2026.6 \
         dill==0.4.0 multiprocess==0.70.18 xxhash==4.1.0 requests==2.34.2 urllib3==2.8.0 \
         certifi==2026.10.19.post1 charset-normalizer==3.5.3 httpx==0.29.0 httpcore==1.0.9

# The second torch release CI tests (README, "Torch releases"): torch 2.14.1, which
# PyPI has only as its CUDA 13 build (its NVIDIA libraries are pinned by torch
# itself; the few it leaves open are pinned here), the torchvision made for it, and
# timm (tests/ecosystem/test_timm.py; its requirements are all here already).
# Its own venv and build folders: the default build (build/py, .venv) and this one
# never share a file, and each venv holds its own torchtpu._C.
VENV214 := .venv214
PY214 := $(VENV214)/bin/python
PIP214 := $(PY214) -m pip --disable-pip-version-check -q
PY_BUILD214 := build/py214
DEPS214 := torch==2.14.1 torchvision==0.29.1 timm==1.0.31 triton==3.8.0 cuda-bindings==13.5.0 \
           cuda-pathfinder==1.9.1 nvidia-nvjitlink==13.5.37 $(filter-out torch==%,$(DEPS))
# What runs on it: the C++ suites, and this pytest subset (PYTEST214 to change it,
# e.g. PYTEST214=tests for all of it).
PYTEST214 ?= tests/test_device.py tests/test_modes.py tests/test_compile.py \
             tests/test_torch_compat.py "tests/models/test_models.py::test_model_trains_as_on_cpu[gpt-strict]" \
             tests/ecosystem/test_timm.py tests/ecosystem/test_torchvision.py

# vLLM on "tpu" (README, "vLLM"; torchtpu/vllm): vllm 0.32.0 in a venv of its own,
# .venv-vllm, made by copying .venv (the same torch 2.13.0, transformers, numpy, ...: the
# main venv never changes). vllm itself and the pure-Python packages offline generation
# imports go in with --no-deps, each pinned, so pip resolves nothing and replaces nothing
# (VLLM_CONSTRAINTS pins torch, transformers and numpy to .venv's versions besides); vllm's
# CUDA requirements (torchvision, flashinfer, triton, ...) stay out. The check after the
# install fails if any package of .venv changed. torchtpu is the editable install of
# .venv: its _C, dist-info (entry points) and finder are copied again after each build.
VENV_VLLM := .venv-vllm
PY_VLLM := $(VENV_VLLM)/bin/python
PIP_VLLM := $(PY_VLLM) -m pip --disable-pip-version-check -q
VLLM := vllm==0.32.0
VLLM_DEPS := aiohappyeyeballs==2.7.1 aiohttp==3.14.5 aiosignal==1.4.0 apache-tvm-ffi==0.1.11 \
             attrs==26.1.0 cachetools==8.0.3 cbor2==6.3.0 certifi==2026.10.19.post1 \
             charset-normalizer==3.5.3 compressed-tensors==0.17.0 einops==0.8.2 \
             fastapi==0.136.3 frozenlist==1.8.0 llguidance==1.7.6 loguru==0.7.3 \
             msgspec==0.23.0 multidict==7.2.1 openai==3.63.0 openai-harmony==0.0.8 \
             partial-json-parser==0.2.1.1.post7 pillow==13.0.0 prometheus_client==0.26.0 \
             propcache==0.5.4 py-cpuinfo==9.0.0 pybase64==1.5.1 pyzmq==27.3.0 \
             requests==2.34.2 sniffio==1.3.1 starlette==1.10.0 urllib3==2.8.0 \
             uvloop==0.23.0 xgrammar==0.2.8 yarl==1.25.1
VLLM_CONSTRAINTS := $(VENV_VLLM)/constraints.txt
PYTEST_VLLM ?= tests/ecosystem/test_vllm.py
SITE_OF = $$($(1) -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')

# The peer benchmark's venv (bench-peers): PyTorch/XLA and torchax, both on torch 2.9.0.
PEERS_VENV := .venv-peers
PEERS_PY := $(PEERS_VENV)/bin/python
PEERS_PIP := $(PEERS_PY) -m pip --disable-pip-version-check -q
PEERS_DEPS := torch==2.9.0 torch-xla==2.9.0 torchax==0.0.13 jax==0.10.2 jaxlib==0.10.2 \
              optax==0.2.8 flax==0.12.8

# How both torch releases build: the extension, the torch-free core and the C++ suites
# in one CMake build per release (the core compiles once per build folder), warnings
# as errors, pjrt_c_api.h from one folder (build/pjrt_include, copied from the
# xla-cpu-pjrt wheel), and through ccache (Debian's, installed by setup) with the
# checkout as its base folder: the core and the C++ suites compile only once for the
# two releases; only the torch-facing files compile again.
PJRT_INCLUDE := build/pjrt_include
export CCACHE_BASEDIR := $(CURDIR)
CCACHE = $(shell command -v ccache 2>/dev/null)
BUILD_DEFS = -C cmake.define.TORCHTPU_BUILD_TESTS=ON -C cmake.define.TORCHTPU_WERROR=ON \
             -C cmake.define.PJRT_C_API_INCLUDE_DIR=$(abspath $(PJRT_INCLUDE)) \
             $(if $(CCACHE),-C cmake.define.CMAKE_CXX_COMPILER_LAUNCHER=$(CCACHE))

.PHONY: run test bench bench-peers coverage op-index fuzz setup build wheel cpp-test py-test \
        format lint clean setup-torch214 build-torch214 test-torch214 accelerator-check \
        accelerator-files setup-vllm test-vllm

run: build
	$(PY) examples/train.py

test: build lint cpp-test py-test test-torch214 test-vllm

# Side-by-side benchmarks (JSON, markdown table and plot in benchmarks/results/).
bench: build
	$(PIP) install matplotlib
	$(PY) benchmarks/run.py $(BENCH_ARGS)

# torchtpu against its peers (benchmarks/peers/run.py): PyTorch/XLA 2.9 and torchax in
# .venv-peers, the CPU eager and torchtpu rows in .venv; writes
# benchmarks/results/peers.{json,md,png}. PEERS_ARGS="--n 3 --systems defer,xla_lazy" and
# so on. Not part of `make test`.
bench-peers: build $(PEERS_VENV)/.stamp-deps
	$(PIP) install matplotlib
	$(PY) benchmarks/peers/run.py $(PEERS_ARGS)

# The peers' venv: torch-xla 2.9.0 needs torch 2.9.0, and torchax 0.0.13 does not import
# with torch 2.13 (aten.prod has no overload dim_Dimname), so both take torch 2.9.0 (PyPI
# has only its CUDA 12 build, which imports only with its nvidia-*-cu12 wheels: most of
# the venv's 7.6 GB). torchax imports flax without declaring it.
$(PEERS_VENV)/.stamp-deps: Makefile
	@test -x $(PEERS_PY) || $(PYTHON) -m venv $(PEERS_VENV)
	$(PEERS_PIP) install $(PEERS_DEPS)
	@touch $@

# The full OpInfo sweep (every sample, float32/bfloat16/int64/bool) and its report.
coverage: build
	$(PY) tests/opinfo/sweep.py $(COVERAGE_ARGS)

# The op index (docs/ops.md): every ATen overload torchtpu implements, where and how.
op-index: build
	$(PY) tools/op_index.py

# The differential fuzzer: 10,000 random programs per mode against the CPU; repros and
# summary.json in build/fuzz/ (FUZZ_ARGS="--workers 4 --seed 1" and so on).
fuzz: build
	$(PY) tests/fuzz/run.py --programs 10000 --mode all $(FUZZ_ARGS)

setup: $(VENV)/.stamp-deps /usr/include/gtest/gtest.h /usr/bin/ccache

$(VENV)/.stamp-deps: pyproject.toml Makefile
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install $(DEPS) $(KERNEL_DEPS)
	$(PIP) install --no-deps $(HELION)
	$(PIP) install --no-deps $(TITAN)
	@touch $@

/usr/include/gtest/gtest.h:
	@echo "installing GoogleTest (Debian's libgtest-dev)"
	apt-get install -y -q libgtest-dev >/dev/null 2>&1 || \
	  (apt-get update -q >/dev/null && apt-get install -y -q libgtest-dev >/dev/null)

/usr/bin/ccache:
	@echo "installing ccache (Debian's)"
	apt-get install -y -q ccache >/dev/null 2>&1 || \
	  (apt-get update -q >/dev/null && apt-get install -y -q ccache >/dev/null)

$(PJRT_INCLUDE)/pjrt_c_api.h: $(VENV)/.stamp-deps
	mkdir -p $(PJRT_INCLUDE)
	cp "$$($(PY) -c 'import xla_plugins.xla_cpu_pjrt as p, os; print(os.path.dirname(p.__file__))')/include/pjrt_c_api.h" $@

build: setup $(VENV)/.stamp-build

# torchtpu._C (editable install, build/py) and, in the same build, the C++ suites.
$(VENV)/.stamp-build: $(CSRC) $(VENV)/.stamp-deps $(PJRT_INCLUDE)/pjrt_c_api.h
	@echo "building torchtpu._C and the C++ suites"
	@touch $@.start   # the stamp carries the start time: edits made during the build rebuild next time
	$(PIP) install --no-build-isolation --no-deps $(BUILD_DEFS) -e .
	@mv $@.start $@

# The same source against torch 2.14.1: set up .venv214, build torchtpu._C into it
# (editable, from build/py214) together with the C++ suites (one build of the core
# for both), run those on .venv214's plugins, then the pytest subset. (-Werror is
# the default build's: cpp-test compiles the same torch-free C++ with it.)
setup-torch214: $(VENV214)/.stamp-deps /usr/include/gtest/gtest.h /usr/bin/ccache

$(VENV214)/.stamp-deps: pyproject.toml Makefile
	@test -x $(PY214) || $(PYTHON) -m venv $(VENV214)
	$(PIP214) install $(DEPS214)
	@touch $@

build-torch214: setup-torch214 $(VENV214)/.stamp-build

$(VENV214)/.stamp-build: $(CSRC) $(VENV214)/.stamp-deps $(PJRT_INCLUDE)/pjrt_c_api.h
	@echo "building torchtpu._C against torch 2.14.1"
	@touch $@.start
	$(PIP214) install --no-build-isolation --no-deps -C build-dir=$(PY_BUILD214) $(BUILD_DEFS) -e .
	@mv $@.start $@

test-torch214: build-torch214
	ctest --test-dir $(PY_BUILD214) --output-on-failure
	$(PY214) -m pytest -q $(PYTEST214)

# vLLM (see VENV_VLLM above): make setup-vllm, then make test-vllm.
setup-vllm: build $(VENV_VLLM)/.stamp-build

$(VENV_VLLM)/.stamp-deps: $(VENV)/.stamp-deps Makefile
	@echo "making $(VENV_VLLM): a copy of $(VENV), plus $(VLLM) and its pinned imports (--no-deps)"
	rm -rf $(VENV_VLLM) build/vllm
	cp -a $(VENV) $(VENV_VLLM)
	rm -f $(VENV_VLLM)/.stamp-*
	@# The copied scripts (pip, pytest, activate) name the venv .venv was made as.
	old=$$(sed -n 's/^VIRTUAL_ENV="\(.*\)"$$/\1/p' $(VENV)/bin/activate); test -n "$$old"; \
	  grep -lIr "$$old" $(VENV_VLLM)/bin | xargs -r sed -i "s|$$old|$(abspath $(VENV_VLLM))|g"
	mkdir -p build/vllm
	$(PY) -m pip freeze --exclude-editable 2>/dev/null | sort > build/vllm/freeze-venv.txt
	grep -E '^(torch|transformers|numpy)==' build/vllm/freeze-venv.txt > $(VLLM_CONSTRAINTS)
	$(PIP_VLLM) install --no-deps -c $(VLLM_CONSTRAINTS) $(VLLM) $(VLLM_DEPS)
	$(PY_VLLM) -m pip freeze --exclude-editable 2>/dev/null | sort > build/vllm/freeze-venv-vllm.txt
	@if comm -23 build/vllm/freeze-venv.txt build/vllm/freeze-venv-vllm.txt | grep .; then \
	  echo "error: the packages above differ between $(VENV) and $(VENV_VLLM)"; exit 1; fi
	@touch $@

# torchtpu in .venv-vllm: .venv's editable install (the sources are this checkout's), copied
# again whenever .venv's _C is newer (make build, or a pip install -e . by hand).
$(VENV_VLLM)/.stamp-build: $(VENV)/.stamp-build $(VENV_VLLM)/.stamp-deps \
                           $(wildcard $(VENV)/lib/python*/site-packages/torchtpu/_C*.so)
	@src=$(call SITE_OF,$(PY)); dst=$(call SITE_OF,$(PY_VLLM)); set -e; \
	  echo "copying torchtpu (_C, dist-info, editable finder) from $$src to $$dst"; \
	  rm -rf $$dst/torchtpu $$dst/torchtpu-*.dist-info $$dst/_editable_skbc_torchtpu.*; \
	  cp -a $$src/torchtpu $$src/torchtpu-*.dist-info $$src/_editable_skbc_torchtpu.* $$dst/
	cd build && ../$(PY_VLLM) -c 'import torchtpu.vllm, vllm; assert torchtpu.vllm.register() == torchtpu.vllm.PLATFORM; print("vllm", vllm.__version__, "on torchtpu", torchtpu.__file__)'
	@touch $@

test-vllm: setup-vllm
	$(PY_VLLM) -m pytest -q $(PYTEST_VLLM)

# Build and test on the torch and the GPU of an accelerator machine, with no network
# (tools/accelerator_check.sh; ACCEL_ARGS="--plugin cpu" and so on). What that machine
# lacks is prepared here by accelerator-files, under ignored folders that travel with
# the work tree: pjrt_c_api.h (build/pjrt_include) and pytest's wheels (build/accel_wheels).
accelerator-check:
	tools/accelerator_check.sh $(ACCEL_ARGS)

accelerator-files: setup $(PJRT_INCLUDE)/pjrt_c_api.h
	$(PIP) download -q --no-deps --only-binary=:all: -d build/accel_wheels \
	  pytest==9.2.0 iniconfig==2.3.1 pluggy==1.7.0 packaging==26.4 pygments==2.21.0

# A wheel (dist/) for an environment that already has a supported torch and a
# plugin: built without build isolation against .venv's torch (pip never fetches
# another), in its own build folder, without the C++ suites (README, "Installing
# into an existing environment"); with build's compiler flags, so that ccache
# serves what make build compiled.
wheel: setup $(PJRT_INCLUDE)/pjrt_c_api.h
	$(PY) -m pip wheel --disable-pip-version-check -q --no-build-isolation --no-deps \
	  -C build-dir=build/wheel -C cmake.define.TORCHTPU_WERROR=ON \
	  -C cmake.define.PJRT_C_API_INCLUDE_DIR=$(abspath $(PJRT_INCLUDE)) \
	  $(if $(CCACHE),-C cmake.define.CMAKE_CXX_COMPILER_LAUNCHER=$(CCACHE)) -w dist .

# The C++ suites (built with the extension, in build/py), on both CPU plugins.
cpp-test: build
	ctest --test-dir build/py --output-on-failure

py-test: build
	$(PY) -m pytest -q $(PYTEST_ARGS)

format: setup
	$(VENV)/bin/clang-format -i $(filter %.cc %.h,$(CSRC))
	$(VENV)/bin/ruff format torchtpu torchtpu_autoload tests examples benchmarks tools

lint: setup
	$(VENV)/bin/ruff check torchtpu torchtpu_autoload tests examples benchmarks tools
	$(VENV)/bin/ruff format --check torchtpu torchtpu_autoload tests examples benchmarks tools
	@echo "clang-format --dry-run -Werror (C++ sources)"
	@$(VENV)/bin/clang-format --dry-run -Werror $(filter %.cc %.h,$(CSRC))
	@echo "functions over 100 lines (tools/long_functions.py)"
	@$(PY) tools/long_functions.py

clean:
	rm -rf build $(VENV)/.stamp-build $(VENV214)/.stamp-build $(VENV_VLLM)/.stamp-build
