"""The Flamenco job type run under Node as a Flamenco Manager runs it (flamenco_harness.js):
what it authors for a job's settings."""

import json
import os
import shutil
import subprocess
import tempfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
JOB_TYPE = os.path.join(ROOT, "tools", "flamenco", "ligament-bake.js")
HARNESS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "flamenco_harness.js")


def node():
    """Node.js, which the job type's tests need: a missing one fails them, it never skips
    them (the CI machines have it)."""
    exe = os.environ.get("LIGAMENT_NODE") or shutil.which("node")
    if not exe:
        pytest.fail("Node.js is needed to run the Flamenco job type's tests and was not found "
                    "on PATH; install Node 18 or later or set LIGAMENT_NODE=/path/to/node",
                    pytrace=False)
    return exe


def compile_job(settings, name="shots", variables=None):
    """The job type's compileJob(job) for these settings: {"jobType", "settings", "tasks"},
    or {"error"} when the script refuses the job."""
    spec = {"name": name, "settings": settings}
    if variables:
        spec["variables"] = variables
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(spec, f)
    try:
        proc = subprocess.run([node(), HARNESS, JOB_TYPE, f.name], capture_output=True,
                              text=True, timeout=60)
    finally:
        os.unlink(f.name)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(proc.stdout)


def ligament_argv(command_line):
    """A Worker's command line `blender ARGS... [FILE] -c ligament ARGV...` as what Blender
    does with it: the .blend it opens first (or None) and the argv `ligament` is given."""
    i = command_line.index("-c")
    assert command_line[i + 1] == "ligament", command_line
    before = [a for a in command_line[1:i] if not a.startswith("-")]
    return (before[-1] if before else None), command_line[i + 2:]
