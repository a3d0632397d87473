"""The ElastoGap FMU under OMSimulator (OpenModelica's co-simulation tool), a lone body dropped onto the stop.

OMSimulator's default master steps every unit at once (Jacobi): a force the gap outputs after its step
reaches the body over the next one. `f_next` (the mean force predicted over the coming step) is made for
that master; `f_mean` (the mean over the step just done) then arrives one step late, and the FMU must
keep the body's energy bounded and tell the user to connect `f_next`. Requirements, every case its own
test:
- `f_next` connected: the rebound velocity exact to 1e-6 (relative), with m_eff = 0 (default) and 1 kg,
  at every step from 1 to 30 ms, the touch-down inside a step and on a communication point; no warning
  that the master holds a force late;
- `f_mean` connected: the body's energy at every recorded point at most 1.1 times the initial with
  m_eff right (1 kg), at most 10 times with m_eff = 0; one fmi2Warning from the FMU naming `f_next`; and,
  once the FMU has told the late reading, the rebound velocity exact to 1e-6 as with `f_next` (where the body
  is at the end is not asserted: at 30 ms it leaves the stop later than the exact motion).
The steps: six fixed ones from 1 to 30 ms, the touch-down 2.6 steps (inside a step) or 3 steps (on a
communication point) from the start, and RANDOM_CASES more drawn from a seeded generator, log-uniform
over 1 to 30 ms with the touch-down 2 to 4 steps from the start.

System: the body FMU of test_cofmupy.py (cosim_body/, m = 1 kg, s0, v0 = -1 m/s), its s and v to the
gap's flange_b.s and flange_b.v, the gap's force to the body's f_flange; flange_a fixed at 0; the gap
with c = 1e4 N/m, d = 20 N.s/m, s_rel0 = 0 (contact duration about 31 ms). 0.3 s take the body back out
well clear.
OMSimulator records every variable of both units to a CSV result file and the FMUs' log messages (it
instantiates them with logging on) to a log file: omsimulator_runs.py runs all cases in one process,
once for the module (a few seconds).

OMSimulator refuses a connection between variables whose units have different SI base units, and takes a
unit without <BaseUnit> as dimensionless: the body's description gives every unit's base units.

The exact rebound (0.758629 m/s, docs/m-eff.md) is computed here: the body under the MSL law of gap_law.py,
integrated by scipy's DOP853 at rtol 1e-12 to the lift-off.
"""

import csv
import functools
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from gap_law import law, packaged_fmu
from reference_tools import require_omsimulator
from test_cofmupy import body_fmu  # noqa: F401 (a fixture: the body FMU compiled from cosim_body/)

HERE = Path(__file__).resolve().parent
MASS, V0 = 1.0, -1.0
GAP = dict(c=1e4, d=20.0, s_rel0=0.0)
STOP = 0.3
STEPS = [1e-3, 2.5e-3, 5e-3, 10e-3, 20e-3, 30e-3]
TOUCH_DOWN = {"inside": 2.6, "on-point": 3.0}  # steps from the start to the touch-down
RANDOM_CASES, SEED = 8, 0x0e5c_a5e


class Case(NamedTuple):
    """The gap output connected to the body's force, the gap's m_eff, the step, and how many steps
    from the start the touch-down is."""

    force: str
    m_eff: float
    h: float
    steps_to_touch_down: float

    @property
    def name(self):
        where = {value: key for key, value in TOUCH_DOWN.items()}.get(self.steps_to_touch_down)
        where = where or f"after{self.steps_to_touch_down:.4g}steps"
        return f"{self.force}-m_eff{self.m_eff:g}-h{self.h * 1e3:.4g}ms-{where}"

    @property
    def s0(self):
        return self.steps_to_touch_down * self.h * -V0


def drawn_steps():
    """(step, steps to the touch-down) drawn from the seeded generator."""
    generator = np.random.default_rng(SEED)
    return [(float(np.exp(generator.uniform(np.log(1e-3), np.log(30e-3)))), float(generator.uniform(2.0, 4.0)))
            for _ in range(RANDOM_CASES)]


def cases(force):
    grid = [(h, steps) for h in STEPS for steps in TOUCH_DOWN.values()]
    return [Case(force, m_eff, h, steps) for m_eff in (0.0, 1.0) for h, steps in grid + drawn_steps()]


CASES = cases("f_next") + cases("f_mean")


# ------------------------------------------------------------------------------------------------
# The exact rebound
# ------------------------------------------------------------------------------------------------


@functools.cache
def exact_rebound():
    """The body's velocity when it leaves the stop, from 1 mm before it."""
    p = dict(GAP, n=1.0, s_ref=1.0, f_ref=0.0)

    def rhs(t, y):
        return [y[1], -float(law(y[0], y[1], p)["f"]) / MASS]

    def lift_off(t, y):
        return y[0] - p["s_rel0"]

    lift_off.terminal, lift_off.direction = True, 1
    sol = solve_ivp(rhs, (0.0, 1.0), [1e-3, V0], method="DOP853", rtol=1e-12, atol=1e-15, events=lift_off)
    assert sol.status == 1, "the body did not leave the stop"
    return float(sol.y_events[0][0][1])


# ------------------------------------------------------------------------------------------------
# Running OMSimulator
# ------------------------------------------------------------------------------------------------


