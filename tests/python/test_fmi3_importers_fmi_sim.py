"""The FMI 3.0 FMU (ElastoGap3.fmu) run by fmi-sim 0.7.0 (crates.io; packaging/setup.sh installs it):
co-simulation with and without --early-return-allowed and --event-mode-used, and Model Exchange,
on an input CSV of a prescribed motion.

    .venv/bin/python -m pytest -q tests/python/test_fmi3_importers*.py

The motion: flange_a held at 0, flange_b on a parabola s(t) = S0 + V0*t + A*t^2/2 (decelerated
through the gap and back out): contact from T_IN to T_OUT, the roots of s = s_rel0, both strictly
inside a step. Rows of the CSV every DT, the communication points among them, and T_IN and T_OUT:
the step after an early return starts there with the inputs interpolated from the table, which
between rows is off the parabola by up to A*DT^2/8 (1.3e-8 m); with a row at the switch they are
the motion itself, else the FMU, told a position a little outside the contact it just located,
locates it again 2e-8 s later and returns early a second time (as it should).

What fmi-sim 0.7.0 does with an FMI 3.0 FMU, read from its source (src/sim/fmi3/cs.rs,
src/sim/mod.rs, src/sim/me.rs, src/sim/io.rs, src/sim/interpolation.rs, src/sim/solver/euler.rs);
the expectations below reproduce it:
  * inputs: Real columns interpolated linearly, x_i + ((t - t_i)/(t_(i+1) - t_i))*(x_(i+1) - x_i).
    On a row time t_j the interval is [t_(j-1), t_j] (fraction 1.0, which can differ from x_j in the
    last bit) unless "after event" is asked, then [t_j, t_(j+1)] (x_j exactly);
  * co-simulation, per step: record the outputs at t, set the inputs of t (after event without event
    mode, not after event with it), fmi3DoStep(t, next regular point - t); after an early return the
    next step starts at lastSuccessfulTime and goes to the same regular point. So the row of a time
    holds what the step ending there left, computed from the inputs of its start. With event mode
    and eventHandlingNeeded: a row (before), fmi3EnterEventMode, fmi3UpdateDiscreteStates until it
    needs no more, fmi3EnterStepMode, and the next loop's row (after), at the same time, the inputs
    not set again. No intermediate update;
  * model exchange: forward Euler between output points with the derivatives at the step's start;
    the event indicators are read right after the state update, before the time and the inputs of
    the new point are set, so a crossing of the inputs is seen one point late, and the indicators'
    previous values start at 0 (a positive indicator is a "crossing" at the first point); at an
    event a row before and one after the update, at the same time;
  * --init-values are set in the Instantiated state; fmi-sim 0.7.0's model description reader
    (fmi-schema 0.8) drops FMI 3.0 <Enumeration> variables, so heldForce cannot be set through it
    ("Invalid variable name"): the runs use its default, Auto, with m_eff = 0. A prescribed motion
    then answers none of the FMU's probes and the steps go along the motion (docs/coupling.md);
  * fmi-schema 0.8 refuses a `unit` attribute on a Float64 variable ('unknown field "unit" in
    element "FmiFloat64"'): ElastoGap3.fmu gives its units through declared types (Float64Type), as
    the Reference FMUs do, and fmi-sim reads the packaged .fmu as it is.
"""

import csv
import os
import subprocess

import numpy as np
import pytest

from gap_law import assert_obeys_law, law
from test_fmi_sim import fmi_sim, read_output_csv  # noqa: F401 (fmi_sim is a fixture)

P = dict(c=1e4, d=30.0, s_rel0=0.02, n=1.0, s_ref=0.01, f_ref=0.0)
S0, V0, A = 0.05, -1.0, 10.0
H, DT, STOP = 1e-3, 1e-4, 0.2
ROOTS = np.roots([A / 2, V0, S0 - P["s_rel0"]])
T_IN, T_OUT = float(ROOTS.min()), float(ROOTS.max())


ENV = dict(os.environ, RUST_LOG="warn", RUST_BACKTRACE="0")


def motion(t):
    return S0 + t * (V0 + 0.5 * A * t), V0 + A * t


def input_rows():
    steps = round(STOP / H)
    t = (np.arange(steps)[:, None] * H + np.arange(round(H / DT))[None, :] * DT).ravel()
    t = np.sort(np.concatenate([t, [T_IN, T_OUT, steps * H]]))
    s, v = motion(t)
    return {"time": t, "flange_a.s": 0.0 * t, "flange_a.v": 0.0 * t, "flange_b.s": s, "flange_b.v": v}


def applied(rows, times, after_event):
    """The relative (s, v) fmi-sim sets at `times` (see the module doc)."""
    t = rows["time"]
    side = "right" if after_event else "left"
    index = np.clip(np.searchsorted(t, times, side=side) - 1, 0, t.size - 2)
    fraction = (times - t[index]) / (t[index + 1] - t[index])
    out = []
    for b, a in (("flange_b.s", "flange_a.s"), ("flange_b.v", "flange_a.v")):
        xb, xa = rows[b], rows[a]
        b_at = xb[index] + fraction * (xb[index + 1] - xb[index])
        a_at = xa[index] + fraction * (xa[index + 1] - xa[index])
        out.append(b_at - a_at)
    return out


