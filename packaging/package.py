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
   `model.png` (an icon drawn with matplotlib), `resources/` (the Gap Force's example table, from
   `packaging/resources/`) and `documentation/`: `index.html` rendered with Jinja2 from
   `packaging/templates/index.html`, its tables generated from the built modelDescription.xml, and its
   plots (SVG, matplotlib) computed by calling the built binary through FMPy.
3. Zips the directory to `target/fmu/<modelIdentifier>.fmu`.
4. Validates: each binary exports exactly the FMI 2.0 co-simulation and Model Exchange functions and
   the DLL imports only Windows system DLLs (tables read with pyelftools and pefile),
   `fmpy.validation.validate_fmu` finds no problem, and `fmutool -input <fmu> -check`
   (fmu-manipulation-toolbox) reports no error.

The code is the package `packaging/elastogap_packaging/` (build, force_samples, document, validate);
its Python tools come from `packaging/requirements.txt`, which `packaging/setup.sh` installs into
`.venv`. Exits non-zero with a message on any failure.
"""

import argparse
import os
import shutil
import sys
import time

from elastogap_packaging import FMU_ROOT, ROOT, PackagingError, say
from elastogap_packaging.build import cargo_build, cargo_build_win64, install_binary, platform_of_host, write_fmu
from elastogap_packaging.model_description import ModelDescription

# Environment variable (or --skip-win64) that leaves the win64 DLL out, for developers only.
SKIP_WIN64_ENV = "ELASTOGAP_SKIP_WIN64"


def require_python_tools():
    """Fails before the build, not after it, when .venv lacks the tools."""
    try:
        import elftools  # noqa: F401
        import fmpy.validation  # noqa: F401
        import jinja2  # noqa: F401
        import matplotlib  # noqa: F401
        import pefile  # noqa: F401
    except ImportError as error:
        raise PackagingError(
            f"{sys.executable} cannot import a packaging tool ({error}). Run `bash packaging/setup.sh`, then "
            f"`.venv/bin/python packaging/package.py`."
        ) from error


def package(skip_win64):
    from elastogap_packaging.document import write_documentation
    from elastogap_packaging.validate import check_linux_library, check_win64_dll, validate

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
    stage.mkdir(parents=True)
    shutil.copyfile(md.path, stage / "modelDescription.xml")
    binary = install_binary(cdylib, stage, platform_dir, f"{md.model_identifier}{suffix}")
    if platform_dir == "linux64":
        check_linux_library(binary)
    # The Gap Force's example table: tableFile = "gap_force_example.json" names it.
    shutil.copytree(ROOT / "packaging" / "resources", stage / "resources")
    platforms = [platform_dir]
    if win64_dll is not None:
        check_win64_dll(install_binary(win64_dll, stage, "win64", f"{md.model_identifier}.dll"))
        platforms.append("win64")
    write_documentation(stage, md, platforms)

    write_fmu(stage, fmu)
    say(f"wrote {fmu} ({fmu.stat().st_size} bytes)")
    validate(fmu)
    return fmu


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
        require_python_tools()
        fmu = package(skip_win64)
    except PackagingError as error:
        print(f"package: error: {error}", file=sys.stderr)
        return 1
    say(f"done in {time.monotonic() - started:.1f} s: {fmu.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
