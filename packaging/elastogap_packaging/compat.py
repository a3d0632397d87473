"""The compatibility information the FMI project asks exporting tools for, in the files of the FMI
cross-check it grew out of, and the FMI-LS-REF manifest in each FMU.

For each FMU, `target/fmu/compat/<modelIdentifier>/` holds

- `<id>.fmu`, the packaged FMU;
- `<id>_in.csv`, the input: flange_a fixed, flange_b moving into the stop and out again;
- `<id>_ref.csv`, the reference result: the MSL 4.1 law along that motion, written out again here
  from its definition and evaluated at every output point, so it owes nothing to the FMU's code;
- `<id>_ref.opt`, the experiment in the cross-check's `Name, value` lines;
- `README.txt`: the experiment, the deviation to expect, and the checks that ran when the folder
  was written, with what each measured.

Inside each FMU, `extra/org.fmi-standard.fmi-ls-ref/` holds the same three experiment files and
`fmi-ls-manifest.xml` (FMI-LS-REF 1.0.0-alpha.1) naming them, the reference with role `result`;
`documentation/fmi-ls-ref.txt` describes the experiment, as the layered standard recommends.

The motion has a constant acceleration, and the input file lists it at every output point. A
co-simulation importer records the outputs after each step without setting the inputs again, so
a row shows the FMU's extrapolation of the motion from the step's start (`accelerationEstimate`),
not the input there. That estimate is exact for a constant acceleration from the second step on;
in the first step it has no history and extrapolates with the velocity alone. A motion with
steps in its speed would be extrapolated wrongly for two steps after every change.
"""

import csv
import os
import shutil
import subprocess
import tempfile
import textwrap
from collections import namedtuple
from pathlib import Path

import numpy as np

from . import FMU_ROOT, PackagingError, say

COMPAT_ROOT = FMU_ROOT / "compat"

LS_REF_NAME = "org.fmi-standard.fmi-ls-ref"
LS_REF_FOLDER = f"extra/{LS_REF_NAME}"
LS_REF_VERSION = "1.0.0-alpha.1"
# The layered standard's schema fixes the description to this text.
LS_REF_DESCRIPTION = "Layered Standard providing information on related files included in an FMU."
LS_MANIFEST_NAMESPACE = "http://fmi-standard.org/fmi-ls-manifest"
LS_REF_DOCUMENTATION = "documentation/fmi-ls-ref.txt"

# The experiment: 1 s with an output every 1 ms, small enough for the first step's deviation (below)
# to stay at 2 mm/s. RelTol is the FMU's own relativeTolerance default; with n = 1 the law has a
# closed form and the tolerance is not used.
START_TIME, STOP_TIME, STEP_SIZE, REL_TOL = 0.0, 1.0, 1e-3, 1e-6
# flange_b.s = S0 + V0*t + ACCELERATION*t^2/2: into the stop and out again within the second; the
# damper force is bounded by the spring force near touch-down and lift-off and not in between.
S0, V0, ACCELERATION = 0.1, -1.0, 2.0
INPUTS = ("flange_a.s", "flange_a.v", "flange_b.s", "flange_b.v")
REFERENCE_VARIABLES = ("s_rel", "v_rel", "contact", "f", "f_c", "f_d", "lossPower")
LAW_PARAMETERS = ("c", "d", "s_rel0", "n", "s_ref", "f_ref")
# Relative to each column's largest magnitude (at least 1 in its unit): the inputs are written to
# round-trip, the importers interpolate them at the rows, and the FMU's extrapolation over a step
# adds a few roundings of about 1e-16 each.
ROUNDING = 1e-12
# The end of the first step, where the FMU extrapolated with the velocity alone: off by the
# acceleration's share over that step.
FIRST_STEP_ALLOWANCE = {"s_rel": abs(ACCELERATION) * STEP_SIZE**2 / 2, "v_rel": abs(ACCELERATION) * STEP_SIZE}
# How close to s_rel0 an output point may come before `contact` there would be decided by rounding.
CONTACT_MARGIN = 1e-9

TOOLS = Path(os.environ.get("ELASTOGAP_TOOLS", Path.home() / ".cache" / "elastogap-tools"))
# name -> (environment variable naming another binary, default path), as tests/python/reference_tools.py
TOOL_PATHS = {
    "fmusim": ("FMUSIM", TOOLS / "fmusim" / "fmusim"),
    "fmusim-c": ("FMUSIM_C", TOOLS / "fmusim" / "fmusim-c"),
}


