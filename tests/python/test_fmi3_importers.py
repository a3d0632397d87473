"""The MSL example Modelica.Mechanics.Translational.Examples.ElastoGap through the FMI 3.0 FMU
(ElastoGap3.fmu) in FMPy: co-simulation with fmpy.fmi3.FMU3Slave (a) as the FMI 2.0 test steps it,
(b) with early return allowed, (c) with early return and event mode; and Model Exchange with
fmpy.fmi3.FMU3Model under a master written here (fixed-step RK4 with event location).

    .venv/bin/python -m pytest -q tests/python/test_fmi3_importers*.py

The example, the reference (SciPy's DOP853 on the MSL law written out again, tolerances 1e-11) and
the tube are test_msl_example.py's: mass2 between elastoGap1 (wall at -2 m) and elastoGap2 (wall at
+2 m), the MSL regression signals elastoGap1.v_rel and elastoGap2.s_rel within 2e-3.

Co-simulation master: the gaps first (Gauss–Seidel), their f_mean held over mass2's step, 10 ms.
With early return both gaps may return early; the master ends the step of both at the earlier time:
it keeps each gap's FMU state from the step's start (fmi3GetFMUState), and where one gap stopped
earlier than the other, sets the other back (fmi3SetFMUState) and steps it again to that time,
until both agree (a shorter step may stop earlier still). mass2 is then integrated over the step
actually taken, and the next step starts there. In event mode, a gap whose step ends with
eventHandlingNeeded goes through fmi3EnterEventMode, fmi3UpdateDiscreteStates (until it needs no
more) and fmi3EnterStepMode; `contact` is read before and after.

Model Exchange master: the state is mass2's (x2, v2) and each gap's continuous states; RK4 at 1 ms
on the output grid; after each step the four event indicators of each gap are read, a sign change
is located by bisection on the step length (to 1e-13 s), the state is taken to the right end of
the bracket and the crossing gap goes through event mode. Both the tube and a tighter bound follow
(RK4 with located events is far more accurate than the tube), and the energy balance: mass2's
kinetic energy, the springs' energy and both E_loss (the Model Exchange state) sum to the start's.
"""

from ctypes import POINTER, c_double

import numpy as np
import pytest
from fmpy import extract, read_model_description
from fmpy.fmi3 import FMU3Model, FMU3Slave
from scipy.integrate import solve_ivp

from test_msl_example import C, D, LEFT, MASS, N, RIGHT, S_REL0, STEP, STOP, TUBE, X2_START, cosimulate, elasto_gap

PARAMETERS = ["c", "d", "s_rel0", "n"]
MOTION = ["flange_a.s", "flange_a.v", "flange_b.s", "flange_b.v"]


def reference_run():
    """mass2's motion (SciPy, as test_msl_example.reference) with dense output, and the times it
    crosses x2 = -0.5 (elastoGap1's contact starts or ends) and x2 = +0.5 (elastoGap2's)."""

    def rhs(_t, y):
        x2, v2 = y
        return [v2, (-elasto_gap(x2 - LEFT, v2) + elasto_gap(RIGHT - x2, -v2)) / MASS]

    def gap1(_t, y):
        return y[0] - LEFT - S_REL0

    def gap2(_t, y):
        return RIGHT - y[0] - S_REL0

    solution = solve_ivp(
        rhs, (0.0, STOP), [X2_START, 0.0], method="DOP853", dense_output=True, events=[gap1, gap2],
        rtol=1e-11, atol=1e-12,
    )
    assert solution.success
    crossings = np.sort(np.concatenate(solution.t_events))
    return solution.sol, crossings


@pytest.fixture(scope="module")
def reference():
    return reference_run()


def tube_deviation(rows, motion):
    """Largest deviation of elastoGap1.v_rel (= v2) and elastoGap2.s_rel (= RIGHT - x2) from the
    reference at the rows' times."""
    x2, v2 = motion(rows[:, 0])
    return {
        "elastoGap1.v_rel": np.max(np.abs(rows[:, 1] - v2)),
        "elastoGap2.s_rel": np.max(np.abs(rows[:, 2] - (RIGHT - x2))),
    }


def assert_in_tube(rows, motion, what, tube=TUBE):
    deviation = tube_deviation(rows, motion)
    print(f"{what}: rows {len(rows)}, deviation {deviation}")
    # The example has contacts: a run without them would pass trivially.
    assert np.min(rows[:, 2]) < S_REL0 and np.max(rows[:, 2]) > S_REL0
    for name, d in deviation.items():
        assert d <= tube, f"{what}: {name} leaves the {tube} tube by {d:.3e}"
    return deviation


