"""The compatibility folders `target/fmu/compat/<modelIdentifier>/` that `packaging/package.py` writes
in the FMI cross-check's form, and the FMI-LS-REF manifest inside each FMU.

    .venv/bin/python -m pytest -q tests/python/test_compat.py

- each folder holds the `.fmu` (the bytes of target/fmu/<id>.fmu), `_in.csv`, `_ref.csv`, `_ref.opt`
  and README.txt, and FMPy's cross-check check of an exporter's folder finds no problem in it;
- `_ref.csv` is the MSL law along the motion of `_in.csv`, by gap_law.law (not the packaging's own
  statement of the law) at the FMU's declared default parameters;
- fmusim 0.7 (`fmusim simulate`) and fmusim-c 0.0.39 run the experiment of `_ref.opt` with `_in.csv`
  in co-simulation, and their results, sampled at the reference's times, agree with `_ref.csv`;
- `fmusim validate` passes; `extra/org.fmi-standard.fmi-ls-ref/fmi-ls-manifest.xml` is well-formed,
  carries the layered standard's attributes, names with role `result` a file in the `.fmu` whose
  bytes are `_ref.csv`'s, and every file it names is in the `.fmu`.

The tolerances, at every reference row:
- `contact` exactly;
- every other variable within 1e-12 of its column's largest magnitude (at least 1 in its unit).
  Reference and FMU evaluate the same closed-form law (n = 1) on the same doubles: the inputs are
  written to read back exactly, the importers interpolate them at the rows, and the FMU's
  extrapolation over a step adds a few roundings (each about 1e-16). 1e-12 leaves four
  orders for that and is nine below what a step's error in the motion would show (v*h, about 1e-3);
- at the first step's end `s_rel` and `v_rel` besides within a*h^2/2 and a*h (a the largest
  relative acceleration of the input, h the step): an importer records outputs after each step
  without setting the inputs again, so they are the FMU's extrapolation from the step's start
  (`accelerationEstimate`), which in the first step has no history and uses the velocity alone.
  From the second step on it is exact for the input's constant acceleration. The forces there must
  still agree to rounding: the reference is out of contact at that row, and so is the FMU.
"""

import csv
import os
import posixpath
import shutil
import zipfile
from pathlib import Path
from xml.etree import ElementTree

import numpy as np
import pytest

from gap_law import INPUTS, ROOT, assert_obeys_law
from reference_tools import require, run

COMPAT = ROOT / "target" / "fmu" / "compat"
MODEL_IDENTIFIERS = ("ElastoGap", "ElastoGap3")
LS_REF = "extra/org.fmi-standard.fmi-ls-ref"
LS_MANIFEST_NAMESPACE = "http://fmi-standard.org/fmi-ls-manifest"
LS_ATTRIBUTES = {
    "fmi-ls-name": "org.fmi-standard.fmi-ls-ref",
    "fmi-ls-description": "Layered Standard providing information on related files included in an FMU.",
}
# The roles FMI-LS-REF 1.0.0-alpha.1 defines; experiment and serialized-state take sub-roles.
LS_REF_ROLES = {"document", "requirement", "specification", "model", "parameter", "system", "testcase",
                "experiment", "result", "method", "rationale", "report", "request", "delivery",
                "configuration", "signature", "serialized-state", "meta-data", "other"}
LAW_PARAMETERS = ("c", "d", "s_rel0", "n", "s_ref", "f_ref")
ROUNDING = 1e-12
# The cross-check's limits: at most 10 variables in a reference, no CSV above 1 MB.
MOST_VARIABLES = 10
LARGEST_CSV = 1_000_000


@pytest.fixture(scope="module", params=MODEL_IDENTIFIERS)
def folder(request):
    path = COMPAT / request.param
    if not path.is_dir():
        pytest.fail(f"{path} does not exist: run packaging/package.py")
    return path


def files_of(folder):
    name = folder.name
    return {kind: folder / f"{name}{suffix}" for kind, suffix in
            (("fmu", ".fmu"), ("input", "_in.csv"), ("reference", "_ref.csv"), ("options", "_ref.opt"))}


def read_options(path):
    """The `Name, value` lines of a cross-check .opt file."""
    options = {}
    for line in path.read_text().splitlines():
        name, _, value = line.partition(",")
        if value:
            options[name.strip()] = float(value)
    return options


