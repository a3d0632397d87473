"""The packaged ElastoGap FMU as FMPy 0.3.32 sees it.

    /tmp/venv/bin/python -m pytest tests/python          # or .venv/bin/python -m pytest ...

The FMU is read from $ELASTOGAP_FMU, default target/fmu/ElastoGap.fmu (relative to the repository
root; `packaging/package.py` writes it).

What `fmpy.simulate_fmu` does in FMI 2.0 co-simulation (fmpy/simulation.py, simulateCS), which the
expectations below rely on:
  * communication points are t_k = start + k*output_interval (computed exactly so); the input signal
    is sampled on the same grid here, so the inputs set at t_k are the exact samples;
  * per step: inputs are set at t_k (`Input.apply`), `fmi2DoStep(t_k, t_{k+1} - t_k)`, then every
    recorded variable is read at t_{k+1} *before* the next inputs are set. So the recorded
    direct-feedthrough outputs are those at the end of the motion the FMU extrapolated over the
    step from the inputs of t_k: s + v*h + a*h^2/2, with a estimated from the velocity history as
    the parameter accelerationEstimate says (each case sets it; see acceleration_error_bound);
  * `set_input_derivatives=True` is unusable in FMPy 0.3.32 for this FMU: `Input.__init__` allocates
    the derivative buffer as `(fmi2Real * 9)()` whatever the number of continuous inputs, so with 4
    inputs `Input.apply` raises "ValueError: Can only assign sequence of same size". The input
    derivative path is therefore driven through `FMU2Slave` directly (last test);
  * the first row (t_0) is read after fmi2ExitInitializationMode, where the outputs are those of
    the inputs set in initialization mode.
"""

import math
import re

import numpy as np
import pytest
from fmpy import extract, read_model_description, simulate_fmu
from fmpy.fmi1 import FMICallException
from fmpy.fmi2 import FMU2Slave
from fmpy.validation import validate_fmu

from gap_law import (
    assert_cumulative_with_probes,
    assert_steps_with_probes,
    INPUTS,
    Harmonic,
    acceleration_error_bound,
    cumulative_trapezoid,
    force_scale,
    law,
    step_means_along_quadratics,
)

RECORDED = [
    "f",
    "s_rel",
    "v_rel",
    "contact",
    "lossPower",
    "f_c",
    "f_d",
    "f_mean",
    "E_loss",
    "heatPort.Q_flow",
]

STOP_TIME = 1.0
OUTPUT_INTERVAL = 1e-3


# ------------------------------------------------------------------------------------------------
# Prescribed motions: cosines, so every derivative is known and bounded
# ------------------------------------------------------------------------------------------------


CASES = {
    # Explicit f_ref, s_rel0 != 0, flange_a at rest: the damper is linear over most of the contact
    # and bounded only near touch-down and lift-off. Heat port on.
    "linear-damper": dict(
        parameters=dict(c=1e4, d=20.0, s_rel0=0.02, n=1.5, s_ref=0.01, f_ref=50.0),
        use_heat_port=True,
        acceleration_estimate=3,
        flange_a=Harmonic(0.0, 0.0, 1.0),
        flange_b=Harmonic(0.025, 0.01, 4 * math.pi),
    ),
    # f_ref = 0 (so c*s_ref), s_rel0 = 0, both flanges moving, d so large that the bound
    # |f_d| <= |f_c| acts over most of the contact.
    "damper-bound": dict(
        parameters=dict(c=2000.0, d=1000.0, s_rel0=0.0, n=1.5, s_ref=0.01, f_ref=0.0),
        use_heat_port=False,
        acceleration_estimate=2,
        flange_a=Harmonic(0.0, 0.002, 3 * math.pi, 0.5),
        flange_b=Harmonic(0.005, 0.01, 4 * math.pi),
    ),
    # Negative s_rel0, flange_a away from the origin.
    "negative-gap": dict(
        parameters=dict(c=500.0, d=5.0, s_rel0=-0.01, n=1.5, s_ref=0.02, f_ref=30.0),
        use_heat_port=True,
        acceleration_estimate=1,
        flange_a=Harmonic(0.1, 0.0, 1.0),
        flange_b=Harmonic(0.095, 0.012, 2 * math.pi, 0.3),
    ),
    # n = 1, the law of the MSL example (f_c = -c*|s_rel - s_rel0|), flange_a held still away from
    # 0, the default acceleration estimate.
    "msl-linear-spring": dict(
        parameters=dict(c=1e4, d=30.0, s_rel0=0.02, n=1.0, s_ref=1.0, f_ref=0.0),
        use_heat_port=True,
        acceleration_estimate=3,
        flange_a=Harmonic(0.01, 0.0, 1.0),
        flange_b=Harmonic(0.035, 0.01, 4 * math.pi),
    ),
}


