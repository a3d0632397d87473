"""Runs co-simulations with OMSimulator for test_omsimulator.py.

OMSimulator's Python package loads libOMSimulator.so from its own folder, which must be on PYTHONPATH and
LD_LIBRARY_PATH when the interpreter starts: the test runs this script in a subprocess with the
environment reference_tools.require_omsimulator() gives, all runs in one process.

    python omsimulator_runs.py RUNS.json STATUS.json

RUNS.json is a list of runs: {"name", "units": {unit: .fmu}, "connections": [["unit.output",
"unit.input"], ...], "parameters": {"unit.variable": value}, "step", "stop", "result": *.csv, "log"}.
Each run is a weakly coupled system (oms_system_wc) with its default master, a fixed step that steps
every unit at once (Jacobi), built with OMSimulator's C API (oms_* through its `Capi`) rather than its
SSP classes, which leave a folder in /tmp per model: the caller chooses the result file (its format by
the extension), the log file and the temporary folder (the log file's). Every variable of every unit
goes to the result file; every message the FMUs log (fmi2Warning ones as "warning: [fmi2Warning]
unit/category: ...") to the run's log file.

STATUS.json maps the name of every run done so far to None (it ran) or the error that ended it; it is
written after each run, so a crash leaves the runs before it. The exit code is 1 if a run failed.
"""

import json
import sys
from pathlib import Path

from OMSimulator import Capi
from OMSimulator.capi import Status

MODEL = "model"
SYSTEM = f"{MODEL}.root"
WEAKLY_COUPLED = 1  # oms_system_wc


def call(function, *arguments):
    """A Capi call; an error status raises. Warnings pass: they are in the log file."""
    status = function(*arguments)
    if status not in (Status.ok, Status.warning):
        raise RuntimeError(f"{function.__name__}{arguments}: {status.name}")


def simulate(run):
    call(Capi.setLogFile, run["log"])
    call(Capi.setTempDirectory, str(Path(run["log"]).parent))
    call(Capi.newModel, MODEL)
    try:
        call(Capi.addSystem, SYSTEM, WEAKLY_COUPLED)
        for unit, fmu in run["units"].items():
            call(Capi.addSubModel, f"{SYSTEM}.{unit}", fmu)
        for output, input_ in run["connections"]:
            call(Capi.addConnection, f"{SYSTEM}.{output}", f"{SYSTEM}.{input_}")
        for variable, value in run["parameters"].items():
            call(Capi.setReal, f"{SYSTEM}.{variable}", float(value))
        call(Capi.setResultFile, MODEL, run["result"], 1)
        call(Capi.setStopTime, MODEL, run["stop"])
        call(Capi.setFixedStepSize, SYSTEM, run["step"])
        for step in (Capi.instantiate, Capi.initialize, Capi.simulate, Capi.terminate):
            call(step, MODEL)
    finally:
        Capi.delete(MODEL)
        Capi.setLogFile("")


def main(runs_file, status_file):
    status = {}
    for run in json.loads(Path(runs_file).read_text()):
        try:
            simulate(run)
            status[run["name"]] = None
        except RuntimeError as error:
            status[run["name"]] = str(error)
        Path(status_file).write_text(json.dumps(status, indent=1))
    return 1 if any(status.values()) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
