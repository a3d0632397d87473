#!/usr/bin/env python3
"""Restitution map of the ElastoGap FMU's force laws: impacts through the packaged FMU, swept over
(law, damping parameter or e, impact speed, n) on a Dask cluster.

One impact: a body of mass m arrives at speed v0 at a fixed housing (flange_a at 0, the body at
flange_b, s_rel0 = 0); the FMU, with m_eff = m, integrates the contact's own dynamics inside each
co-simulation step, and a Gauss-Seidel master here moves the body exactly under -f_mean of each step.
The effective coefficient of restitution is the rebound speed over v0, the dissipated energy the
FMU's E_loss.

    python tools/restitution_map.py                       # the default grid on a LocalCluster
    python tools/restitution_map.py --workers 1           # ... with one worker process
    python tools/restitution_map.py --scheduler tcp://host:8786   # on an existing cluster
    python tools/restitution_map.py --serial              # in this process, without Dask
    python tools/restitution_map.py --compare-serial      # both, and check they agree bit for bit
    python tools/restitution_map.py --solve d --target 0.8 --law ElastoGap --c 1e4 --n 1.5
                                                          # which d gives e_eff = 0.8

Writes OUT/impacts.csv (one row per impact, in the grid's order) and OUT/restitution_vs_damping.png,
OUT/restitution_hunt_crossley.png (OUT = out/restitution_map by default).
"""

import argparse
import csv
import math
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_FMU = Path(os.environ.get("ELASTOGAP_FMU", ROOT / "target" / "fmu" / "ElastoGap.fmu"))

# The laws swept and what is swept for each: (series name, forceLaw, fixed settings, swept parameter).
# The Hunt-Crossley models sweep the restitution e they are made for; "Given" sweeps chi.
SERIES = [
    ("ElastoGap", 1, {}, "d"),
    ("SpringDamper", 2, {}, "d"),
    ("NoPulling", 3, {}, "d"),
    ("AdamsImpact", 5, {"d_max": 1e-3}, "d"),
    ("RecurDynContact (Power)", 6, {"recurDynDamping": 1}, "d"),
    ("RecurDynContact (Step)", 6, {"recurDynDamping": 2, "d_max": 1e-3}, "d"),
    # At n_v = 1 in its default range the Gap Force is SpringDamper: a degressive damper instead.
    ("GapForce (n_v = 1.5)", 7, {"n_v": 1.5}, "d"),
    ("HuntCrossley (Given)", 4, {"hysteresis": 1}, "chi"),
    ("HuntCrossley (HuntCrossley)", 4, {"hysteresis": 2}, "e"),
    ("HuntCrossley (LankaraniNikravesh)", 4, {"hysteresis": 3}, "e"),
    ("HuntCrossley (Flores)", 4, {"hysteresis": 4}, "e"),
    ("HuntCrossley (Gonthier)", 4, {"hysteresis": 5}, "e"),
]
INTEGER_PARAMETERS = {"forceLaw", "hysteresis", "recurDynDamping"}
COLUMNS = ["series", "forceLaw", "parameter", "value", "v0", "n", "c", "mass", "e_eff", "E_loss",
           "lifted_off", "steps"]
# An overdamped contact creeps back and never lets go: after this many steps of about a contact
# duration the body counts as caught (lifted_off false, e_eff its speed then, about 0).
MAX_STEPS = 200


def geometric(lo, hi, count):
    return [lo * (hi / lo) ** (k / (count - 1)) for k in range(count)]


def linear(lo, hi, count):
    return [lo + (hi - lo) * k / (count - 1) for k in range(count)]


def sweep_values(parameter, count):
    """The swept values of a damping parameter: d and chi on a logarithmic scale, e linearly."""
    if parameter == "d":
        return geometric(1.0, 1000.0, count)
    if parameter == "chi":
        return geometric(0.01, 10.0, count)
    return linear(0.3, 0.99, count)


