# make install | test | test-slow | demo | train | bench | bench-quick | bench-check | fuzz | clean
PYTHON ?= python3
STAMP := .make/installed

.PHONY: install test test-slow demo train bench bench-quick bench-check clean fuzz

# Editable install of sstad with its test tools; redone only when pyproject.toml changes.
install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m pip install -e ".[test]"
	@mkdir -p $(@D) && touch $@

# One worker per core (at most 4); a test file runs in one worker, in order.
test: install
	$(PYTHON) -m pytest -q -m "not slow" -n auto --maxprocesses 4 --dist loadfile

# The whole suite, slow tests included.
test-slow: install
	$(PYTHON) -m pytest -q

demo: install
	$(PYTHON) examples/demo.py

# The digits MLP (examples/train_digits.py) with its extra (scikit-learn, matplotlib, tqdm):
# make train [TRAIN_ARGS="--precision float16 --resume"]
TRAIN_STAMP := .make/installed-train

$(TRAIN_STAMP): pyproject.toml
	$(PYTHON) -m pip install -e ".[train]"
	@mkdir -p $(@D) && touch $@

train: $(TRAIN_STAMP)
	$(PYTHON) examples/train_digits.py $(TRAIN_ARGS)

# The benchmark peers (JAX, PyTorch, autograd) are an extra, installed only for bench.
BENCH_STAMP := .make/installed-bench

$(BENCH_STAMP): pyproject.toml
	$(PYTHON) -m pip install -e ".[test,bench]"
	@mkdir -p $(@D) && touch $@

bench: $(BENCH_STAMP)
	$(PYTHON) benchmarks/run.py $(BENCH_ARGS)

bench-quick: $(BENCH_STAMP)
	$(PYTHON) benchmarks/run.py --quick $(BENCH_ARGS)

# ADBench reference checks (GMM test.txt, LSTM l2_c1024) on both backends
bench-check: install
	$(PYTHON) -m pytest -q benchmarks/test_references.py

# The cache of compiled code (~/.cache/sstad or $SSTAD_CACHE_DIR) is kept: `sstad cache clear`.
clean:
	rm -rf .make build dist *.egg-info .pytest_cache .hypothesis .benchmarks
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
	@echo "kept: the cache of compiled code (sstad cache info; sstad cache clear empties it)"

# A fuzzing campaign over generated programs: make fuzz N=10000 [SEED=0] [NUMBA=20]
N ?= 1000
SEED ?= 0
NUMBA ?= 0
fuzz: install
	SSTAD_CACHE_DIR=$${SSTAD_CACHE_DIR:-/tmp/sstad_fuzz_cache} $(PYTHON) -m sstad.testing.fuzz --n $(N) --seed $(SEED) --numba $(NUMBA)