def run_spec(case, folder, gap_fmu, body):
    parameters = {f"gap.{name}": value for name, value in GAP.items()}
    parameters.update({"gap.m_eff": case.m_eff, "gap.flange_a.s": 0.0, "gap.flange_a.v": 0.0})
    parameters.update({"body.m": MASS, "body.s0": case.s0, "body.v0": V0})
    return {
        "name": case.name,
        "units": {"gap": gap_fmu, "body": body},
        "connections": [
            ["body.s", "gap.flange_b.s"],
            ["body.v", "gap.flange_b.v"],
            [f"gap.{case.force}", "body.f_flange"],
        ],
        "parameters": parameters,
        "step": case.h,
        "stop": STOP,
        "result": str(folder / f"{case.name}.csv"),
        "log": str(folder / f"{case.name}.log"),
    }


class Runs:
    """Every case run once by omsimulator_runs.py; `result(case)` reads one back."""

    def __init__(self, folder, environment, gap_fmu, body):
        self.specs = {case: run_spec(case, folder, gap_fmu, body) for case in CASES}
        (folder / "runs.json").write_text(json.dumps(list(self.specs.values()), indent=1))
        self.done = subprocess.run(
            [sys.executable, str(HERE / "omsimulator_runs.py"), "runs.json", "status.json"],
            cwd=folder, env=environment, capture_output=True, text=True, timeout=600,
        )
        status_file = folder / "status.json"
        self.status = json.loads(status_file.read_text()) if status_file.is_file() else {}

    def result(self, case):
        spec = self.specs[case]
        if case.name not in self.status:
            pytest.fail(f"omsimulator_runs.py exited {self.done.returncode} before {case.name}:\n"
                        f"{self.done.stderr[-3000:]}")
        if self.status[case.name] is not None:
            pytest.fail(f"OMSimulator: {self.status[case.name]}\n{Path(spec['log']).read_text()[-3000:]}")
        return read_result(spec["result"]), fmu_warnings(spec["log"], "gap")


@pytest.fixture(scope="module")
def omsimulator():
    """The environment OMSimulator's Python package imports in (skips where it is absent)."""
    return require_omsimulator()


@pytest.fixture(scope="module")
def runs(omsimulator, body_fmu, tmp_path_factory):
    gap_fmu = packaged_fmu()
    if not gap_fmu.is_file():
        pytest.fail(f"{gap_fmu} does not exist: run packaging/package.py (or set ELASTOGAP_FMU)")
    return Runs(tmp_path_factory.mktemp("omsimulator"), omsimulator, str(gap_fmu), body_fmu)


def read_result(path):
    """The body's time, s and v from OMSimulator's CSV. It writes a row at each communication point
    before and after it passes the outputs on: the body's values are the same in both."""
    with open(path, newline="") as file:
        rows = list(csv.reader(file, skipinitialspace=True))
    columns = {name: i for i, name in enumerate(rows[0])}
    data = np.array(rows[1:], dtype=float)
    return {key: data[:, columns[name]] for key, name in
            [("t", "time"), ("s", "model.root.body.s"), ("v", "model.root.body.v")]}


def fmu_warnings(log, unit):
    """The messages `unit` logged with fmi2Warning, as OMSimulator wrote them to its log file."""
    pattern = re.compile(rf"\[fmi2Warning\] {re.escape(unit)}/(.*)$")
    return [match.group(1) for match in map(pattern.search, Path(log).read_text().splitlines()) if match]


def energy_ratio(result):
    """The body's largest kinetic energy at a recorded point over the initial one."""
    return float(np.max(result["v"] ** 2) / V0**2)


# ------------------------------------------------------------------------------------------------
# The requirements
# ------------------------------------------------------------------------------------------------


def test_the_reference_rebound_is_the_documented_one():
    assert abs(exact_rebound() - 0.758629) < 5e-7, exact_rebound()


def late_warnings(warnings):
    """The FMU's warnings that the master holds a force one step late and that name `f_next`."""
    return [message for message in warnings if "one step late" in message and re.search(r"\bf_next\b", message)]


def assert_exact_rebound(result):
    """The body's last velocity is the exact rebound, to 1e-6 (relative)."""
    exact = exact_rebound()
    error = abs(result["v"][-1] - exact) / exact
    assert error <= 1e-6, f"rebound {result['v'][-1]:.9g} m/s, exact {exact:.9g}: relative error {error:.3g}"


@pytest.mark.parametrize("case", cases("f_next"), ids=lambda case: case.name)
def test_f_next_rebound_is_exact(runs, case):
    result, warnings = runs.result(case)
    assert result["s"][-1] > GAP["s_rel0"], f"the body has not left the stop at {STOP} s: s = {result['s'][-1]}"
    assert_exact_rebound(result)
    assert late_warnings(warnings) == [], "a master holding f_next was told it holds a force late"


@pytest.mark.parametrize("case", cases("f_mean"), ids=lambda case: case.name)
def test_f_mean_energy_stays_bounded(runs, case):
    result, _ = runs.result(case)
    limit = 1.1 if case.m_eff == MASS else 10.0
    ratio = energy_ratio(result)
    assert ratio <= limit, f"the body's energy reached {ratio:.4g} times the initial (limit {limit:g})"


@pytest.mark.parametrize("case", cases("f_mean"), ids=lambda case: case.name)
def test_f_mean_warns_once_naming_f_next(runs, case):
    _, warnings = runs.result(case)
    naming = late_warnings(warnings)
    assert len(naming) == 1, f"{len(naming)} fmi2Warning messages naming f_next; the FMU's warnings: {warnings}"


@pytest.mark.parametrize("case", cases("f_mean"), ids=lambda case: case.name)
def test_f_mean_held_late_rebounds_exactly_once_told(runs, case):
    result, _ = runs.result(case)
    assert_exact_rebound(result)
