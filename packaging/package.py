#!/usr/bin/env python3
"""Build, package and validate the ElastoGap FMU.

    .venv/bin/python packaging/package.py

1. `cargo build --release` of the package `elastogap` (on x86_64 Linux `cargo zigbuild` for the target
   `x86_64-unknown-linux-gnu.2.17`, so the binary needs no glibc newer than 2.17); the cdylib and the
   build script's out_dir (which holds the generated `modelDescription.xml`) are read from cargo's JSON
   messages.
   On linux64 also the `win64` DLL, cross-built by `packaging/win64_cargo.sh` (Debian's rustc-web with
   cargo's build-std for `x86_64-pc-windows-gnu`, MinGW-w64 as linker); a missing toolchain fails the
   packaging with a message. `ELASTOGAP_SKIP_WIN64=1` (or `--skip-win64`) packages linux64 alone, for
   a developer's quicker round; CI and the README's commands build both.
2. Lays out `target/fmu/<modelIdentifier>/`: `modelDescription.xml`, `binaries/<platform>/<modelIdentifier>.so`
   (renamed from `libelastogap.so`: importers load exactly that name) and `binaries/win64/<modelIdentifier>.dll`,
   `model.png` (an icon drawn here), `resources/` (the Gap Force's example table, from `packaging/resources/`)
   and `documentation/index.html`. The page's tables are generated from the built modelDescription.xml,
   and its force plot is computed by calling the built binary through FMPy.
3. Zips the directory to `target/fmu/<modelIdentifier>.fmu`.
4. Validates: the Linux binary exports every FMI 2.0 co-simulation and Model Exchange function (loaded
   with ctypes), the DLL exports exactly those and imports only Windows system DLLs (its PE tables read
   here), `fmpy.validation.validate_fmu`
   finds no problem, and `fmutool -input <fmu> -check` (fmu-manipulation-toolbox) reports no error.

The packaging itself uses only the standard library; the plot and the validation need FMPy and the
toolbox, which `packaging/setup.sh` installs into `.venv`. Exits non-zero with a message on any failure.
"""

import argparse
import html
import json
import math
import os
import platform
import re
import shutil
import struct
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
import zipfile
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "elastogap"
FMU_ROOT = ROOT / "target" / "fmu"
# The oldest glibc the Linux binary must load with (RHEL/CentOS 7; Ubuntu 18.04 has 2.27).
GLIBC_FLOOR = "2.17"

# Every function of the FMI 2.0 common, co-simulation and Model Exchange API. Importers such as fmusim resolve all of
# them at load time, optional ones included: one missing symbol makes the FMU unusable there.
FMI2_FUNCTIONS = """
fmi2GetTypesPlatform fmi2GetVersion fmi2SetDebugLogging fmi2Instantiate fmi2FreeInstance
fmi2SetupExperiment fmi2EnterInitializationMode fmi2ExitInitializationMode fmi2Terminate fmi2Reset
fmi2GetReal fmi2GetInteger fmi2GetBoolean fmi2GetString fmi2SetReal fmi2SetInteger fmi2SetBoolean
fmi2SetString fmi2GetFMUstate fmi2SetFMUstate fmi2FreeFMUstate fmi2SerializedFMUstateSize
fmi2SerializeFMUstate fmi2DeSerializeFMUstate fmi2GetDirectionalDerivative
fmi2SetRealInputDerivatives fmi2GetRealOutputDerivatives fmi2DoStep fmi2CancelStep fmi2GetStatus
fmi2GetRealStatus fmi2GetIntegerStatus fmi2GetBooleanStatus fmi2GetStringStatus
fmi2EnterEventMode fmi2NewDiscreteStates fmi2EnterContinuousTimeMode fmi2CompletedIntegratorStep
fmi2SetTime fmi2SetContinuousStates fmi2GetDerivatives fmi2GetEventIndicators fmi2GetContinuousStates
fmi2GetNominalsOfContinuousStates
""".split()

# Environment variable (or --skip-win64) that leaves the win64 DLL out, for developers only.
SKIP_WIN64_ENV = "ELASTOGAP_SKIP_WIN64"
# What a DLL loaded by LoadLibrary beside nothing else may import: DLLs every Windows 10 has. A MinGW
# runtime DLL (libgcc_s_seh-1.dll, libwinpthread-1.dll) is absent on users' machines and makes the
# load fail with error 126; api-ms-win-* are API sets the loader resolves itself.
WINDOWS_SYSTEM_DLLS = {
    "kernel32.dll", "ntdll.dll", "msvcrt.dll", "ucrtbase.dll", "advapi32.dll", "userenv.dll",
    "ws2_32.dll", "bcrypt.dll", "bcryptprimitives.dll", "user32.dll", "shell32.dll", "ole32.dll",
    "oleaut32.dll", "secur32.dll", "synchronization.dll",
}
# Rust's std for x86_64-pc-windows-gnu supports Windows 10 and later only (it imports e.g.
# bcryptprimitives.dll's ProcessPrng, which older Windows lacks).
WINDOWS_FLOOR = "Windows 10"

# Parameters of the documentation's force plot: the elastoGap of Modelica.Mechanics.Translational.
# Examples.ElastoGap (c = 10 N/m, d = 1.5 N.s/m, s_rel0 = 1.5 m, n = 1; s_ref, f_ref at their defaults).
PLOT_PARAMETERS = {"c": 10.0, "d": 1.5, "s_rel0": 1.5, "n": 1.0, "s_ref": 1.0, "f_ref": 0.0}
PLOT_S_REL = (0.5, 2.0)
PLOT_V_REL = (-2.0, -1.0, 0.0, 1.0, 2.0)
PLOT_POINTS = 301


class PackagingError(Exception):
    pass


def say(message):
    print(f"package: {message}", flush=True)


# --------------------------------------------------------------------------------------------------
# cargo
# --------------------------------------------------------------------------------------------------


def platform_of_host():
    """FMI 2.0 platform folder and shared-library suffix for binaries built on this machine."""
    bits = "64" if sys.maxsize > 2**32 else "32"
    if sys.platform.startswith("linux"):
        return f"linux{bits}", ".so"
    if sys.platform == "darwin":
        return "darwin64", ".dylib"
    if sys.platform in ("win32", "cygwin"):
        return f"win{bits}", ".dll"
    raise PackagingError(f"no FMI 2.0 platform name for {sys.platform}")


