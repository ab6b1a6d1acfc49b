#!/usr/bin/env bash
# The test suite on both Python lines Blender runs (tools/setup.sh makes the environments
# first):
#
#   3.11: tests/solver in .venv/py311, then tests/farm (the Flamenco job type, run by Node);
#         tests/addon in Blender 5.0.1, with the install, play and bake check in Blender
#         4.2 LTS and 4.5 LTS (the py311 zip)
#   3.13: tests/solver in .venv/py313; tests/addon in Blender 5.3.0, with the same check in
#         Blender 5.2 LTS (the py313 zip)
#   and tests/solver once more on the newest numba (.venv/py313-numba-newest), which the
#   extension does not ship but headless users may have
#
# Two lanes side by side, so two cores finish in about half the time. Each run's output is
# kept in build/test-NAME.log and printed when it ends, every test's seconds in
# build/durations/NAME.txt; the last line counts all of them. Tiers (pytest.ini's markers,
# docs/testing.md):
#
#   bash tools/test.sh                  everything: the full suite and the release checks
#   bash tools/test.sh quick            the edit loop: the solver's unit tests and the
#                                       add-on's bpy-free ones, one run in .venv/py311
#   bash tools/test.sh full             everything but the release checks, both lines
#   bash tools/test.sh release          the release checks only, both lines
#   bash tools/test.sh full --lf        a tier's runs, each with pytest options (here: only
#                                       the tests that failed in that run last time)
#   bash tools/test.sh tests/solver -k pendulum         one pytest run in .venv/py311
#   LIGAMENT_PYTHON=3.13 bash tools/test.sh tests/addon one run on the 3.13 line (Blender 5.3)
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
tier=all
case "${1:-}" in
    quick | full | release | all) tier=$1; shift ;;
esac
line=${LIGAMENT_PYTHON:-3.11}
if [ "$tier" = quick ]; then      # its folders only: tests/addon's and tests/solver's
    quick=(tests/solver)           # test_compound.py would clash in one run
    [ -d tests/addon_logic ] && quick+=(tests/addon_logic)
    quick+=(tests/static)          # addon/ against each Blender's API (tools/apicheck.py)
    exec ".venv/py${line/./}/bin/python" -m pytest -m quick "${quick[@]}" "$@"
fi
if [ "$#" -gt 0 ] && [ "${1#-}" = "$1" ]; then      # a path first: one pytest run
    exec ".venv/py${line/./}/bin/python" -m pytest "$@"
fi
case "$tier" in
    full) select=(-m "not release") ;;
    release) select=(-m release) ;;
    *) select=() ;;
esac
options=("$@")
mkdir -p build

run() {      # NAME ENV BLENDER PATHS...: one pytest run in .venv/ENV, its output in build/test-NAME.log
    local name=$1 env=$2 blender=$3 rc=0 line
    line=$(".venv/$env/bin/python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
    # each numba keeps its own kernels (one folder for two numbas would recompile each time);
    # each run its own pytest cache, so --lf finds that run's failures
    LIGAMENT_BLENDER=$blender LIGAMENT_KERNEL_CACHE="$PWD/build/kernels-$env" \
        LIGAMENT_TEST_RUN=$name ".venv/$env/bin/python" -m pytest -q \
        -o cache_dir="build/pytest-cache/$name" --durations=15 --durations-min=1 \
        ${select[@]+"${select[@]}"} ${options[@]+"${options[@]}"} "${@:4}" \
        >"build/test-$name.log" 2>&1 || rc=$?
    [ "$rc" = 5 ] && rc=0      # a tier with none of this run's tests
    { echo "--- $name (Python $line) ---"; cat "build/test-$name.log"; } >&2
    return "$rc"
}

lane() {     # run its arguments' runs in turn, the exit codes in build/test-lane-N.rc
    local out=$1 rc=0
    shift
    while [ "$#" -gt 0 ]; do
        run "$1" "$2" "$3" $4 || rc=1      # $4: the paths, split at spaces
        shift 4
    done
    echo "$rc" >"$out"
}

start=$(date +%s)
# Two lanes of about equal length (build/durations/ has each run's seconds): the three
# solver suites and the farm's in one (4, 4, 3 and 0.2 minutes on two idle cores), the
# two add-on suites, each one long-lived Blender at a time, in the other (13 and 11.5
# minutes when every scenario started a Blender, 4.6 and 4.1 since, 2.6 of them the first
# run's compile). A solver suite's first minutes compile kernels on two processes, as the
# first minute of an add-on suite builds its zip.
lane build/test-lane-1.rc \
    solver-py311 py311 5.0.1 "tests/solver tests/addon_logic" \
    farm py311 5.0.1 "tests/farm tests/static" \
    solver-py313 py313 5.3.0 "tests/solver tests/addon_logic" \
    solver-py313-numba-newest py313-numba-newest 5.3.0 "tests/solver tests/addon_logic" &
other_lane=$!
trap 'kill "$other_lane" 2>/dev/null || true' INT TERM
lane build/test-lane-2.rc \
    addon-py311 py311 5.0.1 tests/addon \
    addon-py313 py313 5.3.0 tests/addon
wait "$other_lane"

# One closing line for all six runs, from pytest's own summaries (a tier may leave a run
# none of its tests: "N deselected").
echo "tools/test.sh: $(( $(date +%s) - start )) s"
python3 - <<'EOF'
import re
totals = {"passed": 0, "failed": 0, "errors": 0, "skipped": 0}
for name in ("solver-py311", "farm", "solver-py313", "solver-py313-numba-newest",
             "addon-py311", "addon-py313"):
    text = open(f"build/test-{name}.log", errors="replace").read().strip().splitlines()
    last = text[-1] if text else ""
    if not re.search(r"\d+ (passed|failed|error|deselected)|no tests ran", last):
        totals["errors"] += 1          # a run that ended without its summary
    for n, what in re.findall(r"(\d+) (passed|failed|errors?|skipped)", last):
        totals["errors" if what.startswith("error") else what] += int(n)
print(f"total: {totals['passed']} passed, {totals['failed'] + totals['errors']} failed, "
      f"{totals['skipped']} skipped")
EOF
[ "$(cat build/test-lane-1.rc)" = 0 ] && [ "$(cat build/test-lane-2.rc)" = 0 ]
