#!/usr/bin/env bash
# Set up .venv if needed, then run the whole test suite (headless solver + real Blender).
#
# With no arguments the two halves run side by side (each is one process that spends its
# first minutes compiling the solver's numba kernels, so two cores finish in about half the
# time); the add-on half's output is printed after the solver half's. With arguments, they
# are passed to a single pytest run: `bash tools/test.sh tests/solver -k pendulum`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
if [ "$#" -gt 0 ]; then
    exec .venv/bin/python -m pytest "$@"
fi
mkdir -p build
log=build/test-addon.log
.venv/bin/python -m pytest tests/addon -q >"$log" 2>&1 &
addon_pid=$!
trap 'kill "$addon_pid" 2>/dev/null || true' INT TERM
set +e
.venv/bin/python -m pytest tests/solver -q
solver_rc=$?
echo "--- tests/addon (real Blender; still running if nothing follows yet) ---"
wait "$addon_pid"
addon_rc=$?
set -e
cat "$log"
echo "tests/solver exit $solver_rc, tests/addon exit $addon_rc"
[ "$solver_rc" -eq 0 ] && [ "$addon_rc" -eq 0 ]
