"""The Gap Force (forceLaw = 7) with the example table in the FMU's resources/, through FMPy, against
a reference computed here another way: SciPy's PCHIP (its own implementation of the Fritsch–Butland
monotone cubic) for the force, and SciPy's solve_ivp with the range's ends as located events for a
body that crosses the two-sided range while the FMU is co-simulated with m_eff."""

import json
import tempfile
import zipfile

import numpy as np
import pytest
from fmpy import extract, read_model_description
from fmpy.fmi2 import FMU2Slave
from scipy.integrate import solve_ivp
from scipy.interpolate import PchipInterpolator

TABLE = "gap_force_example.json"


class Curve:
    """A PCHIP through the table's points, continued outside by the end's straight line."""

    def __init__(self, points):
        x, y = np.array(points, dtype=float).T
        self.ends = (x[0], x[-1])
        self.inside = PchipInterpolator(x, y, extrapolate=False)
        slope = self.inside.derivative()
        self.lines = [(x[0], y[0], slope(x[0])), (x[-1], y[-1], slope(x[-1]))]

    def __call__(self, x):
        if x < self.ends[0]:
            x0, y0, m = self.lines[0]
        elif x > self.ends[1]:
            x0, y0, m = self.lines[1]
        else:
            return float(self.inside(x))
        return y0 + m * (x - x0)


class GapForceReference:
    """f = stiffness(s_rel - s_rel0) + damping(v_rel) - preload inside (range_min, range_max), else 0."""

    def __init__(self, table, s_rel0, preload, range_min, range_max):
        self.stiffness = Curve(table["stiffness"])
        self.damping = Curve(table["damping"])
        self.s_rel0, self.preload = s_rel0, preload
        self.range = (range_min, range_max)

    def inside(self, s):
        return self.range[0] < s < self.range[1]

    def force(self, s, v):
        if not self.inside(s):
            return 0.0
        return self.stiffness(s - self.s_rel0) + self.damping(v) - self.preload

    def loss_power(self, s, v):
        return self.damping(v) * v if self.inside(s) else 0.0


@pytest.fixture(scope="module")
def table(fmu_path):
    with zipfile.ZipFile(fmu_path) as archive:
        return json.loads(archive.read(f"resources/{TABLE}"))


@pytest.fixture(scope="module")
def unpacked(fmu_path):
    return read_model_description(fmu_path), extract(fmu_path, unzipdir=tempfile.mkdtemp())


def gap_force(unpacked, parameters, inputs=(0.0, 0.0)):
    """A co-simulation instance with the Gap Force on the example table, initialized."""
    md, directory = unpacked
    vr = {v.name: v.valueReference for v in md.modelVariables}
    slave = FMU2Slave(guid=md.guid, unzipDirectory=directory,
                      modelIdentifier=md.coSimulation.modelIdentifier, instanceName="gap force")
    slave.instantiate()
    slave.setupExperiment(startTime=0.0)
    slave.enterInitializationMode()
    slave.setInteger([vr["forceLaw"]], [7])
    slave.setString([vr["tableFile"]], [TABLE])
    for name, value in parameters.items():
        slave.setReal([vr[name]], [value])
    slave.setReal([vr["flange_b.s"], vr["flange_b.v"]], list(inputs))
    slave.exitInitializationMode()
    assert slave.getString([vr["tableFile"]]) == [TABLE.encode()]
    return slave, vr


PARAMETERS = {"s_rel0": 0.001, "preload": 3.0, "rangeMin": -0.006, "rangeMax": 0.007}


def test_the_force_is_the_tables_cubic_continued_by_its_end_slopes(unpacked, table):
    slave, vr = gap_force(unpacked, PARAMETERS)
    reference = GapForceReference(table, 0.001, 3.0, -0.006, 0.007)
    # Across the stiffness table (x from -0.004 to 0.004), beyond it on both sides, across and
    # beyond the damping table (v from -1 to 1), and outside the range.
    worst = 0.0
    for s in np.linspace(-0.0065, 0.0075, 57):
        for v in (-2.5, -1.0, -0.47, -0.1, -0.013, 0.0, 0.02, 0.1, 0.55, 1.0, 3.0):
            slave.setReal([vr["flange_b.s"], vr["flange_b.v"]], [s, v])
            f, loss = slave.getReal([vr["f"], vr["lossPower"]])
            contact = slave.getBoolean([vr["contact"]])[0]
            expected = reference.force(s, v)
            assert contact == reference.inside(s), (s, v)
            assert f == pytest.approx(expected, rel=1e-12, abs=1e-9), (s, v)
            assert loss == pytest.approx(reference.loss_power(s, v), rel=1e-12, abs=1e-9), (s, v)
            assert loss >= 0.0
            worst = max(worst, abs(f - expected))
    print(f"largest difference to SciPy's PCHIP: {worst:.1e} N")
    slave.terminate()
    slave.freeInstance()


