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
# The solver's kernels are compiled once per environment and sources into the kernel store
# (build/kernel-cache/, tools/build_extension.py --prepare-kernels) before the lanes start,
# and each run and each zip takes them from there (docs/testing.md, "Kernels").
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
tier=all
case "${1:-}" in
    quick | full | release | all) tier=$1; shift ;;
esac
line=${LIGAMENT_PYTHON:-3.11}
if [ "$tier" = quick ] || { [ "$#" -gt 0 ] && [ "${1#-}" = "$1" ]; }; then
    bash tools/setup.sh
fi
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

kernels() {  # ENV: the kernel store entry of these sources for .venv/ENV's Python and numba,
             # compiled unless a test run or a zip build of the same versions compiled it
    .venv/py311/bin/python tools/build_extension.py --prepare-kernels ".venv/$1/bin/python" |
        tail -n 1
}

await_setup() {   # GROUP: until tools/setup.sh has made that line's other environments
    until [ -s "build/setup-$1.rc" ]; do sleep 1; done
    [ "$(cat "build/setup-$1.rc")" = 0 ]
}

run() {      # NAME ENV BLENDER PATHS...: one pytest run in .venv/ENV, its output in build/test-NAME.log
    local name=$1 env=$2 blender=$3 rc=0 line store group=
    case "$env:$4" in          # the Blender environments, or the newest numba's
        py313-numba-newest:*) group=py313 ;;
        *:tests/addon* | *:tests/farm*) group=$env ;;   # the farm's run checks addon/ too:
                                                         # tests/static, in .venv/static
    esac
    if [ -n "$group" ] && ! await_setup "$group"; then
        { echo "--- $name: tools/setup.sh failed ---"; cat "build/setup-$group.log"; } |
            tee "build/test-$name.log" >&2
        return 1
    fi
    line=$(".venv/$env/bin/python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
    # a copy of the store's complete set, so kernels a run compiles beyond it (a signature
    # of a test's own) never land in what the zips ship; each run its own pytest cache, so
    # --lf finds that run's failures
    if ! store=$(kernels "$env" 2>"build/test-$name.log"); then
        { echo "--- $name: no kernels ---"; cat "build/test-$name.log"; } >&2
        return 1
    fi
    rm -rf "build/kernels-$name"
    mkdir -p "build/kernels-$name"
    cp -R "$store" "build/kernels-$name/"
    LIGAMENT_BLENDER=$blender LIGAMENT_KERNEL_CACHE="$PWD/build/kernels-$name" \
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
# Each line's kernels compiled once, both lines side by side, before anything needs them:
# the solver runs and the zips of the add-on runs (tools/build_extension.py) take them from
# build/kernel-cache/. The newest numba's run compiles its own in lane 1 while lane 2 runs.
# Meanwhile the other environments are made, one group per Python line side by side (pip
# waits on the disk more than on the CPU, the compiles only on the CPU); a run that needs
# one waits for its group (await_setup), the others start as soon as the kernels are ready.
bash tools/setup.sh py311 py313
rm -f build/setup-*.rc
for group in py311 py313; do
    envs=()
    while read -r version python _; do
        [ "py${python/./}" = "$group" ] && envs+=("blender-$version")
    done < <(grep -v '^\s*#' tools/blenders.txt | grep -v '^\s*$')
    [ "$group" = py311 ] && envs+=(static)
    [ "$group" = py313 ] && envs+=(py313-numba-newest)
    { rc=0; bash tools/setup.sh "${envs[@]}" >"build/setup-$group.log" 2>&1 || rc=$?
      echo "$rc" >"build/setup-$group.rc"; } &
done
kernels py311 >build/kernels-py311.log 2>&1 & prepare311=$!
kernels py313 >build/kernels-py313.log 2>&1 || { cat build/kernels-py313.log >&2; exit 1; }
wait "$prepare311" || { cat build/kernels-py311.log >&2; exit 1; }
# Two lanes of about equal length (build/durations/ has each run's seconds), the kernels of
# .venv/py311 and .venv/py313 compiled before them. The 2026-11-29 fresh-clone run, less
# the compiles the store now saves, gives: the three solver suites and the farm's in one
# (about 2, 2, 4.5 and 0 minutes: the newest numba's suite compiles its own kernels first,
# a compile nothing else can share), the two add-on suites, each one long-lived Blender at
# a time, in the other (about 5 and 4.5 minutes, 2.6 and 1.7 of them the first run's
# compile in Blender, test_first_run.py). Moving a solver suite across would unbalance them.
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
wait      # the environments' groups (done by now: the runs waited for them)
cat build/setup-py311.log build/setup-py313.log

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