def output_times():
    """The output points as the importers compute them: start + k*step."""
    count = round((STOP_TIME - START_TIME) / STEP_SIZE)
    return [START_TIME + k * STEP_SIZE for k in range(count + 1)]


def motion(t):
    """flange_b's position and velocity at t."""
    return S0 + V0 * t + ACCELERATION * t * t / 2, V0 + ACCELERATION * t


def law_parts(s_rel, v_rel, p):
    """MSL 4.1 ElastoGap at one point (contact while s_rel < s_rel0; f_c = -f_ref*|(s_rel - s_rel0)/s_ref|^n
    with f_ref = 0 meaning c*s_ref, which with s_ref = 1 m is MSL's -c*|s_rel - s_rel0|^n; the
    damper force d*v_rel bounded by the spring force so that the contact never pulls)."""
    if not s_rel < p["s_rel0"]:
        return {"contact": 0, "f": 0.0, "f_c": 0.0, "f_d": 0.0, "lossPower": 0.0}
    f_ref = p["f_ref"] if p["f_ref"] != 0.0 else p["c"] * p["s_ref"]
    f_c = -f_ref * abs((s_rel - p["s_rel0"]) / p["s_ref"]) ** p["n"]
    f_d = min(max(p["d"] * v_rel, f_c), -f_c)
    return {"contact": 1, "f": f_c + f_d, "f_c": f_c, "f_d": f_d, "lossPower": f_d * v_rel}


def law_parameters(md):
    """The law's parameters at the FMU's declared defaults: the experiment sets none."""
    if md.variable("forceLaw")["start"] not in ("1", "1.0"):
        raise PackagingError(f"{md.path}: forceLaw does not default to 1 (ElastoGap): the reference is the MSL law")
    return {name: float(md.variable(name)["start"]) for name in LAW_PARAMETERS}


def experiment_rows(md):
    """(input rows, reference rows), each starting with the time."""
    p = law_parameters(md)
    inputs, reference = [], []
    for t in output_times():
        s, v = motion(t)
        if abs(s - p["s_rel0"]) < CONTACT_MARGIN:
            raise PackagingError(f"the reference motion is within {CONTACT_MARGIN} m of s_rel0 at t = {t}: "
                                 f"whether it is in contact there is decided by rounding")
        inputs.append((t, 0.0, 0.0, s, v))
        parts = law_parts(s, v, p)
        reference.append((t, s, v, *(parts[name] for name in REFERENCE_VARIABLES[2:])))
    return inputs, reference


def csv_text(names, rows):
    """The cross-check's CSV: names quoted, numbers as C literals that read back to the same double."""
    lines = [",".join(f'"{name}"' for name in ("time", *names))]
    lines += [",".join(repr(float(value)) if isinstance(value, float) else str(value) for value in row)
              for row in rows]
    return "\n".join(lines) + "\n"


def opt_text():
    settings = (("StartTime", START_TIME), ("StopTime", STOP_TIME), ("StepSize", STEP_SIZE), ("RelTol", REL_TOL))
    return "".join(f"{name}, {value!r}\n" for name, value in settings)


def file_names(model_identifier):
    return {kind: f"{model_identifier}{suffix}"
            for kind, suffix in (("input", "_in.csv"), ("reference", "_ref.csv"), ("options", "_ref.opt"))}


def manifest_text(model_identifier):
    """fmi-ls-manifest.xml of FMI-LS-REF: the reference result, its input and its settings beside
    it, and the documentation of the experiment (relative sources resolve against this folder)."""
    from xml.sax.saxutils import quoteattr

    names = file_names(model_identifier)
    related = [
        ("text/csv", names["reference"], "result",
         f"Reference result of the experiment {names['options']} with the input {names['input']} "
         f"(co-simulation, default parameters): the MSL 4.1 ElastoGap law along the motion"),
        ("text/csv", names["input"], "testcase",
         "Input of the reference experiment: flange_a fixed, flange_b into the stop and out again"),
        ("text/plain", names["options"], "configuration",
         "Settings of the reference experiment (FMI cross-check format): StartTime, StopTime, StepSize, RelTol"),
        ("text/plain", f"../../{LS_REF_DOCUMENTATION}", "document",
         "The reference experiment and the deviation to expect from it"),
    ]
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        "<fmiReferences",
        f'    xmlns:fmi-ls="{LS_MANIFEST_NAMESPACE}"',
        f'    fmi-ls:fmi-ls-name="{LS_REF_NAME}"',
        f'    fmi-ls:fmi-ls-version="{LS_REF_VERSION}"',
        f'    fmi-ls:fmi-ls-description="{LS_REF_DESCRIPTION}">',
        *(f"    <Related type={quoteattr(kind)} source={quoteattr(source)} role={quoteattr(role)} "
          f"description={quoteattr(description)}/>" for kind, source, role, description in related),
        "</fmiReferences>",
    ]
    return "\n".join(lines) + "\n"


