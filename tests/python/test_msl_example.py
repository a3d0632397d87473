"""The MSL example Modelica.Mechanics.Translational.Examples.ElastoGap co-simulated through FMPy's
FMU2Slave at 10 ms, against a reference computed here without the FMU (SciPy's DOP853 on the MSL law
written out again, tolerances 1e-11): mass2 between elastoGap1 (wall at -2 m) and elastoGap2 (wall at
+2 m), both instances of the packaged FMU; the masters step the gaps first and hold their f_mean over
mass2's step, with and without fmi2SetRealInputDerivatives (canInterpolateInputs). mass1 and its
spring-dampers do not touch the gaps and are left out.

The comparison signals are the MSL regression's for mass2: elastoGap1.v_rel and elastoGap2.s_rel,
within the 2e-3 tube (FMPy raises on any call that fails).
"""

import numpy as np
import pytest
from fmpy import extract, read_model_description
from fmpy.fmi2 import FMU2Slave
from scipy.integrate import solve_ivp

MASS = 1.0
C, D, S_REL0, N = 10.0, 1.5, 1.5, 1.0
LEFT, RIGHT, X2_START = -2.0, 2.0, 2.0
STOP, STEP, TUBE = 5.0, 0.01, 2e-3


def elasto_gap(s_rel, v_rel):
    """The MSL 4.1 ElastoGap force at flange_b (s_ref = 1, f_ref = c*s_ref): the damper bounded by
    the spring so that the contact never pulls."""
    if s_rel >= S_REL0:
        return 0.0
    f_c = -C * abs(s_rel - S_REL0) ** N
    f_d = min(max(D * v_rel, f_c), -f_c)
    return f_c + f_d


def reference(times):
    def rhs(_t, y):
        x2, v2 = y
        force = -elasto_gap(x2 - LEFT, v2) + elasto_gap(RIGHT - x2, -v2)
        return [v2, force / MASS]

    solution = solve_ivp(
        rhs, (0.0, STOP), [X2_START, 0.0], method="DOP853", t_eval=times, rtol=1e-11, atol=1e-12
    )
    assert solution.success
    x2, v2 = solution.y
    return v2, RIGHT - x2


class Gap:
    def __init__(self, fmu_path, unzipdir, md, name):
        self.vr = {v.name: v.valueReference for v in md.modelVariables}
        self.fmu = FMU2Slave(
            guid=md.guid,
            unzipDirectory=unzipdir,
            modelIdentifier=md.coSimulation.modelIdentifier,
            instanceName=name,
        )
        self.fmu.instantiate(loggingOn=False, callbacks=None)
        self.fmu.setupExperiment(startTime=0.0, stopTime=STOP)
        self.fmu.enterInitializationMode()
        names = ["c", "d", "s_rel0", "n"]
        self.fmu.setReal([self.vr[n] for n in names], [C, D, S_REL0, N])

    def set_motion(self, a, b):
        names = ["flange_a.s", "flange_a.v", "flange_b.s", "flange_b.v"]
        self.fmu.setReal([self.vr[n] for n in names], [a[0], a[1], b[0], b[1]])

    def get(self, name):
        return self.fmu.getReal([self.vr[name]])[0]


def cosimulate(fmu_path, tmp_path, derivatives):
    md = read_model_description(fmu_path)
    unzipdir = extract(fmu_path, unzipdir=str(tmp_path / "fmu"))
    gap1 = Gap(fmu_path, unzipdir, md, "elastoGap1")
    gap2 = Gap(fmu_path, unzipdir, md, "elastoGap2")
    x2, v2 = X2_START, 0.0
    gap1.set_motion((LEFT, 0.0), (x2, v2))
    gap2.set_motion((x2, v2), (RIGHT, 0.0))
    for gap in (gap1, gap2):
        gap.fmu.exitInitializationMode()
    steps = round(STOP / STEP)
    rows = []
    for k in range(steps + 1):
        t = k * STEP
        gap1.set_motion((LEFT, 0.0), (x2, v2))
        gap2.set_motion((x2, v2), (RIGHT, 0.0))
        rows.append((t, gap1.get("v_rel"), gap2.get("s_rel")))
        if k == steps:
            break
        if derivatives:
            # mass2's acceleration now, from the direct-feedthrough forces.
            a2 = (-gap1.get("f") + gap2.get("f")) / MASS
            for gap, (a_a, a_b) in ((gap1, (0.0, a2)), (gap2, (a2, 0.0))):
                gap.fmu.setRealInputDerivatives(
                    [gap.vr["flange_a.v"], gap.vr["flange_b.v"]], [1, 1], [a_a, a_b]
                )
        for gap in (gap1, gap2):
            gap.fmu.doStep(currentCommunicationPoint=t, communicationStepSize=STEP)
        a = (-gap1.get("f_mean") + gap2.get("f_mean")) / MASS
        x2 += v2 * STEP + 0.5 * a * STEP * STEP
        v2 += a * STEP
    for gap in (gap1, gap2):
        gap.fmu.terminate()
        gap.fmu.freeInstance()
    return np.array(rows)


@pytest.mark.parametrize("derivatives", [False, True], ids=["plain", "input-derivatives"])
def test_the_msl_example_at_10_ms_stays_in_the_tube(fmu_path, tmp_path, derivatives):
    rows = cosimulate(fmu_path, tmp_path, derivatives)
    v_rel1, s_rel2 = reference(rows[:, 0])
    deviation = {
        "elastoGap1.v_rel": np.max(np.abs(rows[:, 1] - v_rel1)),
        "elastoGap2.s_rel": np.max(np.abs(rows[:, 2] - s_rel2)),
    }
    print(f"input derivatives {derivatives}: {deviation}")
    # The example has contacts: a run without them would pass trivially.
    assert np.min(s_rel2) < S_REL0 and np.max(rows[:, 2]) > S_REL0
    for name, d in deviation.items():
        assert d <= TUBE, f"{name} leaves the {TUBE} tube by {d:.3e}"
