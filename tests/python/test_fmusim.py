"""Both packaged FMUs (ElastoGap.fmu, FMI 2.0; ElastoGap3.fmu, FMI 3.0) run by both of the FMI
project's reference simulators, built by packaging/setup.sh from ../shared/tools/fmusim
(tests/python/reference_tools.py finds them; a test skips where its tool is absent, and fails under CI):

    fmusim simulate [options] X.fmu     fmusim 0.7.0, the current Rust tool; also `fmusim validate`
    fmusim-c [options] X.fmu            fmusim 0.0.39, the last C release

Each FMU, through each tool: `fmusim validate` (only the Rust tool has it); co-simulation plain and,
for FMI 3.0, with --early-return-allowed, --event-mode-used and both; Model Exchange with
--solver euler and --solver cvode. Every run sets c, d, accelerationEstimate and heldForce = 4
("None", the master prescribes the motion) with --start-value and reads flange_b's motion from an
input CSV: constant speed into the stop and back out (fmusim_runs.py). Every row is judged against
the law written out again (gap_law.py) at that row's time on the CSV's motion:

  * s_rel and v_rel are the motion, at every row (both tools interpolate the CSV linearly; the FMU
    extrapolates with the velocity where a tool leaves the inputs of an earlier time);
  * f, f_c, f_d and lossPower are the law there;
  * contact switches exactly once at touch-down and once at lift-off: a row within 1e-9 s of the
    CSV's switch in co-simulation with early return (the step returns there), within 1e-6 s in
    Model Exchange (an event there); without early return, and under fmusim-c's Euler, whose step
    is the output interval, at the first row after the switch;
  * in co-simulation, f_mean and E_loss are the law's integrals along the motion over each step;
  * with heldForce left at Auto and m_eff = 0, f_mean is the heldForce = 4 run's but over the
    contact's first three steps at most (probes: docs/coupling.md, "A motion that answers no
    force"), and the FMU logs exactly one warning naming heldForce.

What the tools do, read from their sources (fmi-rs/src/sim/fmi3/{cs,me,input}.rs, sim/solver.rs for
fmusim; fmusim/FMI3CSSimulation.c, FMI3MESimulation.c, FMIEuler.c, FMIStaticInput.c for fmusim-c;
the FMI 2.0 loops alike):
  * both record the outputs at a communication point after the step that ends there; an early
    return ends the step at lastSuccessfulTime and the next step goes on to the same regular point;
  * co-simulation: inputs are set at the start of every step, except after an early return
    handled in event mode (--event-mode-used): the next step then starts with the inputs of the
    step before, which the FMU extrapolates; at the turn's input event they are set in event mode;
    fmusim-c reads every variable once after initialization (f_next among them), fmusim only the
    recorded ones;
  * the input event (the CSV's repeated T_TURN) is a communication point; in event mode and in
    Model Exchange it gives a row before and a row after it, at the same time;
  * Model Exchange: fmusim sets the inputs for each derivative evaluation but neither before the
    event indicators nor before it records a row but at an input event (the FMU extrapolates the
    last ones); fmusim-c sets them before
    each row and before each event-indicator evaluation of CVODE. Neither Euler locates an event:
    fmusim's ends its fixed step (--fixed-step-size, here 2^-20 s) at the first point past a
    switch; fmusim-c's step is the output interval and it compares event indicators read before
    the time and inputs of the new point are set. Where a tool is wrong in a way the FMU cannot
    make up for, a strict xfail says what happens.
"""

import numpy as np
import pytest

import fmusim_runs as runs
from fmusim_runs import H, STOP, T_TURN
from gap_law import assert_obeys_law
from reference_tools import require, run

MODES = {
    "cs": ("cs", (), None),
    "cs-early-return": ("cs", ("--early-return-allowed",), None),
    "cs-event-mode": ("cs", ("--event-mode-used",), None),
    "cs-early-return-event-mode": ("cs", ("--early-return-allowed", "--event-mode-used"), None),
    "me-euler": ("me", (), "euler"),
    "me-cvode": ("me", (), "cvode"),
}
# FMI 2.0 has neither early return nor event mode in co-simulation.
FMI2_MODES = ("cs", "me-euler", "me-cvode")
CS_MODES = [mode for mode in MODES if mode.startswith("cs")]

