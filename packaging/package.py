#!/usr/bin/env python3
"""Build, package and validate the ElastoGap FMUs: ElastoGap.fmu (FMI 2.0) and ElastoGap3.fmu (FMI 3.0).

    .venv/bin/python packaging/package.py

1. Two `cargo build --release` of the package `elastogap`: the FMI 2.0 binary (default features) and the
   FMI 3.0 one (`--no-default-features --features fmi3`). Both write the same libelastogap.so, so each
   build's library and the XML its build script wrote (modelDescription.xml, modelDescription3.xml,
   terminalsAndIcons.xml, in the out_dir cargo's JSON messages name) are copied to target/fmu/built/
   right after it. On x86_64 Linux the builds are `cargo zigbuild` for `x86_64-unknown-linux-gnu.2.17`,
   so the binaries need no glibc newer than 2.17. On linux64 also the two Windows DLLs, cross-built the
   same way by `packaging/win64_cargo.sh` (Debian's rustc-web with cargo's build-std for
   `x86_64-pc-windows-gnu`, MinGW-w64 as linker); a missing toolchain fails the packaging with a
   message. `ELASTOGAP_SKIP_WIN64=1` (or `--skip-win64`) packages linux64 alone, for a developer's
   quicker round; CI and the README's commands build both. All builds must agree on the GUID.
2. Lays out `target/fmu/<modelIdentifier>/` for each: `modelDescription.xml`, the binaries renamed to the
   modelIdentifier (importers load exactly that name): FMI 2.0 `binaries/linux64/ElastoGap.so` and
   `binaries/win64/ElastoGap.dll`, FMI 3.0 `binaries/x86_64-linux/ElastoGap3.so` and
   `binaries/x86_64-windows/ElastoGap3.dll`; `model.png` (an icon drawn with matplotlib), for FMI 3.0 also
   `terminalsAndIcons/` (terminalsAndIcons.xml, icon.png, icon.svg); `resources/` (the Gap Force's example
   table, from `packaging/resources/`) and `documentation/`: `index.html` rendered with Jinja2 from
   `packaging/templates/index.html` (for FMI 3.0 with the section `fmi3.html`), its tables generated from
   the FMU's modelDescription.xml, and its plots (SVG, matplotlib) computed by calling the FMI 2.0 binary
   through FMPy (the FMI 3.0 FMU shows the same plots: one physics).
   Each also gets a reference experiment (FMI-LS-REF): `extra/org.fmi-standard.fmi-ls-ref/` with
   `fmi-ls-manifest.xml` naming `<modelIdentifier>_ref.csv` (role `result`, the MSL law along the input
   motion), `_in.csv` and `_ref.opt`, and `documentation/fmi-ls-ref.txt` describing it.
3. Zips each directory to `target/fmu/<modelIdentifier>.fmu`.
4. Validates both: each binary exports exactly its standard's functions and the DLLs import only Windows
   system DLLs (tables read with pyelftools and pefile), `fmpy.validation.validate_fmu` finds no
   problem, for FMI 3.0 modelDescription.xml and terminalsAndIcons.xml are valid against the standard's
   XSDs (xmlschema) and every terminal member is a variable a terminal may hold, and
   `fmutool -input <fmu> -check` (fmu-manipulation-toolbox) reports no error.
5. Writes the compatibility information the FMI project asks of exporting tools to
   `target/fmu/compat/<modelIdentifier>/`: the `.fmu`, `_in.csv`, `_ref.csv`, `_ref.opt` (the FMI
   cross-check's files) and `README.txt`. Where the FMI project's fmusim (0.7, Rust) and fmusim-c
   (0.0.39) are found (`bash packaging/setup.sh` builds them), it runs `fmusim validate` and the
   experiment with both, fails on a result that differs from the reference, and writes into
   README.txt every check that ran and the deviations measured.

The code is the package `packaging/elastogap_packaging/` (build, force_samples, document, validate, compat);
its Python tools come from `packaging/requirements.txt`, which `packaging/setup.sh` installs into
`.venv`. Exits non-zero with a message on any failure.
"""

import argparse
import os
import shutil
import sys
import time

from elastogap_packaging import FMU_ROOT, ROOT, PackagingError, say
from elastogap_packaging.build import (cargo_build, cargo_build_win64, install_binary, keep_build, platform_of_host,
                                       write_fmu)
from elastogap_packaging.model_description import ModelDescription

# Environment variable (or --skip-win64) that leaves the win64 DLL out, for developers only.
SKIP_WIN64_ENV = "ELASTOGAP_SKIP_WIN64"
# The cargo arguments of each FMI layer's binary: the FMI 2.0 one is the default feature.
FEATURES = {"2.0": (), "3.0": ("--no-default-features", "--features", "fmi3")}
# FMI 3.0 names the binaries' folders by platform tuple.
FMI3_PLATFORMS = {"linux64": "x86_64-linux", "win64": "x86_64-windows", "darwin64": "x86_64-darwin"}
# Where each build's library and XML files are kept until the FMUs are staged.
BUILT = FMU_ROOT / "built"


