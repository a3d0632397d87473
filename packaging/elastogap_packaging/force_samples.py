"""The documentation plots' numbers, read from the built binary and checked against the laws.

The FMU's force `f` is direct feedthrough, so each point is one fmi2SetReal of the inputs and one
fmi2GetReal, no step. Every point is compared with the law written out again here from its
definition: a plot that does not match the model's own law fails the packaging.
"""

import math

from . import PackagingError, say

# The documentation's force plot: the elastoGap of Modelica.Mechanics.Translational.Examples.ElastoGap
# (c = 10 N/m, d = 1.5 N.s/m, s_rel0 = 1.5 m, n = 1; s_ref, f_ref at their defaults).
FORCE_PLOT_PARAMETERS = {"c": 10.0, "d": 1.5, "s_rel0": 1.5, "n": 1.0, "s_ref": 1.0, "f_ref": 0.0}
FORCE_PLOT_S_REL = (0.5, 2.0)
FORCE_PLOT_V_REL = (-2.0, -1.0, 0.0, 1.0, 2.0)
POINTS_PER_CURVE = 301

# The force laws of the parameter forceLaw, for the documentation's plots: the impact of
# tests/force_laws.rs (c = 1e4 N/m, d = 20 N.s/m, n = 1.5, d_max = 1 mm, e = 0.8, s_rel0 = 0), the
# contact having touched down at 1 m/s. Each entry: forceLaw, name, settings besides LAW_PLOT_SPRING.
LAW_PLOT_SPRING = {"c": 1e4, "d": 20.0, "n": 1.5, "s_rel0": 0.0}
LAW_PLOTS = [
    (1, "ElastoGap", {}),
    (2, "SpringDamper", {}),
    (3, "NoPulling", {}),
    (4, "HuntCrossley", {"hysteresis": 3, "e": 0.8}),
    (5, "AdamsImpact", {"d_max": 1e-3}),
    # Step damping and a rebound factor large enough to show both: the damping while separating is
    # 0.3 of that while approaching, and the law pulls where it exceeds the spring force.
    (6, "RecurDynContact", {"recurDynDamping": 2, "d_max": 1e-3, "rdf": 0.3}),
    # Its default range (contact while s_rel < s_rel0), a degressive damper and a preload.
    (7, "GapForce", {"n_v": 1.5, "preload": 5.0}),
]
LAW_PLOT_DEPTH = 0.01
LAW_PLOT_RATES = (1.0, 0.5, 0.0, -0.5, -1.0)
LAW_PLOT_TOUCHDOWN_SPEED = 1.0
INTEGER_PARAMETERS = {"forceLaw", "hysteresis", "recurDynDamping", "frictionLaw"}


def evenly_spaced(lo, hi, count=POINTS_PER_CURVE):
    return [lo + (hi - lo) * k / (count - 1) for k in range(count)]


def msl_force(s_rel, v_rel, c, d, s_rel0, n, s_ref, f_ref):
    """The MSL 4.1 ElastoGap force law at flange_b, to cross-check what the binary computes."""
    if f_ref == 0.0:
        f_ref = c * s_ref
    if not s_rel < s_rel0:
        return 0.0
    f_c = -f_ref * abs((s_rel - s_rel0) / s_ref) ** n
    f_d = min(max(d * v_rel, f_c), -f_c)
    return f_c + f_d


def adams_step(x, x0, h0, x1, h1):
    """MSC Adams' cubic STEP."""
    if x <= x0:
        return h0
    if x >= x1:
        return h1
    r = (x - x0) / (x1 - x0)
    return h0 + (h1 - h0) * r * r * (3.0 - 2.0 * r)


def law_normal_force(name, delta, rate, p):
    """F_n (> 0 pushes) of each law at penetration delta > 0 and its rate, written out from the
    definitions to cross-check the binary (s_ref = 1 m, f_ref = c*s_ref)."""
    spring = p["c"] * delta ** p["n"]
    d = p["d"]
    if name == "ElastoGap":
        return spring + min(max(d * rate, -spring), spring)
    if name == "SpringDamper":
        return spring + d * rate
    if name == "NoPulling":
        return max(0.0, spring + d * rate)
    if name == "HuntCrossley":
        chi = 3.0 * (1.0 - p["e"] ** 2) / (4.0 * LAW_PLOT_TOUCHDOWN_SPEED)
        return max(0.0, spring * (1.0 + chi * rate))
    if name == "AdamsImpact":
        return max(0.0, spring + adams_step(delta, 0.0, 0.0, p["d_max"], d) * rate)
    if name == "RecurDynContact":
        rebound_factor = p["rdf"] if rate < 0.0 else 1.0
        if p["recurDynDamping"] == 1:
            damping = d * delta ** p["n_d"]
        else:
            damping = adams_step(delta, 0.0, 0.0, p["d_max"], d)
        return spring + damping * rate * rebound_factor
    if name == "GapForce":
        return spring + d * math.copysign(abs(rate) ** p["n_v"], rate) + p["preload"]
    raise PackagingError(f"no formula for the law {name}")


