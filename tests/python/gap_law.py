"""What the importer tests share: where the packaged FMUs are, an independent statement of the force
law, prescribed motions and the quadratures the outputs are compared with.

Nothing here reads the FMU's own source: the law is written from the MSL 4.1 model
(Modelica.Mechanics.Translational.Components.ElastoGap), the quadratures from their definitions.
"""

import os
import zipfile
from pathlib import Path
from xml.etree import ElementTree

import numpy as np

ROOT = Path(__file__).resolve().parents[2]

INPUTS = ["flange_a.s", "flange_a.v", "flange_b.s", "flange_b.v"]


def packaged_fmu():
    """The .fmu under test: $ELASTOGAP_FMU, default target/fmu/ElastoGap.fmu, relative to the root."""
    path = Path(os.environ.get("ELASTOGAP_FMU", "target/fmu/ElastoGap.fmu"))
    return path if path.is_absolute() else ROOT / path


def packaged_fmu3():
    """The FMI 3.0 .fmu under test: $ELASTOGAP3_FMU (as tests/support/fmi3.rs reads it), default
    target/fmu/ElastoGap3.fmu, relative to the root."""
    path = Path(os.environ.get("ELASTOGAP3_FMU", "target/fmu/ElastoGap3.fmu"))
    return path if path.is_absolute() else ROOT / path


def interfaces(fmu_path):
    """The FMI interfaces the .fmu declares: a subset of {"CoSimulation", "ModelExchange"}."""
    with zipfile.ZipFile(fmu_path) as archive:
        root = ElementTree.fromstring(archive.read("modelDescription.xml"))
    return {child.tag for child in root if child.tag in ("CoSimulation", "ModelExchange")}


# ------------------------------------------------------------------------------------------------
# The law
# ------------------------------------------------------------------------------------------------


def force_scale(p):
    return p["f_ref"] if p["f_ref"] != 0.0 else p["c"] * p["s_ref"]


def law(s_rel, v_rel, p):
    """f, f_c, f_d, contact, lossPower at the given relative position and velocity.

    MSL 4.1: contact while s_rel < s_rel0; f_c = -f_ref*|(s_rel - s_rel0)/s_ref|^n (f_ref = 0 means
    c*s_ref); the damper force d*v_rel is bounded by the spring force so that the contact never pulls.
    """
    s_rel = np.asarray(s_rel, dtype=float)
    v_rel = np.asarray(v_rel, dtype=float)
    contact = s_rel < p["s_rel0"]
    ratio = (s_rel - p["s_rel0"]) / p["s_ref"]
    f_c = np.where(contact, -force_scale(p) * np.abs(ratio) ** p["n"], 0.0)
    f_d = np.where(contact, np.minimum(np.maximum(p["d"] * v_rel, f_c), -f_c), 0.0)
    f = f_c + f_d
    return {"f": f, "f_c": f_c, "f_d": f_d, "contact": contact, "lossPower": f_d * v_rel}


def assert_obeys_law(s_rel, v_rel, outputs, p, rtol=1e-12, where=""):
    """Every row of `outputs` (a mapping of arrays) against the law at (s_rel, v_rel), for the keys
    among f, f_c, f_d, lossPower and contact that `outputs` has."""
    expected = law(s_rel, v_rel, p)
    scale = force_scale(p)
    for key in ["f", "f_c", "f_d"]:
        if key in outputs:
            np.testing.assert_allclose(
                outputs[key], expected[key], rtol=rtol, atol=rtol * scale, err_msg=f"{where}{key}"
            )
    if "lossPower" in outputs:
        v_scale = max(np.abs(np.asarray(v_rel)).max(), 1e-300)
        np.testing.assert_allclose(
            outputs["lossPower"],
            expected["lossPower"],
            rtol=rtol,
            atol=rtol * scale * v_scale,
            err_msg=f"{where}lossPower",
        )
    if "contact" in outputs:
        np.testing.assert_array_equal(outputs["contact"], expected["contact"], err_msg=f"{where}contact")


def enters_and_leaves_contact(contact):
    change = np.diff(np.asarray(contact).astype(int))
    return (change == 1).any() and (change == -1).any()


# ------------------------------------------------------------------------------------------------
# Prescribed motions
# ------------------------------------------------------------------------------------------------


class Harmonic:
    """s(t) = offset + amplitude*cos(omega*t + phase), with its exact derivatives."""

    def __init__(self, offset, amplitude, omega, phase=0.0):
        self.offset, self.amplitude, self.omega, self.phase = offset, amplitude, omega, phase

    def s(self, t):
        return self.offset + self.amplitude * np.cos(self.omega * t + self.phase)

    def v(self, t):
        return -self.amplitude * self.omega * np.sin(self.omega * t + self.phase)

    def bound(self, order):
        """max |d^order s / dt^order|."""
        return abs(self.amplitude) * self.omega**order


