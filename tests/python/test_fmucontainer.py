"""Two ElastoGap instances inside one container FMU made by fmu-manipulation-toolbox's `fmucontainer`,
co-simulated by FMPy.

The container is described in JSON (the toolbox's format: "fmu" names the embedded FMUs, "path" maps a
name to its file, so the same .fmu is embedded twice; "input"/"output" rows are
[exposed name, fmu, port] / [fmu, port, exposed name]; "start" rows [fmu, port, value]). Every port is
listed explicitly: `auto_local` would list the locals f_c and f_d as outputs, which FMPy then refuses
(the toolbox's fault), and automatic inputs/outputs would give both instances' ports the same names.

What the container does with a step of FMPy (fmi2DoStep(t_k, h) with h = its internal step): it passes
the inputs FMPy set at t_k on to the embedded instances, steps each by h, and copies their outputs
out. So the recorded row of t_(k+1) is, per instance, what a direct FMPy run records there: the end of
the motion extrapolated from the inputs of t_k (see test_fmpy.py).
"""

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from fmpy import read_model_description, simulate_fmu

from gap_law import (
    assert_cumulative_with_probes,
    assert_steps_with_probes,
    INPUTS,
    Harmonic,
    assert_obeys_law,
    cumulative_trapezoid,
    enters_and_leaves_contact,
    force_scale,
    law,
    step_means_along_quadratics,
    structured_input,
)

STOP_TIME = 1.0
STEP = 1e-3
OUTPUTS = ["f", "s_rel", "v_rel", "contact", "lossPower", "heatPort.Q_flow", "f_mean", "E_loss"]
# The container exposes every input of each instance (fmucontainer reports an unconnected one as an
# error); the friction's slip velocity (v_tx, v_ty) stays at its start value 0 here.
CONTAINER_INPUTS = INPUTS + ["v_tx", "v_ty"]

# Two instances with different parameters and motions, so that a value reaching the wrong instance
# shows. gap1: flange_a held still away from 0, flange_b moving, n = 1. gap2: both flanges moving;
# heat port on, another acceleration estimate. Every input is exposed: the toolbox reports an
# unconnected input as an error.
INSTANCES = {
    "gap1": dict(
        parameters=dict(c=1e4, d=20.0, s_rel0=0.02, n=1.0, s_ref=0.01, f_ref=0.0),
        integers=dict(accelerationEstimate=3),
        use_heat_port=False,
        flange_a=Harmonic(0.005, 0.0, 1.0),
        flange_b=Harmonic(0.03, 0.01, 4 * math.pi),
    ),
    "gap2": dict(
        parameters=dict(c=3000.0, d=200.0, s_rel0=-0.01, n=1.5, s_ref=0.02, f_ref=40.0),
        integers=dict(accelerationEstimate=1),
        use_heat_port=True,
        flange_a=Harmonic(0.1, 0.003, 3 * math.pi, 0.4),
        flange_b=Harmonic(0.094, 0.012, 2 * math.pi, 0.3),
    ),
}


def description(fmu_file):
    """The container's JSON description, every port explicit."""
    data = {
        "name": "TwoGaps.fmu",
        "step_size": STEP,
        "auto_input": False,
        "auto_output": False,
        "auto_link": False,
        "auto_parameter": False,
        "auto_local": False,
        "fmu": [f"{name}.fmu" for name in INSTANCES],
        "path": {f"{name}.fmu": fmu_file for name in INSTANCES},
        "input": [],
        "output": [],
        "start": [],
    }
    for name, instance in INSTANCES.items():
        fmu = f"{name}.fmu"
        data["input"] += [[f"{name}.{port}", fmu, port] for port in CONTAINER_INPUTS]
        data["output"] += [[fmu, port, f"{name}.{port}"] for port in OUTPUTS]
        data["start"] += [[fmu, key, repr(float(value))] for key, value in instance["parameters"].items()]
        data["start"] += [[fmu, key, str(value)] for key, value in instance["integers"].items()]
        data["start"].append([fmu, "useHeatPort", "true" if instance["use_heat_port"] else "false"])
    return data


@pytest.fixture(scope="module")
def container(fmu_path, tmp_path_factory):
    work = tmp_path_factory.mktemp("container")
    fmu_file = Path(fmu_path).name
    (work / fmu_file).write_bytes(Path(fmu_path).read_bytes())
    (work / "TwoGaps.json").write_text(json.dumps(description(fmu_file), indent=2))
    tool = Path(sys.executable).with_name("fmucontainer")
    command = [str(tool), "-container", "TwoGaps.json", "-fmu-directory", str(work)]
    done = subprocess.run(command, capture_output=True, text=True, cwd=work)
    made = work / "TwoGaps.fmu"
    assert done.returncode == 0 and made.is_file(), f"{' '.join(command)}\n{done.stdout}\n{done.stderr}"
    assert "ERROR" not in done.stdout + done.stderr, done.stdout + done.stderr
    return str(made)