def reference_crossing(reference, mass, x0, v0, t_end):
    """The body (flange_a fixed at 0) from x0, v0 to t_end: free flight in closed form, inside the
    range solve_ivp (DOP853, tolerances near rounding) with the ends located as events. Returns
    x, v, the dissipated energy and the number of range crossings."""
    t, x, v, dissipated, crossings = 0.0, x0, v0, 0.0, 0
    low, high = reference.range
    while t < t_end:
        if not reference.inside(x):
            # Free flight at constant velocity: into the range at the end it approaches.
            target = high if x >= high else low
            if (target - x) * v <= 0.0:
                x += v * (t_end - t)
                break
            tau = (target - x) / v
            if t + tau >= t_end:
                x += v * (t_end - t)
                break
            t, x = t + tau, target + np.sign(v) * 1e-15
            crossings += 1
            continue

        def rhs(_, y):
            return [y[1], -reference.force(y[0], y[1]) / mass, reference.loss_power(y[0], y[1])]

        def leaves_low(_, y):
            return y[0] - low

        def leaves_high(_, y):
            return y[0] - high

        for event in (leaves_low, leaves_high):
            event.terminal = True
        solution = solve_ivp(rhs, (t, t_end), [x, v, 0.0], method="DOP853", rtol=1e-13,
                             atol=[1e-16, 1e-13, 1e-16], events=(leaves_low, leaves_high))
        x, v, loss = solution.y[:, -1]
        t = solution.t[-1]
        dissipated += loss
        if solution.status == 1:
            x = low - 1e-15 if solution.t_events[0].size else high + 1e-15
            crossings += 1
    return x, v, dissipated, crossings


@pytest.mark.parametrize("h", [2e-4, 1e-3])
def test_a_body_crossing_the_range_matches_an_event_located_integration(unpacked, table, h):
    # 1 kg arriving at 5 m/s from above: pulled in at the upper end, through the spring's centre,
    # out of the lower end (farther from the centre, so the body leaves slower than it came); the
    # master holds f_mean over steps that each hold a good part of the 2.6 ms passage.
    mass, x0, v0, t_end = 1.0, 0.0095, -5.0, 0.012
    parameters = {**PARAMETERS, "m_eff": mass, "relativeTolerance": 1e-11}
    slave, vr = gap_force(unpacked, parameters, (x0, v0))
    reference = GapForceReference(table, 0.001, 3.0, -0.006, 0.007)
    x, v, t = x0, v0, 0.0
    steps = round(t_end / h)
    for _ in range(steps):
        slave.setReal([vr["flange_b.s"], vr["flange_b.v"]], [x, v])
        slave.doStep(t, h)
        a = -slave.getReal([vr["f_mean"]])[0] / mass
        x, v, t = x + h * (v + 0.5 * a * h), v + a * h, t + h
    e_loss = slave.getReal([vr["E_loss"]])[0]
    x_ref, v_ref, loss_ref, crossings = reference_crossing(reference, mass, x0, v0, steps * h)
    print(f"h = {h}: v {v:.12f} against {v_ref:.12f}, E_loss {e_loss:.12f} against {loss_ref:.12f}")
    assert crossings == 2, "in at the upper end, out at the lower"
    assert v < 0.0 and x < -0.006
    assert v == pytest.approx(v_ref, rel=1e-7)
    assert e_loss == pytest.approx(loss_ref, rel=1e-7)
    # The master's position converges to the FMU's motion once the correction is through.
    assert x == pytest.approx(x_ref, abs=1e-8)
    slave.terminate()
    slave.freeInstance()


def test_model_exchange_raises_events_at_both_ends_of_the_range(me_fmu_path, table):
    # FMPy's CVode integrates E_loss while flange_b moves at -2 m/s straight through the range
    # (flange_a fixed): contact must switch on at rangeMax and off at rangeMin, each at a located
    # event, and E_loss must be the damping table's power over the time inside.
    from fmpy import simulate_fmu
    from gap_law import structured_input

    speed, s0, stop = -2.0, 0.01, 0.01
    t = np.linspace(0.0, stop, 11)
    rows = structured_input(t, {"flange_a.s": 0 * t, "flange_a.v": 0 * t,
                                "flange_b.s": s0 + speed * t, "flange_b.v": speed + 0 * t, "v_tx": 0 * t,
                                "v_ty": 0 * t})
    result = simulate_fmu(me_fmu_path, fmi_type="ModelExchange", solver="CVode", relative_tolerance=1e-10,
                          start_time=0.0, stop_time=stop, output_interval=1e-4,
                          start_values={"forceLaw": 7, "tableFile": TABLE, **PARAMETERS},
                          input=rows, output=["contact", "E_loss", "s_rel"])
    reference = GapForceReference(table, 0.001, 3.0, -0.006, 0.007)
    t_in = (PARAMETERS["rangeMax"] - s0) / speed
    t_out = (PARAMETERS["rangeMin"] - s0) / speed
    events = result["time"][np.flatnonzero(np.diff(result["time"]) == 0.0)]
    assert events == pytest.approx([t_in, t_out], abs=1e-12), events
    inside = (result["time"] > t_in + 1e-9) & (result["time"] < t_out - 1e-9)
    outside = (result["time"] < t_in - 1e-9) | (result["time"] > t_out + 1e-9)
    assert result["contact"][inside].all() and not result["contact"][outside].any()
    expected = reference.loss_power(0.0, speed) * (t_out - t_in)
    print(f"E_loss {result['E_loss'][-1]:.12f} against {expected:.12f}")
    assert result["E_loss"][-1] == pytest.approx(expected, rel=1e-9)
