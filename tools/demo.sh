#!/usr/bin/env bash
# The main job: make Blender's environment if needed, then build and install the extension in
# Blender, simulate a crate column, a block pyramid, a hinged door and a chain, and bake them
# to keyframes (tools/demo.py says what it does as it goes).
#
#   bash tools/demo.sh                 in Blender 5.3 (Python 3.13)
#   bash tools/demo.sh --python 3.11   in Blender 5.0 (Python 3.11)
set -euo pipefail
cd "$(dirname "$0")/.."
blender=5.3.0
if [ "${1:-}" = "--python" ]; then
    case "${2:-}" in
        3.13) blender=5.3.0 ;;
        3.11) blender=5.0.1 ;;
        *) echo "usage: bash tools/demo.sh [--python 3.11|3.13]" >&2; exit 2 ;;
    esac
    shift 2
fi
echo "demo: setting up Blender $blender as a Python module in .venv/blender-$blender (first time: a download of about 400 MB)"
bash tools/setup.sh "blender-$blender"
exec ".venv/blender-$blender/bin/python" tools/demo.py "$@"
