# The README's two commands: `make tournament` and `make test`.
# Both create .venv on first use; only Python >= 3.11 and make are needed (node, if present,
# adds the JavaScript bot to the tournament).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
JS     := bots/js
ARENA  := $(BIN)/arena
BOARDS ?= 8
SEED   ?= 1

.PHONY: test tournament js clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python >= 3.11 is needed, found " + sys.version.split()[0])'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

# The JavaScript bot's one dependency (msgpack), when node and npm are here.
js:
	@if command -v npm >/dev/null 2>&1 && [ -f $(JS)/package.json ] && [ ! -d $(JS)/node_modules ]; then \
		npm ci --prefix $(JS) --no-audit --no-fund --loglevel=error; fi

test: $(STAMP) js
	$(BIN)/python -m pytest

# A real duplicate tournament among the bundled bots, then its standings.
tournament: $(STAMP) js
	$(ARENA) bot add bots/random_bot.py --name random
	$(ARENA) bot add bots/greedy_bot.py --name greedy
	$(ARENA) bot add bots/sweeper_bot.py --name sweeper
	$(ARENA) bot add bots/builder_bot.py --name builder
	$(ARENA) bot add bots/first_bot.py --name first
	@# The JavaScript bot is registered as its folder, so that its node_modules is stored with it.
	@if command -v node >/dev/null 2>&1 && [ -d $(JS)/node_modules ]; then \
		$(ARENA) bot add $(JS) --name js-random --command "node random_bot.mjs"; fi
	$(ARENA) tournament run --all --boards $(BOARDS) --seed $(SEED) --name bundled-$$(date +%Y%m%d-%H%M%S)

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis $(JS)/node_modules