def time_grid():
    steps = round(STOP_TIME / OUTPUT_INTERVAL)
    # k*dt exactly as fmpy computes its communication points (start_time + k*output_interval).
    return 0.0 + np.arange(steps + 1) * OUTPUT_INTERVAL


def input_signal(case, t):
    a, b = case["flange_a"], case["flange_b"]
    signal = np.zeros(t.size, dtype=[("time", np.float64)] + [(n, np.float64) for n in INPUTS])
    signal["time"] = t
    signal["flange_a.s"], signal["flange_a.v"] = a.s(t), a.v(t)
    signal["flange_b.s"], signal["flange_b.v"] = b.s(t), b.v(t)
    return signal


def start_values(case):
    values = dict(case["parameters"])
    values["useHeatPort"] = case["use_heat_port"]
    values["accelerationEstimate"] = case["acceleration_estimate"]
    return values


def simulate(fmu_path, case, **kwargs):
    t = time_grid()
    return simulate_fmu(
        fmu_path,
        fmi_type="CoSimulation",
        start_time=0.0,
        stop_time=STOP_TIME,
        output_interval=OUTPUT_INTERVAL,
        start_values=start_values(case),
        input=input_signal(case, t),
        output=RECORDED,
        **kwargs,
    )


@pytest.fixture(scope="module")
def runs(fmu_path):
    return {name: simulate(fmu_path, case) for name, case in CASES.items()}


# ------------------------------------------------------------------------------------------------
# (a) validation
# ------------------------------------------------------------------------------------------------


def test_validate_fmu_finds_no_problem(fmu_path):
    assert validate_fmu(fmu_path) == []


# ------------------------------------------------------------------------------------------------
# (b) simulation against the law
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", CASES)
def test_recorded_outputs_obey_the_law_at_every_point(runs, name):
    case, result = CASES[name], runs[name]
    p = case["parameters"]
    assert np.array_equal(result["time"], time_grid())
    expected = law(result["s_rel"], result["v_rel"], p)
    scale = force_scale(p)
    for key in ["f", "f_c", "f_d"]:
        np.testing.assert_allclose(result[key], expected[key], rtol=1e-12, atol=1e-12 * scale, err_msg=key)
    v_scale = np.abs(result["v_rel"]).max()
    np.testing.assert_allclose(
        result["lossPower"],
        expected["lossPower"],
        rtol=1e-12,
        atol=1e-12 * scale * v_scale,
        err_msg="lossPower",
    )
    np.testing.assert_array_equal(result["contact"], expected["contact"], err_msg="contact")

    assert (result["f"] <= 0.0).all()
    assert (result["lossPower"] >= 0.0).all()
    assert (result["f_c"] <= 0.0).all()
    assert (np.abs(result["f_d"]) <= np.abs(result["f_c"])).all()

    # The run enters and leaves contact.
    contact = result["contact"].astype(int)
    assert (np.diff(contact) == 1).any() and (np.diff(contact) == -1).any()
    assert not contact[0] and not contact[-1]

    # Both branches of the damper are exercised where the case says so.
    in_contact = result["contact"]
    bounded = in_contact & (np.abs(p["d"] * result["v_rel"]) > np.abs(result["f_c"]))
    linear = in_contact & ~bounded
    if name == "damper-bound":
        assert bounded.sum() > linear.sum() > 0
    else:
        assert linear.sum() > bounded.sum() > 0