def contact_span(s_rel0):
    """(touch-down, deepest, lift-off) times of the motion against the stop at s_rel0."""
    discriminant = V0 * V0 - 2 * ACCELERATION * (S0 - s_rel0)
    if ACCELERATION <= 0 or discriminant <= 0:
        raise PackagingError("the reference motion does not go into the stop and out again")
    root = discriminant**0.5
    return (-V0 - root) / ACCELERATION, -V0 / ACCELERATION, (-V0 + root) / ACCELERATION


def experiment_description(md):
    """What the experiment is and what to expect of it, for README.txt and documentation/fmi-ls-ref.txt."""
    names = file_names(md.model_identifier)
    p = law_parameters(md)
    touch_down, deepest, lift_off = contact_span(p["s_rel0"])
    first_row = START_TIME + STEP_SIZE
    if touch_down <= first_row + STEP_SIZE:
        raise PackagingError("the reference motion touches the stop within its first step, where the FMU "
                             "extrapolates without acceleration")
    sign = "-" if V0 < 0 else "+"
    paragraphs = [
        f"The experiment ({names['options']}): co-simulation from {START_TIME:g} s to {STOP_TIME:g} s with "
        f"outputs every {STEP_SIZE:g} s (RelTol {REL_TOL:g}), every parameter at its default "
        f"({', '.join(f'{name} = {p[name]:g}' for name in LAW_PARAMETERS)}).",

        f"The input ({names['input']}, one row per output point): flange_a fixed (s = 0, v = 0), flange_b "
        f"moving with a constant acceleration, flange_b.s = {S0:g} {sign} {abs(V0):g}*t + {ACCELERATION / 2:g}*t^2 m "
        f"and flange_b.v = {V0:g} + {ACCELERATION:g}*t m/s. It reaches the stop (s_rel < s_rel0 = "
        f"{p['s_rel0']:g} m) at {touch_down:.4f} s at {abs(motion(touch_down)[1]):.3f} m/s, is "
        f"{p['s_rel0'] - motion(deepest)[0]:g} m deep at {deepest:g} s and leaves at {lift_off:.4f} s; the "
        f"damper force is bounded by the spring force near touch-down and lift-off and not in between.",

        f"The reference ({names['reference']}): {', '.join(REFERENCE_VARIABLES)} at every output point, the "
        f"MSL 4.1 ElastoGap law (Modelica.Mechanics.Translational.Components.ElastoGap) evaluated along the "
        f"motion, computed in packaging/elastogap_packaging/compat.py independently of the FMU's code. Each "
        f"is a function of the motion at its row, so it holds however the FMU integrates within a step.",

        f"What to expect: agreement to rounding at every row but one. A co-simulation importer records the "
        f"outputs after each step without setting the inputs again, so a row shows the motion as the FMU "
        f"extrapolated it from the step's start (parameter accelerationEstimate). In the first step the FMU "
        f"has no history and extrapolates with the velocity alone: at its end (t = {first_row:g} s), s_rel is "
        f"off by up to {FIRST_STEP_ALLOWANCE['s_rel']:.1e} m and v_rel by up to "
        f"{FIRST_STEP_ALLOWANCE['v_rel']:.1e} m/s (out of contact, so the forces there are 0 as in the "
        f"reference). From the second step on the estimate is exact for a constant acceleration.",
    ]
    return "\n\n".join(textwrap.fill(paragraph, width=100) for paragraph in paragraphs) + "\n"


def stage_references(stage, md):
    """Writes the experiment's files and the manifest into the staged FMU; returns the experiment's
    files, {file name: text}, for the compat folder."""
    names = file_names(md.model_identifier)
    inputs, reference = experiment_rows(md)
    files = {
        names["input"]: csv_text(INPUTS, inputs),
        names["reference"]: csv_text(REFERENCE_VARIABLES, reference),
        names["options"]: opt_text(),
    }
    folder = stage / LS_REF_FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text)
    (folder / "fmi-ls-manifest.xml").write_text(manifest_text(md.model_identifier))
    (stage / LS_REF_DOCUMENTATION).parent.mkdir(exist_ok=True)
    (stage / LS_REF_DOCUMENTATION).write_text(
        f"{md.model_name}: the reference experiment of {LS_REF_FOLDER}/\n\n{experiment_description(md)}")
    return files


