#!/usr/bin/env bash
# Set up .venv if needed, then run the main job: build and install the extension in Blender,
# simulate a crate column, a block pyramid, a hinged door and a chain, and bake them to keyframes.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
exec .venv/bin/python tools/demo.py "$@"
