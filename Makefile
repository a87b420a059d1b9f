# make install | test | test-slow | demo | bench | clean
PYTHON ?= python3
STAMP := .make/installed

.PHONY: install test test-slow demo bench clean fuzz

# Editable install of sstad with its test tools; redone only when pyproject.toml changes.
install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m pip install -e ".[test]"
	@mkdir -p $(@D) && touch $@

test: install
	$(PYTHON) -m pytest -q -m "not slow"

# The whole suite, slow tests included.
test-slow: install
	$(PYTHON) -m pytest -q

demo: install
	$(PYTHON) examples/demo.py

bench: install
	$(PYTHON) benchmarks/run.py

clean:
	rm -rf .make build dist *.egg-info .pytest_cache .hypothesis .benchmarks
	find . -name __pycache__ -type d -prune -exec rm -rf {} +

# A fuzzing campaign over generated programs: make fuzz N=10000 [SEED=0] [NUMBA=20]
N ?= 1000
SEED ?= 0
NUMBA ?= 0
fuzz: install
	SSTAD_CACHE_DIR=$${SSTAD_CACHE_DIR:-/tmp/sstad_fuzz_cache} $(PYTHON) -m sstad.testing.fuzz --n $(N) --seed $(SEED) --numba $(NUMBA)
