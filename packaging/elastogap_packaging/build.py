"""The cargo builds of the FMU's binaries, the staging folder and the zip of the `.fmu`."""

import json
import os
import platform
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

from . import GLIBC_FLOOR, PACKAGE, ROOT, PackagingError, say


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
        ["cargo", "metadata", "--no-deps", "--format-version", "1"], cwd=ROOT, capture_output=True, text=True
    )
    if metadata.returncode != 0:
        raise PackagingError(f"cargo metadata failed:\n{metadata.stderr}")
    package_ids = [p["id"] for p in json.loads(metadata.stdout)["packages"] if p["name"] == PACKAGE]
    if not package_ids:
        raise PackagingError(f"no package {PACKAGE!r} in {ROOT / 'Cargo.toml'}")
    return package_ids[0]


def cargo_build(library_suffix, features=()):
    """Builds the release cdylib with the cargo arguments `features` (the FMI layer); returns (path of
    the cdylib, out_dir of the build script)."""
    command = [
        "cargo", "build", "--release", "--message-format=json-render-diagnostics",
        "--package", PACKAGE, "--lib", *features,
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


def cargo_build_win64(features=()):
    """Cross-builds the release cdylib for win64; returns (path of the DLL, out_dir of the build script)."""
    command = [
        "bash", str(ROOT / "packaging" / "win64_cargo.sh"), "build", "--release",
        "--message-format=json-render-diagnostics", "--package", PACKAGE, "--lib", *features,
    ]
    # win64_cargo.sh checks the toolchain first and names what is missing; its exit status says it.
    check = subprocess.run(command[:2] + ["--check-toolchain"], capture_output=True, text=True)
    if check.returncode != 0:
        raise PackagingError(f"no win64 toolchain: {check.stderr.strip() or check.stdout.strip()}")
    say(f"win64 toolchain: {check.stdout.strip()}")
    return run_cargo(command, ROOT, dict(os.environ), ".dll")


def run_cargo(command, working_dir, environment, library_suffix):
    """Runs a cargo build; returns (path of the cdylib, out_dir of the build script), both read from
    cargo's JSON messages rather than guessed from target/'s layout."""
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


def keep_build(cdylib, out_dir, folder, library_name):
    """Copies a build's library and the XML files its build script wrote into `folder`, right after
    the build: the FMI 2.0 and FMI 3.0 builds write the same target/.../libelastogap.so. Returns the
    copied library."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("modelDescription.xml", "modelDescription3.xml", "terminalsAndIcons.xml"):
        shutil.copyfile(out_dir / name, folder / name)
    kept = folder / library_name
    shutil.copyfile(cdylib, kept)
    return kept


def install_binary(built, stage, platform_dir, file_name):
    """Copies a built library to binaries/<platform_dir>/<file_name>: importers load exactly the
    modelIdentifier's name, not cargo's libelastogap.so."""
    folder = stage / "binaries" / platform_dir
    folder.mkdir(parents=True, exist_ok=True)
    binary = folder / file_name
    shutil.copyfile(built, binary)
    binary.chmod(0o755)
    return binary


def zip_time():
    """Entry timestamps: SOURCE_DATE_EPOCH for reproducible packages, else now (zip needs >= 1980)."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    seconds = int(epoch) if epoch and epoch.strip().isdigit() else int(time.time())
    return time.gmtime(max(seconds, 315532800))[:6]


def write_fmu(stage, fmu):
    """Zips `stage` to `fmu`: explicit directory entries, modelDescription.xml first, stable order."""
    date_time = zip_time()
    files = sorted(p.relative_to(stage).as_posix() for p in stage.rglob("*") if p.is_file())
    files.sort(key=lambda name: (name != "modelDescription.xml", name))
    directories = sorted({"/".join(f.split("/")[:k]) + "/" for f in files for k in range(1, f.count("/") + 1)})
    for name in [*directories, *files]:
        if name.startswith((".", "/")) or "\\" in name or "//" in name:
            raise PackagingError(f"bad zip entry name {name!r}")
    temporary = fmu.with_suffix(".fmu.tmp")
    with zipfile.ZipFile(temporary, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for name in directories:
            info = zipfile.ZipInfo(name, date_time)
            info.external_attr = (0o40755 << 16) | 0x10  # a directory, rwxr-xr-x
            archive.writestr(info, b"")
        for name in files:
            info = zipfile.ZipInfo(name, date_time)
            info.compress_type = zipfile.ZIP_DEFLATED
            mode = 0o755 if os.access(stage / name, os.X_OK) else 0o644
            info.external_attr = (0o100000 | mode) << 16  # a regular file with its mode
            archive.writestr(info, (stage / name).read_bytes(), compresslevel=9)
    os.replace(temporary, fmu)
