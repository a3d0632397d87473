"""What the fmusim tests share: the prescribed motion and its input CSV, the command lines of the two
fmusims, their output CSVs and logs, and the FMUs' model descriptions.

The motion: flange_a held at 0 (not in the CSV: it keeps its start value), flange_b at constant
speed V into the stop and back out, s(t) = S0 - V*t up to T_TURN, then s_min + V*(t - T_TURN). The
CSV gives time, flange_b.s and flange_b.v every DT, and T_TURN twice, with the velocity before and
after the turn, which both tools read as an input event. The tools interpolate each column linearly
between rows, which reproduces this motion exactly (to rounding), position and velocity alike.

The grid is binary (H = 2^-10 s), so that every communication point start + k*H is exact and both
tools' divisibility checks of the stop time pass without rounding.
"""

import csv
import re
import zipfile
from xml.etree import ElementTree

import numpy as np

from gap_law import law
from reference_tools import run

H = 2.0**-10  # output interval (s)
DT = 4 * H  # input CSV rows
STOP = 160 * H  # 0.15625 s
T_TURN = 64 * H  # 0.0625 s, a communication point
V = 0.25  # m/s
S0 = 0.0015  # m: contact (s_rel < s_rel0 = 0) from T_IN = 6 ms to T_OUT = 119 ms
S_MIN = S0 - V * T_TURN
# Rust fmusim's forward Euler takes this step instead of the output interval (--fixed-step-size):
# it sees a switch at most this late (under 1e-6 s); binary, so that its steps land on the output
# points.
EULER_STEP = 2.0**-20
TIMEOUT = 20  # s for one run; each takes well under one

# Set through --start-value in every run: forces of a sensible size (the defaults are 1 N/m and
# 1 N.s/m), and the extrapolation with the velocity alone, exact along this motion (the default
# estimate extrapolates the velocity's jump at the turn for the next steps).
START = {"c": 1e4, "d": 30.0, "accelerationEstimate": 0}
# Every output and the law's parts f_c, f_d (locals).
RECORDED = ("f", "f_c", "f_d", "s_rel", "v_rel", "contact", "lossPower", "f_mean", "E_loss")

TOOLS = ("fmusim", "fmusim-c")


# ------------------------------------------------------------------------------------------------
# Model descriptions
# ------------------------------------------------------------------------------------------------


def model_description(fmu):
    """{"version", "start": {name: start text}, "type": {name: element tag}, "enumerations":
    {variable name: {item name: value}}} of the .fmu's modelDescription.xml, FMI 2.0 or 3.0."""
    with zipfile.ZipFile(fmu) as archive:
        root = ElementTree.fromstring(archive.read("modelDescription.xml"))
    items = {}
    for definition in root.iterfind("TypeDefinitions/*"):
        enumeration = definition if definition.tag == "EnumerationType" else definition.find("Enumeration")
        if enumeration is not None:
            items[definition.get("name")] = {item.get("name"): int(item.get("value"))
                                             for item in enumeration.iterfind("Item")}
    start, kind, enumerations = {}, {}, {}
    for variable in root.find("ModelVariables"):
        element = variable[0] if variable.tag == "ScalarVariable" else variable
        name = variable.get("name")
        kind[name] = element.tag
        if element.get("start") is not None:
            start[name] = element.get("start")
        if element.get("declaredType") in items and element.tag == "Enumeration":
            enumerations[name] = items[element.get("declaredType")]
    return {"version": root.get("fmiVersion"), "start": start, "type": kind, "enumerations": enumerations}


def law_parameters(md, start=START):
    """The law's parameters of a run: the model description's defaults, then the start values."""
    p = {name: float(md["start"][name]) for name in ("c", "d", "s_rel0", "n", "s_ref", "f_ref")}
    p.update({name: float(value) for name, value in start.items() if name in p})
    return p


def held_force_none(md):
    return md["enumerations"]["heldForce"]["None"]


# ------------------------------------------------------------------------------------------------
# The motion and its CSV
# ------------------------------------------------------------------------------------------------


def motion(t, after=None):
    """(s, v) of flange_b at times t; at T_TURN the side the boolean array `after` says."""
    t = np.asarray(t, dtype=float)
    after = np.zeros(t.shape, dtype=bool) if after is None else np.asarray(after, dtype=bool)
    out = (t > T_TURN) | ((t == T_TURN) & after)
    s = np.where(out, S_MIN + V * (t - T_TURN), S0 - V * t)
    return s, np.where(out, V, -V)


def input_rows():
    t = np.arange(round(STOP / DT) + 1) * DT
    before = t <= T_TURN
    t_all = np.concatenate([t[before], t[t >= T_TURN]])
    after = np.concatenate([np.zeros(before.sum(), dtype=bool), np.ones((t >= T_TURN).sum(), dtype=bool)])
    s, v = motion(t_all, after)
    return {"time": t_all, "flange_b.s": s, "flange_b.v": v}