def require_python_tools():
    """Fails before the build, not after it, when .venv lacks the tools."""
    try:
        import elftools  # noqa: F401
        import fmpy.validation  # noqa: F401
        import jinja2  # noqa: F401
        import matplotlib  # noqa: F401
        import pefile  # noqa: F401
        import xmlschema  # noqa: F401
    except ImportError as error:
        raise PackagingError(
            f"{sys.executable} cannot import a packaging tool ({error}). Run `bash packaging/setup.sh`, then "
            f"`.venv/bin/python packaging/package.py`."
        ) from error


def build_binaries(skip_win64):
    """Both layers' binaries for this host and, on linux64, win64, each copied away right after its
    build. Returns {fmi_version: {platform_dir: library}} and the kept folder of each version."""
    platform_dir, suffix = platform_of_host()
    targets = [(platform_dir, suffix, cargo_build)]
    if platform_dir == "linux64" and skip_win64:
        say(f"win64 left out ({SKIP_WIN64_ENV}=1 or --skip-win64): the .fmu files hold linux64 only")
    elif platform_dir == "linux64":
        targets.append(("win64", ".dll", lambda _suffix, features: cargo_build_win64(features)))
    binaries = {version: {} for version in FEATURES}
    folders = {version: BUILT / f"fmi{version[0]}" for version in FEATURES}
    guids = set()
    for platform, platform_suffix, build in targets:
        for version, features in FEATURES.items():
            started = time.monotonic()
            cdylib, out_dir = build(platform_suffix, features)
            binaries[version][platform] = keep_build(cdylib, out_dir, folders[version], f"{platform}{platform_suffix}")
            guids.add(ModelDescription(folders[version] / "modelDescription.xml").guid)
            say(f"built FMI {version} {platform}: {cdylib} in {time.monotonic() - started:.0f} s")
    if len(guids) != 1:
        raise PackagingError(f"the builds disagree on the GUID: {sorted(guids)}")
    return binaries, folders


def stage_fmu(md, binaries, platform_names):
    """A fresh staging folder with modelDescription.xml, the binaries (checked) and the resources."""
    from elastogap_packaging.validate import check_linux_library, check_win64_dll

    stage = FMU_ROOT / md.model_identifier
    if stage.exists():
        shutil.rmtree(stage)
    stage.mkdir(parents=True)
    shutil.copyfile(md.path, stage / "modelDescription.xml")
    version = "3.0" if md.is_fmi3 else "2.0"
    for platform, built in binaries.items():
        suffix = ".dll" if platform == "win64" else built.suffix
        binary = install_binary(built, stage, platform_names[platform], f"{md.model_identifier}{suffix}")
        if platform == "linux64":
            check_linux_library(binary, version)
        elif platform == "win64":
            check_win64_dll(binary, version)
    # The Gap Force's example table: tableFile = "gap_force_example.json" names it.
    shutil.copytree(ROOT / "packaging" / "resources", stage / "resources")
    return stage


def package(skip_win64):
    from elastogap_packaging.compat import stage_references, write_compat_folder
    from elastogap_packaging.document import write_documentation
    from elastogap_packaging.validate import validate

    binaries, folders = build_binaries(skip_win64)
    md2 = ModelDescription(folders["2.0"] / "modelDescription.xml")
    md3 = ModelDescription(folders["3.0"] / "modelDescription3.xml")
    fmus = []
    plots = None
    for md, version, platform_names in ((md2, "2.0", {p: p for p in FMI3_PLATFORMS}), (md3, "3.0", FMI3_PLATFORMS)):
        stage = stage_fmu(md, binaries[version], platform_names)
        if md.is_fmi3:
            (stage / "terminalsAndIcons").mkdir()
            shutil.copyfile(folders[version] / "terminalsAndIcons.xml",
                            stage / "terminalsAndIcons" / "terminalsAndIcons.xml")
        # The plots are sampled through the FMI 2.0 binary and shown again in the FMI 3.0 FMU: one physics.
        platforms = [platform_names[p] for p in binaries[version]]
        plots = write_documentation(stage, md, platforms, plots)
        experiment = stage_references(stage, md)
        fmu = FMU_ROOT / f"{md.model_identifier}.fmu"
        write_fmu(stage, fmu)
        say(f"wrote {fmu} ({fmu.stat().st_size} bytes)")
        fmus.append((fmu, version, md, platforms, experiment))
    for fmu, version, md, platforms, experiment in fmus:
        write_compat_folder(fmu, md, version, platforms, validate(fmu, version), experiment)
    return [fmu for fmu, *_ in fmus]


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
        fmus = package(skip_win64)
    except PackagingError as error:
        print(f"package: error: {error}", file=sys.stderr)
        return 1
    say(f"done in {time.monotonic() - started:.1f} s: {', '.join(str(f.relative_to(ROOT)) for f in fmus)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
