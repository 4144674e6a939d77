# Two commands do everything on a fresh machine:
#   make demo   creates .venv, installs, runs the demo at http://127.0.0.1:8080
#   make test   installs what the tests need (system packages too), runs the suite
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
SUDO   := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# Debian packages the test suite needs, as "command-or-file:package" pairs.
SYSTEM_DEPS := chromium:chromium avr-gcc:gcc-avr /usr/lib/avr/include/avr/io.h:avr-libc \
               simavr:simavr /usr/include/simavr/sim_avr.h:libsimavr-dev gcc:gcc \
               /usr/sbin/mosquitto:mosquitto strace:strace

.PHONY: demo test lint system-deps venv bench clean sessions firmware fuzz soak tournament-demo game-night image image-test image-powercut update-file

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed-runtime: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml $(VENV)/.installed-runtime
	$(BIN)/pip install --quiet -e '.[test]'
	touch $@

venv: $(VENV)/.installed-runtime

# Three simulated tables and the tournament screen on a real Mosquitto (docs/tournament.md):
# the tables at http://127.0.0.1:8081-8083, the tournament at http://127.0.0.1:8090.
tournament-demo: system-deps $(VENV)/.installed-runtime
	$(BIN)/pip install --quiet -e '.[tournament]'
	$(BIN)/python -m station.tournament.demo

demo: $(VENV)/.installed-runtime
	$(BIN)/station demo --port 8080