@pytest.fixture(scope="module")
def fmi_sim_fmu(fmu3_path):
    """The packaged ElastoGap3.fmu, as it is."""
    return fmu3_path


def run(fmi_sim, fmu3_path, tmp_path, interface, flags=()):
    rows = input_rows()
    with open(tmp_path / "in.csv", "w", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(list(rows))
        for i in range(rows["time"].size):
            writer.writerow([repr(float(values[i])) for values in rows.values()])
    out = tmp_path / "out.csv"
    command = [fmi_sim, "--model", fmu3_path, "-i", str(tmp_path / "in.csv"), "-o", str(out), interface, *flags]
    command += ["-s", "0", "-f", repr(STOP), "--output-interval", repr(H)]
    for name, value in P.items():
        command += ["--init-values", f"{name}={value!r}"]
    done = subprocess.run(command, capture_output=True, text=True, env=ENV)
    report = f"{' '.join(command)}\nstdout:\n{done.stdout[-3000:]}\nstderr:\n{done.stderr[-3000:]}"
    assert done.returncode == 0, report
    return rows, read_output_csv(out)


CS_FLAGS = {
    "plain": (),
    "event-mode": ("--event-mode-used",),
    "early-return": ("--early-return-allowed",),
    "early-return-event-mode": ("--early-return-allowed", "--event-mode-used"),
}


@pytest.fixture(scope="module")
def cs_runs(fmi_sim, fmi_sim_fmu, tmp_path_factory):
    return {
        name: run(fmi_sim, fmi_sim_fmu, tmp_path_factory.mktemp(name), "co-simulation", flags)
        for name, flags in CS_FLAGS.items()
    }


def test_fmi_sim_loads_the_packaged_fmu_unchanged(fmi_sim, fmu3_path, tmp_path):
    command = [fmi_sim, "--model", fmu3_path, "-o", str(tmp_path / "out.csv"), "co-simulation",
               "-s", "0", "-f", "0.01", "--output-interval", "0.01"]
    done = subprocess.run(command, capture_output=True, text=True, env=ENV)
    assert done.returncode == 0, done.stderr


def test_heldforce_cannot_be_set_through_fmi_sim(fmi_sim, fmi_sim_fmu, tmp_path):
    """The reason the runs keep heldForce at its default (see the module doc): if fmi-sim learns
    FMI 3.0 Enumerations, set heldForce = 4 in `run` and drop this test."""
    command = [fmi_sim, "--model", fmi_sim_fmu, "-o", str(tmp_path / "out.csv"), "co-simulation",
               "-s", "0", "-f", "0.01", "--output-interval", "0.01", "--init-values", "heldForce=4"]
    done = subprocess.run(command, capture_output=True, text=True, env=ENV)
    assert done.returncode != 0 and "Invalid variable name: heldForce" in done.stderr + done.stdout


def switch_times(name):
    return [T_IN, T_OUT] if name.startswith("early-return") else []


@pytest.mark.parametrize("name", CS_FLAGS)
def test_co_simulation_rows_are_the_points_and_the_early_returns(cs_runs, name):
    _, out = cs_runs[name]
    t = out["time"]
    grid = np.arange(round(STOP / H) + 1) * H
    extra = t[~np.isin(t, grid)]
    expected = switch_times(name)
    copies = 2 if name.endswith("event-mode") else 1
    # One row per early return (two with event mode: before and after), at the exact switch.
    assert extra.size == copies * len(expected), extra
    np.testing.assert_array_equal(np.unique(t[np.isin(t, grid)]), grid)
    assert np.isin(t, grid).sum() == grid.size
    if expected:
        errors = np.unique(extra) - np.array(expected)
        print(f"{name}: early returns at {np.unique(extra)!r}, errors {errors}")
        assert (np.abs(errors) <= 1e-9).all()
    assert (np.diff(t) >= 0).all()


@pytest.mark.parametrize("name", CS_FLAGS)
def test_co_simulation_rows_follow_the_motion_and_obey_the_law(cs_runs, name):
    """Each row is the end of the step from the previous row's time, along the motion extrapolated
    from the inputs set there (the parabola's own acceleration once the estimate has two steps of
    history); f, lossPower and contact are the law at the row's (s_rel, v_rel), but contact at an
    early return before its switch is taken."""
    rows, out = cs_runs[name]
    t = out["time"]
    distinct, first = np.unique(t, return_index=True)
    s_in, v_in = applied(rows, distinct, after_event=not name.endswith("event-mode"))
    tau = np.diff(distinct)
    s_end, v_end = s_in[:-1] + tau * (v_in[:-1] + 0.5 * A * tau), v_in[:-1] + A * tau
    late = distinct[1:] >= 3 * H
    np.testing.assert_allclose(out["s_rel"][first[1:]][late], s_end[late], rtol=0, atol=1e-12)
    np.testing.assert_allclose(out["v_rel"][first[1:]][late], v_end[late], rtol=0, atol=1e-12)
    # ... and the prescribed motion itself to the table's interpolation (A*DT^2/8) at most.
    s, v = motion(t)
    assert np.max(np.abs(out["s_rel"] - s)[t >= 3 * H]) <= A * DT**2 / 8 + 1e-12
    at_switch = np.array([any(abs(x - when) <= 1e-9 for when in switch_times(name)) for x in t])
    forces = {k: out[k] for k in ("f", "lossPower")}
    assert_obeys_law(out["s_rel"], out["v_rel"], forces, P, where=f"{name}: ")
    keep = ~at_switch
    assert_obeys_law(out["s_rel"][keep], out["v_rel"][keep], {"contact": out["contact"][keep]}, P, where=name)
    assert out["contact"].any() and not out["contact"][-1]


@pytest.mark.parametrize("name", ["early-return", "early-return-event-mode"])
def test_co_simulation_contact_at_the_early_returns(cs_runs, name):
    """At each early return: on the stop's edge, no force (ElastoGap: continuous through the
    switch); contact its value before the switch, and after it in event mode's second row (or at the
    next point without event mode)."""
    _, out = cs_runs[name]
    t = out["time"]
    for when, entering in ((T_IN, True), (T_OUT, False)):
        i = np.flatnonzero(np.abs(t - when) <= 1e-9)
        assert abs(out["s_rel"][i[0]] - P["s_rel0"]) <= 1e-12
        assert np.all(np.abs(out["f"][i]) <= 1e-9 * P["c"] * P["s_ref"])
        assert out["contact"][i[0]] == (not entering)
        if name.endswith("event-mode"):
            assert i.size == 2 and out["contact"][i[1]] == entering
            assert out["f"][i[1]] == out["f"][i[0]] and out["s_rel"][i[1]] == out["s_rel"][i[0]]
        else:
            assert i.size == 1 and out["contact"][i[0] + 1] == entering


# ------------------------------------------------------------------------------------------------
# Model Exchange
# ------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def me_run(fmi_sim, fmi_sim_fmu, tmp_path_factory):
    return run(fmi_sim, fmi_sim_fmu, tmp_path_factory.mktemp("me"), "model-exchange")


def test_model_exchange_rows_are_the_law_at_the_applied_inputs(me_run):
    rows, out = me_run
    t = out["time"]
    grid = np.arange(round(STOP / H) + 1) * H
    np.testing.assert_array_equal(np.unique(t), grid)
    s_in, v_in = applied(rows, t, after_event=False)
    np.testing.assert_allclose(out["s_rel"], s_in, rtol=0, atol=1e-15)
    np.testing.assert_allclose(out["v_rel"], v_in, rtol=0, atol=1e-15)
    assert_obeys_law(s_in, v_in, {k: out[k] for k in ("f", "lossPower")}, P, where="model exchange: ")
    # E_loss: forward Euler from point to point with lossPower at the inputs of the step's start.
    distinct, first = np.unique(t, return_index=True)
    power = law(*applied(rows, distinct, after_event=False), P)["lossPower"]
    euler = np.concatenate([[0.0], np.cumsum(power[:-1] * np.diff(distinct))])
    assert euler[-1] > 0.0
    np.testing.assert_allclose(out["E_loss"][first], euler, rtol=1e-12, atol=1e-12 * euler[-1])


def test_model_exchange_events_one_point_late_with_rows_before_and_after(me_run):
    """The contact's start and end are events at the point after the first point past them (see
    the module doc), with contact before and after; contact is the law's at every other row but at
    the one point where the crossing is not yet seen."""
    rows, out = me_run
    t = out["time"]
    s_in, _ = applied(rows, t, after_event=False)
    inside = s_in < P["s_rel0"]
    grid = np.arange(round(STOP / H) + 1) * H
    first_in = grid[np.argmax(motion(grid)[0] < P["s_rel0"])]
    first_out = grid[np.argmax((motion(grid)[0] >= P["s_rel0"]) & (grid > T_IN))]
    stale = np.isin(t, [first_in, first_out])
    for when, entering in ((first_in + H, True), (first_out + H, False)):
        i = np.flatnonzero(np.abs(t - when) <= 1e-12)
        print(f"contact event at {t[i]}: contact {out['contact'][i]}")
        assert i.size == 2 and t[i[0]] == t[i[1]], t[i]
        assert (out["contact"][i[0]], out["contact"][i[1]]) == (not entering, entering)
        stale[i[0]] = True
    np.testing.assert_array_equal(out["contact"][~stale], inside[~stale])
    assert (out["contact"][stale] != inside[stale]).all()
    # fmi-sim's first point is an event (the indicators' previous values start at 0), the others
    # are the law's switches: contact, and the damper between bounded and linear.
    assert t.size > grid.size + 2
