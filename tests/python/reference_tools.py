"""Where the FMI project's reference simulators are, for the tests that run them.

`packaging/setup.sh` builds both fmusims from `../shared/tools/fmusim` (when that folder is there) into
`$ELASTOGAP_TOOLS/fmusim/` (default `~/.cache/elastogap-tools`, once per machine):

- `fmusim`: fmusim 0.7.0, the FMI project's current Rust tool (`fmusim simulate ...`, `fmusim validate`);
- `fmusim-c`: fmusim 0.0.39, the last C release (`fmusim-c [options] FILE.fmu`).

`FMUSIM` and `FMUSIM_C` name other binaries. A test that needs a tool calls `require(name)`: where
the tool is absent it skips and says why, except under CI (`CI=true` with `../shared/tools/fmusim`
beside the checkout), where an absent tool is a set-up failure and the test fails.

`packaging/setup.sh` also builds OMSimulator from `../shared/tools/omsimulator` into `$ELASTOGAP_TOOLS/omsimulator/`
(`OMSIMULATOR_PREFIX` names another prefix). Its Python package loads `libOMSimulator.so` from its own
folder, `PREFIX/lib/x86_64-linux-gnu`, which must be on PYTHONPATH and LD_LIBRARY_PATH when the
interpreter starts: a test runs it in a subprocess with the environment `require_omsimulator()` gives
(same skip and CI rule, with `../shared/tools/omsimulator`).
"""

import functools
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHARED_FMUSIM = ROOT.parent / "shared" / "tools" / "fmusim"
SHARED_OMSIMULATOR = ROOT.parent / "shared" / "tools" / "omsimulator"
TOOLS = Path(os.environ.get("ELASTOGAP_TOOLS", Path.home() / ".cache" / "elastogap-tools"))
OMSIMULATOR_PREFIX = Path(os.environ.get("OMSIMULATOR_PREFIX", TOOLS / "omsimulator"))
OMSIMULATOR_LIBRARY = OMSIMULATOR_PREFIX / "lib" / "x86_64-linux-gnu"

# name -> (environment variable, default path)
_TOOLS = {
    "fmusim": ("FMUSIM", TOOLS / "fmusim" / "fmusim"),
    "fmusim-c": ("FMUSIM_C", TOOLS / "fmusim" / "fmusim-c"),
}


def tool_path(name):
    """The binary of `name` ("fmusim" or "fmusim-c") if it exists, else None."""
    variable, default = _TOOLS[name]
    path = Path(os.environ.get(variable, default))
    return path if path.is_file() and os.access(path, os.X_OK) else None


def require(name):
    """The binary of `name`; skips the test where it is absent (fails under CI with ../shared)."""
    path = tool_path(name)
    if path is not None:
        return path
    variable, default = _TOOLS[name]
    _absent(f"{name} not found at {os.environ.get(variable, default)}: `bash packaging/setup.sh` builds it "
            f"from {SHARED_FMUSIM} when that folder exists (or set {variable})", SHARED_FMUSIM)


def _absent(reason, shared):
    """Skips the test for a missing tool, or fails it under CI when its sources (`shared`) are there."""
    if os.environ.get("CI") == "true" and shared.is_dir():
        pytest.fail(f"under CI with {shared} present: {reason}")
    pytest.skip(reason)


def omsimulator_environment():
    """os.environ with OMSimulator's package folder in front of PYTHONPATH and LD_LIBRARY_PATH."""
    return dict(os.environ, **{name: os.pathsep.join(filter(None, [str(OMSIMULATOR_LIBRARY), os.environ.get(name)]))
                               for name in ("PYTHONPATH", "LD_LIBRARY_PATH")})


@functools.cache
def omsimulator_import_error():
    """None where `import OMSimulator` works in this interpreter under omsimulator_environment(), else
    the last line of its error."""
    done = subprocess.run([sys.executable, "-c", "import OMSimulator"], env=omsimulator_environment(),
                          capture_output=True, text=True, timeout=60)
    lines = done.stderr.strip().splitlines() or [f"exit code {done.returncode}"]
    return None if done.returncode == 0 else lines[-1]


def require_omsimulator():
    """The environment to run `sys.executable` with OMSimulator's Python package in; skips the test
    where the package is absent (fails under CI with ../shared/tools/omsimulator)."""
    error = omsimulator_import_error()
    if error is None:
        return omsimulator_environment()
    _absent(f"OMSimulator's Python package does not import from {OMSIMULATOR_LIBRARY} ({error}): "
            f"`bash packaging/setup.sh` builds it from {SHARED_OMSIMULATOR} when that folder exists "
            "(or set OMSIMULATOR_PREFIX)", SHARED_OMSIMULATOR)


def run(command, timeout=120, check=True, cwd=None):
    """Runs a tool's command line (in `cwd`, if given); returns the CompletedProcess (text). A run
    past `timeout` seconds fails the test: a run of this FMU under a reference tool ends in seconds."""
    try:
        done = subprocess.run([str(part) for part in command], capture_output=True, text=True, timeout=timeout,
                              cwd=cwd)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{' '.join(map(str, command))} did not end within {timeout} s")
    if check and done.returncode != 0:
        pytest.fail(f"{' '.join(map(str, command))} exited {done.returncode}:\n{done.stdout[-3000:]}\n"
                    f"{done.stderr[-3000:]}")
    return done
