#!/bin/bash
# The station's wheels for the Pi (linux aarch64, CPython 3.11, Debian 12's python3): the station
# built from this repository and the exact versions of image/requirements.txt, from PyPI.
# Used by build.sh (the image) and by `make update-file` (an update from the settings page).
#
#   image/wheels.sh OUT      (PYTHON: the Python whose pip builds and downloads; python3 if unset)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$1
python=${PYTHON:-python3}
mkdir -p "$out"
"$python" -m pip wheel --quiet --no-deps --wheel-dir "$out" "$(dirname "$here")"
"$python" -m pip download --quiet --dest "$out" --only-binary=:all: --no-deps \
	--python-version 3.11 --implementation cp --abi cp311 \
	--platform manylinux_2_28_aarch64 --platform manylinux_2_17_aarch64 --platform manylinux2014_aarch64 \
	--platform any -r "$here/requirements.txt"
