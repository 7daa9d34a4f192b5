# The two commands that matter: `make study` and `make test` (see README.md).
SHELL := /bin/bash
VENV := .venv/bin
SCALE ?= paper
CORES ?= all

.PHONY: setup study test lint format clean

setup:
	tools/setup base mininet vm paper testbed slurm

study: setup
	$(VENV)/snakemake all --cores $(CORES) --config scale=$(SCALE)

test: setup
	$(VENV)/ruff check src tests workflow benchmarks
	$(VENV)/ruff format --check src tests workflow benchmarks
	$(VENV)/snakefmt --check Snakefile workflow/rules
	$(VENV)/python -m pytest tests $(PYTEST_ARGS)

lint:
	$(VENV)/ruff check src tests workflow benchmarks
	$(VENV)/snakefmt --check Snakefile workflow/rules
	$(VENV)/snakemake --lint

format:
	$(VENV)/ruff format src tests workflow benchmarks
	$(VENV)/ruff check --fix src tests workflow benchmarks
	$(VENV)/snakefmt Snakefile workflow/rules

clean:
	rm -rf results logs build figures/*.pdf figures/*.png paper/tables/* paper/build paper/generated
