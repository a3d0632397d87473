#!/usr/bin/env python3
"""How the co-simulation coupling answers a wrong m_eff: one impact through the packaged FMU for each
m_eff from half to twice the body's mass (and m_eff = 0), under a Gauss-Seidel master that holds
f_mean and a Jacobi master that holds f_next, against the exact impact computed here with SciPy
(solve_ivp, the contact's end located as an event).

The body: 1 kg at 1 m/s onto a fixed housing, c = 1e4 N/m, d = 20 N.s/m (the MSL ElastoGap law), the
whole contact inside steps of 10 contact durations (--ratio changes that). After the contact, the
rebound speed and E_loss (against the energy the body lost) at the end of the run, and the largest
speed the body had at any communication point.

    .venv/bin/python tools/coupling_map.py                 # table, out/coupling/mass_error.csv, .png
    .venv/bin/python tools/coupling_map.py --png docs/coupling/mass_error.png --csv docs/coupling/mass_error.csv

The committed docs/coupling/mass_error.csv is the data of the committed plot; tests/python/
test_coupling_map.py runs the impacts again and fails where they differ.

The FMU is $ELASTOGAP_FMU, default target/fmu/ElastoGap.fmu.
"""

import argparse
import csv
import math
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "python"))
from gap_law import law  # noqa: E402  (the law written from the MSL model, shared with the tests)

MASS, SPEED, C, D = 1.0, 1.0, 1e4, 20.0
PARAMETERS = {"c": C, "d": D, "s_rel0": 0.0, "n": 1.0, "s_ref": 1.0, "f_ref": 0.0}
STEPS = 14


def exact_rebound():
    """The rebound speed of the impact, from SciPy with the lift-off located."""
    from scipy.integrate import solve_ivp

    def rhs(_, y):
        return [y[1], -float(law(y[0], y[1], PARAMETERS)["f"]) / MASS]

    def lift_off(_, y):
        return y[0]

    lift_off.terminal, lift_off.direction = True, 1.0
    duration = math.pi * math.sqrt(MASS / C)
    solution = solve_ivp(rhs, (0.0, 10 * duration), [-1e-300, -SPEED], events=lift_off,
                         rtol=1e-12, atol=1e-15, max_step=duration / 200)
    return solution.y_events[0][0][1]


def impact(slave, vr, m_eff, master, h):
    """One impact: (rebound speed at the end, E_loss, largest speed at a communication point)."""
    slave.reset()
    slave.setupExperiment(startTime=0.0)
    slave.enterInitializationMode()
    slave.setReal([vr["c"], vr["d"], vr["m_eff"]], [C, D, m_eff])
    x, v = 2.5 * h * SPEED, -SPEED
    slave.setReal([vr["flange_b.s"], vr["flange_b.v"]], [x, v])
    slave.exitInitializationMode()
    held_next = slave.getReal([vr["f_next"]])[0] if master == "Jacobi" else 0.0
    largest = abs(v)
    for k in range(STEPS):
        slave.setReal([vr["flange_b.s"], vr["flange_b.v"]], [x, v])
        slave.doStep(k * h, h)
        if master == "Jacobi":
            held, held_next = held_next, slave.getReal([vr["f_next"]])[0]
        else:
            held = slave.getReal([vr["f_mean"]])[0]
        a = -held / MASS
        x += h * (v + 0.5 * a * h)
        v += a * h
        largest = max(largest, abs(v))
    return v, slave.getReal([vr["E_loss"]])[0], largest


def run(fmu_path, ratio):
    from fmpy import extract, read_model_description
    from fmpy.fmi2 import FMU2Slave

    md = read_model_description(fmu_path)
    directory = extract(fmu_path, unzipdir=tempfile.mkdtemp(prefix="coupling-map-"))
    vr = {v.name: v.valueReference for v in md.modelVariables}
    slave = FMU2Slave(guid=md.guid, unzipDirectory=directory,
                      modelIdentifier=md.coSimulation.modelIdentifier, instanceName="coupling map")
    slave.instantiate()
    h = ratio * math.pi * math.sqrt(MASS / C)
    rebound = exact_rebound()
    lost = 0.5 * MASS * (SPEED * SPEED - rebound * rebound)
    rows = []
    factors = [0.0] + list(np.geomspace(0.5, 2.0, 25))
    for master in ("Gauss-Seidel", "Jacobi"):
        for factor in factors:
            v, e_loss, largest = impact(slave, vr, factor * MASS, master, h)
            rows.append({"master": master, "m_eff_over_mass": factor, "rebound_over_exact": v / rebound,
                         "E_loss_over_lost": e_loss / lost, "largest_speed_over_impact": largest / SPEED})
    slave.terminate()
    slave.freeInstance()
    return rows, rebound, lost


