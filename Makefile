# The README's two commands: `make tournament` and `make test`.
# Both create .venv on first use; only Python >= 3.11 and make are needed (node, if present,
# adds the JavaScript bot to the tournament: one file, nothing to install).
# The interpreter .venv is made with: the first of PYTHONS that is 3.11 or newer and can make a
# venv. The system's own comes first: distribution builds are optimised (PGO, LTO), and the arena
# needs about a tenth less CPU on Debian's than on a plain source build (bench/README.md); it is
# also the interpreter sandboxed bots run under. `make PYTHONS=python3.12` chooses another.
PYTHONS ?= /usr/bin/python3 python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
TESTED := $(VENV)/.installed-test
JS     := bots/zwicker/js
ARENA  := $(BIN)/arena
BOARDS ?= 8
SEED   ?=

.PHONY: test tournament clean c-bot browser

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || for p in $(PYTHONS); do \
	    if $$p -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null && $$p -m venv $(VENV) 2>/dev/null; then \
	        echo "made $(VENV) with $$p ($$($$p --version))"; break; fi; rm -rf $(VENV); done
	@test -x $(BIN)/python || { echo "make: Python >= 3.11 with venv is needed; tried $(PYTHONS)" >&2; exit 1; }
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	touch $(STAMP)

# The suite's extras on top (pytest, chromium's driver, Dask, PettingZoo, OpenSpiel, ruff, mypy):
# only `make test` installs them; a tournament needs the arena alone.
$(TESTED): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(TESTED)

# The linter and the type checker first (their settings: pyproject.toml's [tool.ruff], [tool.mypy]).
# Then the suite on JOBS workers (pytest-xdist, a module's tests on one worker), and after it the
# tests marked `alone` (tests/conftest.py: CPU shares, clocks, caches) with the machine to
# themselves. `make test JOBS=1`: the whole suite in one process, as plain `pytest` runs it.
JOBS ?= 2
test: $(TESTED) c-bot browser
	$(BIN)/ruff check .
	$(BIN)/mypy
	@if [ "$(JOBS)" -gt 1 ]; then \
	    $(BIN)/python -m pytest -n $(JOBS) --dist loadfile -m "not alone" && $(BIN)/python -m pytest -m alone; \
	else $(BIN)/python -m pytest; fi

# The compiled example bot (bots/zwicker/c), when a C compiler is present; its test skips without one.
c-bot:
	@if command -v cc >/dev/null 2>&1; then $(MAKE) -s -C bots/zwicker/c; else echo "no C compiler: bots/zwicker/c not built"; fi

# The browser tests drive Debian's chromium (Playwright, never a downloaded browser): installed
# here when missing and we are root with apt-get; otherwise those tests skip, naming the package.
browser:
	@test -x /usr/bin/chromium || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 \
	    && echo "make: installing Debian's chromium for the browser tests" \
	    && { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null 2>&1 \
	         || { apt-get update -qq >/dev/null 2>&1 \
	              && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null 2>&1; }; } \
	    || echo "make: chromium not installed; the browser tests will skip"; } || true

# Real duplicate tournaments among the bundled bots (by name: bots registered besides them stay
# out of them), each with its standings: Zwicker's, then a three-player Zwicken one.
BUNDLED := random greedy sweeper builder first
tournament: $(STAMP)
	$(ARENA) bot add bots/zwicker/random_bot.py --name random
	$(ARENA) bot add bots/zwicker/greedy_bot.py --name greedy
	$(ARENA) bot add bots/zwicker/sweeper_bot.py --name sweeper
	$(ARENA) bot add bots/zwicker/builder_bot.py --name builder
	$(ARENA) bot add bots/zwicker/first_bot.py --name first
	@if command -v node >/dev/null 2>&1; then $(ARENA) bot add $(JS)/random_bot.cjs --name js-random; fi
	$(ARENA) tournament run --bots $$(echo $(BUNDLED) | tr ' ' ,)$$(command -v node >/dev/null 2>&1 && echo ,js-random) \
	    --boards $(BOARDS) $(if $(SEED),--seed $(SEED)) --name bundled-$$(date +%Y%m%d-%H%M%S)
	$(ARENA) bot add bots/zwicken/zwicken_random_bot.py --name zwicken_random --game zwicken
	$(ARENA) bot add bots/zwicken/zwicken_rule_bot.py --name zwicken_rule --game zwicken
	$(ARENA) bot add bots/zwicken/zwicken_mc_bot.py --name zwicken_mc --game zwicken
	$(ARENA) tournament run --game zwicken --players 3 --bots zwicken_random,zwicken_rule,zwicken_mc \
	    --boards $(BOARDS) $(if $(SEED),--seed $(SEED)) --name zwicken-$$(date +%Y%m%d-%H%M%S)

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis .mypy_cache .ruff_cache
