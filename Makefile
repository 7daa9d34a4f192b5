# The two commands that matter: `make study` and `make test` (see README.md).
SHELL := /bin/bash
VENV := .venv/bin
SCALE ?= paper
CORES ?= all

# CI's tier: everything but the `extended` tests (the virtual testbed in the VM, 10 minutes; the
# router-forwarding study in the VM, the emulated TCP traced, the single-node SLURM cluster, 10
# more; the lossy-link family in the VM, 10 more); `make test-all` runs every test. The workload
# guide's test is in CI: its copy's ns-3 build reuses this checkout's objects through ccache
# (emusim.backends.ns3.build). PYTEST_ARGS adds to both halves' pytest, e.g.
# PYTEST_ARGS='-k lossy'.
TIER ?= not extended
PYTEST_ARGS ?=
PYTEST = $(VENV)/python -m pytest tests $(PYTEST_ARGS) --durations=25

.PHONY: setup study test test-all lint format clean

setup:
	tools/setup base mininet vm paper testbed slurm

# The study: first what it will run and its expected CPU-hours (emusim plan, from the kept costs:
# docs/cli.md), kept in $(PLAN) for the progress line each finished job prints (Snakemake's
# logger plugin emusim); then, even if the run failed, what its jobs cost, into
# data/costs/$(SCALE).csv (python -m emusim.planning.costs collect), to commit.
PLAN = logs/plan-$(SCALE).json

study: setup
	$(VENV)/emusim plan all --scale $(SCALE) --cores $(CORES) --save $(PLAN)
	$(VENV)/snakemake all --cores $(CORES) --config scale=$(SCALE) \
		--logger emusim --logger-emusim-plan $(PLAN); \
	status=$$?; $(VENV)/python -m emusim.planning.costs collect --scale $(SCALE); exit $$status

test: setup
	$(VENV)/ruff check src tests workflow benchmarks kernel-dropper/test
	$(VENV)/ruff format --check src tests workflow benchmarks kernel-dropper/test
	$(VENV)/snakefmt --check Snakefile workflow/rules
	$(VENV)/lint-imports
	@# what both halves use, built before they start, so that their fixtures find it built
	$(VENV)/python -m emusim.backends.ns3.build
	$(MAKE) -s -C emu/blast
	@# The tests that boot the VM run beside the others: the VM under software emulation keeps
	@# one core busy for minutes, and its guest's clock (QEMU icount) does not depend on what
	@# else the host runs. The others end with the quick-scale study (tests/conftest.py), which
	@# takes both cores once the VM half is done. Their output follows the others'; pytest's 5
	@# is "none selected".
	@mkdir -p logs; \
	$(PYTEST) -m "($(TIER)) and vm" > logs/test-vm.log 2>&1 & vm=$$!; \
	$(PYTEST) -m "($(TIER)) and not vm"; others=$$?; \
	wait $$vm; inside=$$?; \
	echo "== the tests that boot the VM (logs/test-vm.log) =="; cat logs/test-vm.log; \
	for s in $$others $$inside; do [ $$s -eq 0 ] || [ $$s -eq 5 ] || exit $$s; done

test-all:
	$(MAKE) test TIER="vm or not vm"

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
