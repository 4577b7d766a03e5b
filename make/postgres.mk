# PostgreSQL for the companion's tests: Debian's package, and a private, throw-away cluster.
#   make postgres          install PostgreSQL when missing (apt-get); nothing to do when present
#   make postgres-start    create (once) and start the private cluster on $(PG_PORT)
#   make postgres-stop     stop it
#   make test-postgres     start it, run tests/companion's database tests against it, stop it
#                          (always)
#   make loadtest          start it, run benchmarks/loadtest.py against it, stop it (always)
# The cluster lives in $(PG_DIR) (data, socket, log), listens on loopback only, trusts local
# connections, and trades durability for speed (fsync off): it holds test data only.
# initdb refuses to run as root, so the cluster belongs to the `postgres` user.
# Needs the Makefile's `install` target and $(BIN); `test` depends on `test-postgres`.

PG_PORT  ?= 54329
PG_DIR   ?= /tmp/storefront-pg-$(PG_PORT)
PG_BIN    = $(lastword $(sort $(wildcard /usr/lib/postgresql/*/bin)))
PG_RUN   := $(shell test "$$(id -u)" = 0 && echo "runuser -u postgres --")
PG_URL   := postgresql+psycopg://postgres@127.0.0.1:$(PG_PORT)/postgres
PG_OPTS  := -c listen_addresses=127.0.0.1 -c port=$(PG_PORT) -c unix_socket_directories=$(PG_DIR) \
            -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300

.PHONY: postgres postgres-start postgres-stop test-postgres

postgres:
	@test -n "$(PG_BIN)" || { \
		echo "installing postgresql (apt-get)"; \
		apt-get update -qq >/dev/null && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
			postgresql >/dev/null; \
	}

postgres-start: postgres
	@set -e; bin=$$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1); \
	mkdir -p $(PG_DIR); \
	if [ "$$(id -u)" = 0 ]; then chown postgres: $(PG_DIR); fi; \
	if [ ! -f $(PG_DIR)/data/PG_VERSION ]; then \
		$(PG_RUN) $$bin/initdb -D $(PG_DIR)/data -U postgres --auth=trust \
			--no-sync --encoding=UTF8 --locale=C.UTF-8 >/dev/null; \
	fi; \
	if ! $(PG_RUN) $$bin/pg_ctl -D $(PG_DIR)/data status >/dev/null 2>&1; then \
		$(PG_RUN) $$bin/pg_ctl -D $(PG_DIR)/data -l $(PG_DIR)/server.log -w \
			-o "$(PG_OPTS)" start >/dev/null; \
	fi; \
	echo "postgresql test cluster at $(PG_URL)"

# Stops the cluster if it runs; a shell snippet, so recipes can run it whatever came before.
PG_STOP = bin=$$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1); \
	if [ -n "$$bin" ] && [ -f $(PG_DIR)/data/PG_VERSION ]; then \
		$(PG_RUN) $$bin/pg_ctl -D $(PG_DIR)/data -m fast stop >/dev/null 2>&1 || true; \
	fi

postgres-stop:
	@$(PG_STOP)

## test-postgres: the companion's tests that make a database (marked `db`, see
## tests/companion/conftest.py) once more, on PostgreSQL (the cluster stops after); the others
## run once, in the whole suite
test-postgres: install postgres-start
	@status=0; \
	STOREFRONT_TEST_POSTGRES=$(PG_URL) $(BIN)/pytest -q -p no:cacheprovider $(PYTEST_XDIST) \
		-m db tests/companion || status=$$?; \
	$(PG_STOP); \
	exit $$status

## loadtest: a bare-endpoint baseline (10 s), 200 shoppers for 60 s against 2 workers on the
## private cluster, the baseline and the catalogue alone in turns (30 s each), then the audit
## (benchmarks/loadtest.py; loopback only, stops by itself, the cluster stops after);
## LOADTEST_ARGS="--think 0.2 0.8" runs the stress pace, "--seconds 20 --probe-seconds 10" a
## shorter run
.PHONY: loadtest
loadtest: install postgres-start
	@status=0; \
	timeout 600 $(BIN)/python -m benchmarks.loadtest --server $(PG_URL) --shoppers 200 \
		--seconds 60 --workers 2 $(LOADTEST_ARGS) || status=$$?; \
	$(PG_STOP); \
	exit $$status
