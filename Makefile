# equimorph: one entry point. `make run` sets up and runs the main job; `make test` sets up and
# runs every test (host and guests). Both install what is missing and are fast the second time.

SHELL := /bin/bash
CARGO ?= cargo
BIN := target/release/equimorph

.PHONY: run test setup transforms host guest-test host-test wheel wheel-test bench bench-strength clean help

help:
	@echo "make run    - set up, build, and run the main job on the fixtures"
	@echo "make test   - set up, build, and run all tests (host and guests)"
	@echo "make wheel  - build the pip wheel (target/wheels)"
	@echo "make bench  - run the benchmarks"

setup:
	@scripts/setup.sh

transforms: setup
	@scripts/build-transforms.sh

host: setup
	$(CARGO) build --release --bin equimorph

run: transforms host
	@scripts/main-job.sh

guest-test: setup
	cd transforms && $(CARGO) test --workspace

host-test: transforms
	@scripts/ensure-apt.sh chromium
	$(CARGO) test --release -p equimorph

# The wheel installed into a fresh virtualenv and used from outside the source tree.
wheel: transforms
	@scripts/build-wheel.sh

wheel-test: wheel
	@scripts/test-wheel.sh

test: guest-test host-test wheel-test

bench: transforms host
	$(CARGO) bench --bench transforms
	@scripts/bench-select.sh
	@scripts/bench-augment.sh
	@scripts/bench-oracle.sh

# Strength on real programs (HumanEval; a doctest corpus with STRENGTH_ARGS="--corpus DIR").
bench-strength: transforms host
	@scripts/bench-strength.sh $(STRENGTH_ARGS)

clean:
	rm -rf build target transforms/target