def cargo_package_id():
    metadata = subprocess.run(
        ["cargo", "metadata", "--no-deps", "--format-version", "1"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if metadata.returncode != 0:
        raise PackagingError(f"cargo metadata failed:\n{metadata.stderr}")
    package_ids = [p["id"] for p in json.loads(metadata.stdout)["packages"] if p["name"] == PACKAGE]
    if not package_ids:
        raise PackagingError(f"no package {PACKAGE!r} in {ROOT / 'Cargo.toml'}")
    return package_ids[0]


def cargo_build(library_suffix):
    """Builds the release cdylib; returns (path of the cdylib, out_dir of the build script)."""
    command = [
        "cargo", "build", "--release", "--message-format=json-render-diagnostics",
        "--package", PACKAGE, "--lib",
    ]
    environment = dict(os.environ)
    if library_suffix == ".so" and platform.machine() == "x86_64":
        # Linked by zig against the glibc 2.17 symbol versions, so that the binary also loads on the
        # older distributions many engineering workstations run (a plain build needs the build
        # machine's glibc). cargo-zigbuild and zig come from the venv (packaging/requirements.txt).
        venv_bin = Path(sys.executable).parent
        if not (venv_bin / "cargo-zigbuild").is_file():
            raise PackagingError(
                f"cargo-zigbuild is not in {venv_bin}: run `bash packaging/setup.sh` and package with .venv/bin/python"
            )
        environment["PATH"] = f"{venv_bin}{os.pathsep}{environment.get('PATH', '')}"
        command[1:2] = ["zigbuild"]
        command += ["--target", f"x86_64-unknown-linux-gnu.{GLIBC_FLOOR}", "--manifest-path", str(ROOT / "Cargo.toml")]
        # zig names its lib folder relative to the working directory when it lies below it
        # (`.venv/...`); bindgen, run by fmi-sys's build script in another folder, would then miss
        # zig's stddef.h. From target/, which is not above .venv, the name stays absolute.
        working_dir = ROOT / "target"
        working_dir.mkdir(exist_ok=True)
    else:
        working_dir = ROOT
    return run_cargo(command, working_dir, environment, library_suffix)


def run_cargo(command, working_dir, environment, library_suffix):
    """Runs a cargo build; returns (path of the cdylib, out_dir of the build script)."""
    package_id = cargo_package_id()
    say(" ".join(command))
    # Diagnostics are rendered by cargo to stderr, which stays the terminal's; stdout carries JSON.
    process = subprocess.Popen(command, cwd=working_dir, stdout=subprocess.PIPE, text=True, env=environment)
    cdylib = out_dir = None
    for line in process.stdout:
        try:
            message = json.loads(line)
        except ValueError:
            print(line, end="")
            continue
        if message.get("package_id") != package_id:
            continue
        reason = message.get("reason")
        # Later messages are newer: keep the last of each.
        if reason == "compiler-artifact" and "cdylib" in message["target"]["kind"]:
            for filename in message["filenames"]:
                if filename.endswith(library_suffix):
                    cdylib = Path(filename)
        elif reason == "build-script-executed":
            out_dir = Path(message["out_dir"])
    if process.wait() != 0:
        raise PackagingError("cargo build failed (its diagnostics are above)")
    if cdylib is None or not cdylib.is_file():
        raise PackagingError(f"cargo reported no cdylib (*{library_suffix}) for {PACKAGE}")
    if out_dir is None:
        raise PackagingError(f"cargo reported no build-script run (out_dir) for {PACKAGE}")
    return cdylib, out_dir


def cargo_build_win64():
    """Cross-builds the release cdylib for win64; returns (path of the DLL, out_dir of the build script)."""
    command = [
        "bash", str(ROOT / "packaging" / "win64_cargo.sh"), "build", "--release",
        "--message-format=json-render-diagnostics", "--package", PACKAGE, "--lib",
    ]
    # win64_cargo.sh checks the toolchain first and names what is missing; its exit status says it.
    check = subprocess.run(command[:2] + ["--check-toolchain"], capture_output=True, text=True)
    if check.returncode != 0:
        raise PackagingError(
            f"no win64 toolchain: {check.stderr.strip() or check.stdout.strip()}"
        )
    say(f"win64 toolchain: {check.stdout.strip()}")
    return run_cargo(command, ROOT, dict(os.environ), ".dll")


# --------------------------------------------------------------------------------------------------
# modelDescription.xml
# --------------------------------------------------------------------------------------------------


class ModelDescription:
    """What the packaging and the documentation need from modelDescription.xml (stdlib parser)."""

    def __init__(self, path):
        self.path = path
        root = ET.parse(path).getroot()
        self.attributes = dict(root.attrib)
        self.guid = root.get("guid")
        self.model_name = root.get("modelName")
        co_simulation = root.find("CoSimulation")
        if co_simulation is None:
            raise PackagingError(f"{path}: no <CoSimulation> element")
        self.co_simulation = dict(co_simulation.attrib)
        model_exchange = root.find("ModelExchange")
        self.model_exchange = dict(model_exchange.attrib) if model_exchange is not None else None
        self.number_of_event_indicators = int(root.get("numberOfEventIndicators", "0"))
        self.model_identifier = co_simulation.get("modelIdentifier")
        if self.model_exchange is not None and self.model_exchange.get("modelIdentifier") != self.model_identifier:
            raise PackagingError(f"{path}: <ModelExchange> and <CoSimulation> name different binaries; one serves both")
        if not self.model_identifier or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", self.model_identifier):
            raise PackagingError(f"{path}: modelIdentifier {self.model_identifier!r} is not a C identifier")
        experiment = root.find("DefaultExperiment")
        self.default_experiment = dict(experiment.attrib) if experiment is not None else {}
        self.log_categories = [
            (c.get("name"), c.get("description", "")) for c in root.iterfind("LogCategories/Category")
        ]
        self.variables = []
        for index, element in enumerate(root.iterfind("ModelVariables/ScalarVariable"), start=1):
            typed = next(iter(element))
            self.variables.append(
                {
                    "index": index,
                    "name": element.get("name"),
                    "valueReference": int(element.get("valueReference")),
                    "description": element.get("description", ""),
                    "causality": element.get("causality", "local"),
                    "variability": element.get(
                        "variability", "continuous" if typed.tag == "Real" else "discrete"
                    ),
                    "initial": element.get("initial", ""),
                    "type": typed.tag,
                    "unit": typed.get("unit", ""),
                    "start": typed.get("start", ""),
                    "min": typed.get("min", ""),
                    "max": typed.get("max", ""),
                }
            )
        by_index = {v["index"]: v for v in self.variables}
        self.direct_feedthrough = {}
        for unknown in root.iterfind("ModelStructure/Outputs/Unknown"):
            dependencies = unknown.get("dependencies")
            names = (
                None
                if dependencies is None
                else [by_index[int(i)]["name"] for i in dependencies.split()]
            )
            self.direct_feedthrough[by_index[int(unknown.get("index"))]["name"]] = names

    def variable(self, name):
        for v in self.variables:
            if v["name"] == name:
                return v
        raise PackagingError(f"{self.path}: no variable {name!r}")

    def value_reference(self, name):
        return self.variable(name)["valueReference"]


# --------------------------------------------------------------------------------------------------
# model.png: the icon, drawn with anti-aliased shapes and written as PNG (zlib + struct)
# --------------------------------------------------------------------------------------------------


def png_bytes(width, height, rgba):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    stride = width * 4
    raw = b"".join(b"\x00" + bytes(rgba[y * stride:(y + 1) * stride]) for y in range(height))
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )


class Canvas:
    """RGBA raster with Modelica-style icon coordinates: x, y in [-100, 100], y up."""

    def __init__(self, size):
        self.size = size
        self.scale = size / 200.0
        self.pixels = bytearray(size * size * 4)  # transparent

    def to_pixels(self, x, y):
        return (x + 100.0) * self.scale, (100.0 - y) * self.scale

    def _blend(self, px, py, color, coverage):
        if coverage <= 0.0:
            return
        i = (py * self.size + px) * 4
        r, g, b = color
        alpha = min(coverage, 1.0)
        old_alpha = self.pixels[i + 3] / 255.0
        new_alpha = alpha + old_alpha * (1.0 - alpha)
        for k, channel in enumerate((r, g, b)):
            old = self.pixels[i + k]
            value = (channel * alpha + old * old_alpha * (1.0 - alpha)) / new_alpha
            self.pixels[i + k] = int(round(value))
        self.pixels[i + 3] = int(round(new_alpha * 255.0))

    def _paint(self, bounds, coverage_at, color):
        x0, y0, x1, y1 = bounds
        for py in range(max(0, int(y0) - 1), min(self.size, int(y1) + 2)):
            for px in range(max(0, int(x0) - 1), min(self.size, int(x1) + 2)):
                self._blend(px, py, color, coverage_at(px + 0.5, py + 0.5))

    def line(self, points, width=2.5, color=(0, 0, 0)):
        """Polyline in icon coordinates; width in icon units; round caps and joins."""
        half = width * self.scale / 2.0
        pts = [self.to_pixels(x, y) for x, y in points]
        for (ax, ay), (bx, by) in zip(pts, pts[1:]):
            dx, dy = bx - ax, by - ay
            length2 = dx * dx + dy * dy or 1e-12

            def coverage(x, y, ax=ax, ay=ay, dx=dx, dy=dy, length2=length2):
                t = max(0.0, min(1.0, ((x - ax) * dx + (y - ay) * dy) / length2))
                distance = math.hypot(x - ax - t * dx, y - ay - t * dy)
                return half + 0.5 - distance

            bounds = (min(ax, bx) - half, min(ay, by) - half, max(ax, bx) + half, max(ay, by) + half)
            self._paint(bounds, coverage, color)

    def rectangle(self, x0, y0, x1, y1, fill=None, border=(0, 0, 0), width=2.5):
        (ax, ay), (bx, by) = self.to_pixels(min(x0, x1), max(y0, y1)), self.to_pixels(max(x0, x1), min(y0, y1))
        if fill is not None:

            def coverage(x, y):
                return min(x - ax, bx - x, y - ay, by - y) + 0.5

            self._paint((ax, ay, bx, by), coverage, fill)
        if border is not None:
            self.line([(x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0)], width, border)


def draw_icon(size=256):
    """The ElastoGap icon: flange_a (filled), spring over damper in parallel, a gap, flange_b (open)."""
    green = (0, 127, 0)
    canvas = Canvas(size)
    # Rods from the flanges and the two joining bars of the parallel spring and damper.
    canvas.line([(-80, 0), (-60, 0)])
    canvas.line([(-60, -30), (-60, 30)])
    canvas.line([(30, -30), (30, 30)])
    canvas.line([(30, 0), (50, 0)])
    # Spring (upper branch): straight, six zigzag teeth, straight.
    zigzag = [(-60, 30), (-45, 30)]
    for k in range(6):
        x = -45 + k * 10
        zigzag += [(x + 2.5, 42), (x + 7.5, 18)]
    zigzag += [(15, 30), (30, 30)]
    canvas.line(zigzag)
    # Damper (lower branch): piston rod and plate inside an open cylinder.
    canvas.rectangle(-25, -46, 12, -14, fill=(220, 220, 220), border=None)
    canvas.line([(-60, -30), (-15, -30)])
    canvas.line([(-15, -42), (-15, -18)], width=3.5)
    canvas.line([(-25, -14), (12, -14), (12, -46), (-25, -46)])
    canvas.line([(12, -30), (30, -30)])
    # The gap: a stop plate on each side, the contact opens while s_rel > s_rel0.
    canvas.line([(50, -16), (50, 16)], width=5)
    canvas.line([(66, -16), (66, 16)], width=5)
    canvas.line([(66, 0), (80, 0)])
    # Flanges as in the Modelica Standard Library: flange_a filled, flange_b open, both green.
    canvas.rectangle(-100, -10, -80, 10, fill=green, border=green, width=2.0)
    canvas.rectangle(80, -10, 100, 10, fill=(255, 255, 255), border=green, width=2.0)
    return png_bytes(size, size, canvas.pixels)


# --------------------------------------------------------------------------------------------------
# The force plot: sampled from the built binary, drawn as SVG by hand
# --------------------------------------------------------------------------------------------------


def msl_force(s_rel, v_rel, c, d, s_rel0, n, s_ref, f_ref):
    """The MSL 4.1 ElastoGap force law at flange_b, to cross-check what the binary computes."""
    if f_ref == 0.0:
        f_ref = c * s_ref
    if not s_rel < s_rel0:
        return 0.0
    f_c = -f_ref * abs((s_rel - s_rel0) / s_ref) ** n
    f_d = min(max(d * v_rel, f_c), -f_c)
    return f_c + f_d


def sample_force(stage, md, parameters, s_values, v_values):
    """f(s_rel, v_rel) read from the FMU in `stage`: the outputs are direct feedthrough, so no step."""
    try:
        from fmpy.fmi2 import FMU2Slave
    except ImportError as error:
        raise PackagingError(f"FMPy is needed to sample the force plot ({error})") from error

    vr = md.value_reference
    fmu = FMU2Slave(
        guid=md.guid,
        unzipDirectory=str(stage),
        modelIdentifier=md.model_identifier,
        instanceName="documentation",
    )
    curves = {}
    try:
        fmu.instantiate()
        try:
            fmu.setupExperiment(startTime=0.0)
            names = list(parameters)
            fmu.setReal([vr(name) for name in names], [parameters[name] for name in names])
            fmu.enterInitializationMode()
            fmu.exitInitializationMode()
            fmu.setReal([vr("flange_a.s"), vr("flange_a.v")], [0.0, 0.0])
            inputs, output = [vr("flange_b.s"), vr("flange_b.v")], [vr("f")]
            for v in v_values:
                curve = []
                for s in s_values:
                    fmu.setReal(inputs, [s, v])
                    curve.append(fmu.getReal(output)[0])
                curves[v] = curve
            fmu.terminate()
        finally:
            fmu.freeInstance()  # also unloads the library
    except PackagingError:
        raise
    except Exception as error:
        raise PackagingError(f"calling the built FMU to sample f(s_rel, v_rel) failed: {error}") from error

    worst = 0.0
    for v, curve in curves.items():
        for s, f in zip(s_values, curve):
            expected = msl_force(s, v, **parameters)
            if not math.isfinite(f) or abs(f - expected) > 1e-9 * max(1.0, abs(expected)):
                raise PackagingError(
                    f"the built FMU gives f = {f!r} at s_rel = {s!r}, v_rel = {v!r}; "
                    f"the MSL law gives {expected!r} (parameters {parameters})"
                )
            worst = max(worst, abs(f - expected))
    say(f"force plot: {len(curves)} x {len(s_values)} points from the binary, "
        f"largest difference to the MSL law {worst:.1e} N")
    return curves


# The force laws of the parameter forceLaw, for the documentation's plots: the impact of issue 10's
# example (c = 1e4 N/m, d = 20 N.s/m, n = 1.5, d_max = 1 mm, e = 0.8, s_rel0 = 0), the contact having
# touched down at 1 m/s. Each entry: forceLaw, name, settings besides LAW_PLOT_SPRING.
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
        r = p["rdf"] if rate < 0.0 else 1.0
        if p["recurDynDamping"] == 1:
            damping = d * delta ** p["n_d"]
        else:
            damping = adams_step(delta, 0.0, 0.0, p["d_max"], d)
        return spring + damping * rate * r
    if name == "GapForce":
        return spring + d * math.copysign(abs(rate) ** p["n_v"], rate) + p["preload"]
    raise PackagingError(f"no formula for the law {name}")


def sample_law_forces(stage, md, deltas, rates):
    """F_n(delta, rate) of every law of LAW_PLOTS read from the FMU in `stage` (f is direct
    feedthrough: inputs set, f read, no step), each checked against law_normal_force."""
    from fmpy.fmi2 import FMU2Slave

    vr = md.value_reference
    integers = {"forceLaw", "hysteresis", "recurDynDamping"}
    plots = []
    for force_law, name, settings in LAW_PLOTS:
        parameters = {**LAW_PLOT_SPRING, **settings}
        fmu = FMU2Slave(guid=md.guid, unzipDirectory=str(stage), modelIdentifier=md.model_identifier,
                        instanceName=f"documentation {name}")
        curves = {}
        try:
            fmu.instantiate()
            try:
                fmu.setupExperiment(startTime=0.0)
                fmu.setInteger([vr("forceLaw")], [force_law])
                for key, value in parameters.items():
                    if key in integers:
                        fmu.setInteger([vr(key)], [int(value)])
                    else:
                        fmu.setReal([vr(key)], [float(value)])
                fmu.enterInitializationMode()
                # In contact, approaching at the touch-down speed: the laws that depend on it
                # (Hunt-Crossley's chi from e) take it at the end of initialization.
                inputs = [vr("flange_b.s"), vr("flange_b.v")]
                fmu.setReal(inputs, [-1e-6, -LAW_PLOT_TOUCHDOWN_SPEED])
                fmu.exitInitializationMode()
                for rate in rates:
                    curve = []
                    for delta in deltas:
                        fmu.setReal(inputs, [-delta, -rate])
                        curve.append(-fmu.getReal([vr("f")])[0])
                    curves[rate] = curve
                fmu.terminate()
            finally:
                fmu.freeInstance()
        except Exception as error:
            raise PackagingError(f"calling the built FMU to sample the {name} law failed: {error}") from error
        for rate, curve in curves.items():
            for delta, force in zip(deltas, curve):
                expected = law_normal_force(name, delta, rate, parameters) if delta > 0 else 0.0
                if not math.isfinite(force) or abs(force - expected) > 1e-9 * max(1.0, abs(expected)):
                    raise PackagingError(
                        f"the built FMU gives F_n = {force!r} for {name} at penetration {delta!r}, "
                        f"rate {rate!r}; the law gives {expected!r}"
                    )
        plots.append((name, curves))
    say(f"force-law plots: {len(plots)} laws x {len(rates)} x {len(deltas)} points from the binary, "
        f"each equal to the law written out in package.py")
    return plots


def law_plot_svg(name, deltas, curves):
    return curve_plot_svg(
        [1e3 * delta for delta in deltas],
        curves,
        x_label="penetration \u03b4 = s_rel0 \u2212 s_rel  [mm]",
        y_label="normal force F_n = \u2212f  [N]",
        legend=lambda rate: f"d\u03b4/dt = {format_tick(rate)} m/s",
        description=f"Normal force of the {name} law against penetration at several rates",
        width=720,
        height=330,
        legend_width=140,
        legend_outside=True,
    )


def nice_ticks(lo, hi, count=7):
    """Round tick values (1, 2, 5 x 10^k apart) covering [lo, hi]."""
    raw = (hi - lo) / max(count - 1, 1)
    magnitude = 10.0 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    first = math.floor(lo / step + 1e-9) * step
    ticks = []
    k = 0
    while True:
        value = first + k * step
        if value > hi + step * 1e-9 and ticks and ticks[-1] >= hi:
            break
        ticks.append(0.0 if abs(value) < step * 1e-9 else value)
        k += 1
    return ticks


def format_tick(value):
    return f"{value:g}".replace("-", "\u2212")


def force_plot_svg(s_values, curves, s_rel0):
    return curve_plot_svg(
        s_values,
        curves,
        x_label="s_rel = flange_b.s \u2212 flange_a.s  [m]",
        y_label="f (force at flange_b)  [N]",
        legend=lambda v: f"v_rel = {format_tick(v)} m/s",
        boundary=s_rel0,
        description="Force f at flange_b versus s_rel for several v_rel",
    )


def curve_plot_svg(x_values, curves, x_label, y_label, legend, boundary=None, description="",
                   width=720, height=430, legend_width=150, legend_outside=False):
    """A line plot of `curves` (legend key -> y values over `x_values`), with an optional
    dashed contact boundary at x = `boundary`; the legend top left inside the frame, or right of
    it where the curves fill the frame."""
    s_values, s_rel0 = x_values, boundary
    left, right, top, bottom = 70, 20 + (legend_width + 16 if legend_outside else 0), 20, 60
    plot_w, plot_h = width - left - right, height - top - bottom
    x_ticks = nice_ticks(min(s_values), max(s_values))
    all_f = [f for curve in curves.values() for f in curve]
    y_ticks = nice_ticks(min(all_f), max(max(all_f), 0.0) + 0.05 * (max(all_f) - min(all_f) or 1.0))
    x_lo, x_hi, y_lo, y_hi = x_ticks[0], x_ticks[-1], y_ticks[0], y_ticks[-1]

    def X(x):
        return left + (x - x_lo) / (x_hi - x_lo) * plot_w

    def Y(y):
        return top + (y_hi - y) / (y_hi - y_lo) * plot_h

    colors = ["#c62828", "#ef6c00", "#212121", "#2e7d32", "#1565c0", "#6a1b9a", "#00838f"]
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" '
        f'height="{height}" role="img" aria-label="{html.escape(description)}" '
        f'font-family="Helvetica, Arial, sans-serif" font-size="13">',
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>',
    ]
    # Grid and ticks.
    for x in x_ticks:
        out.append(f'<line x1="{X(x):.1f}" y1="{top}" x2="{X(x):.1f}" y2="{top + plot_h}" stroke="#e0e0e0"/>')
        out.append(
            f'<line x1="{X(x):.1f}" y1="{top + plot_h}" x2="{X(x):.1f}" y2="{top + plot_h + 5}" stroke="#000"/>'
        )
        out.append(
            f'<text x="{X(x):.1f}" y="{top + plot_h + 20}" text-anchor="middle">{format_tick(x)}</text>'
        )
    for y in y_ticks:
        out.append(f'<line x1="{left}" y1="{Y(y):.1f}" x2="{left + plot_w}" y2="{Y(y):.1f}" stroke="#e0e0e0"/>')
        out.append(f'<line x1="{left - 5}" y1="{Y(y):.1f}" x2="{left}" y2="{Y(y):.1f}" stroke="#000"/>')
        out.append(
            f'<text x="{left - 8}" y="{Y(y) + 4:.1f}" text-anchor="end">{format_tick(y)}</text>'
        )
    if y_lo < 0.0 < y_hi:
        out.append(f'<line x1="{left}" y1="{Y(0):.1f}" x2="{left + plot_w}" y2="{Y(0):.1f}" stroke="#9e9e9e"/>')
    # The contact boundary.
    if s_rel0 is not None and x_lo < s_rel0 < x_hi:
        out.append(
            f'<line x1="{X(s_rel0):.1f}" y1="{top}" x2="{X(s_rel0):.1f}" y2="{top + plot_h}" '
            f'stroke="#616161" stroke-dasharray="6 4"/>'
        )
        out.append(
            f'<text x="{X(s_rel0) + 6:.1f}" y="{top + 16}" fill="#616161">s_rel0 = {format_tick(s_rel0)} m</text>'
        )
        out.append(
            f'<text x="{X(s_rel0) - 6:.1f}" y="{top + 16}" fill="#616161" text-anchor="end">contact</text>'
        )
    # Curves.
    out.append('<g fill="none" stroke-width="2" stroke-linejoin="round">')
    for (v, curve), color in zip(curves.items(), colors):
        points = " ".join(f"{X(s):.2f},{Y(f):.2f}" for s, f in zip(s_values, curve))
        out.append(f'<polyline stroke="{color}" points="{points}"/>')
    out.append("</g>")
    # Frame and axis labels.
    out.append(
        f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="none" stroke="#000"/>'
    )
    out.append(
        f'<text x="{left + plot_w / 2:.1f}" y="{height - 15}" text-anchor="middle">'
        f"{html.escape(x_label)}</text>"
    )
    out.append(
        f'<text transform="translate(18 {top + plot_h / 2:.1f}) rotate(-90)" text-anchor="middle">'
        f"{html.escape(y_label)}</text>"
    )
    # Legend, top left where the curves are not.
    lx, ly = (left + plot_w + 24, top + 12) if legend_outside else (left + 14, top + 12)
    out.append(
        f'<rect x="{lx - 8}" y="{ly - 6}" width="{legend_width}" height="{len(curves) * 20 + 8}" '
        f'fill="#ffffff" fill-opacity="0.9" stroke="#bdbdbd"/>'
    )
    for k, ((v, _), color) in enumerate(zip(curves.items(), colors)):
        y = ly + 8 + k * 20
        out.append(f'<line x1="{lx}" y1="{y}" x2="{lx + 28}" y2="{y}" stroke="{color}" stroke-width="2"/>')
        out.append(f'<text x="{lx + 36}" y="{y + 4}">{html.escape(legend(v))}</text>')
    out.append("</svg>")
    return "\n".join(out)