C_EULER_LATE = pytest.mark.xfail(
    strict=True,
    raises=AssertionError,
    reason="fmusim-c 0.0.39's Euler (FMIEuler.c) reads the event indicators right after the state "
           "update, before the tool sets the new time and inputs, and compares them with the last "
           "step's: a switch between t_(k-1) and t_k is handled at t_(k+1), so contact keeps its "
           "old value one output point past the first point after the switch; the FMU answers for "
           "the time and inputs it was given and cannot tell",
)
FMUSIM_CVODE_STALE_INPUTS = pytest.mark.xfail(
    strict=True,
    raises=AssertionError,
    reason="fmusim 0.7.0's Model Exchange (fmi-rs sim/fmi3/me.rs, sim/fmi2/me.rs) sets the inputs "
           "only for a derivative evaluation, neither before it records a row nor before the event "
           "indicators (setTime and setContinuousStates alone), and its CVODE (CV_NORMAL, no stop "
           "time) evaluates the derivatives far past the output point: past the turn's input event "
           "and past the table's end, where the tool holds the last row. Rows before the turn are "
           "then recorded with the inputs of a time after it, and event indicators after lift-off "
           "read with the table's last row held to a time far past it; the FMU extrapolates the "
           "last inputs it was given, backwards across the turn, and cannot tell",
)
STALE = {("fmusim", "me-cvode"): FMUSIM_CVODE_STALE_INPUTS}


def cases(modes=tuple(MODES), marks=None):
    found = []
    for tool in runs.TOOLS:
        for fmi in ("2.0", "3.0"):
            for mode in modes:
                if fmi == "2.0" and mode not in FMI2_MODES:
                    continue
                extra = (marks or {}).get((tool, mode), ())
                found.append(pytest.param((tool, fmi, mode), id=f"{tool}-fmi{fmi}-{mode}", marks=extra))
    return found


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return {"directory": tmp_path_factory.mktemp("fmusim"), "runs": {}}


def fmu_of(request, fmi):
    return request.getfixturevalue("fmu_path" if fmi == "2.0" else "fmu3_path")


def the_run(request, cache, case, held_force="None"):
    """(columns, log, law parameters) of one run, made once per module; heldForce = "None" sets
    it to the value of the item None, "Auto" leaves it at its default."""
    tool, fmi, mode = case
    key = (*case, held_force)
    binary = require(tool)
    if key not in cache["runs"]:
        fmu = fmu_of(request, fmi)
        md = runs.model_description(fmu)
        start = dict(runs.START)
        if held_force == "None":
            start["heldForce"] = runs.held_force_none(md)
        interface, flags, solver = MODES[mode]
        directory = cache["directory"] / "-".join(map(str, key))
        try:
            out, log = runs.simulate(tool, binary, fmu, directory, interface, flags=flags, solver=solver, start=start)
            cache["runs"][key] = (out, log, runs.law_parameters(md))
        except pytest.fail.Exception as failure:
            # A run that failed or hung is not made again: every test of it fails with its message.
            cache["runs"][key] = failure
    if isinstance(cache["runs"][key], pytest.fail.Exception):
        pytest.fail(str(cache["runs"][key]))
    return cache["runs"][key]


def located(case):
    """How close to the CSV's switch the tool puts the row where contact changes, or None where it
    does not locate switches (contact then changes at the first row after the switch)."""
    tool, _, mode = case
    if mode in ("cs-early-return", "cs-early-return-event-mode"):
        return 1e-9
    if mode == "me-cvode" or (mode == "me-euler" and tool == "fmusim"):
        return 1e-6
    return None


def rows_at_switch(case):
    """Rows at a located switch: two (before and after) where the tool handles an event there."""
    _, _, mode = case
    return 2 if mode.startswith("me") or mode.endswith("event-mode") else 1


def motion_at_rows(t):
    """The CSV's (s, v) at each row; of two rows at T_TURN the second is after the turn."""
    repeated = np.concatenate([[False], t[1:] == t[:-1]])
    return runs.motion(t, after=repeated)


