"""The ElastoGap FMU coupled with a body by cofmupy (PyPI, pinned 1.0.0), acceptance cases 1, 2 and 4.

cofmupy couples FMUs only, so the body is an FMU too: cosim_body/body.c (a body of mass m, optionally a
second body behind it on a spring, a spring to an anchor and a harmonic driving force), compiled here
with gcc against the FMI 2.0 headers the fmi-sys crate ships. Connections: the body's s and v to the
gap's flange_b.s and flange_b.v (flange_a stays at its start values 0), the gap's force to the body's
f_flange (the body feels -f): f_mean under Gauss-Seidel, f_next under Jacobi, as the README says.
cofmupy never reads outputs before the first step, so the gap's flange_b inputs get the body's start
values in its `initialization` map, and the body's force starts at 0 (a contact in the first step
then has no force held over that step).

cofmupy runs in its own venv (.venv-cofmupy, made by packaging/setup.sh: cofmupy 1.0.0 requires
fmpy 0.3.20, .venv pins 0.3.32) through cofmupy_driver.py in a subprocess. Its Gauss-Seidel order of
the gap and the body comes from a Python set, so from PYTHONHASHSEED: with the ids "gap" and "body",
seed 1 steps the gap first and seed 0 the body first (each run reports the order it actually
stepped in and the test checks it). Jacobi runs under seed 1.

Workaround for a cofmupy 1.0.0 bug: it reads every output with fmi2GetReal, which the FMU rightly
refuses for its Boolean output `contact`, and the run ends. The driver replaces cofmupy's
Fmu2Handler.step by the same step reading each output by its declared type (see cofmupy_driver.py).

References: the same mechanics integrated by scipy's DOP853 at tight tolerances with the contact
force from gap_law.law (the MSL law), contact start and end located as events.

"The n-th step after a contact" is the step that ends at communication point k_off + n, k_off being the
first point at or after the reference's lift-off. If the FMU has an output E_port, its final value is
also checked against the master-side port energy, sum(held force * change of s_rel).

Each test sweeps its cases, prints a table of every violated criterion with the measured value and its
limit, then asserts there is none. COUPLING_REPORT_ONLY=1 prints without asserting:

    COUPLING_REPORT_ONLY=1 .venv/bin/python -m pytest -s tests/python/test_cofmupy.py   # about a minute
"""

import json
import math
import os
import shutil
import subprocess
import zipfile
from pathlib import Path

import numpy as np
import pytest
from fmpy import read_model_description
from scipy.integrate import solve_ivp

from gap_law import ROOT, law

HERE = Path(__file__).resolve().parent
REPORT_ONLY = os.environ.get("COUPLING_REPORT_ONLY") == "1"
# Acceptance cases 1 and 2 (a lone body, m_eff exact, wrong or 0) pass under cofmupy and run in the
# default suite; case 4 (bodies not alone) is not met yet and runs when asked for
# (COUPLING_ACCEPTANCE=1, or COUPLING_REPORT_ONLY=1 to measure).
acceptance = pytest.mark.skipif(
    os.environ.get("COUPLING_ACCEPTANCE") != "1" and not REPORT_ONLY,
    reason="issue 19's acceptance, not met yet: COUPLING_ACCEPTANCE=1 (or COUPLING_REPORT_ONLY=1)",
)

# name: (cofmupy's cosim_method, PYTHONHASHSEED, the gap output connected, the order expected)
METHODS = {
    "Jacobi": ("jacobi", 1, "f_next", None),
    "GS gap first": ("gauss_seidel", 1, "f_mean", ["gap", "body"]),
    "GS body first": ("gauss_seidel", 0, "f_mean", ["body", "gap"]),
}

# Body FMU parameters: no spring, no second body, no drive unless a system sets them (L12 then only
# places the outputs s2 = s + L12).
BODY_DEFAULTS = dict(m2=0.0, k12=0.0, L12=0.1, k1=0.0, s_anchor=0.0, F0=0.0, omega=0.0)


