"""A falling mass on the stop through the FMI 3.0 FMU (ElastoGap3.fmu) in FMPy: the row at the early
return at the exact touch-down, the contact's values before and after the event, and the
intermediate-update callback.

    .venv/bin/python -m pytest -q tests/python/test_fmi3_importers*.py

One gap instance, flange_a held at 0, flange_b in free fall s(t) = S0 - G*t^2/2, v(t) = -G*t given
as inputs; heldForce = 4 (None: the master prescribes the motion). The contact starts where
s = s_rel0: at T_TOUCH = sqrt(2*(S0 - s_rel0)/G), strictly inside the 10 ms step from 0.12 s.

What FMPy 0.3.32 does (fmpy/simulation.py simulateCS, FMI 3.0 branch): at each communication point
it applies the inputs (the table interpolated linearly), calls fmi3DoStep to the next regular
point, records a row at lastSuccessfulTime after an early return (else at the point); with event
mode, after a step that says eventHandlingNeeded it calls fmi3EnterEventMode, applies the inputs
again, loops fmi3UpdateDiscreteStates, calls fmi3EnterStepMode and records a second row at the same
time. The input table holds every step point, so the inputs at a step's start are the exact motion
(the FMU's acceleration estimate then extrapolates the free fall exactly: constant acceleration), and
T_TOUCH as well, so that the inputs FMPy applies again in event mode are the exact motion there too
(between rows the table's interpolation is off by up to G*dt^2/8); FMPy makes no communication point
of a table row (only of repeated times), which the call log confirms.

The intermediate update is driven by an FMU3Slave loop written here (simulate_fmu gives no callback
of its own): instantiate(intermediateUpdate=callback), the exact motion set at each step's start.
"""

import math
import re

import numpy as np
import pytest
from fmpy import extract, read_model_description, simulate_fmu
from fmpy.fmi1 import FMICallException
from fmpy.fmi3 import FMU3Slave

from gap_law import INPUTS, assert_obeys_law, structured_input