def plot(rows, path, ratio):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, 3, figsize=(13, 3.8), constrained_layout=True)
    for master, marker in (("Gauss-Seidel", "o"), ("Jacobi", "s")):
        mine = [r for r in rows if r["master"] == master and r["m_eff_over_mass"] > 0]
        factors = [r["m_eff_over_mass"] for r in mine]
        label = f"{master} ({'f_mean' if master == 'Gauss-Seidel' else 'f_next'})"
        axes[0].plot(factors, [r["rebound_over_exact"] for r in mine], marker, label=label, ms=4)
        axes[1].plot(factors, [r["E_loss_over_lost"] for r in mine], marker, label=label, ms=4)
        axes[2].plot(factors, [r["largest_speed_over_impact"] for r in mine], marker, label=label, ms=4)
    titles = ["rebound / exact rebound", "E_loss / energy the body lost", "largest speed / impact speed"]
    for axis, title in zip(axes, titles):
        axis.set_xscale("log")
        axis.set_xticks([0.5, 0.7, 1.0, 1.4, 2.0], ["0.5", "0.7", "1", "1.4", "2"])
        axis.set_xlabel("m_eff / the body's mass")
        axis.set_title(title)
        axis.grid(True, alpha=0.3)
    from matplotlib.ticker import NullFormatter

    for axis in axes:
        axis.xaxis.set_minor_formatter(NullFormatter())
    # The acceptance bands: rebound and E_loss within 1 %, speed at most 3x the impact speed. An m_eff
    # within 10 % of the body's mass is kept, not replaced by the master's answer: those points
    # fall outside the band, and the axes show them.
    for axis in axes[:2]:
        axis.axhspan(0.99, 1.01, color="green", alpha=0.12, lw=0)
    axes[2].axhline(3.0, color="grey", lw=0.8, ls="--")
    axes[0].legend(loc="lower left", fontsize=8)
    # m_eff = 0 has no place on the log axis: its row is named in the title.
    unknown = "; ".join(
        f"{r['master']} {r['rebound_over_exact']:.4f} / {r['E_loss_over_lost']:.4f} / "
        f"{r['largest_speed_over_impact']:.2f}"
        for r in rows if r["m_eff_over_mass"] == 0
    )
    figure.suptitle(f"1 kg at 1 m/s, c = 1e4 N/m, d = 20 N.s/m, steps of {ratio:g} contact durations: "
                    f"after {STEPS} steps\nm_eff = 0 (rebound / E_loss / speed): {unknown}", fontsize=10)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)


def rounded(rows):
    """The rows with every number to six significant digits: what the plot shows, and what a
    change of the FMU's behaviour, not of the arithmetic's last bits, moves."""
    return [{k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in row.items()} for row in rows]


def write_csv(rows, path):
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rounded(rows))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fmu", default=os.environ.get("ELASTOGAP_FMU", str(ROOT / "target/fmu/ElastoGap.fmu")))
    parser.add_argument("--ratio", type=float, default=10.0, help="step / contact duration")
    parser.add_argument("--out", default=str(ROOT / "out" / "coupling"))
    parser.add_argument("--png", help="where the plot goes (default OUT/mass_error.png)")
    parser.add_argument("--csv", help="where the data goes (default OUT/mass_error.csv)")
    args = parser.parse_args()
    rows, rebound, lost = run(args.fmu, args.ratio)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    write_csv(rows, Path(args.csv) if args.csv else out / "mass_error.csv")
    plot(rows, Path(args.png) if args.png else out / "mass_error.png", args.ratio)
    print(f"exact rebound {rebound:.9f} m/s, energy lost {lost:.9f} J")
    print(f"{'master':<13} {'m_eff/m':>8} {'rebound/exact':>14} {'E_loss/lost':>12} {'max speed':>10}")
    for r in rows:
        print(f"{r['master']:<13} {r['m_eff_over_mass']:8.3f} {r['rebound_over_exact']:14.9f} "
              f"{r['E_loss_over_lost']:12.9f} {r['largest_speed_over_impact']:10.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