def damping(c):
    """d = 20*sqrt(c/1e4) N.s/m: a damping ratio of 0.1 for 1 kg, whatever the stiffness."""
    return 20.0 * math.sqrt(c / 1e4)


# ------------------------------------------------------------------------------------------------
# Fixtures: cofmupy's interpreter and the body FMU
# ------------------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def cofmupy_python():
    python = Path(os.environ.get("COFMUPY_PYTHON", ROOT / ".venv-cofmupy" / "bin" / "python"))
    if not python.is_file():
        pytest.fail(f"{python} does not exist: run packaging/setup.sh (it makes .venv-cofmupy)")
    return str(python)


def fmi2_headers():
    """The FMI 2.0 headers of the fmi-sys crate the project builds with (cargo knows where it is)."""
    metadata = subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--offline"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    )
    for package in json.loads(metadata.stdout)["packages"]:
        if package["name"] == "fmi-sys":
            return Path(package["manifest_path"]).parent / "fmi-standard2" / "headers"
    raise RuntimeError("fmi-sys is not among the project's dependencies")


@pytest.fixture(scope="session")
def body_fmu(tmp_path_factory):
    build = tmp_path_factory.mktemp("body_fmu")
    library = build / "binaries" / "linux64" / "Body.so"
    library.parent.mkdir(parents=True)
    subprocess.run(
        ["gcc", "-std=c99", "-O2", "-shared", "-fPIC", "-I", str(fmi2_headers()),
         str(HERE / "cosim_body" / "body.c"), "-o", str(library), "-lm"],
        check=True,
    )
    path = build / "Body.fmu"
    with zipfile.ZipFile(path, "w") as archive:
        archive.write(HERE / "cosim_body" / "modelDescription.xml", "modelDescription.xml")
        archive.write(library, "binaries/linux64/Body.so")
    return str(path)


@pytest.fixture(scope="session")
def gap_outputs(fmu_path):
    return {v.name for v in read_model_description(fmu_path).modelVariables if v.causality == "output"}


# ------------------------------------------------------------------------------------------------
# Running cofmupy
# ------------------------------------------------------------------------------------------------


def run_spec(fmu_path, body_fmu, method, gap_parameters, body, step, steps, gap_outputs):
    """One co-simulation for cofmupy_driver.py."""
    cosim_method, _, force, _ = METHODS[method]
    gap_init = dict(gap_parameters)
    # cofmupy reads no output before the first step: the gap starts from the body's start state.
    gap_init.update({"flange_b.s": body["s0"], "flange_b.v": body["v0"]})
    record_gap = ["E_loss"] + (["E_port"] if "E_port" in gap_outputs else [])
    return {
        "fmus": [
            {"id": "gap", "path": fmu_path, "initialization": gap_init},
            {"id": "body", "path": body_fmu, "initialization": {**BODY_DEFAULTS, **body}},
        ],
        "connections": [
            ["gap", force, "body", "f_flange"],
            ["body", "s", "gap", "flange_b.s"],
            ["body", "v", "gap", "flange_b.v"],
        ],
        "cosim_method": cosim_method,
        "step": step,
        "steps": steps,
        "record": {"body": ["s", "v", "s2", "v2"], "gap": record_gap},
    }