# ------------------------------------------------------------------------------------------------
# The reference simulators
# ------------------------------------------------------------------------------------------------


def find_tool(name):
    """The binary of `name` ("fmusim" or "fmusim-c"), or None."""
    variable, default = TOOL_PATHS[name]
    path = Path(os.environ.get(variable, default))
    return path if path.is_file() and os.access(path, os.X_OK) else None


def simulate_command(name, binary, folder, model_identifier, output):
    """The command line that runs the experiment of `folder` with one of the fmusims."""
    names = file_names(model_identifier)
    settings = ["--interface-type", "cs", "--start-time", repr(START_TIME), "--stop-time", repr(STOP_TIME),
                "--output-interval", repr(STEP_SIZE), "--tolerance", repr(REL_TOL),
                "--input-file", str(folder / names["input"]), "--output-file", str(output)]
    for variable in REFERENCE_VARIABLES:
        settings += ["--output-variable", variable]
    # The Rust fmusim passes the tolerance to the FMU only when told to; the C one whenever it is set.
    head = [str(binary), "simulate", "--set-tolerance"] if name == "fmusim" else [str(binary)]
    return head + settings + [str(folder / f"{model_identifier}.fmu")]


def read_result(path):
    """A result CSV as {name: array}: quoted or bare names, Booleans as 0/1 or false/true."""
    with open(path, newline="") as stream:
        rows = list(csv.reader(stream))
    names = [name.strip().strip('"') for name in rows[0]]
    words = {"true": 1.0, "false": 0.0}
    values = [[words[cell.strip()] if cell.strip() in words else float(cell) for cell in row]
              for row in rows[1:] if row]
    return dict(zip(names, np.array(values, dtype=float).T))


def at_times(result, times):
    """The result at the given times, linear in between; of rows with the same time (an event's
    two sides) the first."""
    t = result["time"]
    keep = np.concatenate([[True], np.diff(t) > 0])
    return {name: np.interp(times, t[keep], values[keep]) for name, values in result.items()}


# A variable's largest deviation at the rows besides the first step's end and at that row, with the
# tolerance of each.
Deviation = namedtuple("Deviation", "others first tolerance first_tolerance")


def deviations(result, reference_rows):
    """{reference variable: Deviation} of a result from the reference."""
    reference = np.array(reference_rows, dtype=float)
    times = reference[:, 0]
    first = int(np.argmin(np.abs(times - (START_TIME + STEP_SIZE))))
    sampled = at_times(result, times)
    measured = {}
    for column, name in enumerate(REFERENCE_VARIABLES, start=1):
        wanted = reference[:, column]
        error = np.abs(sampled[name] - wanted)
        rounding = 0.0 if name == "contact" else ROUNDING * max(1.0, float(np.abs(wanted).max()))
        # The allowance is a bound reached exactly; the margin is for its own rounding.
        allowance = FIRST_STEP_ALLOWANCE.get(name, 0.0) * (1 + 1e-6)
        measured[name] = Deviation(float(np.delete(error, first).max()), float(error[first]), rounding,
                                   rounding + allowance)
    return measured


def run_tool(name, binary, folder, model_identifier, reference_rows):
    """Runs the experiment with one fmusim and holds the result to the reference; returns (what
    `--version` printed, {variable: Deviation})."""
    version = subprocess.run([str(binary), "--version"], capture_output=True, text=True).stdout.strip()
    with tempfile.TemporaryDirectory() as scratch:
        output = Path(scratch) / "out.csv"
        command = simulate_command(name, binary, folder, model_identifier, output)
        done = subprocess.run(command, capture_output=True, text=True, timeout=300)
        if done.returncode != 0 or not output.is_file():
            raise PackagingError(f"{' '.join(command)} exited {done.returncode}:\n"
                                 f"{done.stdout[-2000:]}{done.stderr[-2000:]}")
        result = read_result(output)
    if abs(result["time"][-1] - STOP_TIME) > 1e-9 * max(1.0, abs(STOP_TIME)):
        raise PackagingError(f"{name} stopped at t = {result['time'][-1]}, not at {STOP_TIME}")
    measured = deviations(result, reference_rows)
    beyond = [f"{variable} {d.others:.2e} (tolerance {d.tolerance:.1e}), at the first step's end {d.first:.2e} "
              f"(tolerance {d.first_tolerance:.1e})"
              for variable, d in measured.items() if d.others > d.tolerance or d.first > d.first_tolerance]
    if beyond:
        raise PackagingError(f"{name} on {model_identifier}: the result differs from {model_identifier}_ref.csv: "
                             f"{'; '.join(beyond)}")
    say(f"{name} on compat/{model_identifier}: agrees with the reference "
        f"(largest deviation besides the first step {max(d.others for d in measured.values()):.1e})")
    return version, measured