# ------------------------------------------------------------------------------------------------
# Validation
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("fmi", ["2.0", "3.0"])
def test_fmusim_validate_finds_no_problem(request, fmi):
    """`fmusim validate` prints its problems as `error: ...` but exits 0 for those of the zip
    archive and the XSD (fmusim/src/validate.rs counts only the model description's own checks),
    so the output is read as well as the exit status."""
    binary = require("fmusim")
    done = run([binary, "validate", fmu_of(request, fmi)], timeout=runs.TIMEOUT, check=False)
    output = done.stdout + done.stderr
    assert done.returncode == 0 and "error" not in output.lower(), output


# ------------------------------------------------------------------------------------------------
# Every run: rows, motion, law, contact
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", cases(marks=STALE))
def test_rows_are_the_output_points_and_the_located_switches(request, cache, case):
    out, _, p = the_run(request, cache, case)
    t = out["time"]
    grid = np.arange(round(STOP / H) + 1) * H
    assert (np.diff(t) >= 0).all(), "time goes back"
    assert np.isin(grid, t).all(), f"output points missing: {grid[~np.isin(grid, t)]}"
    _, counts = np.unique(t, return_counts=True)
    assert counts.max() <= 2, "more than two rows at one time"
    events = [*runs.switch_times(p), *(runs.kink_times(p) if case[2].startswith("me") else [])]
    tolerance = located(case)
    extra = np.unique(t[~np.isin(t, grid)])
    if tolerance is None:
        assert extra.size == 0, f"rows off the output points: {extra}"
    else:
        near = np.abs(extra[:, None] - np.array(events)[None, :]).min(axis=1) <= tolerance
        assert near.all(), f"rows off the output points and the switches: {extra[~near]}"
        for when in runs.switch_times(p):
            at = np.flatnonzero(np.abs(t - when) <= tolerance)
            assert at.size == rows_at_switch(case), (when, t[at])
    # The turn, an input event: a row before and one after it where the tool enters event mode.
    assert (t == T_TURN).sum() == (2 if case[2].startswith("me") or case[2].endswith("event-mode") else 1)


@pytest.mark.parametrize("case", cases(marks=STALE))
def test_every_row_is_the_csv_motion(request, cache, case):
    out, _, _ = the_run(request, cache, case)
    s, v = motion_at_rows(out["time"])
    wrong = np.flatnonzero((np.abs(out["s_rel"] - s) > 1e-15) | (np.abs(out["v_rel"] - v) > 1e-15))
    assert wrong.size == 0, (
        f"{wrong.size} rows off the motion, first at t = {out['time'][wrong[0]]!r}: s_rel "
        f"{out['s_rel'][wrong[0]]!r} (motion {s[wrong[0]]!r}), v_rel {out['v_rel'][wrong[0]]!r} "
        f"(motion {v[wrong[0]]!r}); largest error in s_rel {np.abs(out['s_rel'] - s).max():.3g} m"
    )


@pytest.mark.parametrize("case", cases(marks=STALE))
def test_every_row_obeys_the_law_at_the_csv_motion(request, cache, case):
    out, _, p = the_run(request, cache, case)
    s, v = motion_at_rows(out["time"])
    outputs = {name: out[name] for name in ("f", "f_c", "f_d", "lossPower")}
    assert_obeys_law(s, v, outputs, p, where=f"{case}: ")


@pytest.mark.parametrize("case", cases(marks={("fmusim-c", "me-euler"): C_EULER_LATE, **STALE}))
def test_contact_switches_once_at_touch_down_and_once_at_lift_off(request, cache, case):
    out, _, p = the_run(request, cache, case)
    t, contact = out["time"], out["contact"]
    changes = np.flatnonzero(np.diff(contact.astype(int)))
    assert changes.size == 2 and contact[changes[0] + 1] and not contact[changes[1] + 1], (
        f"contact changes at t = {t[changes + 1]} (to {contact[changes + 1]}); expected one touch-down "
        f"and one lift-off")
    tolerance = located(case)
    for i, when in zip(changes, runs.switch_times(p)):
        if tolerance is None:
            # The first row past the switch has the new value, every row before it the old one.
            first_after = t[t > when].min()
            assert t[i + 1] == first_after and t[i] <= first_after, (when, t[i], t[i + 1], first_after)
        else:
            # The last row with the old value is at the switch; with an event there the row after
            # it is at the same time, else the next output point.
            assert abs(t[i] - when) <= tolerance, (
                f"switch at {when!r}, contact changes after the row at {t[i]!r} ({t[i] - when:.3g} s)")
            assert (t[i + 1] == t[i]) == (rows_at_switch(case) == 2), (t[i], t[i + 1])


