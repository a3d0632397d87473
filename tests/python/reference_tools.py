"""Where the FMI project's reference simulators are, for the tests that run them.

`packaging/setup.sh` builds both fmusims from `../shared/tools/fmusim` (when that folder is there) into
`$ELASTOGAP_TOOLS/fmusim/` (default `~/.cache/elastogap-tools`, once per machine):

- `fmusim`: fmusim 0.7.0, the FMI project's current Rust tool (`fmusim simulate ...`, `fmusim validate`);
- `fmusim-c`: fmusim 0.0.39, the last C release (`fmusim-c [options] FILE.fmu`).

`FMUSIM` and `FMUSIM_C` name other binaries. A test that needs a tool calls `require(name)`: where
the tool is absent it skips and says why, except under CI (`CI=true` with `../shared/tools/fmusim`
beside the checkout), where an absent tool is a set-up failure and the test fails.
"""

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHARED_FMUSIM = ROOT.parent / "shared" / "tools" / "fmusim"
TOOLS = Path(os.environ.get("ELASTOGAP_TOOLS", Path.home() / ".cache" / "elastogap-tools"))

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
    reason = (f"{name} not found at {os.environ.get(variable, default)}: `bash packaging/setup.sh` builds it "
              f"from {SHARED_FMUSIM} when that folder exists (or set {variable})")
    if os.environ.get("CI") == "true" and SHARED_FMUSIM.is_dir():
        pytest.fail(f"under CI with {SHARED_FMUSIM} present: {reason}")
    pytest.skip(reason)


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
