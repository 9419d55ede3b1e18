# Two commands a newcomer needs: `make run` and `make test`. Both build .venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint bench screenshots clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,server,postgres]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/hippo-tui

test: $(STAMP)
	$(BIN)/ruff check hippo_tui tests bench tools
	$(BIN)/mypy
	$(BIN)/python -m pytest -q

bench: $(STAMP)
	for b in bench/bench_*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

screenshots: $(STAMP)
	$(BIN)/python -m tools.screenshots screenshots

clean:
	rm -rf $(VENV) build dist *.egg-info