def sample_curves(stage, md, instance_name, parameters, curve_keys, points, inputs_at, read,
                  before_initialized=None):
    """One FMU instance from `stage` with `parameters` set; for each key of `curve_keys` a curve of
    read(fmu) over `points`, the inputs (flange_b.s, flange_b.v) set to inputs_at(key, point)."""
    from fmpy.fmi2 import FMU2Slave

    vr = md.value_reference
    fmu = FMU2Slave(guid=md.guid, unzipDirectory=str(stage), modelIdentifier=md.model_identifier,
                    instanceName=instance_name)
    inputs = [vr("flange_b.s"), vr("flange_b.v")]
    curves = {}
    fmu.instantiate()
    try:
        fmu.setupExperiment(startTime=0.0)
        for name, value in parameters.items():
            if name in INTEGER_PARAMETERS:
                fmu.setInteger([vr(name)], [int(value)])
            else:
                fmu.setReal([vr(name)], [float(value)])
        fmu.enterInitializationMode()
        if before_initialized is not None:
            before_initialized(fmu, inputs)
        fmu.exitInitializationMode()
        fmu.setReal([vr("flange_a.s"), vr("flange_a.v")], [0.0, 0.0])  # flange_a at rest at 0
        for key in curve_keys:
            curve = []
            for point in points:
                fmu.setReal(inputs, list(inputs_at(key, point)))
                curve.append(read(fmu))
            curves[key] = curve
        fmu.terminate()
    finally:
        fmu.freeInstance()  # also unloads the library
    return curves


def check_curves(curves, points, expected_at, describe):
    """Every sampled value equals the law written out, to 1e-9 of its size; returns the largest
    difference."""
    worst = 0.0
    for key, curve in curves.items():
        for point, value in zip(points, curve):
            expected = expected_at(key, point)
            if not math.isfinite(value) or abs(value - expected) > 1e-9 * max(1.0, abs(expected)):
                raise PackagingError(f"the built FMU gives {value!r} {describe(key, point)}; the law gives {expected!r}")
            worst = max(worst, abs(value - expected))
    return worst


def sample_force(stage, md):
    """f(s_rel, v_rel) of the MSL example's elastoGap: {v_rel: [f over s_rel]}, and the s_rel values."""
    s_values = evenly_spaced(*FORCE_PLOT_S_REL)
    vr = md.value_reference
    try:
        curves = sample_curves(
            stage, md, "documentation", FORCE_PLOT_PARAMETERS, FORCE_PLOT_V_REL, s_values,
            inputs_at=lambda v, s: (s, v), read=lambda fmu: fmu.getReal([vr("f")])[0],
        )
    except Exception as error:
        raise PackagingError(f"calling the built FMU to sample f(s_rel, v_rel) failed: {error}") from error
    worst = check_curves(
        curves, s_values, lambda v, s: msl_force(s, v, **FORCE_PLOT_PARAMETERS),
        lambda v, s: f"for f at s_rel = {s!r}, v_rel = {v!r} (parameters {FORCE_PLOT_PARAMETERS})",
    )
    say(f"force plot: {len(curves)} x {len(s_values)} points from the binary, "
        f"largest difference to the MSL law {worst:.1e} N")
    return s_values, curves


def sample_law_forces(stage, md):
    """F_n(delta, rate) of every law of LAW_PLOTS: the penetrations, and [(name, {rate: [F_n]})]."""
    deltas = evenly_spaced(0.0, LAW_PLOT_DEPTH)
    vr = md.value_reference

    def touch_down(fmu, inputs):
        # In contact, approaching at the touch-down speed: the laws that depend on it
        # (Hunt-Crossley's chi from e) take it at the end of initialization.
        fmu.setReal(inputs, [-1e-6, -LAW_PLOT_TOUCHDOWN_SPEED])

    plots = []
    for force_law, name, settings in LAW_PLOTS:
        parameters = {**LAW_PLOT_SPRING, **settings}
        try:
            curves = sample_curves(
                stage, md, f"documentation {name}", {"forceLaw": force_law, **parameters}, LAW_PLOT_RATES,
                deltas, inputs_at=lambda rate, delta: (-delta, -rate),
                read=lambda fmu: -fmu.getReal([vr("f")])[0], before_initialized=touch_down,
            )
        except Exception as error:
            raise PackagingError(f"calling the built FMU to sample the {name} law failed: {error}") from error
        check_curves(
            curves, deltas,
            lambda rate, delta: law_normal_force(name, delta, rate, parameters) if delta > 0 else 0.0,
            lambda rate, delta: f"for F_n of {name} at penetration {delta!r}, rate {rate!r}",
        )
        plots.append((name, curves))
    say(f"force-law plots: {len(plots)} laws x {len(LAW_PLOT_RATES)} x {len(deltas)} points from the binary, "
        f"each equal to the law written out in force_samples.py")
    return deltas, plots


