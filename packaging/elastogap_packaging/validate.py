"""Checks of the packed FMU: the binaries' export and import tables, FMPy's validation, fmutool.

The tables are read with parsers made for the formats, pyelftools for ELF and pefile for PE, the
same checks tests/exports.rs makes with the `object` crate.
"""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from . import PackagingError, WINDOWS_FLOOR, say

# Every function of the FMI 2.0 common, co-simulation and Model Exchange API. Importers such as fmusim
# resolve all of them at load time, optional ones included: one missing symbol makes the FMU unusable
# there; any other exported symbol can clash with the host or another FMU.
FMI2_FUNCTIONS = frozenset("""
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
""".split())

# What a DLL loaded by LoadLibrary beside nothing else may import: DLLs every Windows 10 has. A MinGW
# runtime DLL (libgcc_s_seh-1.dll, libwinpthread-1.dll) is absent on users' machines and makes the
# load fail with error 126; api-ms-win-* are API sets the loader resolves itself.
WINDOWS_SYSTEM_DLLS = {
    "kernel32.dll", "ntdll.dll", "msvcrt.dll", "ucrtbase.dll", "advapi32.dll", "userenv.dll",
    "ws2_32.dll", "bcrypt.dll", "bcryptprimitives.dll", "user32.dll", "shell32.dll", "ole32.dll",
    "oleaut32.dll", "secur32.dll", "synchronization.dll",
}


def require_exactly_fmi2(library, exports):
    missing = sorted(FMI2_FUNCTIONS - set(exports))
    extra = sorted(set(exports) - FMI2_FUNCTIONS)
    if missing or extra:
        raise PackagingError(
            f"{library.name} exports the wrong symbols: missing {missing}, not FMI 2.0 {extra} "
            f"(importers such as fmusim need all {len(FMI2_FUNCTIONS)}, and nothing else should be exported)"
        )


def elf_exports(library):
    """Names of the functions an ELF shared library defines in its dynamic symbol table."""
    from elftools.common.exceptions import ELFError
    from elftools.elf.elffile import ELFFile

    try:
        with open(library, "rb") as stream:
            dynamic_symbols = ELFFile(stream).get_section_by_name(".dynsym")
            if dynamic_symbols is None:
                raise PackagingError(f"{library.name} has no dynamic symbol table")
            return [
                symbol.name for symbol in dynamic_symbols.iter_symbols()
                if symbol["st_shndx"] != "SHN_UNDEF" and symbol["st_info"]["type"] == "STT_FUNC"
                and symbol["st_info"]["bind"] in ("STB_GLOBAL", "STB_WEAK")
            ]
    except ELFError as error:
        raise PackagingError(f"{library.name} is not a readable ELF file: {error}") from error


def check_linux_library(library):
    require_exactly_fmi2(library, elf_exports(library))
    say(f"linux binary exports exactly the {len(FMI2_FUNCTIONS)} FMI 2.0 functions of both interfaces")


def pe_tables(library):
    """(exported names, imported DLL names) of a PE32+ x86-64 image."""
    import pefile

    try:
        image = pefile.PE(str(library), fast_load=True)
        image.parse_data_directories(directories=[
            pefile.DIRECTORY_ENTRY["IMAGE_DIRECTORY_ENTRY_EXPORT"],
            pefile.DIRECTORY_ENTRY["IMAGE_DIRECTORY_ENTRY_IMPORT"],
        ])
    except pefile.PEFormatError as error:
        raise PackagingError(f"{library.name} is not a readable PE file: {error}") from error
    if image.FILE_HEADER.Machine != pefile.MACHINE_TYPE["IMAGE_FILE_MACHINE_AMD64"] \
            or image.OPTIONAL_HEADER.Magic != pefile.OPTIONAL_HEADER_MAGIC_PE_PLUS:
        raise PackagingError(f"{library.name} is not an x86-64 PE32+ image (machine {image.FILE_HEADER.Machine:#x})")
    export_directory = getattr(image, "DIRECTORY_ENTRY_EXPORT", None)  # absent: exports nothing
    exports = [] if export_directory is None else [
        symbol.name.decode("ascii", "replace") for symbol in export_directory.symbols if symbol.name
    ]
    imports = [entry.dll.decode("ascii", "replace") for entry in getattr(image, "DIRECTORY_ENTRY_IMPORT", [])]
    return exports, imports


def check_win64_dll(library):
    """The DLL exports exactly the FMI 2.0 functions and loads on a bare Windows (system DLLs only)."""
    exports, imports = pe_tables(library)
    require_exactly_fmi2(library, exports)
    foreign = [name for name in imports
               if name.lower() not in WINDOWS_SYSTEM_DLLS and not name.lower().startswith("api-ms-win-")]
    if foreign:
        raise PackagingError(
            f"{library.name} imports {foreign}, which are not {WINDOWS_FLOOR} system DLLs: a Windows "
            f"importer's LoadLibrary fails (error 126) where they are not installed; link them statically"
        )
    say(f"win64 DLL exports exactly the {len(FMI2_FUNCTIONS)} FMI 2.0 functions of both interfaces; "
        f"imports only system DLLs: {', '.join(imports)}")


ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def validate_with_fmpy(fmu):
    from fmpy.validation import validate_fmu

    problems = validate_fmu(str(fmu))
    if problems:
        listing = "\n".join(f"  - {p}" for p in problems)
        raise PackagingError(f"fmpy.validation.validate_fmu found {len(problems)} problem(s):\n{listing}")
    say("fmpy validate_fmu: no problems")


def validate_with_fmutool(fmu):
    fmutool = Path(sys.executable).parent / "fmutool"
    if not fmutool.exists():
        found = shutil.which("fmutool")
        if found is None:
            raise PackagingError("fmutool (fmu-manipulation-toolbox) not found: run bash packaging/setup.sh")
        fmutool = Path(found)
    command = [str(fmutool), "-input", str(fmu), "-check"]
    result = subprocess.run(command, capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1"})
    text = ANSI_ESCAPE.sub("", result.stdout + result.stderr)
    # Its log lines read "LEVEL    | message"; a failed check logs ERROR lines and exits 7.
    errors = [line for line in text.splitlines() if re.match(r"\s*(ERROR|CRITICAL|FATAL)\b", line)]
    verdict = next((line for line in text.splitlines() if "seems to be compliant" in line), None)
    if result.returncode != 0 or errors or verdict is None:
        raise PackagingError(
            f"{' '.join(command)} exited {result.returncode} with {len(errors)} error line(s)"
            f"{'' if verdict else ' and no compliance statement'}:\n{text.rstrip()}"
        )
    say(f"fmutool -check: no errors ({verdict.split('|', 1)[-1].strip()})")


def validate(fmu):
    validate_with_fmpy(fmu)
    validate_with_fmutool(fmu)