@pytest.mark.parametrize("name", CASES)
def test_relative_motion_tracks_the_prescribed_motion(runs, name):
    case, result = CASES[name], runs[name]
    a, b = case["flange_a"], case["flange_b"]
    t = result["time"]
    s_true = b.s(t) - a.s(t)
    v_true = b.v(t) - a.v(t)
    m3 = a.bound(3) + b.bound(3)
    # Row 0 is the inputs themselves.
    assert result["s_rel"][0] == s_true[0] and result["v_rel"][0] == v_true[0]
    for k in range(t.size - 1):
        h = t[k + 1] - t[k]
        da = acceleration_error_bound(case, k, h)
        # Taylor: s(t+h) = s + v h + s'' h^2/2 + s'''(xi) h^3/6; v(t+h) = v + s'' h + s'''(xi) h^2/2.
        s_bound = 1.5 * (da * h * h / 2 + m3 * h**3 / 6) + 1e-14
        v_bound = 1.5 * (da * h + m3 * h * h / 2) + 1e-14
        s_rel, v_rel = result["s_rel"][k + 1], result["v_rel"][k + 1]
        assert abs(s_rel - s_true[k + 1]) <= s_bound, (k, s_rel, s_true[k + 1])
        assert abs(v_rel - v_true[k + 1]) <= v_bound, (k, v_rel, v_true[k + 1])


@pytest.mark.parametrize("name", CASES)
def test_step_means_follow_the_reported_extrapolated_motion(runs, name):
    """Per step: the recorded end point (s_rel, v_rel) and the inputs of t_k fix the quadratic the FMU
    extrapolated along; f_mean and the E_loss increment are the law's integrals along it."""
    case, result = CASES[name], runs[name]
    p = case["parameters"]
    a, b = case["flange_a"], case["flange_b"]
    t = result["time"]
    h = np.diff(t)
    s0 = (b.s(t) - a.s(t))[:-1]
    v0 = (b.v(t) - a.v(t))[:-1]
    acc = (result["v_rel"][1:] - v0) / h
    # s_rel and v_rel at the end of a step come from one and the same quadratic.
    np.testing.assert_allclose(s0 + h * (v0 + 0.5 * acc * h), result["s_rel"][1:], rtol=0, atol=1e-13)

    f_mean, dissipated = step_means_along_quadratics(s0, v0, acc, h, p)

    scale = force_scale(p)
    assert_steps_with_probes(result["f_mean"][1:], f_mean, 1e-6 * scale, "f_mean")
    assert result["f_mean"][0] == 0.0
    d_e = np.diff(result["E_loss"])
    assert_steps_with_probes(d_e, dissipated, 1e-6 * dissipated.max(), "E_loss increments")

    q_flow = result["heatPort.Q_flow"]
    if case["use_heat_port"]:
        np.testing.assert_allclose(q_flow[1:], -d_e / h, rtol=1e-9, atol=1e-12 * np.abs(d_e / h).max())
        assert (q_flow <= 0.0).all() and (q_flow < 0.0).any()
    else:
        assert (q_flow == 0.0).all()


@pytest.mark.parametrize("name", CASES)
def test_energy_loss_is_the_integral_of_loss_power_along_the_prescribed_motion(runs, name):
    case, result = CASES[name], runs[name]
    p = case["parameters"]
    a, b = case["flange_a"], case["flange_b"]
    e_loss = result["E_loss"]
    assert e_loss[0] == 0.0
    assert (np.diff(e_loss) >= 0.0).all(), "E_loss must be monotone"

    # Trapezoid on a grid 20 times finer than the output interval, accumulated to the output points.
    refine = 20
    t = result["time"]
    fine = np.linspace(t[0], t[-1], (t.size - 1) * refine + 1)
    power = law(b.s(fine) - a.s(fine), b.v(fine) - a.v(fine), p)["lossPower"]
    reference = cumulative_trapezoid(power, fine)[::refine]
    assert reference[-1] > 0.0
    assert abs(e_loss[-1] - reference[-1]) <= 1e-3 * reference[-1], (e_loss[-1], reference[-1])
    assert_cumulative_with_probes(e_loss, reference, 1e-3 * reference[-1], "E_loss")