# --------------------------------------------------------------------------------------------------
# documentation/index.html
# --------------------------------------------------------------------------------------------------

CSS = """
body { font-family: Helvetica, Arial, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem;
       color: #212121; line-height: 1.45; }
h1 { font-size: 1.7rem; margin-bottom: 0.2rem; }
h2 { font-size: 1.25rem; margin-top: 2rem; border-bottom: 1px solid #ddd; padding-bottom: 0.2rem; }
h3 { font-size: 1.05rem; }
code, pre { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 0.9em; }
pre { background: #f6f8fa; border: 1px solid #e1e4e8; padding: 0.8rem 1rem; overflow-x: auto; }
table { border-collapse: collapse; margin: 0.6rem 0; font-size: 0.9rem; }
th, td { border: 1px solid #d0d7de; padding: 0.25rem 0.5rem; text-align: left; vertical-align: top; }
th { background: #f6f8fa; }
td.num { text-align: right; white-space: nowrap; }
.subtitle { color: #555; margin-top: 0; }
.note { background: #fff8e1; border-left: 4px solid #ffb300; padding: 0.5rem 0.8rem; }
figure { margin: 1rem 0; }
figure svg { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { font-size: 0.9rem; color: #444; }
"""

EQUATIONS = """\
s_rel     = flange_b.s - flange_a.s
v_rel     = flange_b.v - flange_a.v
contact   = s_rel &lt; s_rel0
ratio     = (s_rel - s_rel0)/s_ref
f_c       = if contact then -f_ref*abs(ratio)^n else 0             // spring part, &lt;= 0
f_d2      = if contact then d*v_rel else 0                         // unbounded damper force
f_d       = if contact then min(max(f_d2, f_c), -f_c) else 0       // damper part, |f_d| &lt;= |f_c|
f         = f_c + f_d                                              // force at flange_b; flange_a feels -f
lossPower = f_d*v_rel                                              // dissipated power, &gt;= 0
f_ref     = c*s_ref   when the parameter f_ref = 0 (the MSL default)"""


