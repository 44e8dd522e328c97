# The README's two commands: `make tournament` and `make test`.
# Both create .venv on first use; only Python >= 3.11 and make are needed (node, if present,
# adds the JavaScript bot to the tournament: one file, nothing to install).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
JS     := bots/js
ARENA  := $(BIN)/arena
BOARDS ?= 8
SEED   ?= 1

.PHONY: test tournament clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python >= 3.11 is needed, found " + sys.version.split()[0])'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

test: $(STAMP)
	$(BIN)/python -m pytest

# A real duplicate tournament among the bundled bots, then its standings.
tournament: $(STAMP)
	$(ARENA) bot add bots/random_bot.py --name random
	$(ARENA) bot add bots/greedy_bot.py --name greedy
	$(ARENA) bot add bots/sweeper_bot.py --name sweeper
	$(ARENA) bot add bots/builder_bot.py --name builder
	$(ARENA) bot add bots/first_bot.py --name first
	@if command -v node >/dev/null 2>&1; then $(ARENA) bot add $(JS)/random_bot.cjs --name js-random; fi
	$(ARENA) tournament run --all --boards $(BOARDS) --seed $(SEED) --name bundled-$$(date +%Y%m%d-%H%M%S)

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