def read_table(path):
    """A CSV as {name: array}: names quoted or not, Booleans as 0/1 or false/true."""
    with open(path, newline="") as stream:
        rows = [row for row in csv.reader(stream) if row]
    words = {"false": 0.0, "true": 1.0}
    values = np.array([[words[cell.strip()] if cell.strip() in words else float(cell) for cell in row]
                       for row in rows[1:]], dtype=float)
    return dict(zip([name.strip().strip('"') for name in rows[0]], values.T))


def default_parameters(fmu):
    """The law's parameters as modelDescription.xml declares their start values (FMI 2.0 or 3.0)."""
    with zipfile.ZipFile(fmu) as archive:
        root = ElementTree.fromstring(archive.read("modelDescription.xml"))
    starts = {}
    for element in root.find("ModelVariables"):
        typed = element.find("Real") if element.tag == "ScalarVariable" else element
        if typed is not None:
            starts[element.get("name")] = typed.get("start")
    return {name: float(starts[name]) for name in LAW_PARAMETERS}


def test_folder_holds_the_cross_check_files(folder):
    files = files_of(folder)
    for path in [*files.values(), folder / "README.txt"]:
        assert path.is_file(), path
    assert files["fmu"].read_bytes() == (ROOT / "target" / "fmu" / files["fmu"].name).read_bytes()
    for kind in ("input", "reference"):
        assert files[kind].stat().st_size <= LARGEST_CSV, files[kind]
        assert files[kind].read_text().splitlines()[0].startswith('"time",'), files[kind]
    reference = read_table(files["reference"])
    assert len(reference) - 1 <= MOST_VARIABLES
    options = read_options(files["options"])
    assert set(options) == {"StartTime", "StopTime", "StepSize", "RelTol"}
    assert reference["time"][0] == options["StartTime"] and reference["time"][-1] == options["StopTime"]
    assert list(read_table(files["input"])) == ["time", *INPUTS]


def test_fmpy_cross_check_finds_no_problem(folder, tmp_path):
    """FMPy's check of an exporter's cross-check folder, which reads the FMI version, type and model
    name from the path fmus/<version>/<type>/<platform>/<tool>/<tool version>/<model>."""
    from fmpy.cross_check.validate_vendor_repo import validate_test_fmu

    version = "3.0" if folder.name == "ElastoGap3" else "2.0"
    platform = "x86_64-linux" if version == "3.0" else "linux64"
    model_dir = tmp_path / "fmus" / version / "cs" / platform / "ElastoGap" / "0" / folder.name
    shutil.copytree(folder, model_dir)
    assert validate_test_fmu(str(model_dir)) == []


def test_reference_is_the_law_along_the_input(folder):
    files = files_of(folder)
    motion, reference = read_table(files["input"]), read_table(files["reference"])
    np.testing.assert_array_equal(reference["time"], motion["time"])
    s_rel = motion["flange_b.s"] - motion["flange_a.s"]
    v_rel = motion["flange_b.v"] - motion["flange_a.v"]
    np.testing.assert_allclose(reference["s_rel"], s_rel, rtol=0, atol=ROUNDING)
    np.testing.assert_allclose(reference["v_rel"], v_rel, rtol=0, atol=ROUNDING)
    p = default_parameters(files["fmu"])
    assert_obeys_law(s_rel, v_rel, {k: reference[k] for k in ("f", "f_c", "f_d", "lossPower")}, p, rtol=ROUNDING)
    np.testing.assert_array_equal(reference["contact"], s_rel < p["s_rel0"])
    assert reference["contact"].any() and reference["contact"][0] == 0 and reference["contact"][-1] == 0, \
        "the motion goes into the stop and out again"


def simulate_command(tool, binary, files, options, variables, output):
    settings = ["--interface-type", "cs", "--start-time", options["StartTime"],
                "--stop-time", options["StopTime"], "--output-interval", options["StepSize"],
                "--tolerance", options["RelTol"],
                "--input-file", files["input"], "--output-file", output]
    for name in variables:
        settings += ["--output-variable", name]
    # The Rust fmusim hands the tolerance to the FMU only with --set-tolerance.
    head = [binary, "simulate", "--set-tolerance"] if tool == "fmusim" else [binary]
    return head + settings + [files["fmu"]]