# ------------------------------------------------------------------------------------------------
# Co-simulation through FMU3Slave
# ------------------------------------------------------------------------------------------------


class Gap3:
    """One elastoGap instance of ElastoGap3.fmu in co-simulation."""

    def __init__(self, unzipdir, md, name, early_return, event_mode):
        self.vr = {v.name: v.valueReference for v in md.modelVariables}
        self.event_mode = event_mode
        self.fmu = FMU3Slave(
            guid=md.guid, unzipDirectory=unzipdir, modelIdentifier=md.coSimulation.modelIdentifier,
            instanceName=name,
        )
        self.fmu.instantiate(eventModeUsed=event_mode, earlyReturnAllowed=early_return)
        self.fmu.enterInitializationMode(startTime=0.0, stopTime=STOP)
        self.fmu.setFloat64([self.vr[n] for n in PARAMETERS], [C, D, S_REL0, N])

    def exit_initialization(self):
        self.fmu.exitInitializationMode()
        if self.event_mode:
            # FMI 3.0: with event mode used, initialization ends in Event Mode.
            self.update_discrete_states()
            self.fmu.enterStepMode()

    def update_discrete_states(self):
        for _ in range(10):
            again, terminate, *_ = self.fmu.updateDiscreteStates()
            assert not terminate
            if not again:
                return
        pytest.fail("fmi3UpdateDiscreteStates asks for more than 10 iterations")

    def handle_event(self):
        """Event mode at the end of a step: `contact` before and after."""
        before = self.contact()
        self.fmu.enterEventMode()
        self.update_discrete_states()
        self.fmu.enterStepMode()
        return before, self.contact()

    def set_motion(self, a, b):
        self.fmu.setFloat64([self.vr[n] for n in MOTION], [a[0], a[1], b[0], b[1]])

    def get(self, name):
        return self.fmu.getFloat64([self.vr[name]])[0]

    def contact(self):
        return self.fmu.getBoolean([self.vr["contact"]])[0]


def step_both(gaps, t, h):
    """Steps every gap from t by h, or all to the earliest early return; returns (end, the gaps'
    doStep results at that end). Each gap's FMU state at t is kept to step it again."""
    states = [gap.fmu.getFMUState() for gap in gaps]
    size, target = h, t + h
    ends = [None] * len(gaps)
    outcomes = [None] * len(gaps)
    try:
        for _ in range(8):
            for i, gap in enumerate(gaps):
                if ends[i] == target:
                    continue
                if ends[i] is not None:
                    gap.fmu.setFMUState(states[i])
                outcome = gap.fmu.doStep(
                    currentCommunicationPoint=t, communicationStepSize=size, noSetFMUStatePriorToCurrentPoint=False
                )
                event, terminate, early, last = outcome
                assert not terminate
                assert early or not event, "eventHandlingNeeded without an early return"
                # The step ends where the FMU says it stopped, or at the end asked for.
                ends[i] = last if early else target
                if early:
                    assert t < last < target, (t, last, target)
                outcomes[i] = outcome
            if all(end == ends[0] for end in ends):
                return ends[0], outcomes
            target = min(ends)
            size = target - t
        pytest.fail(f"the gaps do not agree on a step's end from t = {t}: {ends}")
    finally:
        for gap, state in zip(gaps, states):
            gap.fmu.freeFMUState(state)


def cosimulate3(fmu3_path, tmp_path, early_return, event_mode, m_eff=0.0):
    md = read_model_description(fmu3_path)
    unzipdir = extract(fmu3_path, unzipdir=str(tmp_path / "fmu3"))
    gap1 = Gap3(unzipdir, md, "elastoGap1", early_return, event_mode)
    gap2 = Gap3(unzipdir, md, "elastoGap2", early_return, event_mode)
    gaps = (gap1, gap2)
    for gap in gaps:
        gap.fmu.setFloat64([gap.vr["m_eff"]], [m_eff])
    x2, v2 = X2_START, 0.0

    def set_motion():
        gap1.set_motion((LEFT, 0.0), (x2, v2))
        gap2.set_motion((x2, v2), (RIGHT, 0.0))

    set_motion()
    for gap in gaps:
        gap.exit_initialization()
    steps = round(STOP / STEP)
    rows, returns = [], []
    t, k = 0.0, 0
    while True:
        set_motion()
        rows.append((t, gap1.get("v_rel"), gap2.get("s_rel")))
        if k == steps:
            break
        # From a regular point the step is STEP, as test_msl_example.py's master asks (so that without
        # early return the two runs can be compared bit for bit); after an early return, to the next
        # regular point.
        next_point = (k + 1) * STEP
        h = STEP if t == k * STEP else next_point - t
        end, outcomes = step_both(gaps, t, h)
        early = end != t + h
        events = [(i, *gap.handle_event()) for i, (gap, outcome) in enumerate(zip(gaps, outcomes)) if outcome[0]]
        if early:
            returns.append((end, events))
        a = (-gap1.get("f_mean") + gap2.get("f_mean")) / MASS
        taken = end - t if early else h
        x2 += v2 * taken + 0.5 * a * taken * taken
        v2 += a * taken
        t = end if early else next_point
        k += not early
    for gap in gaps:
        gap.fmu.terminate()
        gap.fmu.freeInstance()
    return np.array(rows), returns


