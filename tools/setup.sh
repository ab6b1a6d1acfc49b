#!/usr/bin/env bash
# Create .venv with everything Ligament needs to run, test and benchmark:
# numpy < 2, numba + llvmlite, pytest, and Blender as a Python module (bpy 5.0.1, Python 3.11).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3.11}
command -v "$PY" >/dev/null 2>&1 || PY=python3
if ! "$PY" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))'; then
    echo "Ligament needs Python 3.11 (the bpy 5.0.1 wheel is built for it); set PYTHON=..." >&2
    exit 1
fi
if [ ! -x .venv/bin/python ]; then
    "$PY" -m venv .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check -r requirements-dev.txt