def grid(values=30, speeds=(0.1, 0.2, 0.3, 0.5, 0.7, 1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 7.0),
         exponents=(1.0, 1.5, 2.0), c=1e4, mass=1.0, d=20.0):
    """Every impact of the map, in a fixed order: series, swept value, speed, exponent."""
    cases = []
    for series, force_law, settings, parameter in SERIES:
        for value in sweep_values(parameter, values):
            for v0 in speeds:
                for n in exponents:
                    cases.append({
                        "series": series, "forceLaw": force_law, "settings": settings,
                        "parameter": parameter, "value": value, "v0": v0, "n": n, "c": c,
                        "mass": mass, "d": d,
                    })
    return cases


def quick_grid():
    return grid(values=4, speeds=(0.5, 2.0), exponents=(1.0, 1.5))


# ------------------------------------------------------------------------------------------------
# One impact through the FMU
# ------------------------------------------------------------------------------------------------

# Per process: the unpacked FMU and one instance, reset between impacts (loading the library for
# each of thousands of impacts would cost more than the impacts).
_INSTANCES = {}


class Gap:
    def __init__(self, fmu_path):
        from fmpy import extract, read_model_description
        from fmpy.fmi2 import FMU2Slave

        self.md = read_model_description(fmu_path)
        self.directory = extract(fmu_path, unzipdir=tempfile.mkdtemp(prefix="restitution-map-"))
        self.vr = {v.name: v.valueReference for v in self.md.modelVariables}
        self.slave = FMU2Slave(guid=self.md.guid, unzipDirectory=self.directory,
                               modelIdentifier=self.md.coSimulation.modelIdentifier,
                               instanceName="restitution map")
        self.slave.instantiate()
        self.fresh = True

    def start(self, parameters, x, v):
        """Initializes with `parameters` and the body at x, v."""
        slave, vr = self.slave, self.vr
        if not self.fresh:
            slave.reset()
        self.fresh = False
        slave.setupExperiment(startTime=0.0)
        slave.enterInitializationMode()
        for name, value in parameters.items():
            if name in INTEGER_PARAMETERS:
                slave.setInteger([vr[name]], [int(value)])
            else:
                slave.setReal([vr[name]], [float(value)])
        slave.setReal([vr["flange_b.s"], vr["flange_b.v"]], [x, v])
        slave.exitInitializationMode()


def gap_for(fmu_path):
    gap = _INSTANCES.get(fmu_path)
    if gap is None:
        gap = _INSTANCES[fmu_path] = Gap(fmu_path)
    return gap


def contact_duration(c, n, mass, v0):
    """About how long the contact lasts: half the oscillation period for n = 1, the time to cross
    the largest penetration of the undamped contact twice at the mean speed otherwise."""
    if n == 1.0:
        return math.pi * math.sqrt(mass / c)
    depth = ((n + 1.0) * mass * v0 * v0 / (2.0 * c)) ** (1.0 / (n + 1.0))
    return 2.0 * depth / (0.5 * v0)


def impact(fmu_path, case):
    """The impact of `case` through the FMU: (e_eff, E_loss, lifted_off, steps)."""
    gap = gap_for(fmu_path)
    c, n, mass, v0 = case["c"], case["n"], case["mass"], case["v0"]
    parameters = {"c": c, "d": case["d"], "n": n, "m_eff": mass, "s_rel0": 0.0,
                  "forceLaw": case["forceLaw"], **case["settings"], case["parameter"]: case["value"]}
    # Steps of about a contact duration: the FMU integrates the contact inside them exactly; the
    # body starts half a step before the housing.
    h = contact_duration(c, n, mass, v0)
    x, v = 0.5 * h * v0, -v0
    gap.start(parameters, x, v)
    slave, vr = gap.slave, gap.vr
    inputs, f_mean, contact = [vr["flange_b.s"], vr["flange_b.v"]], [vr["f_mean"]], [vr["contact"]]
    t, free_steps, steps = 0.0, 0, 0
    # The FMU corrects the master's position over three steps after the contact (zero net
    # impulse): the velocity is final once the body has flown free for a few steps.
    while free_steps < 5 and steps < MAX_STEPS:
        slave.setReal(inputs, [x, v])
        slave.doStep(t, h)
        a = -slave.getReal(f_mean)[0] / mass
        x += h * (v + 0.5 * a * h)
        v += a * h
        t += h
        steps += 1
        free_steps = free_steps + 1 if v > 0.0 and not slave.getBoolean(contact)[0] else 0
    e_loss = slave.getReal([vr["E_loss"]])[0]
    return v / v0, e_loss, free_steps == 5, steps


