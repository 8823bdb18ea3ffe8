# torchtpu: the two commands of the README, and their building blocks.
#   make run    set up (if needed) and run the main job on the embedded CPU plugin
#   make test   set up (if needed) and run every test (ctest, then pytest)
#   make coverage  the full OpInfo sweep -> docs/coverage.{md,json}
# Both are idempotent: a second run skips the steps whose inputs did not change.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check -q
CPP_BUILD := build/cpp
CSRC := $(shell find csrc -name '*.cc' -o -name '*.h') CMakeLists.txt pyproject.toml
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

.PHONY: run test bench coverage fuzz setup build cpp-test py-test format lint clean

run: build
	$(PY) examples/train.py

test: build lint cpp-test py-test

# Side-by-side benchmarks (JSON, markdown table and plot in benchmarks/results/).
bench: build
	$(PIP) install matplotlib
	$(PY) benchmarks/run.py $(BENCH_ARGS)

# The full OpInfo sweep (every sample, float32/bfloat16/int64/bool) and its report.
coverage: build
	$(PY) tests/opinfo/sweep.py $(COVERAGE_ARGS)

# The differential fuzzer: 10,000 random programs per mode against the CPU; repros and
# summary.json in build/fuzz/ (FUZZ_ARGS="--workers 4 --seed 1" and so on).
fuzz: build
	$(PY) tests/fuzz/run.py --programs 10000 --mode all $(FUZZ_ARGS)

setup: $(VENV)/.stamp-deps /usr/include/gtest/gtest.h

$(VENV)/.stamp-deps: pyproject.toml Makefile
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install $(DEPS) $(KERNEL_DEPS)
	$(PIP) install --no-deps $(HELION)
	@touch $@

/usr/include/gtest/gtest.h:
	@echo "installing GoogleTest (Debian's libgtest-dev)"
	apt-get install -y -q libgtest-dev >/dev/null 2>&1 || \
	  (apt-get update -q >/dev/null && apt-get install -y -q libgtest-dev >/dev/null)

build: setup $(VENV)/.stamp-build

$(VENV)/.stamp-build: $(CSRC) $(VENV)/.stamp-deps
	@echo "building torchtpu._C"
	@touch $@.start   # the stamp carries the start time: edits made during the build rebuild next time
	$(PIP) install --no-build-isolation --no-deps -e .
	@mv $@.start $@

cpp-test: setup
	@test -f $(CPP_BUILD)/build.ninja || \
	  cmake -S . -B $(CPP_BUILD) -G Ninja -DTORCHTPU_BUILD_TESTS=ON -DTORCHTPU_BUILD_PYTHON=OFF \
	    -DTORCHTPU_WERROR=ON -DPython_EXECUTABLE=$(abspath $(PY)) >/dev/null
	cmake --build $(CPP_BUILD)
	ctest --test-dir $(CPP_BUILD) --output-on-failure

py-test: build
	$(PY) -m pytest -q $(PYTEST_ARGS)

format: setup
	$(VENV)/bin/clang-format -i $(filter %.cc %.h,$(CSRC))
	$(VENV)/bin/ruff format torchtpu torchtpu_autoload tests examples benchmarks

lint: setup
	$(VENV)/bin/ruff check torchtpu torchtpu_autoload tests examples benchmarks
	$(VENV)/bin/ruff format --check torchtpu torchtpu_autoload tests examples benchmarks
	@echo "clang-format --dry-run -Werror (C++ sources)"
	@$(VENV)/bin/clang-format --dry-run -Werror $(filter %.cc %.h,$(CSRC))

clean:
	rm -rf build $(VENV)/.stamp-build
