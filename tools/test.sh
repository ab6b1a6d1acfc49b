#!/usr/bin/env bash
# The test suite on both Python lines Blender runs (tools/setup.sh makes the environments
# first):
#
#   3.11: tests/solver's quick tier in .venv/py311 (marks_of); tests/farm (the Flamenco job type, run by Node) with
#         tests/static (addon/ against each Blender's API); tests/addon in Blender 5.0.1,
#         with the install, play and bake check in Blender 4.2 LTS and 4.5 LTS (the py311
#         zip), its first-run test in a run of its own before the others
#   3.13: tests/solver in .venv/py313; tests/addon in Blender 5.3.0, with the same check in
#         Blender 5.2 LTS (the py313 zip), its first-run test likewise
#   and tests/solver once more, but for its slow scenes, on the newest numba
#   (.venv/py313-numba-newest), which the extension does not ship but headless users may have
#
# The solver's kernels are compiled once per environment and sources into the kernel store
# (build/kernel-cache/) before the runs start: on each Python line by the first-run test
# (tests/addon/test_first_run.py: a zip without kernels in Blender compiles them in the
# background; the set becomes the store's entry), the newest numba's by
# tools/build_extension.py --prepare-kernels; each run and each zip takes them from there
# (docs/testing.md, "Kernels").
# Two workers side by side take the runs in turn, so two cores finish in about half the
# time. Each run's output is kept in build/test-NAME.log and printed when it ends, every
# test's seconds in build/durations/NAME.txt; the last line counts all of them. Tiers (pytest.ini's markers,
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
# Bytecode kept between processes, as a user's Python keeps it: where PYTHONDONTWRITEBYTECODE
# is set (some build machines and containers, this one too) every process compiled its
# modules from source again, numba's, the solver's and the add-on's in each Blender the
# add-on tests start (a second of CPU a Blender), numba's in each Python of a fresh
# environment (tools/setup.sh installs without bytecode). Written beside the sources in
# __pycache__/, which the zips, the static check and git leave out; bpy's own comes with it.
unset PYTHONDONTWRITEBYTECODE
# The same arithmetic on every x86-64 machine. Two libraries pick their code by the CPU, and
# their results differ in the last bit from one pick to another: glibc's sin, cos and atan2 (a
# build using FMA where the CPU has FMA and AVX2: there `python3 -c 'import math;
# print(math.sin(0.3097).hex())'` prints ...deff3cp-2, and ...deff3dp-2 with
# GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2,-FMA), which the solver calls (a body's turn each
# substep, joint angles), and OpenBLAS's kernels under NumPy's linear algebra, which the
# World's setup and the tests' scenes call (products, inertia axes). A trajectory carries such
# a bit on, and a chaotic scene ends elsewhere: on an AMD EPYC with AVX2 and FMA a ragdoll
# lying calm moved at 0.031 m/s (bar 0.02) and a soak's energy fell 5.2 % (bar 5), which the
# baseline builds keep within their bars, as the suite's earlier machines did (docs/testing.md,
# "One arithmetic"). The suite runs every process on the baseline builds (glibc's without FMA,
# OpenBLAS's for SSE3 CPUs), which every x86-64 CPU runs, so it checks the same trajectories
# on any of them.
export GLIBC_TUNABLES="${GLIBC_TUNABLES:+$GLIBC_TUNABLES:}glibc.cpu.hwcaps=-AVX2,-FMA"
export OPENBLAS_CORETYPE=Prescott
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
    full) tier_mark="not release" ;;
    release) tier_mark=release ;;
    *) tier_mark="" ;;
esac
options=("$@")
mkdir -p build

kernels() {  # ENV: the kernel store entry of these sources for .venv/ENV's Python and numba,
             # compiled unless the first-run test, a test run or a zip build of the same
             # versions filled it
    ".venv/$1/bin/python" tools/build_extension.py --prepare-kernels ".venv/$1/bin/python" |
        tail -n 1
}

await_setup() {   # GROUP: until tools/setup.sh has made that line's other environments
    until [ -s "build/setup-$1.rc" ]; do sleep 1; done
    [ "$(cat "build/setup-$1.rc")" = 0 ]
}