def motion_of(reference):
    sol, _ = reference
    return lambda t: sol(t)


def test_plain_fmi3_co_simulation_stays_in_the_tube_and_is_the_fmi2_run(fmu3_path, fmu_path, tmp_path, reference):
    """(a) Neither early return nor event mode: the FMI 2.0 step, so also the FMI 2.0 run bit for bit."""
    rows, returns = cosimulate3(fmu3_path, tmp_path, early_return=False, event_mode=False)
    assert returns == []
    np.testing.assert_array_equal(rows[:, 0], np.arange(round(STOP / STEP) + 1) * STEP)
    assert_in_tube(rows, motion_of(reference), "FMI 3.0 plain")
    fmi2_rows = cosimulate(fmu_path, tmp_path, derivatives=False)
    np.testing.assert_array_equal(rows, fmi2_rows)


@pytest.mark.parametrize(
    "m_eff", [pytest.param(0.0, id="m_eff-0"), pytest.param(MASS, id="m_eff-right")]
)
@pytest.mark.parametrize("event_mode", [False, True], ids=["early-return", "early-return-event-mode"])
def test_fmi3_co_simulation_with_early_return_stays_in_the_tube(fmu3_path, tmp_path, reference, event_mode, m_eff):
    """(b), (c): the steps end at each contact's start, and at its end where the FMU steps along
    the master's motion (m_eff = 0 before a contact has told the mass; through a mass a step goes
    on past a contact's end, docs/fmi3.md); the tube holds at every row, the regular points and
    the early returns."""
    rows, returns = cosimulate3(fmu3_path, tmp_path, early_return=True, event_mode=event_mode, m_eff=m_eff)
    motion = motion_of(reference)
    assert_in_tube(rows, motion, f"FMI 3.0 early return, event mode {event_mode}, m_eff {m_eff}")
    _, crossings = reference
    times = np.array([end for end, _ in returns])
    print(f"early returns at {times}; reference crossings {crossings}")
    # Each reference contact start has an early return near it (within the time mass2 takes to
    # cover the tube's width there), and every early return is near a crossing. A step after an early return may
    # start a rounding inside the contact the gap just left (mass2 is the master's, integrated
    # with f_mean) and stop again a few 1e-11 s later: counted with its crossing.
    nearest = np.argmin(np.abs(times[:, None] - crossings[None, :]), axis=1)
    lag = np.abs(times - crossings[nearest])
    speed = np.abs(motion(crossings)[1])
    print(f"early return - nearest reference crossing: {times - crossings[nearest]}")
    assert (lag <= TUBE / speed[nearest]).all(), (lag, TUBE / speed[nearest])
    x_cross, v_cross = motion(crossings)
    starts = np.flatnonzero(np.where(x_cross < 0, v_cross < 0, v_cross > 0))
    assert set(starts) <= set(nearest), (times, crossings[starts])
    # At an early return the master's mass2 is where the gap stopped: on its contact's edge.
    for end, events in returns:
        x2 = RIGHT - rows[rows[:, 0] == end][0, 2]
        edge = min(abs(x2 - (LEFT + S_REL0)), abs(RIGHT - S_REL0 - x2))
        assert edge <= 1e-9, (end, x2)
        if not event_mode:
            assert events == []
            continue
        # In event mode the gap at whose edge the step stopped handled the event, and contact
        # changed in the direction of the motion (a touch-down while its s_rel falls).
        assert len(events) == 1, (end, events)
        gap, before, after = events[0]
        assert gap == (0 if x2 < 0 else 1), (end, x2, gap)
        v2 = rows[rows[:, 0] == end][0, 1]
        closing = v2 < 0 if gap == 0 else v2 > 0
        assert (before, after) == (not closing, closing), (end, events)


