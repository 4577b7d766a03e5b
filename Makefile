# Two set-up commands: `make build` and `make test`. Both install what they need.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: install build test test-fast lint serve api clean bench bench-against

# pytest on every core (pytest-xdist); each test module stays on one worker, so a module's
# fixtures are built once. PYTEST_WORKERS=0 runs the tests in one process.
PYTEST_WORKERS ?= auto
PYTEST_XDIST   := -n $(PYTEST_WORKERS) --dist loadfile

# The tests start many Python processes (builds, servers, the test workers): without the
# bytecode cache each one compiles the project and rewrites the tests' asserts again.
unexport PYTHONDONTWRITEBYTECODE

include make/nginx.mk make/lighthouse.mk
include make/postgres.mk

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev,postgres]'
	touch $(STAMP)

install: $(STAMP)

## build: install, then build the demo store into output/ from the embedded companion
build: install
	$(BIN)/storefront build

## test: install (Python packages; nginx, Chromium and Lighthouse for the serving and page
## checks; PostgreSQL), lint, run the companion's database tests on PostgreSQL, run the whole
## suite (the companion's on SQLite), then score the demo store's pages with Lighthouse
test: install lint nginx lighthouse-deps test-postgres
	$(BIN)/pytest $(PYTEST_XDIST)
	$(MAKE) --no-print-directory lighthouse

## test-fast: the inner loop: the suite but its slow (fuzzing, large seeds), browser and nginx
## tests, on every core; no lint, and no PostgreSQL, nginx or Chromium needed
test-fast: install
	$(BIN)/pytest $(PYTEST_XDIST) -m "not slow and not browser and not serving"

## lint: ruff, mypy --strict on the packages, and the import contracts (stages, no cycles)
lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports

## serve: build, then serve output/ with the embedded companion on the same origin
serve: build
	$(BIN)/storefront serve

## api: run the companion API on the demo store
api: install
	$(BIN)/storefront api --seed demo

## bench: crawl requests, rebuild times, render throughput and memory of the demo store at
## 1,000, 10,000 and 100,000 products (about 25 minutes; BENCH_ARGS=--quick: the first two,
## --large adds 50,000; --hostile: only builds against hostile answers, their peak memory;
## --resume: only a 10,000-product first build at the real limits on a simulated clock, stopped
## twice and continued; --sale: only a sale on one key (page views recorded in Chromium and
## replayed at 600 and 3,000 product views a minute, a greedy client, 20 purchases; about 10
## minutes); --peer: only the comparison with Hugo, --keep DIR reusing each size's
## store and crawl cache; --no-peer: without it; --search: only the search index at 10,000 and
## 50,000 products beside Pagefind, --sizes to change them);
## writes its sections of docs/benchmarks.md
bench: install
	$(BIN)/python -m benchmarks.bench $(BENCH_ARGS)

## bench-against: the build figures of this tree beside another revision's, alternated in one
## run on one store (REF=<git revision>, default the last commit; BENCH_ARGS as benchmarks/against.py)
REF ?= HEAD
bench-against: install
	$(BIN)/python -m benchmarks.against $(REF) $(BENCH_ARGS)

clean:
	rm -rf output/* .storefront-cache .pytest_cache .mypy_cache .ruff_cache