def cosimulate(cofmupy_python, jobs, tmp_path):
    """Runs every job's spec with cofmupy, one subprocess per PYTHONHASHSEED; returns the results in
    the jobs' order. Checks the order each Gauss-Seidel run stepped in."""
    results = [None] * len(jobs)
    for seed in sorted({METHODS[job["method"]][1] for job in jobs}):
        indices = [i for i, job in enumerate(jobs) if METHODS[job["method"]][1] == seed]
        folder = tmp_path / f"seed{seed}"
        folder.mkdir()
        (folder / "runs.json").write_text(json.dumps([jobs[i]["spec"] for i in indices]))
        # cofmupy leaves an unzipped copy of each FMU per run in the temporary folder: keep them here.
        env = dict(os.environ, PYTHONHASHSEED=str(seed), TMPDIR=str(folder))
        done = subprocess.run(
            [cofmupy_python, str(HERE / "cofmupy_driver.py"), "runs.json", "results.json"],
            cwd=folder,
            env=env,
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, f"cofmupy_driver.py failed:\n{done.stderr[-3000:]}"
        for i, result in zip(indices, json.loads((folder / "results.json").read_text())):
            expected = METHODS[jobs[i]["method"]][3]
            if expected is not None:
                assert result["order"] == expected, (
                    f"PYTHONHASHSEED={seed} stepped {result['order']}, not {expected}: cofmupy's "
                    "set order changed, choose the seeds in METHODS again"
                )
            results[i] = result
        shutil.rmtree(folder)
    return results


# ------------------------------------------------------------------------------------------------
# The exact reference
# ------------------------------------------------------------------------------------------------


def law_parameters(gap):
    return dict(c=gap["c"], d=gap["d"], s_rel0=gap["s_rel0"], n=gap["n"], s_ref=1.0, f_ref=0.0)


def reference(gap, body, t_stop):
    """The coupled mechanics without co-simulation: DOP853 at rtol 1e-11 with the MSL contact force.
    Returns (dense solution of (s, v, s2, v2), [(contact start, contact end), ...]); a contact ends
    when the body passes s_rel0 outward (the force is 0 from there on)."""
    p = law_parameters(gap)
    b = {**BODY_DEFAULTS, **body}
    m, m2 = b["m"], b["m2"]

    def rhs(t, y):
        s, v, s2, v2 = y
        force = -float(law(s, v, p)["f"]) - b["k1"] * (s - b["s_anchor"]) + b["F0"] * math.sin(b["omega"] * t)
        if m2 > 0.0:
            spring = b["k12"] * ((s2 - s) - b["L12"])
            return [v, (force + spring) / m, v2, -spring / m2]
        return [v, force / m, v, force / m]

    def boundary(t, y):
        return y[0] - p["s_rel0"]

    # No step longer than a tenth of the contact's undamped half period: none may jump a contact.
    max_step = 0.1 * math.pi * math.sqrt(m / gap["c"])
    y0 = [b["s0"], b["v0"], b["s0"] + b["L12"], b["v0"]]
    sol = solve_ivp(rhs, (0.0, t_stop), y0, method="DOP853", rtol=1e-11, atol=1e-13,
                    max_step=max_step, dense_output=True, events=boundary)
    assert sol.success, sol.message
    contacts = []
    # solve_ivp may report a crossing twice (at the end of one step and the start of the next).
    for t, y in zip(sol.t_events[0], sol.y_events[0]):
        in_contact = bool(contacts) and contacts[-1][1] is None
        if y[1] < 0.0 and not in_contact:
            contacts.append([t, None])
        elif y[1] > 0.0 and in_contact:
            contacts[-1][1] = t
    if contacts and contacts[-1][1] is None:
        contacts.pop()  # still in contact at t_stop
    return sol.sol, [tuple(c) for c in contacts]


def lone_reference(gap, m, v0):
    """A lone body's impact, times from the moment it reaches s_rel0 (the motion does not depend on
    when that is): (contact duration, lift-off time, position at lift-off, rebound velocity)."""
    lead = 0.1 * math.pi * math.sqrt(m / gap["c"])
    body = dict(m=m, v0=v0, s0=gap["s_rel0"] - v0 * lead)
    solution, contacts = reference(gap, body, lead + 20 * math.pi * math.sqrt(m / gap["c"]))
    (start, end), = contacts
    s_end, v_rebound = solution(end)[:2]
    return end - start, end - lead, s_end, v_rebound


def first_point_after(t, h):
    """Index k of the first communication point t_k = k*h at or after t."""
    return int(math.ceil(t / h - 1e-9))


# ------------------------------------------------------------------------------------------------
# Violations and their table
# ------------------------------------------------------------------------------------------------


class Report:
    def __init__(self, title, gap_outputs):
        port = "E_port checked" if "E_port" in gap_outputs else "the FMU has no E_port: not checked"
        self.title, self.rows, self.runs = f"{title}; {port}", [], 0

    def check(self, case, criterion, measured, limit):
        """A violation when measured > limit."""
        if not measured <= limit:
            self.rows.append((case, criterion, f"{measured:.4g}", f"{limit:.4g}"))

    def finish(self):
        header = ("case", "criterion", "measured", "limit")
        widths = [max(len(str(r[i])) for r in self.rows + [header]) for i in range(4)]
        lines = [f"{self.title}: {self.runs} runs, {len(self.rows)} violations"]
        if self.rows:
            for row in [header] + self.rows:
                lines.append("  ".join(str(x).ljust(w) for x, w in zip(row, widths)))
        print("\n" + "\n".join(lines))
        if not REPORT_ONLY:
            assert not self.rows, f"{len(self.rows)} violations (table above)"


def check_port_energy(report, case, result, s0, s, e0):
    """If the FMU has E_port: its final value against the master-side port energy, the sum over the
    steps of the force the master held times the change of s_rel (flange_a stays at 0), within 0.5 %
    of the initial energy."""
    if "E_port" not in result["values"]["gap"]:
        return
    held = np.array(result["held"]["body"]["f_flange"])
    expected = float(np.sum(held * np.diff(np.concatenate([[s0], s]))))
    error = abs(result["values"]["gap"]["E_port"][-1] - expected)
    report.check(case, "|E_port - sum(f_held*ds_rel)|/E_0", error / e0, 0.005)


# ------------------------------------------------------------------------------------------------
# Case 1 and 2: a lone body
# ------------------------------------------------------------------------------------------------

# c, m, v0, n, s_rel0: stiffness from 1e4 to 1e8 N/m, masses and speeds around them; one Hertz-like n.
LONE_BODIES = [
    dict(c=1e4, m=1.0, v0=-1.0, n=1.0, s_rel0=0.0),
    dict(c=1e6, m=0.25, v0=-0.4, n=1.0, s_rel0=0.002),
    dict(c=1e8, m=3.0, v0=-2.0, n=1.0, s_rel0=-0.001),
    dict(c=1e5, m=1.0, v0=-1.0, n=1.5, s_rel0=0.0),
]
STEP_RATIOS = [0.1, 1.0, 10.0, 100.0]  # step / contact duration
# Where the contact starts: inside the first step (no force held over it) or inside the third.
IMPACT_AT = {"first step": 0.4, "third step": 2.7}  # in steps


def lone_body_runs(fmu_path, body_fmu, gap_outputs, bodies, m_eff_factors, impacts):
    """Jobs for every lone body, m_eff factor, step ratio, impact position and method, each with its
    exact reference: lift-off time, position there and rebound velocity."""
    jobs = []
    for lone in bodies:
        gap = dict(c=lone["c"], d=damping(lone["c"]), n=lone["n"], s_rel0=lone["s_rel0"])
        m, v0 = lone["m"], lone["v0"]
        duration, lift_off, s_end, v_rebound = lone_reference(gap, m, v0)
        for factor in m_eff_factors:
            for ratio in STEP_RATIOS:
                h = ratio * duration
                for where, steps_before in impacts.items():
                    t_impact = steps_before * h
                    body = dict(m=m, v0=v0, s0=gap["s_rel0"] - v0 * t_impact)
                    end = t_impact + lift_off
                    steps = first_point_after(end, h) + 8
                    for method in METHODS:
                        name = (f"{method}, c={gap['c']:.0e}, m={m}, n={gap['n']}, m_eff={factor}m, "
                                f"h={ratio}T_c, impact in {where}")
                        jobs.append(dict(
                            name=name, method=method, h=h, m=m, v0=v0, s0=body["s0"], end=end,
                            v_rebound=v_rebound, s_end=s_end,
                            spec=run_spec(fmu_path, body_fmu, method, {**gap, "m_eff": factor * m},
                                          body, h, steps, gap_outputs),
                        ))
    return jobs


def body_series(result, job):
    """Times t_1..t_N of the communication points after each step, the body's s and v there."""
    s = np.array(result["values"]["body"]["s"])
    v = np.array(result["values"]["body"]["v"])
    return job["h"] * np.arange(1, s.size + 1), s, v


def test_case1_exact_m_eff(fmu_path, body_fmu, gap_outputs, cofmupy_python, tmp_path):
    """m_eff = the body's mass: never faster than it came (the port's bound, docs/coupling.md).
    A contact after the first step: rebound velocity and E_loss within 0.5 % of exact from the 4th
    step after the contact on, and the body at most 0.35*(velocity change)*(step) behind the exact
    position (catching up the lag the step's mean force leaves would need energy the port never
    received). A contact inside the first step, which cofmupy holds no force over: the bound alone
    (the contact's energy came through no port)."""
    jobs = lone_body_runs(fmu_path, body_fmu, gap_outputs, LONE_BODIES, [1.0], IMPACT_AT)
    report = Report("cofmupy case 1 (m_eff exact, lone body)", gap_outputs)
    for job, result in zip(jobs, cosimulate(cofmupy_python, jobs, tmp_path)):
        report.runs += 1
        t, s, v = body_series(result, job)
        v_reb, m, v0 = job["v_rebound"], job["m"], job["v0"]
        report.check(job["name"], "max |v| / |v_impact| - 1", np.max(np.abs(v)) / abs(v0) - 1, 1e-9)
        check_port_energy(report, job["name"], result, job["s0"], s, 0.5 * m * v0**2)
        if "first step" in job["name"]:
            continue
        judged = t >= job["h"] * (first_point_after(job["end"], job["h"]) + 4) - 1e-12
        report.check(job["name"], "rebound |v/v_exact - 1|", np.max(np.abs(v[judged] / v_reb - 1)), 0.005)
        e_exact = 0.5 * m * (v0**2 - v_reb**2)
        e_loss = result["values"]["gap"]["E_loss"][-1]
        report.check(job["name"], "E_loss |E/E_exact - 1|", abs(e_loss / e_exact - 1), 0.005)
        s_exact = job["s_end"] + v_reb * (t[judged] - job["end"])
        scale = abs(v_reb - v0) * job["h"]
        error = np.max(np.abs(s[judged] - s_exact))
        report.check(job["name"], "position |s - s_exact|/(dv*h)", error / scale, 0.35)
    report.finish()


def test_case2_wrong_m_eff(fmu_path, body_fmu, gap_outputs, cofmupy_python, tmp_path):
    """m_eff from half to twice the body's mass, and 0: the body never faster than 3x its impact
    speed; after a contact after the first step, rebound within 1 % from the 3rd step after
    lift-off, and from then on no more kinetic energy than the exact rebound's + 0.5 %; E_loss within
    1 % of the kinetic energy the body lost. A contact inside the first step, which cofmupy holds
    no force over: the speed check alone (case 1's reason)."""
    bodies = [lone for lone in LONE_BODIES if lone["n"] == 1.0]
    jobs = lone_body_runs(fmu_path, body_fmu, gap_outputs, bodies, [0.0, 0.5, 2.0], IMPACT_AT)
    report = Report("cofmupy case 2 (m_eff wrong or 0, lone body)", gap_outputs)
    for job, result in zip(jobs, cosimulate(cofmupy_python, jobs, tmp_path)):
        report.runs += 1
        t, s, v = body_series(result, job)
        k_off = first_point_after(job["end"], job["h"])
        v_reb, m, v0 = job["v_rebound"], job["m"], job["v0"]
        rebound = t >= job["h"] * (k_off + 3) - 1e-12
        report.check(job["name"], "max |v| / |v_impact|", np.max(np.abs(v)) / abs(v0), 3.0)
        check_port_energy(report, job["name"], result, job["s0"], s, 0.5 * m * v0**2)
        if "first step" in job["name"]:
            continue
        report.check(job["name"], "rebound |v/v_exact - 1|", np.max(np.abs(v[rebound] / v_reb - 1)), 0.01)
        # Case 2's "at no communication point after that": after the 3rd step after lift-off, as
        # the rebound (the correction's first steps are bounded by the 3x speed check below).
        report.check(job["name"], "max KE from the 3rd step / KE_exact", np.max(v[rebound] ** 2) / v_reb**2, 1.005)
        lost = 0.5 * m * (v0**2 - v[-1] ** 2)
        e_loss = result["values"]["gap"]["E_loss"][-1]
        report.check(job["name"], "E_loss |E/(KE lost) - 1|", abs(e_loss / lost - 1), 0.01)
    report.finish()


# ------------------------------------------------------------------------------------------------
# Case 4: a body that is not alone
# ------------------------------------------------------------------------------------------------

OMEGA_N = 2 * math.pi * 10.0  # the driven body's own frequency on its spring (10 Hz, 1 kg)
SYSTEMS = {
    # A second body of 4 kg behind the 1 kg body on a spring (126 ms period), both at 1 m/s towards
    # the stop: it pushes the first back into the stop again and again (6-7 impacts in 0.13 s).
    "second body on a spring": (dict(m=1.0, m2=4.0, k12=2000.0, L12=0.1, v0=-1.0, s0=0.02), 0.4),
    # 1 kg on a 10 Hz spring 10 mm from the stop, started at 0.7 m/s (11 mm amplitude: an impact in
    # the first period), driven at resonance and 10 % below it.
    "driven at resonance": (
        dict(m=1.0, k1=OMEGA_N**2, s_anchor=0.01, F0=5.0, omega=OMEGA_N, v0=-0.7, s0=0.01), 0.5
    ),
    "driven 10 % below resonance": (
        dict(m=1.0, k1=OMEGA_N**2, s_anchor=0.01, F0=8.0, omega=0.9 * OMEGA_N, v0=-0.7, s0=0.01), 0.5
    ),
}
SYSTEM_STIFFNESSES = [1e5, 1e7]
SYSTEM_STEPS = [1e-3, 5e-3, 1e-2]


def mechanical_energy(body, s, v, s2, v2):
    """Kinetic energy of the bodies and the springs' energy (the contact's own is not included)."""
    b = {**BODY_DEFAULTS, **body}
    energy = 0.5 * b["m"] * v**2 + 0.5 * b["k1"] * (s - b["s_anchor"]) ** 2
    if b["m2"] > 0.0:
        energy = energy + 0.5 * b["m2"] * v2**2 + 0.5 * b["k12"] * (s2 - s - b["L12"]) ** 2
    return energy


@acceptance
def test_case4_body_not_alone(fmu_path, body_fmu, gap_outputs, cofmupy_python, tmp_path):
    """A body with a second body behind it on a spring, and a body on a spring driven into the stop
    (several impacts), m_eff = the contacting body's mass, steps of 1, 5 and 10 ms: between contacts,
    from the 4th step after each one, mechanical energy within 2 % of the reference's and never above
    it by more than 0.5 % of the initial energy; positions within 2 % of the stroke."""
    jobs = []
    for system, (body, t_stop) in SYSTEMS.items():
        for c in SYSTEM_STIFFNESSES:
            gap = dict(c=c, d=damping(c), n=1.0, s_rel0=0.0)
            solution, contacts = reference(gap, body, t_stop)
            assert len(contacts) >= 2, f"{system}: the reference has {len(contacts)} contacts, meant several"
            for h in SYSTEM_STEPS:
                steps = int(round(t_stop / h))
                for method in METHODS:
                    jobs.append(dict(
                        name=f"{method}, {system}, c={c:.0e}, h={h * 1e3:g} ms", method=method, h=h,
                        body=body, solution=solution, contacts=contacts,
                        spec=run_spec(fmu_path, body_fmu, method, {**gap, "m_eff": body["m"]}, body, h, steps,
                                      gap_outputs),
                    ))
    report = Report("cofmupy case 4 (body not alone)", gap_outputs)
    for job, result in zip(jobs, cosimulate(cofmupy_python, jobs, tmp_path)):
        report.runs += 1
        h, body = job["h"], job["body"]
        values = result["values"]["body"]
        s, v, s2, v2 = (np.array(values[name]) for name in ("s", "v", "s2", "v2"))
        t = h * np.arange(1, s.size + 1)
        exact = job["solution"](t)
        energy = mechanical_energy(body, s, v, s2, v2)
        energy_exact = mechanical_energy(body, *exact)
        l12 = {**BODY_DEFAULTS, **body}["L12"]
        e0 = mechanical_energy(body, body["s0"], body["v0"], body["s0"] + l12, body["v0"])
        stroke = np.ptp(exact[0])
        # Windows between contacts: from the 4th step after one to the last point before the next.
        # The 2 % are of the energy the contact left (the reference's at its lift-off): the driven
        # body's energy changes between contacts and may pass near 0.
        judged = np.zeros(t.size, dtype=bool)
        energy_scale = np.full(t.size, np.nan)
        starts = [start for start, _ in job["contacts"][1:]] + [math.inf]
        for (_, end), next_start in zip(job["contacts"], starts):
            window = (t >= h * (first_point_after(end, h) + 4) - 1e-12) & (t < next_start)
            judged |= window
            energy_scale[window] = mechanical_energy(body, *job["solution"](end))
        assert judged.any(), f"{job['name']}: no point to judge (every system is meant to have some)"
        relative = np.abs(energy[judged] - energy_exact[judged]) / energy_scale[judged]
        report.check(job["name"], "energy |E - E_exact|/E_exact(lift-off)", np.max(relative), 0.02)
        excess = np.max(energy[judged] - energy_exact[judged])
        report.check(job["name"], "energy (E - E_exact)/E_0", excess / e0, 0.005)
        error = np.max(np.abs(s[judged] - exact[0][judged]))
        report.check(job["name"], "position |s - s_exact|/stroke", error / stroke, 0.02)
        check_port_energy(report, job["name"], result, body["s0"], s, e0)
    report.finish()


# ------------------------------------------------------------------------------------------------
# The body FMU itself, without the gap (FMPy drives it): what the cases above take for granted
# ------------------------------------------------------------------------------------------------


def simulate_body(body_fmu, body, force, step, stop):
    from fmpy import simulate_fmu

    from gap_law import structured_input

    t = np.array([0.0, stop])
    return simulate_fmu(
        body_fmu,
        start_values={**BODY_DEFAULTS, **body},
        input=structured_input(t, {"f_flange": np.full(2, force)}),
        output=["s", "v", "s2", "v2"],
        step_size=step,
        stop_time=stop,
    )


def test_body_fmu_lone_body_is_exact(body_fmu):
    """A held force on a lone body: s0 + v0*t - f/(2m)*t^2 at every point, whatever the step."""
    body = dict(m=2.0, s0=0.03, v0=-0.8)
    result = simulate_body(body_fmu, body, force=-5.0, step=0.037, stop=1.0)
    t = result["time"]
    acceleration = 5.0 / body["m"]
    s_exact = body["s0"] + body["v0"] * t + 0.5 * acceleration * t**2
    np.testing.assert_allclose(result["s"], s_exact, rtol=0, atol=1e-13)
    np.testing.assert_allclose(result["v"], body["v0"] + acceleration * t, rtol=0, atol=1e-13)


@pytest.mark.parametrize("system", list(SYSTEMS))
def test_body_fmu_matches_the_reference_away_from_the_stop(body_fmu, system):
    """Case 4's systems with the stop moved out of reach (s_rel0 far below) and a drive added where
    there is none (else the two bodies would just coast together): the FMU's RK4 and the reference's
    DOP853 integrate the same springs, masses and drive, to 1e-7 of the motion's range."""
    body, t_stop = SYSTEMS[system]
    if "F0" not in body:
        body = dict(body, F0=3.0, omega=30.0)
    gap = dict(c=1e5, d=damping(1e5), n=1.0, s_rel0=-10.0)
    solution, contacts = reference(gap, body, t_stop)
    assert not contacts
    result = simulate_body(body_fmu, body, force=0.0, step=0.01, stop=t_stop)
    exact = solution(result["time"])
    for row, name in enumerate(["s", "v", "s2", "v2"]):
        tolerance = 1e-7 * np.ptp(exact[row])
        np.testing.assert_allclose(result[name], exact[row], rtol=0, atol=tolerance, err_msg=name)