group_of() {   # ENV PATHS: the group of environments tools/setup.sh makes that a run needs
    case "$1:$2" in            # the Blender environments, or the newest numba's
        py313-numba-newest:*) echo newest ;;
        *:tests/addon* | *:tests/farm*) echo "$1" ;;    # the farm's run checks addon/ too:
    esac                                                 # tests/static, in .venv/static
}

ready() {      # ENV PATHS: whether a run can start: its line's first run has left the
               # line's kernels (or failed to) and its environments are made (or failed)
    case "$1" in
        py311 | py313) [ -e "build/test-first-run-$1.kernels" ] || return 1 ;;
    esac
    local group
    group=$(group_of "$1" "$2")
    [ -z "$group" ] || [ -s "build/setup-$group.rc" ]
}

run() {      # NAME ENV BLENDER PATHS...: one pytest run in .venv/ENV, its output in build/test-NAME.log
    local name=$1 env=$2 store group
    group=$(group_of "$env" "$4")
    if [ -n "$group" ] && ! await_setup "$group"; then
        { echo "--- $name: tools/setup.sh failed ---"; cat "build/setup-$group.log"; } |
            tee "build/test-$name.log" >&2
        return 1
    fi
    # a copy of the store's complete set, so kernels a run compiles beyond it (a signature
    # of a test's own) never land in what the zips ship; the entry asked once per
    # environment (its runs start once it is complete: ready)
    if [ -s "build/store-$env.txt" ]; then
        store=$(cat "build/store-$env.txt")
    elif store=$(kernels "$env" 2>"build/test-$name.log"); then
        echo "$store" >"build/store-$env.txt.$name" && mv "build/store-$env.txt.$name" "build/store-$env.txt"
    else
        { echo "--- $name: no kernels ---"; cat "build/test-$name.log"; } >&2
        return 1
    fi
    rm -rf "build/kernels-$name"
    mkdir -p "build/kernels-$name"
    cp -R "$store" "build/kernels-$name/"
    pytest_run "$@"
}

marks_of() {   # NAME: the markers a run's tests must have beyond its tier's (none: all).
               # The solver's tests run in full on numba 0.65.1 (the one the zips bundle) in
               # .venv/py313; .venv/py311 has the same numba, LLVM and so the same kernels, with
               # Python 3.11 and NumPy 1.26: the quick tier there (the slow scenes and the
               # release checks of the processes again cost 125 CPU s and differ only in the
               # Python that drives the same machine code); the newest numba (other machine
               # code, other caching) every process test and all but the slow scenes of the
               # rest (68 CPU s; docs/testing.md, "Where each test runs")
    case "$1" in
        solver-py311 | processes-py311) echo quick ;;
        solver-py313-numba-newest) echo "not slow" ;;
    esac
}