def run_chunk(fmu_path, cases):
    """Rows for a chunk of cases (one Dask task)."""
    rows = []
    for case in cases:
        e_eff, e_loss, lifted_off, steps = impact(fmu_path, case)
        rows.append([case["series"], case["forceLaw"], case["parameter"], case["value"], case["v0"],
                     case["n"], case["c"], case["mass"], e_eff, e_loss, lifted_off, steps])
    return rows


# ------------------------------------------------------------------------------------------------
# Running the grid
# ------------------------------------------------------------------------------------------------

def chunks(cases, size):
    return [cases[k:k + size] for k in range(0, len(cases), size)]


def run_serial(fmu_path, cases, chunk_size=300):
    rows = []
    for chunk in chunks(cases, chunk_size):
        rows.extend(run_chunk(fmu_path, chunk))
    return rows


def run_dask(fmu_path, cases, workers=None, scheduler=None, chunk_size=300, show_progress=True):
    """The grid on a Dask cluster, rows in the grid's order."""
    from dask.distributed import Client, LocalCluster, progress

    started = time.perf_counter()
    cluster = None
    if scheduler:
        client = Client(scheduler)
    else:
        # The workers import this file as the module restitution_map.
        os.environ["PYTHONPATH"] = os.pathsep.join(
            [str(Path(__file__).resolve().parent), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)
        cluster = LocalCluster(n_workers=workers or os.cpu_count(), threads_per_worker=1,
                               processes=True, dashboard_address=None)
        client = Client(cluster)
    try:
        # A remote cluster gets the module shipped; the path of the FMU must be readable there.
        client.upload_file(str(Path(__file__).resolve()))
        import restitution_map

        ready = time.perf_counter()
        futures = client.map(restitution_map.run_chunk, [fmu_path] * len(chunks(cases, chunk_size)),
                             chunks(cases, chunk_size), pure=False)
        if show_progress:
            progress(futures)
            print(file=sys.stderr)
        rows = []
        for chunk_rows in client.gather(futures):
            rows.extend(chunk_rows)
        print(f"Dask: {len(client.scheduler_info()['workers'])} workers ready in "
              f"{ready - started:.2f} s, the impacts took {time.perf_counter() - ready:.2f} s")
        return rows
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def write_csv(rows, path):
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(COLUMNS)
        for row in rows:
            writer.writerow([repr(x) if isinstance(x, float) else x for x in row])


# ------------------------------------------------------------------------------------------------
# Plots
# ------------------------------------------------------------------------------------------------

def plot(rows, out, speed=1.0):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    # The curves at the impact speed of the grid closest to `speed`.
    speed = min({row[4] for row in rows}, key=lambda v0: abs(math.log(v0 / speed)))
    by_series = {}
    for row in rows:
        series, _, parameter, value, v0, n, _, _, e_eff, _, _, _ = row
        if v0 == speed:
            by_series.setdefault((series, parameter), {}).setdefault(n, []).append((value, e_eff))
    exponents = sorted({row[5] for row in rows})

    damping = [(key, curves) for key, curves in by_series.items() if key[1] in ("d", "chi")]
    figure, axes = plt.subplots(1, len(exponents), figsize=(5.5 * len(exponents), 4.6), squeeze=False)
    for axis, n in zip(axes[0], exponents):
        for (series, parameter), curves in damping:
            points = sorted(curves.get(n, []))
            if points:
                label = f"{series} ({parameter}, {'s/m' if parameter == 'chi' else 'N.s/m'})"
                axis.semilogx([p[0] for p in points], [p[1] for p in points], label=label)
        axis.set_title(f"n = {n:g}, v0 = {speed:g} m/s")
        axis.set_xlabel("damping parameter d (N.s/m) or chi (s/m)")
        axis.set_ylabel("effective coefficient of restitution")
        axis.set_ylim(0.0, 1.05)
        axis.grid(True, which="both", alpha=0.3)
    axes[0][0].legend(fontsize=7)
    figure.suptitle("ElastoGap FMU: restitution against damping, 1 kg on c = 1e4 N/m (through the FMU)")
    figure.tight_layout()
    figure.savefig(out / "restitution_vs_damping.png", dpi=110)
    plt.close(figure)

    hunt_crossley = [(key, curves) for key, curves in by_series.items() if key[1] == "e"]
    figure, axes = plt.subplots(1, len(exponents), figsize=(5.5 * len(exponents), 4.6), squeeze=False)
    for axis, n in zip(axes[0], exponents):
        for (series, _), curves in hunt_crossley:
            points = sorted(curves.get(n, []))
            axis.plot([p[0] for p in points], [p[1] for p in points], label=series)
        axis.plot([0.3, 1.0], [0.3, 1.0], "k--", linewidth=0.8, label="e_eff = e")
        axis.set_title(f"n = {n:g}, v0 = {speed:g} m/s")
        axis.set_xlabel("requested coefficient of restitution e")
        axis.set_ylabel("effective coefficient of restitution")
        axis.grid(True, alpha=0.3)
    axes[0][0].legend(fontsize=7)
    figure.suptitle("Hunt-Crossley family: the restitution each model gives for the e it is made for")
    figure.tight_layout()
    figure.savefig(out / "restitution_hunt_crossley.png", dpi=110)
    plt.close(figure)


# ------------------------------------------------------------------------------------------------
# Root finding: which damping gives a restitution
# ------------------------------------------------------------------------------------------------

def solve(fmu_path, series_name, parameter, target, c, n, mass, v0, lo, hi, tolerance=1e-12):
    """The value of `parameter` in [lo, hi] at which the impact's e_eff is `target`: the Illinois
    method (false position that never stalls) on the same impact function. Returns the value and
    the e_eff it gives."""
    force_law, settings = next((law, settings) for name, law, settings, _ in SERIES
                               if name == series_name)

    def e_eff(value):
        case = {"series": series_name, "forceLaw": force_law, "settings": settings,
                "parameter": parameter, "value": value, "v0": v0, "n": n, "c": c, "mass": mass,
                "d": 20.0}
        return impact(fmu_path, case)[0]

    # On a logarithmic scale for d and chi, which span decades.
    logarithmic = parameter in ("d", "chi")
    to_x = math.log if logarithmic else (lambda value: value)
    to_value = math.exp if logarithmic else (lambda x: x)
    a, b = to_x(lo), to_x(hi)
    fa, fb = e_eff(lo) - target, e_eff(hi) - target
    if fa * fb > 0:
        raise SystemExit(f"e_eff - {target} has the same sign at {parameter} = {lo} ({fa:+.3g}) and "
                         f"{hi} ({fb:+.3g}): widen --bracket")
    side = 0
    x, fx = a, fa
    for _ in range(200):
        x = (a * fb - b * fa) / (fb - fa)
        fx = e_eff(to_value(x)) - target
        if abs(fx) <= tolerance or abs(b - a) <= tolerance * max(1.0, abs(x)):
            break
        if fx * fb > 0:
            b, fb = x, fx
            if side == -1:
                fa /= 2
            side = -1
        else:
            a, fa = x, fx
            if side == 1:
                fb /= 2
            side = 1
    return to_value(x), fx + target


# ------------------------------------------------------------------------------------------------

def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fmu", default=str(DEFAULT_FMU), help="the packaged ElastoGap.fmu")
    parser.add_argument("--out", default=str(ROOT / "out" / "restitution_map"), help="output folder")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--workers", type=int, help="worker processes of the LocalCluster (default: cores)")
    where.add_argument("--scheduler", help="address of an existing Dask scheduler")
    where.add_argument("--serial", action="store_true", help="run in this process, without Dask")
    parser.add_argument("--compare-serial", action="store_true",
                        help="run serially and on Dask; fail unless the tables are identical")
    parser.add_argument("--quick", action="store_true", help="a small grid (64 impacts)")
    parser.add_argument("--chunk", type=int, default=300, help="impacts per Dask task")
    parser.add_argument("--no-plots", action="store_true")
    parser.add_argument("--solve", metavar="PARAMETER", help="find PARAMETER (d, chi or e) for --target")
    parser.add_argument("--target", type=float, default=0.8, help="the effective restitution to solve for")
    parser.add_argument("--law", default="ElastoGap", help="series for --solve: " +
                        ", ".join(name for name, *_ in SERIES))
    parser.add_argument("--c", type=float, default=1e4)
    parser.add_argument("--n", type=float, default=1.0)
    parser.add_argument("--mass", type=float, default=1.0)
    parser.add_argument("--speed", type=float, default=1.0)
    parser.add_argument("--bracket", type=float, nargs=2, help="search interval for --solve")
    args = parser.parse_args(argv)
    fmu_path = str(Path(args.fmu).resolve())
    if not Path(fmu_path).is_file():
        raise SystemExit(f"{fmu_path} does not exist: run packaging/package.py first")

    if args.solve:
        bracket = args.bracket or {"d": (0.01, 5000.0), "chi": (1e-4, 100.0), "e": (0.05, 1.0)}[args.solve]
        value, achieved = solve(fmu_path, args.law, args.solve, args.target, args.c, args.n, args.mass,
                                args.speed, *bracket)
        print(f"{args.law}: {args.solve} = {value!r} gives e_eff = {achieved!r} "
              f"(c = {args.c:g} N/m, n = {args.n:g}, m = {args.mass:g} kg, v0 = {args.speed:g} m/s)")
        return 0

    cases = quick_grid() if args.quick else grid()
    out = Path(args.out)
    print(f"restitution map: {len(cases)} impacts through {fmu_path}")
    if args.compare_serial:
        started = time.perf_counter()
        serial = run_serial(fmu_path, cases, args.chunk)
        serial_time = time.perf_counter() - started
        started = time.perf_counter()
        rows = run_dask(fmu_path, cases, args.workers, args.scheduler, args.chunk)
        dask_time = time.perf_counter() - started
        same = [repr(r) for r in serial] == [repr(r) for r in rows]
        print(f"serial: {serial_time:.2f} s; Dask ({args.scheduler or f'{args.workers or os.cpu_count()} workers'}): "
              f"{dask_time:.2f} s; tables identical: {same}")
        if not same:
            raise SystemExit("the distributed table differs from the serial one")
    else:
        started = time.perf_counter()
        if args.serial:
            rows = run_serial(fmu_path, cases, args.chunk)
        else:
            rows = run_dask(fmu_path, cases, args.workers, args.scheduler, args.chunk)
        print(f"wall time: {time.perf_counter() - started:.2f} s "
              f"({'serial' if args.serial else args.scheduler or f'{args.workers or os.cpu_count()} workers'})")
    write_csv(rows, out / "impacts.csv")
    print(f"table: {out / 'impacts.csv'}")
    if not args.no_plots:
        plot(rows, out)
        print(f"plots: {out / 'restitution_vs_damping.png'}, {out / 'restitution_hunt_crossley.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