def at_times(result, times):
    """The result at the reference's times, linear in between; of rows with one time (an event's two
    sides) the first, the value up to the event."""
    t = result["time"]
    keep = np.concatenate([[True], np.diff(t) > 0])
    return {name: np.interp(times, t[keep], values[keep]) for name, values in result.items()}


def first_step_allowance(motion, step):
    """{variable: bound} at the first step's end, from the input's largest relative acceleration."""
    v_rel = motion["flange_b.v"] - motion["flange_a.v"]
    acceleration = np.abs(np.diff(v_rel) / np.diff(motion["time"])).max()
    # The bounds are reached exactly; the margin is for their own rounding.
    return {"s_rel": acceleration * step * step / 2 * (1 + 1e-6), "v_rel": acceleration * step * (1 + 1e-6)}


@pytest.mark.parametrize("tool", ["fmusim", "fmusim-c"])
def test_fmusim_result_agrees_with_the_reference(folder, tool, tmp_path):
    binary = require(tool)
    files = files_of(folder)
    options = read_options(files["options"])
    reference = read_table(files["reference"])
    variables = list(reference)[1:]
    output = tmp_path / "out.csv"
    run(simulate_command(tool, binary, files, options, variables, output))
    result = read_table(output)
    assert result["time"][-1] == pytest.approx(options["StopTime"], rel=1e-12)
    sampled = at_times(result, reference["time"])
    first = int(np.argmin(np.abs(reference["time"] - (options["StartTime"] + options["StepSize"]))))
    assert reference["contact"][first] == 0, "the allowance at the first step's end covers only the motion"
    allowance = first_step_allowance(read_table(files["input"]), options["StepSize"])
    report = []
    for name in variables:
        error = np.abs(sampled[name] - reference[name])
        scale = max(1.0, np.abs(reference[name]).max())
        tolerance = np.full(error.size, 0.0 if name == "contact" else ROUNDING * scale)
        tolerance[first] += allowance.get(name, 0.0)
        report.append(f"{name} {np.delete(error, first).max():.1e} (first step's end {error[first]:.1e})")
        beyond = np.flatnonzero(error > tolerance)
        assert beyond.size == 0, (f"{tool} {folder.name} {name}: at t = {reference['time'][beyond[:5]]} off by "
                                  f"{error[beyond[:5]]} (tolerance {tolerance[beyond[:5]]})")
    print(f"{tool} {folder.name}: largest deviation {', '.join(report)}")


def test_fmusim_validate_passes(folder):
    run([require("fmusim"), "validate", files_of(folder)["fmu"]])


def test_manifest_names_the_reference_result(folder):
    files = files_of(folder)
    with zipfile.ZipFile(files["fmu"]) as archive:
        names = set(archive.namelist())
        assert f"{LS_REF}/fmi-ls-manifest.xml" in names
        root = ElementTree.fromstring(archive.read(f"{LS_REF}/fmi-ls-manifest.xml"))
        assert root.tag == "fmiReferences"
        attributes = {key.removeprefix(f"{{{LS_MANIFEST_NAMESPACE}}}"): value for key, value in root.attrib.items()}
        assert {key: attributes.get(key) for key in LS_ATTRIBUTES} == LS_ATTRIBUTES
        assert attributes.get("fmi-ls-version"), "fmi-ls-version is required"
        related = root.findall("Related")
        assert related and len(related) == len(root), "fmiReferences holds Related elements only"
        for element in related:
            assert element.get("role").split("/")[0] in LS_REF_ROLES, element.attrib
            # Relative sources resolve against the manifest's folder.
            source = posixpath.normpath(posixpath.join(LS_REF, element.get("source")))
            assert source in names, f"{element.get('source')} is not in {files['fmu'].name}"
        results = [e for e in related if e.get("role") == "result"]
        assert len(results) == 1
        assert results[0].get("type") == "text/csv"
        stored = archive.read(posixpath.normpath(posixpath.join(LS_REF, results[0].get("source"))))
    assert stored == files["reference"].read_bytes()
    assert os.path.basename(results[0].get("source")) == files["reference"].name