def acceleration_error_bound(case, k, h):
    """Bound on |a the FMU extrapolated step k with - true relative acceleration at t_k|, on a
    uniform grid, from the documented meaning of accelerationEstimate (M_j = max |d^j s_rel/dt^j|)."""
    a, b = case["flange_a"], case["flange_b"]
    m2, m3, m4 = (a.bound(j) + b.bound(j) for j in (2, 3, 4))
    mode = case["acceleration_estimate"]
    if k == 0 or mode == 0:
        # No history (or none wanted): no acceleration.
        return m2
    if k == 1 or mode == 1:
        # The last step's mean acceleration, (v_k - v_{k-1})/h: within h/2*M3 of a(t_k).
        return m3 * h / 2
    if mode == 2:
        # Second-order backward difference: |v'(t_k) - (3v_k - 4v_{k-1} + v_{k-2})/(2h)| <= h^2/3*M4.
        return m4 * h * h / 3
    # Mode 3: the mean acceleration over the coming step, extrapolated linearly through the last
    # two steps' means (each within h^2/24*M4 of a at its step's middle) to t_k + h/2: within
    # (1/8 + 1)*h^2*M4 of a(t_k + h/2), which is within h/2*M3 of a(t_k).
    assert mode == 3
    return m3 * h / 2 + 1.125 * m4 * h * h


def structured_input(t, columns):
    """FMPy's input format: a structured array with `time` first, then one column per input."""
    signal = np.zeros(t.size, dtype=[("time", np.float64)] + [(name, np.float64) for name in columns])
    signal["time"] = t
    for name, values in columns.items():
        signal[name] = values
    return signal


# ------------------------------------------------------------------------------------------------
# Quadratures
# ------------------------------------------------------------------------------------------------


def step_means_along_quadratics(s0, v0, acc, h, p, nodes=400):
    """Per step k: the mean force and the dissipated energy along s0 + v0*tau + acc*tau^2/2 over
    [0, h], by a fine trapezoid (vectorised over the steps)."""
    s0, v0, acc, h = (np.asarray(x, dtype=float) for x in (s0, v0, acc, h))
    tau = np.linspace(0.0, 1.0, nodes + 1)[None, :] * h[:, None]
    s0, v0, acc = s0[:, None], v0[:, None], acc[:, None]
    values = law(s0 + tau * (v0 + 0.5 * acc * tau), v0 + acc * tau, p)
    impulse = np.trapezoid(values["f"], tau, axis=1)
    dissipated = np.trapezoid(values["lossPower"], tau, axis=1)
    return impulse / h, dissipated


# The FMU without a mass (m_eff = 0) holds a probe in a contact's first step: PROBE_SHARE of the
# impulse and dissipation along the motion. A prescribed motion answers nothing; where the motion's
# own acceleration changes could hide an answer the probe grows, up to PROBE_LIMIT probes, and what
# the probes held back comes with the step after the last: docs/coupling.md.
PROBE_SHARE = 1e-5
PROBE_LIMIT = 3
PROBE_WINDOW = PROBE_LIMIT + 1


def probe_windows(per_step):
    """Per step: whether it lies in a probe window, the steps from a contact's first one (a nonzero
    value after a zero or the start) to PROBE_LIMIT after it; and the windows as (first, end) slices,
    overlapping ones merged."""
    inside = np.asarray(per_step) != 0.0
    first = inside & ~np.concatenate([[False], inside[:-1]])
    mask = np.zeros(inside.size, dtype=bool)
    for k in np.flatnonzero(first):
        mask[k:k + PROBE_WINDOW] = True
    edges = np.flatnonzero(np.diff(np.concatenate([[0], mask.astype(int), [0]])))
    return mask, list(zip(edges[::2], edges[1::2]))


def assert_steps_with_probes(actual, expected, atol, what):
    """Step values (f_mean, E_loss increments, Q_flow) against those along the motion: equal outside
    probe windows; over each window the same sum (the probe's rest is delivered, none is lost), and
    a window's first step holds no more than its own value."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    mask, windows = probe_windows(expected)
    np.testing.assert_allclose(actual[~mask], expected[~mask], rtol=0, atol=atol, err_msg=what)
    for first, end in windows:
        total, wanted = actual[first:end].sum(), expected[first:end].sum()
        assert abs(total - wanted) <= atol * (end - first), (what, first, end, total, wanted)
        assert abs(actual[first]) <= abs(expected[first]) + atol, (what, first, actual[first], expected[first])


def assert_cumulative_with_probes(actual, expected, atol, what):
    """A cumulative value (E_loss at the output points) against the one along the motion, at every
    point not inside a probe window (where the probe's rest is still to come)."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    mask, _ = probe_windows(np.diff(expected))
    after = np.concatenate([mask, [False]])
    inside = np.concatenate([[False], mask]) & after
    np.testing.assert_allclose(actual[~inside], expected[~inside], rtol=0, atol=atol, err_msg=what)


def cumulative_trapezoid(y, t):
    return np.concatenate([[0.0], np.cumsum(0.5 * (y[1:] + y[:-1]) * np.diff(t))])


def loss_along_piecewise_linear_inputs(t_rows, s_rows, v_rows, p, refine=20):
    """The integral of lossPower along relative inputs given at t_rows and interpolated linearly in
    between, position and velocity each on its own (as FMPy and fmi-sim apply input tables): a fine
    trapezoid on every row interval. Returns (fine time grid, cumulative integral on it)."""
    fraction = np.linspace(0.0, 1.0, refine + 1)[:-1]
    dt = np.diff(t_rows)
    fine_t = np.concatenate([(t_rows[:-1, None] + fraction[None, :] * dt[:, None]).ravel(), t_rows[-1:]])
    fine_s = np.interp(fine_t, t_rows, s_rows)
    fine_v = np.interp(fine_t, t_rows, v_rows)
    return fine_t, cumulative_trapezoid(law(fine_s, fine_v, p)["lossPower"], fine_t)