pytest_run() {  # NAME ENV BLENDER PATHS...: pytest in .venv/ENV with build/kernels-NAME as its
                # kernel cache, each run its own pytest cache (so --lf finds that run's failures)
    local name=$1 env=$2 rc=0 line began=$(date +%s)
    line=$(".venv/$env/bin/python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
    local mark select=()
    mark=$(marks_of "$name")
    [ -n "$tier_mark" ] && mark="${mark:+($mark) and }($tier_mark)"
    [ -n "$mark" ] && select=(-m "$mark")
    LIGAMENT_BLENDER=$3 LIGAMENT_KERNEL_CACHE="$PWD/build/kernels-$name" \
        LIGAMENT_TEST_RUN=$name ".venv/$env/bin/python" -m pytest -q \
        -o cache_dir="build/pytest-cache/$name" --durations=15 --durations-min=1 \
        ${select[@]+"${select[@]}"} ${options[@]+"${options[@]}"} "${@:4}" \
        >"build/test-$name.log" 2>&1 || rc=$?
    [ "$rc" = 5 ] && rc=0      # a tier with none of this run's tests
    { echo "--- $name (Python $line; from $(( began - start )) s to $(( $(date +%s) - start )) s) ---"
      cat "build/test-$name.log"; } >&2
    return "$rc"
}

# The first run of a zip without kernels (tests/addon/test_first_run.py): a fresh install in
# the line's suite Blender prepares the kernels in the background, and once that test has
# seen it play without blocking and then simulate, compiling nothing in Blender, the set it
# compiled becomes the line's kernel store entry (tools/build_extension.py --adopt-kernels).
FIRST_RUN=tests/addon/test_first_run.py::test_playback_before_the_kernels_are_ready_reports_progress_and_does_not_block

first_run() {   # ENV BLENDER: that test in .venv/ENV and the Blender (its exit code in
                # build/test-first-run-ENV.rc), then the store entry of .venv/ENV: the test's,
                # or compiled now if the tier or the options left the test out or it failed
    local name=first-run-$1 rc=0 kernels_rc=0
    rm -rf "build/kernels-$name"
    mkdir -p "build/kernels-$name"     # empty: this run compiles nothing of its own
    pytest_run "$name" "$1" "$2" "$FIRST_RUN" || rc=$?
    echo "$rc" >"build/test-$name.rc"
    kernels "$1" >"build/kernels-$1.log" 2>&1 || { kernels_rc=1; cat "build/kernels-$1.log" >&2; }
    echo "$kernels_rc" >"build/test-$name.kernels"      # the line's runs may start (ready)
}

worker() {   # OUT: take the queue's runs (QUEUE: NAME ENV BLENDER PATHS, four words a run),
             # each time the first one not taken that can start (ready), until none is left
             # (an empty folder made under build/test-claims/ claims a run: mkdir is atomic);
             # the exit codes into OUT
    local out=$1 rc=0 i left
    while :; do
        left=0
        for ((i = 0; i < ${#QUEUE[@]}; i += 4)); do
            [ -e "build/test-claims/$i" ] && continue
            left=1
            ready "${QUEUE[i+1]}" "${QUEUE[i+3]}" || continue
            mkdir "build/test-claims/$i" 2>/dev/null || continue
            run "${QUEUE[i]}" "${QUEUE[i+1]}" "${QUEUE[i+2]}" ${QUEUE[i+3]} || rc=1  # paths split
            continue 2       # the queue again from its head: the longest first
        done
        [ "$left" = 0 ] && break
        sleep 1
    done
    echo "$rc" >"$out"
}

start=$(date +%s)
rm -f build/setup-*.rc build/test-first-run-*.rc build/test-first-run-*.kernels \
    build/test-worker-*.rc build/store-*.txt
# Before the runs: each line's kernels compiled once, by the first run of a zip without
# kernels in that line's suite Blender (first_run, both lines side by side), and the newest
# numba's in its own environment (a compile nothing else shares: it starts at once, beside the
# pip of the others, which waits on the network and the disk more than on the CPU). Meanwhile
# the other environments are made, one group per Python line side by side; a run that needs
# one waits for its group (await_setup).
# Three cold compiles share the machine's cores here, so only the first Python line's keeps
# its compile worker (solver/warmup.py: a second process, which also builds the world and
# types the shared helpers, about 20 CPU s of the compile again): the two-process compile
# stays tested in Blender, the other two compile on one core each (LIGAMENT_COMPILE_WORKERS).
{ rc=0; { bash tools/setup.sh py313-numba-newest &&
          LIGAMENT_COMPILE_WORKERS=0 kernels py313-numba-newest; } \
      >"build/setup-newest.log" 2>&1 || rc=$?
  echo "$rc" >"build/setup-newest.rc"; } &
suites=()
for group in py311 py313; do
    envs=()
    while read -r version python _ role; do
        [ "py${python/./}" = "$group" ] || continue
        if [ "$role" = suite ]; then suites+=("$group" "$version"); else envs+=("blender-$version"); fi
    done < <(grep -v '^\s*#' tools/blenders.txt | grep -v '^\s*$')
    [ "$group" = py311 ] && envs+=(static)
    { rc=0; bash tools/setup.sh "${envs[@]}" >"build/setup-$group.log" 2>&1 || rc=$?
      echo "$rc" >"build/setup-$group.rc"; } &
done
# the suite Blenders before either first run builds its zip: the builder is taken from the
# newest Blender environment (tools/build_extension.py), which must not be half made
bash tools/setup.sh py311 "blender-${suites[1]}" & setup311=$!
bash tools/setup.sh py313 "blender-${suites[3]}"
wait "$setup311"
# The solver's tests that start Python processes of their own, compiling or loading kernels
# there (a cold cache, a killed compile, the kernels under another package name...): about
# 65 of each solver suite's 145 s, a run of their own beside the rest, so that two workers
# share out eight runs of 60-175 s more evenly than five of 130-175 s.
PROCESSES=(tests/solver/test_cold_cache_processes.py tests/solver/test_kernel_cache.py
           tests/solver/test_separate_stages.py tests/solver/test_linked_helpers.py
           tests/solver/test_custom.py tests/solver/test_worker_exit.py
           tests/solver/test_compile_work.py tests/solver/test_impl_flags.py
           tests/solver/test_inline_choice.py tests/addon_logic/test_no_blender.py)
SOLVER="tests/solver tests/addon_logic ${PROCESSES[*]/#/--ignore=}"
# The runs after the compiles, taken by two workers side by side, each run by the first
# worker free once the run can start (the queue's order is their priority): each worker
# begins when one line's first run has ended, so the line compiled first starts its runs
# while the other compiles on. Seconds a run in the fresh clone's CI, 2026-11-30, quiet
# 2-core AMD EPYC (the logs' headers; before marks_of trimmed the py311 and newest runs):
# the two first runs 143 and 195, add-on 213-223, solver 99-104, the solver's processes
# 82-89, the farm 61 (its static check's first read; 1 s cached). The newest numba's
# processes first: they need no first run, so they start beside the other line's compile;
# then the two add-on runs side by side, the longest, and the short runs share out the rest.
QUEUE=(
    processes-py313-numba-newest py313-numba-newest 5.3.0 "${PROCESSES[*]}"
    addon-py313 py313 5.3.0 "tests/addon --deselect $FIRST_RUN"
    addon-py311 py311 5.0.1 "tests/addon --deselect $FIRST_RUN"
    processes-py313 py313 5.3.0 "${PROCESSES[*]}"
    solver-py313 py313 5.3.0 "$SOLVER"
    farm py311 5.0.1 "tests/farm tests/static"
    processes-py311 py311 5.0.1 "${PROCESSES[*]}"
    solver-py313-numba-newest py313-numba-newest 5.3.0 "$SOLVER"
    solver-py311 py311 5.0.1 "$SOLVER"
)
rm -rf build/test-claims
mkdir -p build/test-claims
{ first_run "${suites[0]}" "${suites[1]}"; worker build/test-worker-1.rc; } & other_worker=$!
trap 'kill "$other_worker" 2>/dev/null || true' INT TERM
{ LIGAMENT_COMPILE_WORKERS=0 first_run "${suites[2]}" "${suites[3]}"
  worker build/test-worker-2.rc; }
wait "$other_worker"
wait      # the environments' groups (done by now: the runs waited for them)
cat build/setup-py311.log build/setup-py313.log build/setup-newest.log

# One closing line for all the runs, from pytest's own summaries (a tier may leave a run
# none of its tests: "N deselected").
echo "tools/test.sh: $(( $(date +%s) - start )) s"
RUNS="first-run-py311 first-run-py313 $(for ((i = 0; i < ${#QUEUE[@]}; i += 4)); do
    echo "${QUEUE[i]}"; done)" python3 - <<'EOF'
import os, re
totals = {"passed": 0, "failed": 0, "errors": 0, "skipped": 0}
for name in os.environ["RUNS"].split():
    text = open(f"build/test-{name}.log", errors="replace").read().strip().splitlines()
    last = text[-1] if text else ""
    if not re.search(r"\d+ (passed|failed|error|deselected)|no tests ran", last):
        totals["errors"] += 1          # a run that ended without its summary
    for n, what in re.findall(r"(\d+) (passed|failed|errors?|skipped)", last):
        totals["errors" if what.startswith("error") else what] += int(n)
print(f"total: {totals['passed']} passed, {totals['failed'] + totals['errors']} failed, "
      f"{totals['skipped']} skipped")
EOF
for rc in build/test-worker-1.rc build/test-worker-2.rc build/test-first-run-*.rc \
          build/test-first-run-*.kernels; do
    [ "$(cat "$rc")" = 0 ] || exit 1
done
