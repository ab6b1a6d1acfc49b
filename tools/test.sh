#!/usr/bin/env bash
# Set up .venv if needed, then run the whole test suite (headless solver + real Blender).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
exec .venv/bin/python -m pytest tests -q "$@"
