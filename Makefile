.PHONY: run join test bench lint clean gpu-check
SHELL := /bin/bash

run:  ## set up everything (bubblewrap and redis-server too), then the site and its workers, supervised
	@bash scripts/run.sh

join:  ## a second grading host: only grading workers, on the first site's broker (BROKER_URL=redis://:pw@host:port/0)
	@bash scripts/join.sh "$(BROKER_URL)"

test:  ## the whole suite but the gpu marker
	@bash scripts/test.sh

bench:  ## the benchmarks (slow; see README)
	@bash scripts/bootstrap.sh
	.venv/bin/python -m gpu_worker.bench engine --out var/bench-engine.json
	.venv/bin/python -m gpu_worker.bench collectives --out var/bench-collectives.json
	.venv/bin/python -m gpu_worker.bench attention --out var/bench-attention.json

lint:  ## ruff: the linter and the formatter's check (what CI runs before the tests)
	@bash scripts/bootstrap.sh
	.venv/bin/ruff check .
	.venv/bin/ruff format --check .

gpu-check:  ## prove the GPU path on this host: PASS/FAIL/SKIP per step, report in var/gpu-check/
	@bash scripts/gpu_check.sh

clean:
	rm -rf var/broker var/results var/redis var/run.env var/test-db*.sqlite3*
