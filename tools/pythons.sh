# Sourced by the tools' shell scripts: find_python 3.13 prints a Python 3.13 interpreter
# (PYTHON313, python3.13 on PATH, pyenv's versions) or fails saying what to install.
find_python() {
    local want="$1" var="PYTHON${1/./}" cand
    local -a cands=()
    [ -n "${!var:-}" ] && cands+=("${!var}")
    cands+=("python$want")
    if command -v pyenv >/dev/null 2>&1; then
        for cand in "$(pyenv root)"/versions/"$want".*/bin/python"$want"; do
            cands+=("$cand")
        done
    fi
    [ "$want" = 3.11 ] && cands+=(python3)
    for cand in "${cands[@]}"; do
        if "$cand" -c "import sys, venv; sys.exit(sys.version_info[:2] != tuple(map(int, '$want'.split('.'))))" \
                >/dev/null 2>&1; then
            command -v "$cand"
            return 0
        fi
    done
    echo "Ligament needs Python $want (with venv) for this; install it or set $var=/path/to/python$want" >&2
    return 1
}