def validate_with_fmusim(binary, fmu):
    """`fmusim validate`; returns what it printed, on one line."""
    done = subprocess.run([str(binary), "validate", str(fmu)], capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise PackagingError(f"fmusim validate {fmu.name} exited {done.returncode}:\n{done.stdout}{done.stderr}")
    return "; ".join(line.strip() for line in (done.stdout + done.stderr).splitlines() if line.strip())


# ------------------------------------------------------------------------------------------------
# The folder
# ------------------------------------------------------------------------------------------------


def deviation_table(md, measured):
    first_row = f"t = {START_TIME + STEP_SIZE:g} s"
    lines = [f"      {'variable':<10} {'unit':<5} {'other rows':>10} {first_row:>12}"]
    for name, deviation in measured.items():
        unit = md.variable(name)["unit"] or "-"
        lines.append(f"      {name:<10} {unit:<5} {deviation.others:>10.1e} {deviation.first:>12.1e}")
    return "\n".join(lines)


def tool_runs(folder, md, fmu, reference_rows):
    """Runs both fmusims where they are found; returns README lines saying what ran and what it
    measured, or why it did not run."""
    lines = []
    for name in TOOL_PATHS:
        binary = find_tool(name)
        if binary is None:
            variable, default = TOOL_PATHS[name]
            lines.append(f"- {name}: not run, not found at {os.environ.get(variable, default)} "
                         f"(bash packaging/setup.sh builds it; {variable} names another binary).")
            continue
        version, measured = run_tool(name, binary, folder, md.model_identifier, reference_rows)
        if name == "fmusim":
            lines.append(f"- {name} validate {fmu.name} ({name} --version: {version}): passed "
                         f"({validate_with_fmusim(binary, fmu)}).")
        shown = simulate_command(name, name, Path("."), md.model_identifier, "out.csv")
        lines += [f"- {name} ({name} --version: {version}), co-simulation, on x86-64 Linux:",
                  f"      {' '.join(shown)}",
                  f"  largest deviation from {md.model_identifier}_ref.csv (besides the first step's end / at it):",
                  deviation_table(md, measured)]
    return lines


def readme_text(md, fmi_version, platforms, checks, runs):
    names = file_names(md.model_identifier)
    listing = [
        (f"{md.model_identifier}.fmu", f"the FMU: FMI {fmi_version}, co-simulation and Model Exchange, "
                                       f"binaries {', '.join(platforms)}"),
        (names["input"], "the input"),
        (names["reference"], "the reference result"),
        (names["options"], "StartTime, StopTime, StepSize, RelTol"),
        ("README.txt", "this file"),
    ]
    files = "\n".join(f"  {name:<20} {what}" for name, what in listing)
    return f"""\
{md.model_name}: compatibility information ({md.model_identifier}.fmu, FMI {fmi_version})

In the form the FMI project asks of exporting tools (the files of the FMI cross-check):

{files}

The same three files are inside the FMU, in {LS_REF_FOLDER}/, which fmi-ls-manifest.xml
(FMI-LS-REF {LS_REF_VERSION}) describes: {names['reference']} with role "result".

{experiment_description(md)}
Checks run by packaging/package.py when it wrote this folder (each passed, or the packaging fails):
{chr(10).join(f'- {check}' for check in checks)}
{chr(10).join(runs)}

tests/python/test_compat.py runs the experiment again with both fmusims and checks the manifest.
"""


def write_compat_folder(fmu, md, fmi_version, platforms, checks, files):
    """target/fmu/compat/<modelIdentifier>/: the FMU, the experiment's files (`files`, as
    stage_references returned them) and README.txt after running the experiment with the fmusims."""
    folder = COMPAT_ROOT / md.model_identifier
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    shutil.copyfile(fmu, folder / fmu.name)
    for name, text in files.items():
        (folder / name).write_text(text)
    _, reference_rows = experiment_rows(md)
    runs = tool_runs(folder, md, folder / fmu.name, reference_rows)
    (folder / "README.txt").write_text(readme_text(md, fmi_version, platforms, checks, runs))
    say(f"wrote {folder}")
    return folder