# ------------------------------------------------------------------------------------------------
# (c) statuses and log messages
# ------------------------------------------------------------------------------------------------


class Capture:
    def __init__(self):
        self.calls = []
        self.messages = []

    def call(self, line):
        self.calls.append(line)

    def log(self, component_environment, instance_name, status, category, message):
        self.messages.append((status, category.decode(), message.decode()))


def test_normal_run_returns_only_ok_and_logs_contact_events(fmu_path):
    case = CASES["linear-damper"]
    capture = Capture()
    result = simulate(
        fmu_path, case, fmi_call_logger=capture.call, logger=capture.log, debug_logging=True
    )
    # fmi_call_logger appends " -> STATUS" to calls returning fmi2Status (a pointer for fmi2Instantiate).
    statuses = [line.rsplit(" -> ", 1)[1] for line in capture.calls if " -> " in line]
    statuses = [s for s in statuses if s in {"OK", "WARNING", "DISCARD", "ERROR", "FATAL", "PENDING"}]
    assert len(statuses) > 3 * (result.size - 1)
    failed = [line for line in capture.calls if re.search(r"-> [A-Z]+$", line) and not line.endswith("-> OK")]
    assert set(statuses) == {"OK"}, failed[:5]
    assert sum(line.startswith("fmi2DoStep(") for line in capture.calls) == result.size - 1
    for function in ["fmi2Instantiate", "fmi2ExitInitializationMode", "fmi2Terminate", "fmi2FreeInstance"]:
        assert any(line.startswith(function + "(") for line in capture.calls), function
    assert all(status == 0 for status, _, _ in capture.messages), capture.messages[:5]

    # With debug logging on, the FMU reports where inside a step contact starts and ends; compare
    # with the analytic crossings of s_rel = s_rel0 (flange_a at rest).
    b, s_rel0 = case["flange_b"], case["parameters"]["s_rel0"]
    phi = math.acos((s_rel0 - b.offset) / b.amplitude)
    starts = [(phi + 2 * math.pi * j) / b.omega for j in range(2)]
    ends = [(2 * math.pi * (j + 1) - phi) / b.omega for j in range(2)]
    events = {"starts": [], "ends": []}
    for _, category, message in capture.messages:
        match = re.search(r"contact (starts|ends) at t = (\S+)", message)
        if match:
            assert category == "logEvents"
            events[match[1]].append(float(match[2]))
    assert len(events["starts"]) == len(starts) and len(events["ends"]) == len(ends), events
    np.testing.assert_allclose(events["starts"], starts, rtol=0, atol=1e-6)
    np.testing.assert_allclose(events["ends"], ends, rtol=0, atol=1e-6)


def test_invalid_parameter_fails_with_a_message_naming_it_and_its_rule(fmu_path):
    case = dict(CASES["linear-damper"])
    case["parameters"] = dict(case["parameters"], c=-1.0)
    capture = Capture()
    with pytest.raises(FMICallException) as failure:
        simulate(fmu_path, case, fmi_call_logger=capture.call, logger=capture.log)
    assert failure.value.function == "fmi2ExitInitializationMode"
    assert any(
        line.startswith("fmi2ExitInitializationMode(") and line.endswith("-> ERROR") for line in capture.calls
    )
    assert not any(line.startswith("fmi2DoStep(") for line in capture.calls)
    errors = [message for status, _, message in capture.messages if status == 3]
    assert errors, capture.messages
    assert any(re.search(r"(?<![\w.])c = -1\b", m) and ">= 0" in m for m in errors), errors


