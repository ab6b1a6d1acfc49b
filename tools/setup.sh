#!/usr/bin/env bash
# Make the environments Ligament's tests, demo and benchmarks run in, under .venv/:
#
#   .venv/py311, .venv/py313     the headless solver (requirements-solver.txt) on each Python
#                                line; pytest runs from these
#   .venv/blender-VERSION        Blender as a Python module (the bpy wheel) and numpy only,
#                                one per line of tools/blenders.txt: the extension is installed
#                                into these as a user installs it, and its bundled numba is
#                                the one imported (a numba of the environment's own would
#                                shadow it)
#
#   .venv/py313-numba-newest     the solver on the newest numba (0.68.1), which the extension
#                                does not ship: the solver suite runs on it too, and
#                                bench/numba_versions.py compares it with the shipped one
#   .venv/static                 basedpyright and one fake-bpy-module per Blender line
#                                (tools/blender_stubs.txt): the static check of addon/ against
#                                each line's API (tools/apicheck.py)
#   .venv/bench                  Python 3.11: the solver, Blender 5.0.1 (whose Bullet world the
#                                benchmarks run beside Ligament in one process), pybullet and
#                                MuJoCo (requirements-bench.txt); made only when asked for
#
#   bash tools/setup.sh                  every environment but bench
#   bash tools/setup.sh py313 blender-5.3.0    only those
#
# Python 3.11 and 3.13 are looked up as python3.X on PATH, then in pyenv; PYTHON311 and
# PYTHON313 name them explicitly. An environment that exists is only brought up to date.
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/pythons.sh

pip_install() {   # ENV ARGS...: quiet pip, without the index warnings some machines print;
                  # no bytecode compiled ahead: Python compiles what is imported, the first
                  # time (most of bpy's scripts and sympy never are, and compiling all of
                  # them was a third of the CPU time of making a Blender environment)
    "$1/bin/python" -m pip install -q --disable-pip-version-check --no-compile "${@:2}" 2>&1 |
        { grep -v "^WARNING: Location .* is ignored" || true; }
    return "${PIPESTATUS[0]}"
}

make_env() {      # NAME PYTHON_VERSION PIP_ARGS...
    local dir=".venv/$1" py
    py=$(find_python "$2")
    if [ ! -x "$dir/bin/python" ]; then
        echo "setup: making $dir (Python $2)"
        mkdir -p .venv
        "$py" -m venv "$dir"
    fi
    pip_install "$dir" "${@:3}"
}

wanted() {        # NAME: whether to make it (no arguments: everything but bench)
    [ "${#targets[@]}" -eq 0 ] && [ "$1" != bench ] && return 0
    local t
    for t in "${targets[@]}"; do [ "$t" = "$1" ] && return 0; done
    return 1
}

targets=("$@")
for line in 3.11 3.13; do
    name="py${line/./}"
    wanted "$name" && make_env "$name" "$line" -r requirements-solver.txt
done
while read -r version python numpy role; do
    name="blender-$version"
    wanted "$name" || continue
    pins=("bpy==$version")
    [ "$numpy" != "-" ] && pins+=("numpy==$numpy")
    make_env "$name" "$python" "${pins[@]}"
done < <(grep -v '^\s*#' tools/blenders.txt | grep -v '^\s*$')
wanted py313-numba-newest && make_env py313-numba-newest 3.13 numpy==2.3.4 numba==0.68.1 \
    llvmlite==0.50.0 sympy==1.14.0 "pytest>=8"
if wanted static; then
    make_env static 3.11 basedpyright==1.40.2
    .venv/static/bin/python tools/apicheck.py setup
fi
wanted bench && make_env bench 3.11 -r requirements-bench.txt
exit 0