@pytest.mark.parametrize("fmi", ["2.0", "3.0"])
def test_under_fmusim_cvode_the_fmu_is_right_for_the_inputs_it_was_given(request, cache, fmi):
    """What fmusim's stale inputs above leave to check: every row obeys the law at the s_rel and
    v_rel the FMU reports, and the touch-down and the lift-off, where the inputs the FMU was last
    given are on the same leg of the motion, are events within 1e-6 s of the CSV's switches."""
    case = ("fmusim", fmi, "me-cvode")
    out, _, p = the_run(request, cache, case)
    outputs = {name: out[name] for name in ("f", "f_c", "f_d", "lossPower")}
    assert_obeys_law(out["s_rel"], out["v_rel"], outputs, p, where=f"{case}: ")
    t, contact = out["time"], out["contact"]
    changes = np.flatnonzero(np.diff(contact.astype(int)))
    assert changes.size >= 2 and contact[changes[0] + 1] and not contact[changes[1] + 1], t[changes + 1]
    for i, when in zip(changes[:2], runs.switch_times(p)):
        assert abs(t[i] - when) <= 1e-6 and t[i + 1] == t[i], (when, t[i], t[i + 1])


# ------------------------------------------------------------------------------------------------
# Co-simulation: step means, energy, heldForce's default
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", cases(CS_MODES))
def test_co_simulation_step_means_and_energy_are_the_law_along_the_motion(request, cache, case):
    """heldForce = None: each step's f_mean is the law's mean along the motion from the step's
    start to its end, E_loss the sum of the dissipated energy (exact quadratures of the linear
    law, fmusim_runs.step_integrals)."""
    out, _, p = the_run(request, cache, case)
    t, first = np.unique(out["time"], return_index=True)
    _, means, losses = runs.step_integrals(out["time"], p)
    scale = np.abs(means).max()
    np.testing.assert_allclose(out["f_mean"][first[1:]], means, rtol=1e-9, atol=1e-9 * scale, err_msg="f_mean")
    energy = np.concatenate([[0.0], np.cumsum(losses)])
    assert energy[-1] > 0.0
    np.testing.assert_allclose(out["E_loss"][first], energy, rtol=1e-9, atol=1e-9 * energy[-1], err_msg="E_loss")


@pytest.mark.parametrize("case", cases(CS_MODES))
def test_held_force_auto_concludes_a_prescribed_motion_after_three_contact_steps(request, cache, case):
    """heldForce left at Auto and m_eff at 0 (the defaults): the contact's first steps hold probes
    that the prescribed motion does not answer; once every force a master may have held over a
    step was a probe (the third step, or the fourth where the f_next read after the first came out
    zero, as when the tool records f_next) the FMU steps as with heldForce = None, and says so once
    in a warning naming heldForce."""
    fmu = fmu_of(request, case[1])
    md = runs.model_description(fmu)
    enumeration = md["enumerations"]["heldForce"]
    assert int(md["start"]["heldForce"]) == enumeration["Auto"] and float(md["start"]["m_eff"]) == 0.0
    assert enumeration["None"] == 4, "README.md and docs/ give heldForce = 4 for a prescribed motion"
    auto, auto_log, p = the_run(request, cache, case, held_force="Auto")
    none, none_log, _ = the_run(request, cache, case)
    t = none["time"]
    assert np.array_equal(auto["time"], t), "the runs have different rows"
    touch_down, _ = runs.switch_times(p)
    probed_step_ends = np.unique(t[t > touch_down + 1e-9])[:3]
    later = ~np.isin(t, probed_step_ends)
    a, b = auto["f_mean"][later], none["f_mean"][later]
    off = np.flatnonzero(np.abs(a - b) > 1e-12 * np.abs(b))
    warned = runs.warnings_naming(auto_log, "heldForce")
    problems = [f"f_mean at t = {t[later][k]!r}: {a[k]!r} with Auto, {b[k]!r} with None" for k in off[:5]]
    if len(warned) != 1:
        problems.append(f"{len(warned)} warnings naming heldForce with Auto, log:\n{auto_log[-2000:]}")
    problems += [f"with None: {entry}" for entry in runs.warnings_naming(none_log, "heldForce")]
    assert not problems, "\n".join(problems)