system-deps:
	@missing=""; for pair in $(SYSTEM_DEPS); do \
	  cmd=$${pair%%:*}; pkg=$${pair##*:}; \
	  command -v $$cmd >/dev/null 2>&1 || [ -e "$$cmd" ] || missing="$$missing $$pkg"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing system packages:$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

# The hub firmware (.elf, .hex, size report; fails over budget), its host-built core for the unit
# tests, and the simavr board harness.
firmware:
	$(MAKE) -C firmware

# Lint first, so CI (which runs `make test`) keeps the code as clean as it keeps it working.
test: system-deps firmware $(VENV)/.installed-test lint
	$(BIN)/python -m pytest -q --durations=40  # the slowest, so the 25-minute budget is watched

# ruff (lint and format, pyproject.toml) over the Python, mypy --strict over the whole station, and
# import-linter's contract that imports point down the layers.
lint: $(VENV)/.installed-test
	$(BIN)/ruff check station tests bench image
	$(BIN)/ruff format --check station tests bench image
	$(BIN)/mypy --strict station tests/toy_duel.py tests/sim/synthetic.py tests/sim/mounts.py tests/sim/radioplay.py
	$(BIN)/lint-imports

# Every benchmark writes bench/results/<name>.json; docs/performance.md's table is made from
# them (bench/table.py), and a test keeps the two the same.
bench: firmware $(VENV)/.installed-runtime
	$(BIN)/pip install --quiet -e '.[bench,tournament]'
	@command -v sysbench >/dev/null || { $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq sysbench; }
	$(BIN)/python bench/replay_throughput.py
	$(BIN)/python bench/serial_to_sse_latency.py
	$(BIN)/python bench/firmware_in_the_loop.py
	$(BIN)/python bench/radio_in_the_loop.py
	$(BIN)/python bench/vision_accuracy_speed.py
	$(BIN)/python bench/camera_marker_sizes.py
	$(BIN)/python bench/measure_snapshot.py
	$(BIN)/python bench/pi_budget.py
	$(BIN)/python bench/club_network.py
	$(BIN)/python bench/tournament_load.py
	$(BIN)/python bench/tournament_subscriber.py
	$(BIN)/python bench/dice.py
	$(BIN)/python bench/table.py --write docs/performance.md

clean:
	rm -rf $(VENV) build *.egg-info
	$(MAKE) -C firmware clean

# Re-record the journals under tests/data/sessions from their session scripts (uses the simulator).
sessions: $(VENV)/.installed-runtime
	rm -f tests/data/sessions/*.jsonl
	STATION_CONFIG=$$(mktemp -d)/config.json $(BIN)/station demo --port 0 --speed 10 --seed 7 --exit-when-done \
	  --journal tests/data/sessions/demo.jsonl
	STATION_CONFIG=$$(mktemp -d)/config.json $(BIN)/station demo --port 0 --speed 5 --seed 11 --exit-when-done \
	  --session tests/data/sessions/faults-session.json --journal tests/data/sessions/faults.jsonl
	STATION_CONFIG=$$(mktemp -d)/config.json $(BIN)/station demo --port 0 --speed 5 --seed 7 --exit-when-done \
	  --session station/data/quick/session.json --journal tests/data/sessions/quick.jsonl
	STATION_CONFIG=$$(mktemp -d)/config.json $(BIN)/station demo --port 0 --speed 10 --seed 11 --exit-when-done \
	  --session station/data/demo/virtual-session.json --journal tests/data/sessions/virtual.jsonl
	STATION_CONFIG=$$(mktemp -d)/config.json $(BIN)/station demo --port 0 --speed 10 --seed 7 --exit-when-done \
	  --session station/data/alpha_strike/session.json --journal tests/data/sessions/training-day.jsonl
	STATION_CONFIG=$$(mktemp -d)/config.json $(BIN)/station demo --port 0 --speed 10 --seed 7 --exit-when-done \
	  --session station/data/price_of_a_mile/session.json --journal tests/data/sessions/price-of-a-mile.jsonl
	STATION_CONFIG=$$(mktemp -d)/config.json $(BIN)/station demo --port 0 --speed 10 --seed 7 --exit-when-done \
	  --session station/data/steel_warriors/session.json --journal tests/data/sessions/steel-warriors.jsonl

# The long runs of the reliability suite (about 13 minutes): 100 SIGKILLs, then the 10-minute soak.
soak: $(VENV)/.installed-test
	$(BIN)/python bench/crash_loop.py
	$(BIN)/python bench/soak.py

# The seeded game night, 100,000 seeds instead of `make test`'s 1,000 (about half an hour on two
# cores): live, replay and resume must agree for every one; it prints any seed that does not.
game-night: $(VENV)/.installed-test
	$(BIN)/python bench/game_night.py --seeds 100000

# The SD-card image for a Raspberry Pi 4 or 5 (docs/pi.md "The station image"): Debian 12 arm64 from
# Debian's packages with the station as its service, in build/image/station.img (26 to 29 minutes on two
# cores, most of it Debian's packages and the initramfs set up through qemu-user-static).
IMAGE_DEPS := mmdebstrap:mmdebstrap /usr/bin/qemu-aarch64-static:qemu-user-static update-binfmts:binfmt-support \
              mkfs.vfat:dosfstools mcopy:mtools sfdisk:fdisk mkfs.ext4:e2fsprogs qemu-system-aarch64:qemu-system-arm \
              qemu-img:qemu-utils
image: $(VENV)/.installed-runtime
	@$(MAKE) --no-print-directory system-deps SYSTEM_DEPS="$(IMAGE_DEPS)"
	$(SUDO) env PYTHON=$(BIN)/python image/build.sh build/image

# The image booted in qemu (an emulated arm64 virt machine, 80 to 90 s to the lobby): claimed
# with the code on its console, a backup restored, a game started, one power cut and a boot after.
image-test: $(VENV)/.installed-runtime
	@test -f build/image/station.img || { echo "no build/image/station.img: run make image first"; exit 1; }
	$(BIN)/python image/check.py --cuts 1

# An update file for the settings page of a station running the image (docs/pi.md "Updates"):
# build/station-update-<version>.tar.gz, the station and every package it needs, for the Pi.
update-file: $(VENV)/.installed-runtime
	rm -rf build/update-wheels
	PYTHON=$(BIN)/python image/wheels.sh build/update-wheels
	$(BIN)/python image/update_file.py build/update-wheels build

# 100 power cuts (qemu SIGKILLed mid-game), each booting again: nothing acknowledged may be lost.
# Two machines at once, 50 cuts each (a cut every 50 to 60 s: 87 minutes when last run).
image-powercut: $(VENV)/.installed-runtime
	@test -f build/image/station.img || { echo "no build/image/station.img: run make image first"; exit 1; }
	$(BIN)/python image/check.py --cuts 100 --machines 2

# The long fuzzing run: 1,500 inputs for each property instead of `make test`'s 150.
fuzz: $(VENV)/.installed-test
	STATION_FUZZ_EXAMPLES=1500 $(BIN)/python -m pytest -q tests/test_fuzz.py