# The friction's documentation plots: Adams friction on a contact pressed 2 mm into c = 1e4 N/m
# without damping (|f| = 20 N), with stick-slip (maxStictionDeformation = 0.1 mm).
FRICTION_PLOT_PARAMETERS = {"c": 1e4, "d": 0.0, "frictionLaw": 2, "mu_s": 0.5, "mu_d": 0.3, "v_s": 0.01,
                            "v_d": 0.1}
FRICTION_PLOT_DEPTH = 2e-3
FRICTION_PLOT_DELTA = 1e-4
FRICTION_PLOT_CREEP = 1e-3
FRICTION_PLOT_STEP = 2e-3


def adams_friction(v, p):
    """Adams' friction coefficient of the slip speed v >= 0."""
    if v <= p["v_s"]:
        return adams_step(v, -p["v_s"], -p["mu_s"], p["v_s"], p["mu_s"])
    return adams_step(v, p["v_s"], p["mu_s"], p["v_d"], p["mu_d"])


def sample_friction(stage, md):
    """The sticking branch, f_tx against the deformation while a slip of a tenth of v_s is held
    (co-simulation steps), and the sliding curve, f_tx against v_tx without stick-slip (direct
    feedthrough); each checked against the definitions. Returns (deformations in mm, {label: f}),
    (speeds, {label: f})."""
    from fmpy.fmi2 import FMU2Slave

    vr = md.value_reference
    p = FRICTION_PLOT_PARAMETERS
    normal = p["c"] * FRICTION_PLOT_DEPTH

    def instance(name, delta):
        fmu = FMU2Slave(guid=md.guid, unzipDirectory=str(stage), modelIdentifier=md.model_identifier,
                        instanceName=name)
        fmu.instantiate()
        fmu.setupExperiment(startTime=0.0)
        for key, value in {**p, "maxStictionDeformation": delta}.items():
            if key in INTEGER_PARAMETERS:
                fmu.setInteger([vr(key)], [int(value)])
            else:
                fmu.setReal([vr(key)], [float(value)])
        fmu.enterInitializationMode()
        fmu.exitInitializationMode()
        fmu.setReal([vr("flange_a.s"), vr("flange_a.v"), vr("flange_b.s"), vr("flange_b.v")],
                    [0.0, 0.0, -FRICTION_PLOT_DEPTH, 0.0])
        return fmu

    try:
        fmu = instance("documentation stick", FRICTION_PLOT_DELTA)
        deformations, sticking = [0.0], [0.0]
        try:
            fmu.setReal([vr("v_tx")], [FRICTION_PLOT_CREEP])
            for k in range(75):
                fmu.doStep(k * FRICTION_PLOT_STEP, FRICTION_PLOT_STEP)
                deformations.append(FRICTION_PLOT_CREEP * (k + 1) * FRICTION_PLOT_STEP)
                sticking.append(fmu.getReal([vr("f_tx")])[0])
            fmu.terminate()
        finally:
            fmu.freeInstance()
        speeds = evenly_spaced(0.0, 0.15)
        fmu = instance("documentation slip", 0.0)
        try:
            sliding = []
            for v in speeds:
                fmu.setReal([vr("v_tx")], [v])
                sliding.append(fmu.getReal([vr("f_tx")])[0])
            fmu.terminate()
        finally:
            fmu.freeInstance()
    except Exception as error:
        raise PackagingError(f"calling the built FMU to sample the friction failed: {error}") from error
    for xi, value in zip(deformations, sticking):
        expected = p["mu_s"] * normal * min(xi, FRICTION_PLOT_DELTA) / FRICTION_PLOT_DELTA
        if not math.isfinite(value) or abs(value - expected) > 1e-9 * max(1.0, expected):
            raise PackagingError(f"the built FMU sticks with f_tx = {value!r} at a deformation of {xi!r} m; "
                                 f"stick-slip gives {expected!r}")
    for v, value in zip(speeds, sliding):
        expected = adams_friction(v, p) * normal
        if not math.isfinite(value) or abs(value - expected) > 1e-9 * max(1.0, expected):
            raise PackagingError(f"the built FMU slides with f_tx = {value!r} at v_tx = {v!r}; Adams gives {expected!r}")
    say(f"friction plots: {len(sticking)} sticking and {len(sliding)} sliding points from the binary, "
        f"each equal to the definitions")
    return ([1e3 * xi for xi in deformations], {"stick": sticking}), (speeds, {"slip": sliding})