def html_table(headers, rows, numeric=()):
    out = ["<table>", "<tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in headers) + "</tr>"]
    for row in rows:
        cells = []
        for k, cell in enumerate(row):
            css = ' class="num"' if k in numeric else ""
            cells.append(f"<td{css}>{cell}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


def variable_rows(md, causalities):
    rows = []
    for v in md.variables:
        if v["causality"] not in causalities:
            continue
        limits = []
        if v["min"]:
            limits.append(f"&ge; {html.escape(v['min'])}")
        if v["max"]:
            limits.append(f"&le; {html.escape(v['max'])}")
        rows.append(
            [
                f"<code>{html.escape(v['name'])}</code>",
                str(v["valueReference"]),
                html.escape(v["type"]),
                html.escape(v["causality"]),
                html.escape(v["variability"]),
                html.escape(v["unit"]),
                html.escape(v["start"]),
                ", ".join(limits),
                html.escape(v["description"]),
            ]
        )
    return rows


VARIABLE_HEADERS = ["Name", "VR", "Type", "Causality", "Variability", "Unit", "Start", "Range", "Description"]


PLATFORM_NOTES = {
    "linux64": f"x86-64 Linux with glibc {GLIBC_FLOOR} or newer (RHEL/CentOS 7, Ubuntu 18.04 and later)",
    "win64": f"x86-64 {WINDOWS_FLOOR} or later: the floor of Rust's standard library for this target "
             f"(x86_64-pc-windows-gnu), which calls APIs older Windows lacks; needs no DLL besides "
             f"Windows' own",
    "darwin64": "x86-64 macOS",
}


# What the documentation says of each law: name, normal force, where it kinks (the second event
# indicator), the names of its parameters in the tool it comes from.
LAW_ROWS = [
    ("ElastoGap", "F_c + clamp(d&middot;&delta;&#775;, &minus;F_c, F_c)",
     "damper bound reached: <code>|d&middot;v_rel| + f_c</code>",
     "MSL 4.1 <code>ElastoGap</code>: c, d, s_rel0, n (default law)"),
    ("SpringDamper", "F_c + d&middot;&delta;&#775; (pulls before lift-off)",
     "none (a constant &minus;1)",
     "MSL documentation's curve 1, the unmodified spring/damper"),
    ("NoPulling", "max(0, F_c + d&middot;&delta;&#775;) (jumps at touch-down)",
     "clamp: <code>d&middot;v_rel + f_c</code>",
     "MSL documentation's curve 2"),
    ("HuntCrossley", "max(0, F_c&middot;(1 + &chi;&middot;&delta;&#775;)), &chi; by <code>hysteresis</code>: "
     "Given <code>chi</code>; HuntCrossley 3(1&minus;e)/(2v&#8320;); LankaraniNikravesh 3(1&minus;e&sup2;)/(4v&#8320;); "
     "Flores 8(1&minus;e)/(5e&middot;v&#8320;); Gonthier (1&minus;e&sup2;)/(e&middot;v&#8320;), v&#8320; the approach "
     "speed at the located touch-down (at least <code>v0_min</code>)",
     "clamp: <code>&chi;&middot;v_rel &minus; 1</code>",
     "Hunt and Crossley 1975, Lankarani and Nikravesh 1990, Flores et al. 2011, Gonthier et al. 2004: "
     "stiffness c (K), exponent n, restitution e"),
    ("AdamsImpact", "max(0, F_c + STEP(&delta;, 0, 0, d_max, d)&middot;&delta;&#775;), STEP(x, x0, h0, x1, h1) = "
     "h0 + (h1 &minus; h0)&middot;r&sup2;(3 &minus; 2r), r = (x &minus; x0)/(x1 &minus; x0), clamped outside [x0, x1]",
     "clamp: <code>STEP&middot;v_rel + f_c</code>",
     "MSC Adams <code>IMPACT(x, dx, x1, k, e, cmax, d)</code>: x1 = <code>s_rel0</code>, k = <code>c</code>, "
     "e = <code>n</code>, cmax = <code>d</code>, d = <code>d_max</code> (with s_ref = 1 m, f_ref = 0)"),
    ("RecurDynContact", "F_c + c_d(&delta;)&middot;&delta;&#775;&middot;r, c_d = d&middot;(&delta;/s_ref)^n_d "
     "(<code>recurDynDamping</code> = Power) or STEP(&delta;, 0, 0, d_max, d) (Step); r = <code>rdf</code> while "
     "separating, 1 while approaching; not clamped (it may pull, as in RecurDyn)",
     "rebound factor switching: <code>v_rel</code> (none when rdf = 1)",
     "RecurDyn contact: stiffness coefficient <code>c</code>, damping coefficient <code>d</code>, stiffness "
     "exponent <code>n</code>, indentation exponent of the damping <code>n_d</code>, rebound damping factor "
     "RDF <code>rdf</code>, boundary penetration <code>d_max</code>"),
    ("GapForce", "two-sided: f = f_ref&middot;sgnpow((s_rel &minus; s_rel0)/s_ref, n) + d&middot;sgnpow(v_rel, n_v) "
     "&minus; <code>preload</code> while <code>rangeMin</code> &lt; s_rel &lt; <code>rangeMax</code>, 0 outside "
     "(sgnpow(y, p) = sign(y)&middot;|y|^p); the spring and/or the damper part from <code>tableFile</code> instead",
     "none inside the range (the law is C&sup1; there: n, n_v &ge; 1, tables cubic); the range's two ends are "
     "the contact indicator <code>max(rangeMin &minus; s_rel, s_rel &minus; rangeMax)</code>",
     "RecurDyn Gap Force, normal direction: stiffness coefficient <code>c</code>, stiffness exponent <code>n</code>, "
     "damping coefficient <code>d</code>, damping exponent <code>n_v</code>, <code>preload</code>, range min/max "
     "<code>rangeMin</code>/<code>rangeMax</code>, stiffness and damping splines <code>tableFile</code> "
     "(with s_ref = 1 m, f_ref = 0)"),
]


def force_laws_html(law_plots):
    rows = [[f"<code>{i}</code>", f"<code>{name}</code>", formula, kink, names]
            for i, (name, formula, kink, names) in enumerate(LAW_ROWS, start=1)]
    table = ["<table>", "<tr><th>forceLaw</th><th>Name</th><th>Normal force F_n (f = &minus;F_n)</th>"
             "<th>Kink (event indicator 2)</th><th>Origin, parameter names</th></tr>"]
    table += ["<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows]
    table.append("</table>")
    p = LAW_PLOT_SPRING
    figures = []
    for name, svg in law_plots:
        figures.append(
            f"<figure>\n{svg}\n<figcaption><code>{html.escape(name)}</code>: F_n against the penetration at "
            f"five rates, read from the binary and checked against the law written out.</figcaption>\n</figure>"
        )
    return f"""<h2 id="force-laws">Force laws</h2>
<p>The fixed parameter <code>forceLaw</code> (Enumeration <code>ForceLaw</code>) chooses the normal force law, so
that parameters from MSC Adams, RecurDyn or a paper are used as they are. With the penetration
&delta; = <code>s_rel0</code> &minus; <code>s_rel</code> &gt; 0 in contact, its rate &delta;&#775; = &minus;<code>v_rel</code>
and the spring force F_c = <code>f_ref</code>&middot;(&delta;/<code>s_ref</code>)^<code>n</code> (f_ref = c&middot;s_ref
by default), every law gives F_n, and <code>f</code> = &minus;F_n at flange_b as before. <code>f_c</code> = &minus;F_c is the
spring part and <code>f_d</code> = f &minus; f_c the rest, so <code>lossPower</code> = f_d&middot;v_rel is the power the
contact dissipates under every law (where a law clamps F_n at 0, the spring's energy is dissipated there).</p>
{chr(10).join(table)}
<p>Every law works in both interfaces: the co-simulation step locates the touch-down, the lift-off and the
kink (Hunt&ndash;Crossley takes its approach speed v&#8320; at the located touch-down and keeps it, in the FMU state
too, for the rest of the contact), <code>m_eff</code> integrates the contact's own dynamics, and Model Exchange
raises an event at each kink through the second event indicator. The laws with a jump (SpringDamper and
NoPulling at the touch-down, SpringDamper at the lift-off, RecurDynContact with <code>n_d</code> = 0 at both) are
integrated across it exactly: the jump falls on a located contact event. The plots below are for c = {p['c']:g} N/m, d = {p['d']:g} N&middot;s/m,
n = {p['n']:g}, d_max = 1 mm, e = 0.8 (LankaraniNikravesh), the contact having touched down at
{LAW_PLOT_TOUCHDOWN_SPEED:g} m/s; RecurDynContact with Step damping and <code>rdf</code> = 0.3; GapForce in its
default range (contact while s_rel &lt; s_rel0) with <code>n_v</code> = 1.5 and <code>preload</code> = 5 N.
&delta;&#775; &gt; 0 presses in, &lt; 0 separates.</p>
{chr(10).join(figures)}
<h3 id="friction">Tangential friction (laws 1 to 6)</h3>
<p><code>frictionLaw</code> (Enumeration <code>FrictionLaw</code>: None, the default; Adams; RecurDyn) adds the friction
force <code>f_t</code> = &mu;(<code>v_t</code>)&middot;|f| for the input <code>v_t</code>, the tangential velocity of flange_b
relative to flange_a; the body at flange_b feels &minus;f_t, so the friction opposes the sliding. Where
<code>f_t_max</code> &gt; 0, |f_t| is at most f_t_max. The friction's power f_t&middot;v_t &ge; 0 is part of
<code>lossPower</code>, <code>E_loss</code> and the heat port's flow.</p>
<ul>
<li>Adams: &mu; = STEP(v_t, &minus;v_s, &minus;&mu;_s, v_s, &mu;_s) for |v_t| &le; v_s (0 at rest),
sign(v_t)&middot;STEP(|v_t|, v_s, &mu;_s, v_d, &mu;_d) for v_s &lt; |v_t| &lt; v_d, sign(v_t)&middot;&mu;_d beyond
(Adams: static and dynamic coefficients, stiction and friction transition velocities).</li>
<li>RecurDyn: &mu; rises from 0 at rest to &mu;_s at v_s (the static threshold), goes to &mu;_d at v_d (the
dynamic threshold) and stays there; <code>frictionInterpolation</code> chooses Adams' cubic STEP or a straight
line on both pieces.</li>
</ul>
<p>In co-simulation <code>v_t</code> is held over a step, and the step integrates the friction along the same
contact motion as the normal force (a second pass of its integrator, to <code>relativeTolerance</code>):
<code>f_t_mean</code> is the mean over the step, the force a master applies, and <code>f_t</code> the value at the
communication point. In Model Exchange, <code>f_t_mean</code> equals <code>f_t</code>; the friction's own kinks
(|f| turning, the bound reached, &mu;'s thresholds) raise no events. The Gap Force has no friction here:
RecurDyn's tangential damping of the Gap Force is not part of this FMU.</p>
<h3 id="gap-force-tables">The Gap Force's tables</h3>
<p>The String parameter <code>tableFile</code> names a JSON file with <code>"stiffness": [[x, force], ...]</code>
(x = s_rel &minus; s_rel0; it replaces f_ref&middot;sgnpow(x/s_ref, n)) and/or <code>"damping": [[v_rel, force], ...]</code>
(it replaces d&middot;sgnpow(v_rel, n_v)), forces as <code>f</code> counts them (the body at flange_b feels
&minus;f). A relative path is looked up in this FMU's <code>resources/</code> folder, where
<code>gap_force_example.json</code> is an example (a progressive spring and a degressive damper, symmetric); an
absolute path or a <code>file:</code> URI is read as it is. Between its points a table is the monotone C&sup1;
cubic of Fritsch and Butland (the interpolant of MATLAB's and SciPy's <code>pchip</code>: slopes from weighted
harmonic means of the secants, 0 where the data turns), so it never overshoots the data; outside them it
continues the end point's slope in a straight line. A damping table must not feed energy: its forces must
not decrease as v_rel grows and it must pass through 0 at rest. The file is read at
<code>fmi2ExitInitializationMode</code>; a missing file, text that is not JSON, an unknown key, fewer than 2
points, abscissae that do not increase strictly, a number beyond the doubles or a damping table that would
feed energy is refused there with a logged error naming the file and the problem. An FMU state names its
tables by a fingerprint of the file's text and is restored only where <code>tableFile</code> gives the same.</p>
"""


def documentation_html(md, plot_svg, platforms, law_plots=()):
    def capability_table(attributes):
        return html_table(
            ["Attribute", "Value"],
            [[f"<code>{html.escape(k)}</code>", html.escape(v)] for k, v in attributes.items()],
        )

    capabilities = capability_table(md.co_simulation)
    me_capabilities = capability_table(md.model_exchange or {})
    outputs = [v for v in md.variables if v["causality"] == "output"]
    structure_rows = []
    for v in outputs:
        dependencies = md.direct_feedthrough.get(v["name"])
        if dependencies is None:
            text = "all inputs (not declared)"
        elif not dependencies:
            text = "none: changes only in <code>fmi2DoStep</code> (co-simulation) or as a state"
        else:
            text = ", ".join(f"<code>{html.escape(d)}</code>" for d in dependencies)
        structure_rows.append([f"<code>{html.escape(v['name'])}</code>", text])
    categories = html_table(
        ["Category", "Description"],
        [[f"<code>{html.escape(n)}</code>", html.escape(d)] for n, d in md.log_categories],
    )
    experiment = ", ".join(f"{html.escape(k)} = {html.escape(v)}" for k, v in md.default_experiment.items())
    p = PLOT_PARAMETERS
    plot_caption = (
        f"Force <code>f</code> at flange_b versus <code>s_rel</code> for several <code>v_rel</code>, "
        f"computed at packaging time by calling the binary in this FMU (inputs set, <code>f</code> read "
        f"with <code>fmi2GetReal</code>; no step needed since <code>f</code> is direct feedthrough) and "
        f"checked against the MSL law. Parameters of the elastoGap in "
        f"<code>Modelica.Mechanics.Translational.Examples.ElastoGap</code>: c = {p['c']:g} N/m, "
        f"d = {p['d']:g} N.s/m, s_rel0 = {p['s_rel0']:g} m, n = {p['n']:g}, s_ref = {p['s_ref']:g} m, "
        f"f_ref = {p['f_ref']:g} (so f_ref = c&middot;s_ref). Left of s_rel0 the flanges are in contact. "
        f"Pressing in (v_rel &lt; 0) the damper adds to the spring until its force reaches the spring "
        f"force (f = 2&middot;f_c near the contact point); pulling apart (v_rel &gt; 0) it cancels the "
        f"spring force up to its full size, so f never becomes positive: the gap never pulls."
    )
    e = html.escape
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{e(md.model_name)}: FMI 2.0 FMU for co-simulation and Model Exchange</title>
<style>{CSS}</style>
</head>
<body>
<h1>{e(md.model_name)}</h1>
<p class="subtitle">FMI 2.0 FMU of <code>Modelica.Mechanics.Translational.Components.ElastoGap</code>
(Modelica Standard Library 4.1) for co-simulation, with internal substepping over each communication step,
and for Model Exchange: one binary serves both interfaces.</p>

<table>
<tr><th>Model identifier</th><td><code>{e(md.model_identifier)}</code></td></tr>
<tr><th>GUID</th><td><code>{e(md.guid or "")}</code></td></tr>
<tr><th>Version</th><td>{e(md.attributes.get("version", ""))}</td></tr>
<tr><th>Generated by</th><td>{e(md.attributes.get("generationTool", ""))}, {e(md.attributes.get("generationDateAndTime", ""))}</td></tr>
<tr><th>Default experiment</th><td>{experiment}</td></tr>
<tr><th>Platforms</th><td>{"<br>".join(f"<code>{e(p)}</code>: {e(PLATFORM_NOTES.get(p, p))}" for p in platforms)}</td></tr>
</table>

<h2>The model</h2>
<p>A one-dimensional translational spring and damper in parallel that act only while the two flanges are
closer than <code>s_rel0</code>: a contact with a gap. It is the MSL component <code>ElastoGap</code>, used for
end stops, impacts and backlash. The spring force follows a power law with exponent <code>n</code>; the
damper force is bounded by the spring force, so the contact force never pulls (f &le; 0) and vanishes
continuously when contact ends, unlike an unbounded linear damper.</p>
<p>As a co-simulation slave the component has no states of its own (as Model Exchange, see below, its one
state is the dissipated energy). The master simulates the bodies on
both sides and, every communication step, gives the FMU the absolute position and velocity of each flange
(inputs <code>flange_a.s</code>, <code>flange_a.v</code>, <code>flange_b.s</code>, <code>flange_b.v</code>);
the FMU returns the force. Sign convention of the MSL: <code>f</code> is the force acting at flange_b, the
body at flange_b feels <code>-f</code> in its equation of motion (<code>m&middot;a = ... - f</code>) and the body
at flange_a feels <code>+f</code>.</p>

<h2>Equations</h2>
<p>The MSL 4.1 force law, evaluated with the inputs of the FMU:</p>
<pre>{EQUATIONS}</pre>
<p>With the defaults <code>s_ref</code> = 1 m and <code>f_ref</code> = 0, the spring part is the familiar
<code>f_c = -c&middot;|s_rel - s_rel0|^n</code>. The bounds make <code>2&middot;f_c &le; f &le; 0</code>:
f is continuous in <code>s_rel</code> and zero at the contact point, whatever <code>v_rel</code>.</p>

<figure>
{plot_svg}
<figcaption>{plot_caption}</figcaption>
</figure>

{force_laws_html(law_plots)}

<h2>Substepping inside a communication step</h2>
<p>A contact is often much shorter than a communication step, and the force changes steeply inside it.
Evaluating the law only at the communication points would miss or misplace impacts. So inside
<code>fmi2DoStep(t, h)</code> the FMU integrates <code>f</code> and <code>lossPower</code> over the step along
the relative motion extrapolated from the inputs at <code>t</code>:</p>
<pre>s_rel(t + &tau;) = s_rel + v_rel&middot;&tau; + a_rel&middot;&tau;&sup2;/2,     v_rel(t + &tau;) = v_rel + a_rel&middot;&tau;,     0 &le; &tau; &le; h</pre>
<ul>
<li><code>a_rel = a_b - a_a</code> comes from the flange accelerations the master gives through
<code>fmi2SetRealInputDerivatives</code> (order 1 of <code>flange_a.v</code> / <code>flange_b.v</code>, or
order 2 of <code>flange_a.s</code> / <code>flange_b.s</code>; the FMU declares
<code>canInterpolateInputs="true"</code>) when it supplies them; otherwise the FMU estimates it from its own history of the velocity inputs, as chosen by the
parameter <code>accelerationEstimate</code>: 0 = none (a_rel = 0), 1 = the last step's mean acceleration,
2 = second-order backward difference of the velocities, 3 (default) = the mean acceleration over the coming
step, extrapolated linearly from the last two steps' means. A master that holds <code>f_mean</code> over a step
moves the flange with exactly such a constant acceleration, which is why 3 measured most accurate. A supplied
derivative is always used as given.</li>
<li>The step is split at the start and end of contact (the roots of <code>s_rel(&tau;) - s_rel0</code>) and at
the points where the damper bound <code>|f_d| &le; |f_c|</code> starts or stops acting, so that each piece is
smooth.</li>
<li>With <code>n</code> = 1 the law is affine in the motion between switches, so each piece is integrated
in closed form, exactly, whatever its length. For other <code>n</code> each piece is integrated with
3-point Gauss&ndash;Legendre quadrature on substeps no longer than <code>maxSubstepSize</code>, bisected until
the impulse and the dissipated energy meet <code>relativeTolerance</code>, with at most
<code>maxSubstepCount</code> pieces in one communication step.</li>
</ul>

<h3>Outputs for the master</h3>
<table>
<tr><th>Output</th><th>Meaning</th></tr>
<tr><td><code>f</code>, <code>s_rel</code>, <code>v_rel</code>, <code>contact</code>, <code>lossPower</code>
(and the locals <code>f_c</code>, <code>f_d</code>)</td>
<td>Instantaneous values of the law (direct feedthrough): after the master sets inputs they are evaluated
at those inputs; after <code>fmi2DoStep</code>, until new inputs are set, at the end of the extrapolated motion
(<code>&tau; = h</code>).</td></tr>
<tr><td><code>f_mean</code></td>
<td>Mean force over the last communication step along the extrapolated motion: impulse/h. A master that
holds the force constant over a step should apply <code>f_mean</code> over the same step: it transmits the
right momentum even when a whole impact happens inside the step, where <code>f</code> at the
communication points may be zero.</td></tr>
<tr><td><code>E_loss</code></td>
<td>Total energy dissipated since the start: the integral of <code>lossPower</code> over all steps taken
(non-decreasing).</td></tr>
<tr><td><code>heatPort.Q_flow</code></td>
<td>When <code>useHeatPort</code> = true: the mean heat flow over the last step,
<code>-(energy dissipated in the step)/h</code> (MSL sign: positive into the component, so &le; 0 here);
integrated by the master over the steps it adds up exactly to <code>-E_loss</code>. When
<code>useHeatPort</code> = false: 0. Compare <code>lossPower</code>, the instantaneous dissipated power
at the current inputs.</td></tr>
<tr><td><code>f_next</code></td>
<td>Mean force predicted over the coming step (as long as the last one), from the state at the end of
this step: for masters that step all units at once (Jacobi), which hold over the next step what they read
now. See below.</td></tr>
<tr><td><code>m_eff_estimate</code></td>
<td>The effective mass of the relative motion estimated from the master's answer to the last completed
contact (impulse given against velocity change it caused); 0 until a contact has completed.</td></tr>
</table>

<h3>Right at any step: the effective mass <code>m_eff</code></h3>
<p><code>m_eff</code> (kg, default 0) is the effective mass of the relative motion as the contact sees it:
the body's mass for a body on a fixed housing (or against a much heavier part), the reduced mass
<code>m_a&middot;m_b/(m_a + m_b)</code> for two bodies that both move. With <code>m_eff</code> &gt; 0 each
step integrates the relative motion under the contact's own force (closed-form pieces for n = 1, an
adaptive Dormand&ndash;Prince 5(4) at <code>relativeTolerance</code> for other n) instead of the
extrapolated motion, and the master's positions are brought onto that motion by a momentum-free
correction planned over three steps (position and velocity exact after the third, the offset in between
at most a quarter of the one a held force leaves). Connect the force output that matches how the master
steps:</p>
<table>
<tr><th>Master</th><th>Connect</th><th>Held over</th></tr>
<tr><td>Gauss&ndash;Seidel: steps the gap first, then the bodies</td><td><code>f_mean</code></td>
<td>the same step [t<sub>k</sub>, t<sub>k</sub>+h]</td></tr>
<tr><td>Jacobi: steps all units at once (OMSimulator's default)</td><td><code>f_next</code>, read at
t<sub>k</sub> before the step</td><td>the next step [t<sub>k</sub>, t<sub>k</sub>+h]</td></tr>
<tr><td>Model Exchange</td><td><code>f</code></td><td>&mdash;</td></tr>
</table>
<p>Measured through this FMU (<code>examples/convergence.rs</code> of the source): a 1 kg body on a fixed
housing hitting the gap at 1 m/s (c = 1e4 N/m, d = 20 N&middot;s/m, contact duration T<sub>c</sub> =
31.4 ms), with <code>m_eff</code> = 1 kg: rebound coefficient and dissipated energy within 3.4e-12
(relative) of the reference at every step from 0.1 to 100 T<sub>c</sub> (3.1 ms to 3.1 s), for a
Gauss&ndash;Seidel master holding <code>f_mean</code> and a Jacobi master holding <code>f_next</code> alike
(the same at c = 1e6 and 1e8 N/m). Before the first step <code>f_next</code> is <code>f</code>. The
prediction is made when the master first reads <code>f_next</code> and in every step after that, so a
master that only reads <code>f_mean</code> does not pay for it.</p>
<p>With <code>m_eff</code> = 0 (the default) the FMU follows the extrapolated motion until a contact
completes, then estimates the mass from the master's answer (output <code>m_eff_estimate</code>),
adopts it once a free step after the contact shows the external acceleration unchanged (and, for a
master holding <code>f_mean</code>, if that contact lasted at most three steps), replays the first contact with it, corrects the
master's motion and integrates the contact's own dynamics from then on. In the measurement above the
Gauss&ndash;Seidel master's rebound was then exact to rounding from 0.5 T<sub>c</sub> on (at 0.1
T<sub>c</sub> the extrapolated motion is already accurate: -0.1 %), but <code>E_loss</code> keeps the first
contact's energy as integrated along the extrapolated motion (+57 % at 0.5 T<sub>c</sub>, +92 % at 2
T<sub>c</sub>); set <code>m_eff</code> when the mass is known. The log category <code>logCoupling</code> reports, as messages with status fmi2OK, the
estimate, the correction of the first contact, and each contact that starts and ends inside one step
while the mass is unknown.</p>

<h2>Model Exchange</h2>
<p>Imported as Model Exchange (Dymola, OpenModelica, FMPy with <code>fmi_type='ModelExchange'</code>), the
element is what the importer's own solver sees: no substepping and no extrapolation, since the solver
follows the motion itself.</p>
<table>
<tr><th>Variable</th><th>Meaning in Model Exchange</th></tr>
<tr><td><code>f</code>, <code>lossPower</code>, <code>heatPort.Q_flow</code>, <code>s_rel</code>,
<code>v_rel</code>, <code>f_c</code>, <code>f_d</code></td>
<td>Direct functions of the inputs of the moment. <code>heatPort.Q_flow</code> = &minus;<code>lossPower</code>
when <code>useHeatPort</code> = true, else 0.</td></tr>
<tr><td><code>E_loss</code></td><td>The one continuous state; its derivative <code>der(E_loss)</code> =
<code>lossPower</code>. The importer integrates it (<code>fmi2GetContinuousStates</code>,
<code>fmi2SetContinuousStates</code>, <code>fmi2GetDerivatives</code>); nominal 1 J.</td></tr>
<tr><td><code>contact</code></td><td>A discrete output: the contact as of the last event (Event Mode or
initialization). The force itself is continuous across contact start and end, so nothing jumps there.</td></tr>
<tr><td><code>f_mean</code></td><td>Has no meaning of its own (there is no communication step): it holds
<code>f</code> as of the last event or <code>fmi2CompletedIntegratorStep</code>, and never depends on the inputs
directly, as in co-simulation.</td></tr>
<tr><td><code>maxSubstepSize</code>, <code>maxSubstepCount</code>, <code>accelerationEstimate</code>, <code>m_eff</code>, <code>relativeTolerance</code></td>
<td>Not used.</td></tr>
</table>
<p>{md.number_of_event_indicators} event indicators, in this order, let a variable-step solver locate
every point where the law is not smooth:</p>
<ol>
<li><code>s_rel - s_rel0</code>: contact starts where it falls through 0 and ends where it rises through 0.</li>
<li>The force law's kink indicator (see <a href="#force-laws">Force laws</a>), whose sign changes where the law
switches branch. For ElastoGap <code>|d&middot;v_rel| + f_c</code>: positive while the damper force is bounded by
the spring force (pressing in fast, or separating), negative while the damper is linear; outside contact
<code>f_c</code> = 0 and it only touches 0 where <code>v_rel</code> = 0, so free flight raises no events. The kink
indicators of NoPulling (<code>d&middot;v_rel</code> out of contact) and RecurDynContact (<code>v_rel</code>) also
change sign where a free flight turns, an event that changes nothing.</li>
</ol>
<p>An event needs one pass of <code>fmi2NewDiscreteStates</code>: no discrete state feeds back, the
continuous state never jumps and there are no time events. Directional derivatives cover
<code>der(E_loss)</code> and the outputs with respect to the inputs and the state.</p>

<h2>Parameters</h2>
{html_table(VARIABLE_HEADERS, variable_rows(md, {"parameter", "calculatedParameter"}), numeric=(1, 6))}

<h2>Interface</h2>
<h3>Inputs</h3>
{html_table(VARIABLE_HEADERS, variable_rows(md, {"input"}), numeric=(1, 6))}
<h3>Outputs</h3>
{html_table(VARIABLE_HEADERS, variable_rows(md, {"output"}), numeric=(1, 6))}
<h3>Local variables</h3>
{html_table(VARIABLE_HEADERS, variable_rows(md, {"local", "independent"}), numeric=(1, 6))}
<h3>Direct feedthrough (ModelStructure)</h3>
{html_table(["Output", "Depends directly on"], structure_rows)}
<p>Tables generated from this FMU's <code>modelDescription.xml</code>.</p>

<h2>Co-simulation capabilities</h2>
{capabilities}

<h2>Model Exchange capabilities</h2>
{me_capabilities}

<h2>Log categories</h2>
{categories}

</body>
</html>
"""


# --------------------------------------------------------------------------------------------------
# Staging, zip, validation
# --------------------------------------------------------------------------------------------------


def check_exports(library):
    import ctypes

    try:
        handle = ctypes.CDLL(str(library))
    except OSError as error:
        raise PackagingError(f"cannot load {library}: {error}") from error
    missing = [name for name in FMI2_FUNCTIONS if not hasattr(handle, name)]
    if missing:
        raise PackagingError(
            f"{library.name} does not export {len(missing)} of the {len(FMI2_FUNCTIONS)} FMI 2.0 "
            f"co-simulation and Model Exchange functions (importers such as fmusim need all): {', '.join(missing)}"
        )
    say(f"binary exports all {len(FMI2_FUNCTIONS)} FMI 2.0 co-simulation and Model Exchange functions")


def pe_tables(path):
    """(exported names, imported DLL names) of a PE32+ x86-64 image, read from its data directories."""
    data = path.read_bytes()

    def unpack(fmt, offset):
        try:
            return struct.unpack_from(fmt, data, offset)
        except struct.error as error:
            raise PackagingError(f"{path.name}: truncated PE file ({error})") from error

    if data[:2] != b"MZ":
        raise PackagingError(f"{path.name} is not a PE file")
    header = unpack("<I", 0x3C)[0]
    if data[header:header + 4] != b"PE\0\0":
        raise PackagingError(f"{path.name} has no PE signature")
    machine, section_count = unpack("<HH", header + 4)
    optional_size = unpack("<H", header + 20)[0]
    optional = header + 24
    if machine != 0x8664 or unpack("<H", optional)[0] != 0x20B:
        raise PackagingError(f"{path.name} is not an x86-64 PE32+ image (machine {machine:#x})")
    export_rva = unpack("<I", optional + 112)[0]
    import_rva = unpack("<I", optional + 120)[0]
    sections = [unpack("<IIII", optional + optional_size + 40 * k + 8) for k in range(section_count)]

    def offset(rva):
        for virtual_size, virtual_address, raw_size, raw_pointer in sections:
            if virtual_address <= rva < virtual_address + max(virtual_size, raw_size):
                return raw_pointer + rva - virtual_address
        raise PackagingError(f"{path.name}: RVA {rva:#x} is in no section")

    def text(rva):
        start = offset(rva)
        return data[start:data.index(b"\0", start)].decode("ascii", "replace")

    exports = []
    if export_rva:
        directory = offset(export_rva)
        name_count = unpack("<I", directory + 24)[0]
        names = offset(unpack("<I", directory + 32)[0])
        exports = [text(unpack("<I", names + 4 * k)[0]) for k in range(name_count)]
    imports = []
    if import_rva:
        descriptor = offset(import_rva)
        while any(unpack("<5I", descriptor)):
            imports.append(text(unpack("<5I", descriptor)[3]))
            descriptor += 20
    return exports, imports


def check_win64_dll(library):
    """The DLL exports exactly the FMI 2.0 functions and loads on a bare Windows (system DLLs only)."""
    exports, imports = pe_tables(library)
    missing = sorted(set(FMI2_FUNCTIONS) - set(exports))
    extra = sorted(set(exports) - set(FMI2_FUNCTIONS))
    if missing or extra:
        raise PackagingError(
            f"{library.name} exports the wrong symbols: missing {missing}, not FMI 2.0 co-simulation {extra}"
        )
    foreign = [name for name in imports if name.lower() not in WINDOWS_SYSTEM_DLLS
               and not name.lower().startswith("api-ms-win-")]
    if foreign:
        raise PackagingError(
            f"{library.name} imports {foreign}, which are not Windows system DLLs: a Windows importer's "
            f"LoadLibrary fails (error 126) where they are not installed; link them statically"
        )
    say(f"win64 DLL exports exactly the {len(FMI2_FUNCTIONS)} FMI 2.0 functions of both interfaces; "
        f"imports only system DLLs: {', '.join(imports)}")


def zip_time():
    """Entry timestamps: SOURCE_DATE_EPOCH for reproducible packages, else now (zip needs >= 1980)."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    seconds = int(epoch) if epoch and epoch.strip().isdigit() else int(time.time())
    return time.gmtime(max(seconds, 315532800))[:6]


def write_fmu(stage, fmu):
    date_time = zip_time()
    files = sorted(p.relative_to(stage).as_posix() for p in stage.rglob("*") if p.is_file())
    # modelDescription.xml first, as tools list it; then the rest in a stable order.
    files.sort(key=lambda name: (name != "modelDescription.xml", name))
    directories = sorted({"/".join(f.split("/")[:k]) + "/" for f in files for k in range(1, f.count("/") + 1)})
    for name in [*directories, *files]:
        if name.startswith((".", "/")) or "\\" in name or "//" in name:
            raise PackagingError(f"bad zip entry name {name!r}")
    temporary = fmu.with_suffix(".fmu.tmp")
    with zipfile.ZipFile(temporary, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for name in directories:
            info = zipfile.ZipInfo(name, date_time)
            info.external_attr = (0o40755 << 16) | 0x10
            archive.writestr(info, b"")
        for name in files:
            info = zipfile.ZipInfo(name, date_time)
            info.compress_type = zipfile.ZIP_DEFLATED
            mode = 0o755 if os.access(stage / name, os.X_OK) else 0o644
            info.external_attr = (0o100000 | mode) << 16
            archive.writestr(info, (stage / name).read_bytes(), compresslevel=9)
    os.replace(temporary, fmu)


ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def validate(fmu):
    from fmpy.validation import validate_fmu

    problems = validate_fmu(str(fmu))
    if problems:
        listing = "\n".join(f"  - {p}" for p in problems)
        raise PackagingError(f"fmpy.validation.validate_fmu found {len(problems)} problem(s):\n{listing}")
    say("fmpy validate_fmu: no problems")

    fmutool = Path(sys.executable).parent / "fmutool"
    if not fmutool.exists():
        found = shutil.which("fmutool")
        if found is None:
            raise PackagingError("fmutool (fmu-manipulation-toolbox) not found: run bash packaging/setup.sh")
        fmutool = Path(found)
    command = [str(fmutool), "-input", str(fmu), "-check"]
    result = subprocess.run(command, capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1"})
    text = ANSI.sub("", result.stdout + result.stderr)
    # Its log lines read "LEVEL    | message"; a failed check logs ERROR lines and exits 7.
    errors = [line for line in text.splitlines() if re.match(r"\s*(ERROR|CRITICAL|FATAL)\b", line)]
    compliant = "seems to be compliant" in text
    if result.returncode != 0 or errors or not compliant:
        raise PackagingError(
            f"{' '.join(command)} exited {result.returncode} with {len(errors)} error line(s)"
            f"{'' if compliant else ' and no compliance statement'}:\n{text.rstrip()}"
        )
    say("fmutool -check: no errors (" + next(l for l in text.splitlines() if "seems to be compliant" in l)
        .split("|", 1)[-1].strip() + ")")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].strip(),
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split("\n\n", 1)[1])
    parser.add_argument("--skip-win64", action="store_true",
                        help=f"package linux64 only (also {SKIP_WIN64_ENV}=1); for developers, not for releases")
    arguments = parser.parse_args()
    skip_win64 = arguments.skip_win64 or os.environ.get(SKIP_WIN64_ENV, "") not in ("", "0")
    started = time.monotonic()
    try:
        try:
            import fmpy  # noqa: F401  (fail before the build, not after)
            import fmpy.validation  # noqa: F401
        except ImportError as error:
            raise PackagingError(
                f"{sys.executable} cannot import FMPy ({error}). Run `bash packaging/setup.sh`, then "
                f"`.venv/bin/python packaging/package.py`."
            ) from error

        platform_dir, suffix = platform_of_host()
        cdylib, out_dir = cargo_build(suffix)
        md = ModelDescription(out_dir / "modelDescription.xml")
        say(f"built {cdylib}, model description {md.path}")
        win64_dll = None
        if platform_dir == "linux64" and skip_win64:
            say(f"win64 left out ({SKIP_WIN64_ENV}=1 or --skip-win64): the .fmu holds linux64 only")
        elif platform_dir == "linux64":
            win64_started = time.monotonic()
            win64_dll, win64_out_dir = cargo_build_win64()
            win64_guid = ModelDescription(win64_out_dir / "modelDescription.xml").guid
            if win64_guid != md.guid:
                raise PackagingError(f"the win64 build's GUID {win64_guid} is not the linux64 build's {md.guid}")
            say(f"built {win64_dll} in {time.monotonic() - win64_started:.0f} s")

        stage = FMU_ROOT / md.model_identifier
        fmu = FMU_ROOT / f"{md.model_identifier}.fmu"
        if stage.exists():
            shutil.rmtree(stage)
        (stage / "binaries" / platform_dir).mkdir(parents=True)
        (stage / "documentation").mkdir()
        shutil.copyfile(md.path, stage / "modelDescription.xml")
        binary = stage / "binaries" / platform_dir / f"{md.model_identifier}{suffix}"
        shutil.copyfile(cdylib, binary)
        binary.chmod(0o755)
        (stage / "model.png").write_bytes(draw_icon())
        # The Gap Force's example table: tableFile = "gap_force_example.json" names it.
        shutil.copytree(ROOT / "packaging" / "resources", stage / "resources")

        check_exports(binary)
        platforms = [platform_dir]
        if win64_dll is not None:
            (stage / "binaries" / "win64").mkdir()
            dll = stage / "binaries" / "win64" / f"{md.model_identifier}.dll"
            shutil.copyfile(win64_dll, dll)
            dll.chmod(0o755)
            check_win64_dll(dll)
            platforms.append("win64")
        s_values = [
            PLOT_S_REL[0] + (PLOT_S_REL[1] - PLOT_S_REL[0]) * k / (PLOT_POINTS - 1) for k in range(PLOT_POINTS)
        ]
        curves = sample_force(stage, md, PLOT_PARAMETERS, s_values, PLOT_V_REL)
        svg = force_plot_svg(s_values, curves, PLOT_PARAMETERS["s_rel0"])
        deltas = [LAW_PLOT_DEPTH * k / (PLOT_POINTS - 1) for k in range(PLOT_POINTS)]
        law_plots = [
            (name, law_plot_svg(name, deltas, law_curves))
            for name, law_curves in sample_law_forces(stage, md, deltas, LAW_PLOT_RATES)
        ]
        (stage / "documentation" / "index.html").write_text(
            documentation_html(md, svg, platforms, law_plots), encoding="utf-8"
        )

        write_fmu(stage, fmu)
        say(f"wrote {fmu} ({fmu.stat().st_size} bytes)")
        validate(fmu)
    except PackagingError as error:
        print(f"package: error: {error}", file=sys.stderr)
        return 1
    say(f"done in {time.monotonic() - started:.1f} s: {fmu.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