# ------------------------------------------------------------------------------------------------
# Model Exchange through FMU3Model
# ------------------------------------------------------------------------------------------------

ME_STEP = 1e-3
LOCATE = 1e-13


class GapME:
    """One elastoGap instance of ElastoGap3.fmu in Model Exchange."""

    def __init__(self, unzipdir, md, name):
        self.vr = {v.name: v.valueReference for v in md.modelVariables}
        self.fmu = FMU3Model(
            guid=md.guid, unzipDirectory=unzipdir, modelIdentifier=md.modelExchange.modelIdentifier,
            instanceName=name,
        )
        self.fmu.instantiate()
        self.fmu.enterInitializationMode(startTime=0.0, stopTime=STOP)
        self.fmu.setFloat64([self.vr[n] for n in PARAMETERS], [C, D, S_REL0, N])
        self.nx = self.fmu.getNumberOfContinuousStates()
        self.nz = self.fmu.getNumberOfEventIndicators()
        self.x = np.zeros(self.nx)
        self.dx = np.zeros(self.nx)
        self.z = np.zeros(self.nz)

    def pointer(self, array):
        return array.ctypes.data_as(POINTER(c_double))

    def initialize(self, a, b):
        self.set_motion(a, b)
        self.fmu.exitInitializationMode()
        # FMI 3.0 Model Exchange: initialization ends in Event Mode.
        self.update_discrete_states()
        self.fmu.enterContinuousTimeMode()
        self.fmu.getContinuousStates(self.pointer(self.x), self.nx)
        return self.x.copy()

    def update_discrete_states(self):
        for _ in range(10):
            again, terminate, *_ = self.fmu.updateDiscreteStates()
            assert not terminate
            if not again:
                return
        pytest.fail("fmi3UpdateDiscreteStates asks for more than 10 iterations")

    def set_motion(self, a, b):
        self.fmu.setFloat64([self.vr[n] for n in MOTION], [a[0], a[1], b[0], b[1]])

    def evaluate(self, t, x, a, b):
        """Sets time, states and flange motion; returns (f, der(x), event indicators)."""
        self.fmu.setTime(t)
        self.x[:] = x
        self.fmu.setContinuousStates(self.pointer(self.x), self.nx)
        self.set_motion(a, b)
        self.fmu.getContinuousStateDerivatives(self.pointer(self.dx), self.nx)
        self.fmu.getEventIndicators(self.pointer(self.z), self.nz)
        return self.fmu.getFloat64([self.vr["f"]])[0], self.dx.copy(), self.z.copy()

    def handle_event(self):
        before = self.fmu.getBoolean([self.vr["contact"]])[0]
        self.fmu.enterEventMode()
        self.update_discrete_states()
        self.fmu.enterContinuousTimeMode()
        return before, self.fmu.getBoolean([self.vr["contact"]])[0]


class ExampleME:
    """mass2 and the two gaps as one ODE: y = [x2, v2, gap1's states, gap2's states]."""

    def __init__(self, unzipdir, md):
        self.gap1 = GapME(unzipdir, md, "elastoGap1")
        self.gap2 = GapME(unzipdir, md, "elastoGap2")
        self.n1 = self.gap1.nx
        x1 = self.gap1.initialize((LEFT, 0.0), (X2_START, 0.0))
        x2 = self.gap2.initialize((X2_START, 0.0), (RIGHT, 0.0))
        self.y0 = np.concatenate([[X2_START, 0.0], x1, x2])

    def parts(self, y):
        """Per gap: its states in y and its flanges' (s, v)."""
        x2, v2 = y[0], y[1]
        return (
            (self.gap1, y[2:2 + self.n1], (LEFT, 0.0), (x2, v2)),
            (self.gap2, y[2 + self.n1:], (x2, v2), (RIGHT, 0.0)),
        )

    def evaluate(self, t, y):
        (f1, dx1, z1), (f2, dx2, z2) = (gap.evaluate(t, *rest) for gap, *rest in self.parts(y))
        dy = np.concatenate([[y[1], (-f1 + f2) / MASS], dx1, dx2])
        return dy, (z1, z2)

    def rk4(self, t, y, h):
        k1, _ = self.evaluate(t, y)
        k2, _ = self.evaluate(t + h / 2, y + h / 2 * k1)
        k3, _ = self.evaluate(t + h / 2, y + h / 2 * k2)
        k4, _ = self.evaluate(t + h, y + h * k3)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        return y, self.evaluate(t + h, y)[1]


