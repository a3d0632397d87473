"""The packaged ElastoGap FMU in FMI 2.0 Model Exchange, integrated by FMPy (CVode and forward Euler).

These tests skip, and only then, while the .fmu declares no <ModelExchange> element. The interface
they expect is the co-simulation one (same GUID and variables) plus:
  * f, s_rel, v_rel, lossPower and heatPort.Q_flow (= -lossPower with useHeatPort, else 0) are
    direct functions of the inputs at the current time;
  * E_loss is the continuous state, der(E_loss) = lossPower;
  * `contact` is a discrete variable updated at events; event indicators locate contact start and
    end and the switches of the damper between linear and bounded;
  * f_mean means "mean over the last communication step" and has no meaning here: not tested.

What FMPy 0.3.32 does (fmpy/simulation.py simulateME, fmpy/sundials): the inputs are the table's
rows interpolated linearly (position and velocity each on its own), set at every output point, at
every event and in every evaluation of the event indicators; the recorder can read any variable,
inputs included, so each row is checked against the law at the inputs recorded with it. With
record_events (the default) an event adds a row before the event update, at the same time as the
row after it. CVode's right-hand side does not set the inputs: each derivative is evaluated with the
inputs last set, at the last evaluation of the event indicators or output point, up to one internal
step (at most a fiftieth of the run) earlier. So der(E_loss) = lossPower is checked exactly, call by
call, on the inputs FMPy had set (from its call log), while E_loss against the integral of lossPower
along the prescribed motion carries that lag, hence a tolerance of 1 % of the total. Forward Euler
takes the derivative at each step's start: a left Riemann sum, reproduced exactly.
"""

import math
import re

import numpy as np
import pytest
from fmpy import read_model_description, simulate_fmu

from gap_law import (
    INPUTS,
    Harmonic,
    enters_and_leaves_contact,
    force_scale,
    law,
    loss_along_piecewise_linear_inputs,
    structured_input,
)

STOP_TIME = 1.0
OUTPUT_INTERVAL = 1e-3
ROW_INTERVAL = 1e-3
RTOL = 1e-8
RECORDED = ["f", "s_rel", "v_rel", "contact", "lossPower", "heatPort.Q_flow", "E_loss"] + INPUTS

CASES = {
    # n = 1 (the MSL example's law), flange_a held still away from 0, heat port on. The damper is
    # bounded near touch-down and lift-off and linear in between.
    "linear-damper": dict(
        parameters=dict(c=1e4, d=30.0, s_rel0=0.02, n=1.0, s_ref=0.01, f_ref=0.0),
        use_heat_port=True,
        flange_a=Harmonic(0.01, 0.0, 1.0),
        flange_b=Harmonic(0.035, 0.01, 4 * math.pi),
    ),
    # Both flanges moving, n = 1.5, a damper bounded over most of the contact, heat port off.
    "damper-bound": dict(
        parameters=dict(c=2000.0, d=1000.0, s_rel0=0.0, n=1.5, s_ref=0.01, f_ref=0.0),
        use_heat_port=False,
        flange_a=Harmonic(0.0, 0.002, 3 * math.pi, 0.5),
        flange_b=Harmonic(0.005, 0.01, 4 * math.pi),
    ),
}


def input_rows(case):
    t = np.arange(round(STOP_TIME / ROW_INTERVAL) + 1) * ROW_INTERVAL
    a, b = case["flange_a"], case["flange_b"]
    return structured_input(
        t, {"flange_a.s": a.s(t), "flange_a.v": a.v(t), "flange_b.s": b.s(t), "flange_b.v": b.v(t)}
    )


def start_values(case):
    return dict(case["parameters"], useHeatPort=case["use_heat_port"])


def simulate_me(fmu_path, case, solver, **kwargs):
    return simulate_fmu(
        fmu_path,
        fmi_type="ModelExchange",
        solver=solver,
        start_time=0.0,
        stop_time=STOP_TIME,
        output_interval=OUTPUT_INTERVAL,
        start_values=start_values(case),
        input=input_rows(case),
        output=RECORDED,
        **kwargs,
    )


@pytest.fixture(scope="module")
def cvode_runs(me_fmu_path):
    return {
        name: simulate_me(me_fmu_path, case, "CVode", relative_tolerance=RTOL) for name, case in CASES.items()
    }


def relative(result):
    return result["flange_b.s"] - result["flange_a.s"], result["flange_b.v"] - result["flange_a.v"]


def applied_relative_motion(case, t):
    """The relative motion FMPy applies at times t: the rows interpolated linearly."""
    rows = input_rows(case)
    s = np.interp(t, rows["time"], rows["flange_b.s"]) - np.interp(t, rows["time"], rows["flange_a.s"])
    v = np.interp(t, rows["time"], rows["flange_b.v"]) - np.interp(t, rows["time"], rows["flange_a.v"])
    return s, v


