"""The packaging of the ElastoGap FMU, split by concern; `packaging/package.py` is its command line.

- `build`: cargo builds (linux64 with cargo-zigbuild, win64 with win64_cargo.sh), staging, the zip.
- `model_description`: what the packaging and the documentation read from modelDescription.xml.
- `force_samples`: the plots' numbers, read from the built binary through FMPy and checked against
  the force laws written out again here.
- `document`: the icon and the plots (matplotlib) and documentation/index.html (Jinja2 template
  `packaging/templates/index.html`).
- `validate`: export and import tables (pyelftools, pefile), FMPy's validation and `fmutool -check`.
- `compat`: the reference experiment (FMI-LS-REF manifest inside each FMU) and the compatibility
  folders target/fmu/compat/<modelIdentifier>/ in the FMI cross-check's form, run with the fmusims.
"""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "elastogap"
FMU_ROOT = ROOT / "target" / "fmu"
# The oldest glibc the Linux binary must load with (RHEL/CentOS 7; Ubuntu 18.04 has 2.27).
GLIBC_FLOOR = "2.17"
# Rust's std for x86_64-pc-windows-gnu supports Windows 10 and later only (it imports e.g.
# bcryptprimitives.dll's ProcessPrng, which older Windows lacks).
WINDOWS_FLOOR = "Windows 10"


class PackagingError(Exception):
    """A failure the command line reports as one message and exit status 1."""


def say(message):
    print(f"package: {message}", flush=True)