def write_input_csv(path):
    rows = input_rows()
    with open(path, "w", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(list(rows))
        for i in range(rows["time"].size):
            # repr: the shortest form that reads back as the same double.
            writer.writerow([repr(float(values[i])) for values in rows.values()])
    return rows


def crossings(level):
    """The times the CSV's flange_b.s passes `level` (the root of the interpolant between the two
    rows around it), in order."""
    rows = input_rows()
    t, s = rows["time"], rows["flange_b.s"] - level
    found = []
    for i in range(t.size - 1):
        if t[i + 1] > t[i] and (s[i] > 0) != (s[i + 1] > 0):
            found.append(t[i] + (0.0 - s[i]) * (t[i + 1] - t[i]) / (s[i + 1] - s[i]))
    return found


def switch_times(p):
    """(touch-down, lift-off): where the CSV's motion crosses s_rel0."""
    touch_down, lift_off = crossings(p["s_rel0"])
    return touch_down, lift_off


def kink_times(p):
    """Where the bounded damper meets the spring force, |f_c| = d*V (events of Model Exchange)."""
    depth = p["d"] * V / force_per_metre(p)
    return crossings(p["s_rel0"] - depth)


def force_per_metre(p):
    assert p["n"] == 1.0, "the motion's breakpoints assume the linear law (n = 1)"
    scale = p["f_ref"] if p["f_ref"] != 0.0 else p["c"] * p["s_ref"]
    return scale / p["s_ref"]


def step_integrals(t_rows, p):
    """Per interval between consecutive distinct row times: the mean of f and the integral of
    lossPower along the CSV's motion, exact for the linear law (f and lossPower are piecewise
    linear in time: trapezoids between the contact's and the damper bound's switches)."""
    t = np.unique(t_rows)
    breaks = np.array(sorted([*switch_times(p), *kink_times(p)]))
    means, losses = [], []
    for a, b in zip(t[:-1], t[1:]):
        nodes = np.concatenate([[a], breaks[(breaks > a) & (breaks < b)], [b]])
        # The step's motion starts from the inputs at a: after the turn's event at T_TURN.
        s0, v0 = motion(a, after=True)
        values = law(s0 + v0 * (nodes - a), np.full(nodes.size, v0), p)
        means.append(np.trapezoid(values["f"], nodes) / (b - a))
        losses.append(np.trapezoid(values["lossPower"], nodes))
    return t, np.array(means), np.array(losses)


# ------------------------------------------------------------------------------------------------
# Command lines, runs and their results
# ------------------------------------------------------------------------------------------------


def start_value_arguments(tool, name, value):
    # fmusim takes NAME=VALUE, fmusim-c NAME VALUE.
    return ["--start-value", f"{name}={value}"] if tool == "fmusim" else ["--start-value", name, str(value)]


def command(tool, binary, fmu, interface, out, *, flags=(), solver=None, start=START, input_file=None,
            log_file=None, recorded=RECORDED):
    line = [binary, *(["simulate"] if tool == "fmusim" else []), "--interface-type", interface]
    if solver is not None:
        line += ["--solver", solver]
        if solver == "euler" and tool == "fmusim":
            line += ["--fixed-step-size", repr(EULER_STEP)]
    line += list(flags)
    line += ["--start-time", "0", "--stop-time", repr(STOP), "--output-interval", repr(H)]
    for name, value in start.items():
        line += start_value_arguments(tool, name, value)
    for name in recorded:
        line += ["--output-variable", name]
    if input_file is not None:
        line += ["--input-file", input_file]
    if log_file is not None:
        line += ["--logging-on", "--log-file", log_file]
    return [*map(str, line), "--output-file", str(out), str(fmu)]


def read_output_csv(path, booleans=None):
    """fmusim-c quotes the header, writes Reals with %.16g and Booleans as 0/1; fmusim (and fmi-sim)
    write the header bare, Reals in shortest round-trip form and Booleans as true/false. At an event
    both write a row before and a row after it, at the same time. `booleans`: the Boolean columns'
    names; None takes the columns whose first value is true or false."""
    with open(path, newline="") as file:
        reader = csv.reader(file)
        header = next(reader)
        rows = list(reader)
    assert rows, f"{path} has no rows"
    columns = {}
    for j, name in enumerate(header):
        text = [row[j] for row in rows]
        if (name in booleans) if booleans is not None else text[0] in ("true", "false"):
            assert set(text) <= {"true", "false", "0", "1"}, (name, set(text))
            columns[name] = np.array([value in ("true", "1") for value in text])
        else:
            columns[name] = np.array([float(value) for value in text])
    return columns


def log_entries(text):
    """The FMU's log messages: fmusim writes `[WARNING] [category] message`, fmusim-c `[Warning]
    message`; a message may run over several lines."""
    return [entry.strip() for entry in re.split(r"(?m)^(?=\[[A-Za-z]+\] )", text) if entry.strip()]


def warnings_naming(text, word):
    return [entry for entry in log_entries(text) if entry.lower().startswith("[warning]") and word in entry]


def simulate(tool, binary, fmu, directory, interface, **options):
    """Runs one simulation in `directory` on the motion's CSV; returns (columns, log text)."""
    directory.mkdir(parents=True, exist_ok=True)
    write_input_csv(directory / "in.csv")
    out, log = directory / "out.csv", directory / "log.txt"
    line = command(tool, binary, fmu, interface, out, input_file=directory / "in.csv", log_file=log, **options)
    run(line, timeout=TIMEOUT)
    md = model_description(fmu)
    booleans = {name for name, tag in md["type"].items() if tag == "Boolean"}
    return read_output_csv(out, booleans), log.read_text(errors="replace")