def crossings(t, g, where=None):
    """Times where the samples g(t) change sign (linear interpolation between samples), only between
    samples that are both `where`."""
    change = np.sign(g[1:]) * np.sign(g[:-1]) < 0
    if where is not None:
        change &= where[1:] & where[:-1]
    i = np.flatnonzero(change)
    return t[i] - g[i] * (t[i + 1] - t[i]) / (g[i + 1] - g[i])


def event_rows(result):
    """Indices of the rows recorded before an event update (each followed by the row after it, at
    the same time)."""
    return np.flatnonzero(np.diff(result["time"]) == 0.0)


def test_model_description_declares_model_exchange(me_fmu_path):
    md = read_model_description(me_fmu_path)
    assert md.modelExchange is not None and md.coSimulation is not None
    assert md.modelExchange.modelIdentifier == md.coSimulation.modelIdentifier
    states = [v for v in md.modelVariables if v.derivative is not None]
    # E_loss, and the friction's stiction deformation (stick-slip).
    assert [v.derivative.name for v in states] == ["E_loss", "xi_x", "xi_y"]
    # Contact start/end and the damper's two switches (linear <-> bounded), then stick/slip and
    # the stiction circle.
    assert md.numberOfEventIndicators == 4


@pytest.mark.parametrize("name", CASES)
def test_direct_outputs_obey_the_law_at_the_recorded_inputs(cvode_runs, name):
    case, result = CASES[name], cvode_runs[name]
    p = case["parameters"]
    s, v = relative(result)
    np.testing.assert_allclose(result["s_rel"], s, rtol=0, atol=1e-15)
    np.testing.assert_allclose(result["v_rel"], v, rtol=0, atol=1e-15)
    expected = law(s, v, p)
    scale = force_scale(p)
    np.testing.assert_allclose(result["f"], expected["f"], rtol=1e-12, atol=1e-12 * scale)
    v_scale = np.abs(v).max()
    np.testing.assert_allclose(
        result["lossPower"], expected["lossPower"], rtol=1e-12, atol=1e-12 * scale * v_scale
    )
    if case["use_heat_port"]:
        np.testing.assert_array_equal(result["heatPort.Q_flow"], -result["lossPower"])
    else:
        assert (result["heatPort.Q_flow"] == 0.0).all()
    # The recorded inputs are the table's, interpolated where FMPy stopped between rows.
    s_applied, v_applied = applied_relative_motion(case, result["time"])
    np.testing.assert_allclose(s, s_applied, rtol=0, atol=1e-12)
    np.testing.assert_allclose(v, v_applied, rtol=0, atol=1e-12)
    assert enters_and_leaves_contact(expected["contact"])


@pytest.mark.parametrize("name", CASES)
def test_contact_switches_at_located_events(cvode_runs, name):
    case, result = CASES[name], cvode_runs[name]
    p = case["parameters"]
    t = result["time"]
    s, v = relative(result)
    before = event_rows(result)
    at_event = np.zeros(t.size, dtype=bool)
    at_event[before] = at_event[before + 1] = True
    # Between events contact is the law's: every crossing was located and handled before the solver
    # went past it.
    np.testing.assert_array_equal(result["contact"][~at_event], (s < p["s_rel0"])[~at_event])
    assert enters_and_leaves_contact(result["contact"])

    # Every contact start and end, and every switch of the damper between linear and bounded, of the
    # applied motion has an event at its time (crossings of a fine sampling of that motion).
    fine = np.linspace(0.0, STOP_TIME, 200 * round(STOP_TIME / ROW_INTERVAL) + 1)
    s_fine, v_fine = applied_relative_motion(case, fine)
    forces = law(s_fine, v_fine, p)
    touches = crossings(fine, s_fine - p["s_rel0"])
    # |d*v_rel| + f_c > 0 where the bound acts.
    switches = crossings(fine, np.abs(p["d"] * v_fine) + forces["f_c"], where=forces["contact"])
    assert touches.size >= 2 and switches.size >= 2, (touches, switches)
    event_times = t[before]
    for when in np.concatenate([touches, switches]):
        assert np.abs(event_times - when).min() <= 1e-6, (when, event_times)

    # At a contact event, what the update decides is the direction of the crossing: the contact
    # starts while the flanges close (v_rel < 0), ends while they open. s_rel is s_rel0 there up to
    # the root's location, so comparing it with s_rel0 would decide nothing.
    for i in before:
        if abs(s[i] - p["s_rel0"]) <= 1e-9 * abs(p["s_rel0"]) + 1e-12:
            assert result["contact"][i + 1] == (v[i] < 0), (t[i], s[i], v[i])


def reference_loss(case, t):
    """The integral of lossPower along the applied motion, at times t (fine trapezoid)."""
    rows = input_rows(case)
    s_rows = rows["flange_b.s"] - rows["flange_a.s"]
    v_rows = rows["flange_b.v"] - rows["flange_a.v"]
    p = case["parameters"]
    fine_t, integral = loss_along_piecewise_linear_inputs(rows["time"], s_rows, v_rows, p, refine=50)
    return fine_t, integral, np.interp(t, fine_t, integral)