def crossed(z_before, z_after):
    """FMI's zero crossing of each indicator: from > 0 to <= 0 or back."""
    return [(a > 0) != (b > 0) for a, b in zip(z_before, z_after)]


def step_to(example, t, y, z, end, events):
    """RK4 from t to end, stopping at each located crossing for event mode; returns (y, z) at end."""
    while True:
        y_end, z_end = example.rk4(t, y, end - t)
        if not any(c.any() for c in crossed(z, z_end)):
            return y_end, z_end
        # Bisection on the step length; the right end of the bracket has crossed.
        lo, hi, bracket = 0.0, end - t, (y_end, z_end)
        while hi - lo > LOCATE:
            mid = 0.5 * (lo + hi)
            y_mid, z_mid = example.rk4(t, y, mid)
            if any(c.any() for c in crossed(z, z_mid)):
                hi, bracket = mid, (y_mid, z_mid)
            else:
                lo = mid
        which = crossed(z, bracket[1])
        t, y = t + hi, bracket[0]
        example.evaluate(t, y)
        for g, (gap, *_) in enumerate(example.parts(y)):
            if which[g].any():
                events.append((t, g, np.flatnonzero(which[g]).tolist(), *gap.handle_event()))
        _, z = example.evaluate(t, y)


def model_exchange(fmu3_path, tmp_path):
    """Rows (t, x2, v2, the gaps' states) at the output points, and the events (t, gap, indicators
    that crossed, contact before, after)."""
    md = read_model_description(fmu3_path)
    unzipdir = extract(fmu3_path, unzipdir=str(tmp_path / "fmu3me"))
    example = ExampleME(unzipdir, md)
    t, y = 0.0, example.y0
    _, z = example.evaluate(t, y)
    rows, events = [(t, *y)], []
    for k in range(round(STOP / STEP)):
        for j in range(round(STEP / ME_STEP)):
            end = k * STEP + (j + 1) * ME_STEP
            y, z = step_to(example, t, y, z, end, events)
            t = end
        rows.append((t, *y))
    for gap in (example.gap1, example.gap2):
        gap.fmu.terminate()
        gap.fmu.freeInstance()
    return np.array(rows), events, example.n1


def test_fmi3_model_exchange_of_the_example_follows_the_reference(fmu3_path, tmp_path, reference):
    rows, events, n1 = model_exchange(fmu3_path, tmp_path)
    motion, crossings = reference
    t, x2, v2 = rows[:, 0], rows[:, 1], rows[:, 2]
    np.testing.assert_allclose(t, np.arange(round(STOP / STEP) + 1) * STEP, rtol=0, atol=1e-12)
    signals = np.column_stack([t, v2, RIGHT - x2])
    deviation = assert_in_tube(signals, motion, "FMI 3.0 Model Exchange")
    # RK4 at 1 ms between located events: far inside the tube.
    assert max(deviation.values()) <= 1e-6, deviation

    # Every contact start and end is an event of the gap concerned, at the reference's time, and
    # contact changes there in the direction of the motion.
    contact_events = [e for e in events if 0 in e[2]]
    print(f"{len(events)} events, contact events at {[e[0] for e in contact_events]}")
    assert len(contact_events) == crossings.size, (contact_events, crossings)
    for (when, gap, _, before, after), exact in zip(contact_events, crossings):
        assert abs(when - exact) <= 1e-8, (when, exact)
        x, v = motion(when)
        assert gap == (0 if x < 0 else 1)
        closing = v < 0 if gap == 0 else v > 0
        assert (before, after) == (not closing, closing), (when, gap, before, after)

    # Energy: mass2's kinetic energy, the springs' (n = 1: c/2 * compression^2) and what the gaps
    # dissipated (E_loss, the first state of each) add up to the energy at the start.
    def springs(x):
        return sum(0.5 * C * np.maximum(S_REL0 - s, 0.0) ** 2 for s in (x - LEFT, RIGHT - x))

    e_loss = rows[:, 3] + rows[:, 3 + n1]
    total = 0.5 * MASS * v2**2 + springs(x2) + e_loss
    assert e_loss[-1] > 0.5 * total[0]
    print(f"energy balance: largest drift {np.max(np.abs(total - total[0])):.3e} of {total[0]}")
    np.testing.assert_allclose(total, total[0], rtol=0, atol=1e-8 * total[0])
