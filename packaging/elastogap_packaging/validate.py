"""Checks of the packed FMUs: the binaries' export and import tables, FMPy's validation, fmutool, and
for FMI 3.0 the schema check of modelDescription.xml and terminalsAndIcons.xml (xmlschema, against the
standard's XSDs that FMPy ships) and that every terminal member is a variable the terminal may hold.

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

# Every function of fmi3Functions.h (FMI 3.0): the FMI 3.0 binary exports all of them, those of the
# capabilities it lacks (Scheduled Execution, clocks, the types it has no variable of) returning
# fmi3Error, for the same reason.
FMI3_TYPES = "Float32 Float64 Int8 UInt8 Int16 UInt16 Int32 UInt32 Int64 UInt64 Boolean String Binary Clock".split()
FMI3_FUNCTIONS = frozenset("""
fmi3GetVersion fmi3SetDebugLogging fmi3InstantiateModelExchange fmi3InstantiateCoSimulation
fmi3InstantiateScheduledExecution fmi3FreeInstance fmi3EnterInitializationMode fmi3ExitInitializationMode
fmi3EnterEventMode fmi3Terminate fmi3Reset fmi3GetNumberOfVariableDependencies fmi3GetVariableDependencies
fmi3GetFMUState fmi3SetFMUState fmi3FreeFMUState fmi3SerializedFMUStateSize fmi3SerializeFMUState
fmi3DeserializeFMUState fmi3GetDirectionalDerivative fmi3GetAdjointDerivative fmi3EnterConfigurationMode
fmi3ExitConfigurationMode fmi3GetIntervalDecimal fmi3GetIntervalFraction fmi3GetShiftDecimal
fmi3GetShiftFraction fmi3SetIntervalDecimal fmi3SetIntervalFraction fmi3SetShiftDecimal fmi3SetShiftFraction
fmi3EvaluateDiscreteStates fmi3UpdateDiscreteStates fmi3EnterContinuousTimeMode fmi3CompletedIntegratorStep
fmi3SetTime fmi3SetContinuousStates fmi3GetContinuousStateDerivatives fmi3GetEventIndicators
fmi3GetContinuousStates fmi3GetNominalsOfContinuousStates fmi3GetNumberOfEventIndicators
fmi3GetNumberOfContinuousStates fmi3EnterStepMode fmi3GetOutputDerivatives fmi3DoStep fmi3ActivateModelPartition
""".split() + [f"fmi3{verb}{type_name}" for verb in ("Get", "Set") for type_name in FMI3_TYPES])

FUNCTIONS = {"2.0": FMI2_FUNCTIONS, "3.0": FMI3_FUNCTIONS}

# What a DLL loaded by LoadLibrary beside nothing else may import: DLLs every Windows 10 has. A MinGW
# runtime DLL (libgcc_s_seh-1.dll, libwinpthread-1.dll) is absent on users' machines and makes the
# load fail with error 126; api-ms-win-* are API sets the loader resolves itself.
WINDOWS_SYSTEM_DLLS = {
    "kernel32.dll", "ntdll.dll", "msvcrt.dll", "ucrtbase.dll", "advapi32.dll", "userenv.dll",
    "ws2_32.dll", "bcrypt.dll", "bcryptprimitives.dll", "user32.dll", "shell32.dll", "ole32.dll",
    "oleaut32.dll", "secur32.dll", "synchronization.dll",
}


def require_exactly(library, exports, fmi_version):
    functions = FUNCTIONS[fmi_version]
    missing = sorted(functions - set(exports))
    extra = sorted(set(exports) - functions)
    if missing or extra:
        raise PackagingError(
            f"{library.name} exports the wrong symbols: missing {missing}, not FMI {fmi_version} {extra} "
            f"(importers such as fmusim need all {len(functions)}, and nothing else should be exported)"
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


def check_linux_library(library, fmi_version):
    require_exactly(library, elf_exports(library), fmi_version)
    say(f"{library.name} exports exactly the {len(FUNCTIONS[fmi_version])} FMI {fmi_version} functions")


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


def check_win64_dll(library, fmi_version):
    """The DLL exports exactly the FMI functions and loads on a bare Windows (system DLLs only)."""
    exports, imports = pe_tables(library)
    require_exactly(library, exports, fmi_version)
    foreign = [name for name in imports
               if name.lower() not in WINDOWS_SYSTEM_DLLS and not name.lower().startswith("api-ms-win-")]
    if foreign:
        raise PackagingError(
            f"{library.name} imports {foreign}, which are not {WINDOWS_FLOOR} system DLLs: a Windows "
            f"importer's LoadLibrary fails (error 126) where they are not installed; link them statically"
        )
    say(f"{library.name} exports exactly the {len(FUNCTIONS[fmi_version])} FMI {fmi_version} functions; "
        f"imports only system DLLs: {', '.join(imports)}")


ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def validate_with_fmpy(fmu):
    import fmpy
    from fmpy.validation import validate_fmu

    problems = validate_fmu(str(fmu))
    if problems:
        listing = "\n".join(f"  - {p}" for p in problems)
        raise PackagingError(f"fmpy.validation.validate_fmu found {len(problems)} problem(s):\n{listing}")
    say(f"fmpy validate_fmu {fmu.name}: no problems")
    return (f"FMPy {fmpy.__version__} validate_fmu (modelDescription.xml against the standard's XSD, names, "
            f"model structure, start values, causality/variability, units): no problems.")


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
    verdict = verdict.split('|', 1)[-1].strip()
    say(f"fmutool -check: no errors ({verdict})")
    return f"fmutool -check (fmu-manipulation-toolbox {package_version('fmu-manipulation-toolbox')}): no errors ({verdict})."


def fmi3_schema(name):
    """An FMI 3.0 XSD as FMPy ships it (the standard's own files)."""
    import fmpy
    import xmlschema

    return xmlschema.XMLSchema(str(Path(fmpy.__file__).parent / "schema" / "fmi3" / name))


# Causalities a terminal member may have (FMI 3.0, predefined variable kinds: signal, inflow and
# outflow are restricted to inputs, outputs, parameters and calculated parameters).
TERMINAL_CAUSALITIES = {"input", "output", "parameter", "calculatedParameter"}


def terminal_problems(model_description_xml, terminals_xml):
    """What is wrong with the terminals against the variables: unknown names or causalities."""
    import xml.etree.ElementTree as ET

    causality = {v.get("name"): v.get("causality", "local") for v in ET.fromstring(model_description_xml).find("ModelVariables")}
    problems = []
    for terminal in ET.fromstring(terminals_xml).iter("Terminal"):
        for member in terminal.iter("TerminalMemberVariable"):
            name = member.get("variableName")
            if name not in causality:
                problems.append(f"terminal {terminal.get('name')}: {name} is no variable")
            elif causality[name] not in TERMINAL_CAUSALITIES:
                problems.append(f"terminal {terminal.get('name')}: {name} has causality {causality[name]}")
    return problems


def validate_fmi3_xml(fmu):
    """modelDescription.xml and terminalsAndIcons/terminalsAndIcons.xml against the FMI 3.0 schemas,
    and the terminals against the variables."""
    import zipfile

    with zipfile.ZipFile(fmu) as archive:
        files = {name: archive.read(name) for name in
                 ("modelDescription.xml", "terminalsAndIcons/terminalsAndIcons.xml")}
    problems = []
    for (name, text), xsd in zip(files.items(), ("fmi3ModelDescription.xsd", "fmi3TerminalsAndIcons.xsd")):
        problems += [f"{name}: {error.reason} at {error.path}" for error in fmi3_schema(xsd).iter_errors(text)]
    problems += terminal_problems(*files.values())
    if problems:
        listing = "\n".join(f"  - {p}" for p in problems)
        raise PackagingError(f"{fmu.name}: the FMI 3.0 schema check found {len(problems)} problem(s):\n{listing}")
    say(f"{fmu.name}: modelDescription.xml and terminalsAndIcons.xml valid against the FMI 3.0 schemas")
    return (f"modelDescription.xml and terminalsAndIcons/terminalsAndIcons.xml valid against the FMI 3.0 XSDs "
            f"(xmlschema {package_version('xmlschema')}, the schemas FMPy ships); every terminal member a variable "
            f"a terminal may hold.")


def package_version(name):
    from importlib.metadata import version

    return version(name)


def validate(fmu, fmi_version):
    """Runs the checks of the packed FMU; returns a sentence for each, saying what it checked."""
    checks = [validate_with_fmpy(fmu)]
    if fmi_version == "3.0":
        checks.append(validate_fmi3_xml(fmu))
    checks.append(validate_with_fmutool(fmu))
    return checks
