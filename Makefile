# The two commands that matter: `make study` and `make test` (see README.md).
SHELL := /bin/bash
VENV := .venv/bin
SCALE ?= paper
CORES ?= all

# CI's tier: everything but the `extended` tests (the virtual testbed in the VM, 10 minutes; the
# router-forwarding study in the VM, the emulated TCP traced, the single-node SLURM cluster, 10
# more; the lossy-link variants in the VM and a VM batch on its own, 10 more; the workload guide
# in a fresh ns-3 build and the VM, 10 more); `make test-all` runs every test.
PYTEST_ARGS ?= -m "not extended"

.PHONY: setup study test test-all lint format clean

setup:
	tools/setup base mininet vm paper testbed slurm

# The study: first what it will run and its expected CPU-hours (emusim plan, from the kept costs:
# docs/cli.md), kept in $(PLAN) for the progress line each finished job prints (Snakemake's
# logger plugin emusim); then, even if the run failed, what its jobs cost, into
# data/costs/$(SCALE).csv (python -m emusim.costs collect), to commit.
PLAN = logs/plan-$(SCALE).json

study: setup
	$(VENV)/emusim plan all --scale $(SCALE) --cores $(CORES) --save $(PLAN)
	$(VENV)/snakemake all --cores $(CORES) --config scale=$(SCALE) \
		--logger emusim --logger-emusim-plan $(PLAN); \
	status=$$?; $(VENV)/python -m emusim.costs collect --scale $(SCALE); exit $$status

test: setup
	$(VENV)/ruff check src tests workflow benchmarks kernel-dropper/test
	$(VENV)/ruff format --check src tests workflow benchmarks kernel-dropper/test
	$(VENV)/snakefmt --check Snakefile workflow/rules
	$(VENV)/lint-imports
	$(VENV)/python -m pytest tests $(PYTEST_ARGS) --durations=25

test-all:
	$(MAKE) test PYTEST_ARGS=

lint:
	$(VENV)/ruff check src tests workflow benchmarks kernel-dropper/test
	$(VENV)/snakefmt --check Snakefile workflow/rules
	$(VENV)/lint-imports
	$(VENV)/snakemake --lint

format:
	$(VENV)/ruff format src tests workflow benchmarks kernel-dropper/test
	$(VENV)/ruff check --fix src tests workflow benchmarks kernel-dropper/test
	$(VENV)/snakefmt Snakefile workflow/rules

clean:
	rm -rf results logs build figures/*.pdf figures/*.png paper/tables/* paper/build paper/generated