G, S0 = 9.81, 0.1
P = dict(c=1e4, d=30.0, s_rel0=0.02, n=1.0, s_ref=1.0, f_ref=0.0)
H, DT, STOP = 0.01, 1e-4, 0.2
T_TOUCH = math.sqrt(2 * (S0 - P["s_rel0"]) / G)
K_TOUCH = int(T_TOUCH // H)
RECORDED = ["s_rel", "v_rel", "f", "lossPower", "contact"]
START_VALUES = dict(c=P["c"], d=P["d"], s_rel0=P["s_rel0"], heldForce=4)


def fall(t):
    return S0 - 0.5 * G * t * t, -G * t


def input_table():
    steps = round(STOP / H)
    # k*H exactly as FMPy computes its points (start + k*output_interval), DT apart in between.
    t = (np.arange(steps)[:, None] * H + np.arange(round(H / DT))[None, :] * DT).ravel()
    t = np.sort(np.concatenate([t, [T_TOUCH, steps * H]]))
    s, v = fall(t)
    zero = 0.0 * t
    columns = {"flange_a.s": zero, "flange_a.v": zero, "flange_b.s": s, "flange_b.v": v, "v_tx": zero, "v_ty": zero}
    return structured_input(t, columns)


VARIANTS = {
    "plain": dict(early_return_allowed=False, use_event_mode=False),
    "early-return": dict(early_return_allowed=True, use_event_mode=False),
    "early-return-event-mode": dict(early_return_allowed=True, use_event_mode=True),
}


@pytest.fixture(scope="module")
def falls(fmu3_path):
    runs = {}
    for name, options in VARIANTS.items():
        calls = []
        result = simulate_fmu(
            fmu3_path, fmi_type="CoSimulation", start_time=0.0, stop_time=STOP, output_interval=H,
            start_values=START_VALUES, input=input_table(), output=RECORDED, fmi_call_logger=calls.append,
            **options,
        )
        runs[name] = result, calls
    return runs


def do_steps(calls):
    """(currentCommunicationPoint, communicationStepSize, earlyReturn, lastSuccessfulTime) per fmi3DoStep."""
    pattern = (r"fmi3DoStep\(.*currentCommunicationPoint=(\S+), communicationStepSize=(\S+),"
               r".*earlyReturn=(\w+), lastSuccessfulTime=(\S+)\) -> (\w+)")
    steps = []
    for line in calls:
        if line.startswith("fmi3DoStep("):
            match = re.search(pattern, line)
            assert match and match[5] == "OK", line
            steps.append((float(match[1]), float(match[2]), match[3] == "True", float(match[4])))
    return steps


def grid():
    return np.arange(round(STOP / H) + 1) * H


@pytest.mark.parametrize("name", VARIANTS)
def test_every_row_obeys_the_law_and_follows_the_fall(falls, name):
    result, calls = falls[name]
    t = result["time"]
    # Every row: the law at the row's own (s_rel, v_rel); contact too, but at the row before an event
    # (the switch not yet taken: contact keeps its value before it) and at the early return without
    # event mode (the same, up to the next step).
    at_touch = np.abs(t - T_TOUCH) <= 1e-9
    forces = {k: result[k] for k in ("f", "lossPower")}
    assert_obeys_law(result["s_rel"], result["v_rel"], forces, P, where=f"{name}: ")
    settled = ~at_touch
    assert_obeys_law(result["s_rel"][settled], result["v_rel"][settled], {"contact": result["contact"][settled]}, P)
    # From the third step on the FMU's acceleration estimate is the fall's (its first step has no
    # history, its second one step's mean): s_rel and v_rel at every row are the exact fall.
    s, v = fall(t)
    late = t >= 3 * H
    np.testing.assert_allclose(result["s_rel"][late], s[late], rtol=0, atol=1e-12)
    np.testing.assert_allclose(result["v_rel"][late], v[late], rtol=0, atol=1e-12)
    assert not result["contact"][0] and result["contact"][-1]
    assert (result["f"][t > T_TOUCH + 1e-9] < 0).all()
    # No early return without early return allowed, and none but the touch-down's with it.
    steps = do_steps(calls)
    early = [step for step in steps if step[2]]
    assert len(early) == (0 if name == "plain" else 1), early


def test_plain_run_has_rows_at_the_communication_points_only(falls):
    result, _ = falls["plain"]
    np.testing.assert_array_equal(result["time"], grid())


@pytest.mark.parametrize("name", ["early-return", "early-return-event-mode"])
def test_early_return_gives_a_row_at_the_exact_touch_down(falls, name):
    result, calls = falls[name]
    t = result["time"]
    off_grid = np.flatnonzero(~np.isin(t, grid()))
    event_mode = name.endswith("event-mode")
    assert off_grid.size == (2 if event_mode else 1), t[off_grid]
    touch = t[off_grid[0]]
    print(f"{name}: touch-down row at {touch!r}, exact {T_TOUCH!r}, error {touch - T_TOUCH:.3e}")
    assert abs(touch - T_TOUCH) <= 1e-9
    # The rows are the points before, the touch-down, then the points after: the step from 0.12 s
    # was asked for whole (the table's row at T_TOUCH is no communication point) and returned
    # early; the next one went from the touch-down to 0.13 s.
    expected = np.concatenate([grid()[:K_TOUCH + 1], [touch] * off_grid.size, grid()[K_TOUCH + 1:]])
    np.testing.assert_array_equal(t, expected)
    steps = do_steps(calls)
    i = next(i for i, step in enumerate(steps) if step[2])
    assert steps[i][0] == K_TOUCH * H and steps[i][1] == pytest.approx(H, rel=1e-12) and steps[i][3] == touch
    assert steps[i + 1][0] == touch and touch + steps[i + 1][1] == pytest.approx((K_TOUCH + 1) * H, abs=1e-15)
    # At the early return: on the stop's edge, at the fall's speed, no force yet, contact still
    # false (the switch not yet taken); at the next point in contact.
    j = off_grid[0]
    assert abs(result["s_rel"][j] - P["s_rel0"]) <= 1e-15
    assert abs(result["v_rel"][j] - (-G * T_TOUCH)) <= 1e-12
    assert abs(result["f"][j]) <= 1e-12 * P["c"]
    assert not result["contact"][j]
    assert result["contact"][off_grid[-1] + 1]


def test_event_mode_records_the_contact_before_and_after_at_the_touch_down(falls):
    result, calls = falls["early-return-event-mode"]
    t = result["time"]
    before, after = np.flatnonzero(np.abs(t - T_TOUCH) <= 1e-9)
    assert t[before] == t[after]
    # contact false then true at the same time; f continuous (ElastoGap: zero at the edge, the
    # damper bounded by the spring force), both rows the law at their own motion.
    assert not result["contact"][before] and result["contact"][after]
    print(f"f before {result['f'][before]!r}, after {result['f'][after]!r}")
    assert abs(result["f"][after] - result["f"][before]) <= 1e-12 * P["c"]
    assert abs(result["s_rel"][after] - result["s_rel"][before]) <= 1e-15
    assert result["v_rel"][after] == pytest.approx(result["v_rel"][before], rel=1e-15)
    # The event's calls, in the standard's order, right after the step that returned early.
    names = [line.split("(", 1)[0] for line in calls]
    i = next(i for i, line in enumerate(calls) if line.startswith("fmi3DoStep(") and "earlyReturn=True" in line)
    assert "eventHandlingNeeded=True" in calls[i]
    modes = {"fmi3EnterEventMode", "fmi3UpdateDiscreteStates", "fmi3EnterStepMode", "fmi3DoStep"}
    tail = [n for n in names[i + 1:] if n in modes]
    assert tail[:3] == ["fmi3EnterEventMode", "fmi3UpdateDiscreteStates", "fmi3EnterStepMode"], tail[:5]
    assert tail[3] == "fmi3DoStep"
    update = next(line for line in calls[i:] if line.startswith("fmi3UpdateDiscreteStates("))
    assert "discreteStatesNeedUpdate=False" in update and "terminateSimulation=False" in update, update


# ------------------------------------------------------------------------------------------------
# Intermediate update (FMU3Slave with a callback)
# ------------------------------------------------------------------------------------------------


class Callback:
    """The intermediate-update callback: records each call and the outputs it reads there, tries a
    setter (not allowed in Intermediate Update Mode), and asks for an early return if told to."""

    def __init__(self, ask_for_return):
        self.ask_for_return = ask_for_return
        self.fmu = None
        self.calls = []
        self.problems = []

    def __call__(self, env, time, set_requested, get_allowed, step_finished, can_return_early, requested, return_time):
        try:
            vr = self.vr
            outputs = dict(zip(["s_rel", "v_rel", "f"], self.fmu.getFloat64([vr["s_rel"], vr["v_rel"], vr["f"]])))
            outputs["contact"] = self.fmu.getBoolean([vr["contact"]])[0]
            try:
                self.fmu.setFloat64([vr["flange_b.s"]], [0.0])
                outputs["set refused"] = False
            except FMICallException:
                outputs["set refused"] = True
            self.calls.append((time, set_requested, get_allowed, step_finished, can_return_early, outputs))
            # "always" asks even where the FMU said it cannot return early (a master's mistake).
            if self.ask_for_return == "always" or (self.ask_for_return and can_return_early):
                requested[0] = True
                return_time[0] = time
        except Exception as problem:  # ctypes would swallow it
            self.problems.append(repr(problem))


def fall_with_callback(fmu3_path, tmp_path, early_return_allowed, ask_for_return):
    md = read_model_description(fmu3_path)
    unzipdir = extract(fmu3_path, unzipdir=str(tmp_path / "fmu3"))
    callback = Callback(ask_for_return)
    fmu = FMU3Slave(guid=md.guid, unzipDirectory=unzipdir, modelIdentifier=md.coSimulation.modelIdentifier,
                    instanceName="fall")
    callback.fmu, callback.vr = fmu, {v.name: v.valueReference for v in md.modelVariables}
    vr = callback.vr
    logged = []
    fmu.instantiate(earlyReturnAllowed=early_return_allowed, intermediateUpdate=callback,
                    logMessage=lambda env, status, category, message: logged.append((status, message.decode())))
    fmu.enterInitializationMode(startTime=0.0, stopTime=STOP)
    fmu.setFloat64([vr[n] for n in ("c", "d", "s_rel0")], [P["c"], P["d"], P["s_rel0"]])
    fmu.setInt64([vr["heldForce"]], [4])
    motion = [vr[n] for n in INPUTS]
    fmu.setFloat64(motion, [0.0, 0.0, *fall(0.0)])
    fmu.exitInitializationMode()
    t, k, steps = 0.0, 0, []
    while k < round(STOP / H):
        fmu.setFloat64(motion, [0.0, 0.0, *fall(t)])
        point = (k + 1) * H
        _, _, early, last = fmu.doStep(currentCommunicationPoint=t, communicationStepSize=point - t)
        steps.append((t, early, last, fmu.getBoolean([vr["contact"]])[0]))
        t = last if early else point
        k += not early
    fmu.terminate()
    fmu.freeInstance()
    return callback, steps, logged


@pytest.mark.parametrize(
    "allowed, ask",
    [(False, True), (False, "always"), (True, True)],
    ids=["early-return-not-allowed", "not-allowed-asked-anyway", "early-return-allowed"],
)
def test_intermediate_update_at_the_touch_down(fmu3_path, tmp_path, allowed, ask):
    """Called once, at the touch-down, with the outputs there readable; an early return where the
    callback asks for one and early return is allowed, else the step goes on to its end."""
    callback, steps, logged = fall_with_callback(fmu3_path, tmp_path, allowed, ask_for_return=ask)
    assert callback.problems == []
    assert len(callback.calls) == 1, callback.calls
    time, set_requested, get_allowed, step_finished, can_return_early, outputs = callback.calls[0]
    print(f"intermediate update at {time!r} (exact {T_TOUCH!r}): {outputs}")
    assert abs(time - T_TOUCH) <= 1e-9
    assert (set_requested, get_allowed, step_finished, can_return_early) == (False, True, True, allowed)
    assert abs(outputs["s_rel"] - P["s_rel0"]) <= 1e-15
    assert abs(outputs["v_rel"] - (-G * T_TOUCH)) <= 1e-12
    assert abs(outputs["f"]) <= 1e-12 * P["c"] and not outputs["contact"]
    # Only getters are allowed in Intermediate Update Mode: the setter was refused, with a message.
    assert outputs["set refused"]
    assert any(status == 3 for status, _ in logged), logged
    returned = [step for step in steps if step[1]]
    if allowed:
        assert len(returned) == 1 and returned[0][2] == time and returned[0][0] == K_TOUCH * H, returned
    else:
        assert returned == []
        assert steps[K_TOUCH][2] == pytest.approx((K_TOUCH + 1) * H, abs=1e-15) and steps[K_TOUCH][3]


def test_intermediate_update_without_a_request_still_returns_early_where_allowed(fmu3_path, tmp_path):
    """canReturnEarly is true when early return is allowed: the FMU returns at the switch whether
    the callback asks or not (it might return early anyway, mightReturnEarlyFromDoStep)."""
    callback, steps, _ = fall_with_callback(fmu3_path, tmp_path, True, ask_for_return=False)
    assert callback.problems == [] and len(callback.calls) == 1
    returned = [step for step in steps if step[1]]
    assert len(returned) == 1 and abs(returned[0][2] - T_TOUCH) <= 1e-9