@pytest.mark.parametrize("name", CASES)
def test_energy_loss_integrates_loss_power_along_the_applied_motion(cvode_runs, name):
    case, result = CASES[name], cvode_runs[name]
    _, _, reference = reference_loss(case, result["time"])
    e_loss = result["E_loss"]
    assert e_loss[0] == 0.0 and reference[-1] > 0.0
    # CVode's output is its interpolating polynomial: flat stretches may wiggle at the size of its
    # absolute tolerance (relative tolerance times the state's nominal, 1 J unless declared).
    assert (np.diff(e_loss) >= -100 * RTOL).all(), "E_loss must not fall"
    # 1 %: FMPy's input lag in CVode's right-hand side (see the module doc).
    np.testing.assert_allclose(e_loss, reference, rtol=0, atol=1e-2 * reference[-1])


@pytest.mark.parametrize("name", CASES)
def test_state_derivative_is_loss_power_at_the_inputs_set(me_fmu_path, name):
    """Each fmi2GetDerivatives returns lossPower of the law at the inputs set last, each position
    continued at its velocity from the time of the first evaluation after it was set (FMPy's CVode
    right-hand side sets no inputs: its root function does; FMPy's call log)."""
    case = CASES[name]
    p = case["parameters"]
    md = read_model_description(me_fmu_path)
    input_vrs = [next(v.valueReference for v in md.modelVariables if v.name == n) for n in INPUTS]
    calls = []
    simulate_me(me_fmu_path, case, "CVode", relative_tolerance=RTOL, fmi_call_logger=calls.append)
    setting_inputs = f"vr={input_vrs}, nvr={len(INPUTS)}, value=["
    evaluations = ("fmi2GetDerivatives(", "fmi2GetEventIndicators(", "fmi2GetReal(", "fmi2GetBoolean(",
                   "fmi2NewDiscreteStates(", "fmi2CompletedIntegratorStep(", "fmi2ExitInitializationMode(")
    inputs, time, given_at, checked, continued = None, 0.0, None, [], 0
    for line in calls:
        if line.startswith("fmi2SetTime("):
            time = float(re.search(r"time=([^)]*)\)", line)[1])
        elif line.startswith("fmi2SetReal(") and setting_inputs in line:
            inputs = re.search(r"value=\[([^\]]*)\]", line)[1].split(",")
            inputs = dict(zip(INPUTS, map(float, inputs)))
            given_at = None
        elif line.startswith(evaluations) and inputs is not None:
            given_at = time if given_at is None else given_at
            if line.startswith("fmi2GetDerivatives("):
                assert line.endswith("-> OK"), line
                # der(E_loss), then the stiction deformation's (0: no friction here).
                derivative, *stiction = map(float, re.search(r"derivatives=\[([^\]]*)\]", line)[1].split(","))
                assert stiction == [0.0, 0.0], line
                elapsed = time - given_at
                continued += elapsed != 0.0
                s_b = inputs["flange_b.s"] + inputs["flange_b.v"] * elapsed
                s_a = inputs["flange_a.s"] + inputs["flange_a.v"] * elapsed
                v_rel = inputs["flange_b.v"] - inputs["flange_a.v"]
                checked.append((s_b - s_a, v_rel, derivative))
    s, v, derivative = np.array(checked).T
    expected = law(s, v, p)["lossPower"]
    assert (expected > 0).sum() > 100, "the derivative was asked for in contact"
    assert continued > 100, "FMPy asked for derivatives at times its inputs were not set for"
    atol = 1e-12 * force_scale(p) * np.abs(v).max()
    np.testing.assert_allclose(derivative, expected, rtol=1e-10, atol=atol)


@pytest.mark.parametrize("name", CASES)
def test_forward_euler_sums_loss_power_at_each_step_start(me_fmu_path, name):
    """FMPy's Euler solver: E_loss(t_(k+1)) = E_loss(t_k) + h*lossPower(t_k), lossPower at the inputs
    recorded at t_k; and that sum is within h times lossPower's total variation of the integral."""
    case = CASES[name]
    p = case["parameters"]
    result = simulate_me(me_fmu_path, case, "Euler", step_size=OUTPUT_INTERVAL, record_events=False)
    t = result["time"]
    assert np.allclose(np.diff(t), OUTPUT_INTERVAL, rtol=1e-9, atol=0)
    power = law(*relative(result), p)["lossPower"]
    left_sum = np.concatenate([[0.0], np.cumsum(power[:-1] * np.diff(t))])
    np.testing.assert_allclose(result["E_loss"], left_sum, rtol=1e-12, atol=1e-12 * left_sum[-1])

    fine_t, integral, _ = reference_loss(case, t)
    fine_power = law(*applied_relative_motion(case, fine_t), p)["lossPower"]
    variation = np.concatenate([[0.0], np.cumsum(np.abs(np.diff(fine_power)))])
    bound = OUTPUT_INTERVAL * np.interp(t, fine_t, variation) + 1e-6 * integral[-1]
    assert (np.abs(result["E_loss"] - np.interp(t, fine_t, integral)) <= bound).all()