def time_grid():
    return np.arange(round(STOP_TIME / STEP) + 1) * STEP


def relative_motion(instance, t):
    a, b = instance["flange_a"], instance["flange_b"]
    return b.s(t) - a.s(t), b.v(t) - a.v(t)


@pytest.fixture(scope="module")
def result(container):
    t = time_grid()
    columns = {}
    for name, instance in INSTANCES.items():
        for port in INPUTS:
            flange, quantity = port.split(".")
            motion = instance[flange]
            columns[f"{name}.{port}"] = motion.s(t) if quantity == "s" else motion.v(t)
    return simulate_fmu(
        container,
        fmi_type="CoSimulation",
        start_time=0.0,
        stop_time=STOP_TIME,
        output_interval=STEP,
        input=structured_input(t, columns),
        output=[f"{name}.{port}" for name in INSTANCES for port in OUTPUTS],
    )


def of(result, name):
    return {port: result[f"{name}.{port}"] for port in OUTPUTS}


def test_container_exposes_exactly_the_listed_ports(container):
    md = read_model_description(container)
    by_causality = {}
    for variable in md.modelVariables:
        by_causality.setdefault(variable.causality, set()).add(variable.name)
    expected_inputs = {f"{name}.{port}" for name in INSTANCES for port in CONTAINER_INPUTS}
    assert by_causality.get("input", set()) == expected_inputs
    assert by_causality.get("output", set()) == {f"{name}.{port}" for name in INSTANCES for port in OUTPUTS}
    assert "local" not in by_causality


@pytest.mark.parametrize("name", INSTANCES)
def test_each_instance_obeys_its_own_law_at_every_row(result, name):
    instance, out = INSTANCES[name], of(result, name)
    assert np.array_equal(result["time"], time_grid())
    assert_obeys_law(out["s_rel"], out["v_rel"], out, instance["parameters"], where=f"{name}: ")
    assert enters_and_leaves_contact(out["contact"])
    # The other instance's law would not fit: the parameters reached the right instance.
    other = next(p["parameters"] for n, p in INSTANCES.items() if n != name)
    in_contact = out["contact"]
    assert not np.allclose(law(out["s_rel"], out["v_rel"], other)["f"][in_contact], out["f"][in_contact])


@pytest.mark.parametrize("name", INSTANCES)
def test_each_step_starts_from_the_inputs_of_its_start(result, name):
    """Row k+1 ends the quadratic that starts at the prescribed motion of t_k: the container passes
    FMPy's inputs on within the same step."""
    instance, out = INSTANCES[name], of(result, name)
    t = result["time"]
    s0, v0 = relative_motion(instance, t)
    assert out["s_rel"][0] == s0[0] and out["v_rel"][0] == v0[0]
    h = np.diff(t)
    acc = (out["v_rel"][1:] - v0[:-1]) / h
    np.testing.assert_allclose(out["s_rel"][1:], s0[:-1] + h * (v0[:-1] + 0.5 * acc * h), rtol=0, atol=1e-14)
    # ... and that quadratic follows the prescribed motion: its end is where the motion is.
    np.testing.assert_allclose(out["s_rel"][1:], s0[1:], rtol=0, atol=1e-6)

    p = instance["parameters"]
    f_mean, dissipated = step_means_along_quadratics(s0[:-1], v0[:-1], acc, h, p)
    assert_steps_with_probes(out["f_mean"][1:], f_mean, 1e-6 * force_scale(p), "f_mean")
    assert_cumulative_with_probes(out["E_loss"], np.concatenate([[0.0], np.cumsum(dissipated)]),
                                  1e-6 * dissipated.sum(), "E_loss")
    if instance["use_heat_port"]:
        assert_steps_with_probes(out["heatPort.Q_flow"][1:], -dissipated / h, 1e-6 * (dissipated / h).max(),
                                 "Q_flow")
    else:
        assert (out["heatPort.Q_flow"] == 0.0).all()


@pytest.mark.parametrize("name", INSTANCES)
def test_energy_loss_is_the_integral_along_the_prescribed_motion(result, name):
    instance, out = INSTANCES[name], of(result, name)
    fine = np.linspace(0.0, STOP_TIME, 20 * round(STOP_TIME / STEP) + 1)
    s, v = relative_motion(instance, fine)
    reference = cumulative_trapezoid(law(s, v, instance["parameters"])["lossPower"], fine)[::20]
    assert reference[-1] > 0.0
    # Along the motion extrapolated over each step from its inputs: within 2e-4 of the total.
    assert_cumulative_with_probes(out["E_loss"], reference, 2e-4 * reference[-1], "E_loss")
