"""Runs co-simulations with cofmupy for test_cofmupy.py. Not a test: it runs under cofmupy's own venv
(.venv-cofmupy, whose fmpy 0.3.20 is not .venv's 0.3.32), started by the test in a subprocess, so that
PYTHONHASHSEED, which decides cofmupy's stepping order, is set per process.

    .venv-cofmupy/bin/python cofmupy_driver.py runs.json results.json

runs.json: a list of runs, each {"fmus": [{"id", "path", "initialization"}], "connections":
[[source id, output, target id, input], ...], "cosim_method", "step", "steps", "record": {id: [names]}}.
results.json: per run {"order": the ids in the order the first step stepped them, "sequence_order":
cofmupy's, "values": {id: {name: [value at t_1, ..., t_steps]}}, "held": {id: {input: [value held over
step 0, ..., steps-1]}}}. cofmupy's own prints go to stdout,
so the results go to a file.

Shim for a cofmupy 1.0.0 bug: its Fmu2Handler.step reads every output with fmi2GetReal, and the
ElastoGap FMU refuses that for its Boolean output `contact`, as the standard wants, which ends the run.
The step below is cofmupy's own, except that it reads each output by its declared type (through the
handler's own get_variable, which calls fmi2GetBoolean for a Boolean) and notes which unit stepped and
the inputs it was given.
"""

import json
import sys

from cofmupy import Coordinator
from cofmupy.wrappers import Fmu2Handler

_stepped = []


def _step_reading_outputs_by_type(self, current_time, step_size, input_dict):
    _stepped.append(self.unit_id)
    self.held.append({name: value[0] for name, value in input_dict.items()})
    for name, value in input_dict.items():
        self.fmu.setReal([self.var_name2attr[name].valueReference], value)
    self.fmu.doStep(currentCommunicationPoint=current_time, communicationStepSize=step_size)
    return {name: self.get_variable(name) for name in self.get_output_names()}


Fmu2Handler.step = _step_reading_outputs_by_type


def run(spec):
    config = {
        "fmus": spec["fmus"],
        "connections": [
            {"source": {"id": a, "variable": out}, "target": [{"id": b, "variable": inp}]}
            for a, out, b, inp in spec["connections"]
        ],
        "cosim_method": spec["cosim_method"],
    }
    coordinator = Coordinator()
    coordinator.start(config)
    for unit_id, handler in coordinator.master.fmu_handlers.items():
        handler.unit_id = unit_id
        handler.held = []
    _stepped.clear()
    for _ in range(spec["steps"]):
        coordinator.do_step(spec["step"])
    results = coordinator.get_results()
    return {
        "order": _stepped[: len(spec["fmus"])],
        "sequence_order": coordinator.graph_engine.sequence_order,
        "values": {
            unit_id: {name: [float(x) for x in results[(unit_id, name)]] for name in names}
            for unit_id, names in spec["record"].items()
        },
        # The inputs the master held over each step, as it set them.
        "held": {
            unit_id: {name: [float(row[name]) for row in handler.held] for name in handler.get_input_names()}
            for unit_id, handler in coordinator.master.fmu_handlers.items()
        },
    }


def main():
    with open(sys.argv[1], encoding="utf-8") as file:
        runs = json.load(file)
    with open(sys.argv[2], "w", encoding="utf-8") as file:
        json.dump([run(spec) for spec in runs], file)


if __name__ == "__main__":
    main()