# ------------------------------------------------------------------------------------------------
# Input derivatives (canInterpolateInputs="true"), driven without simulate_fmu (see the module doc)
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", [2, 3])
def test_supplied_input_derivatives_set_the_extrapolation_acceleration(fmu_path, tmp_path, mode):
    """accelerationEstimate 0-2: a supplied acceleration replaces the estimate; 3: the mean over the
    coming step is extrapolated from the supplied acceleration and the last step's mean."""
    case = CASES["negative-gap"]
    a, b = case["flange_a"], case["flange_b"]
    md = read_model_description(fmu_path)
    vr = {v.name: v.valueReference for v in md.modelVariables}
    unzipdir = extract(fmu_path, unzipdir=str(tmp_path / "fmu"))
    capture = Capture()
    fmu = FMU2Slave(
        guid=md.guid,
        unzipDirectory=unzipdir,
        modelIdentifier=md.coSimulation.modelIdentifier,
        instanceName="derivatives",
        fmiCallLogger=capture.call,
    )
    fmu.instantiate()
    try:
        fmu.setupExperiment(startTime=0.0)
        fmu.enterInitializationMode()
        names = list(case["parameters"])
        fmu.setReal([vr[n] for n in names], [case["parameters"][n] for n in names])
        fmu.setInteger([vr["accelerationEstimate"]], [mode])
        fmu.exitInitializationMode()

        def acceleration(flange, t):
            return -flange.amplitude * flange.omega**2 * np.cos(flange.omega * t + flange.phase)

        t = time_grid()
        m3, m4 = (a.bound(j) + b.bound(j) for j in (3, 4))
        inputs = [vr[n] for n in INPUTS]
        outputs = [vr["s_rel"], vr["v_rel"]]
        in_contact = 0
        for k in range(t.size - 1):
            h, tk = t[k + 1] - t[k], t[k]
            fmu.setReal(inputs, [a.s(tk), a.v(tk), b.s(tk), b.v(tk)])
            fmu.setRealInputDerivatives(
                [vr["flange_a.v"], vr["flange_b.v"]], [1, 1], [acceleration(a, tk), acceleration(b, tk)]
            )
            fmu.doStep(currentCommunicationPoint=tk, communicationStepSize=h)
            s_rel, v_rel = fmu.getReal(outputs)
            s0, v0 = b.s(tk) - a.s(tk), b.v(tk) - a.v(tk)
            acc = acceleration(b, tk) - acceleration(a, tk)
            used = (v_rel - v0) / h
            # One quadratic gives both end values.
            assert abs(s_rel - (s0 + h * (v0 + 0.5 * used * h))) <= 1e-15
            if mode == 2 or k == 0:
                # Exactly the supplied acceleration (mode 3 has no step mean yet on the first step).
                assert abs(used - acc) <= 1e-9 * abs(acc)
                da = 0.0
            else:
                # Through a(t_k) and the last step's mean to t_k + h/2 (see acceleration_error_bound).
                da = m3 * h / 2 + m4 * h * h
                assert abs(used - acc) <= 1.5 * da
            # So the end point is third-order accurate.
            s_true = b.s(t[k + 1]) - a.s(t[k + 1])
            assert abs(s_rel - s_true) <= 1.5 * (da * h * h / 2 + m3 * h**3 / 6) + 1e-15
            ds, dv = fmu.getRealOutputDerivatives(outputs, [1, 1])
            assert ds == v_rel and abs(dv - used) <= 1e-9 * abs(used)
            in_contact += fmu.getBoolean([vr["contact"]])[0]
        assert 0 < in_contact < t.size - 1
        fmu.terminate()
    finally:
        fmu.freeInstance()
    statuses = [line.rsplit(" -> ", 1)[1] for line in capture.calls if re.search(r" -> [A-Z]+$", line)]
    assert len(statuses) > 5 * (t.size - 1) and set(statuses) == {"OK"}
