"""The two packaged FMUs' XML: ElastoGap.fmu (FMI 2.0) and ElastoGap3.fmu (FMI 3.0), as
`packaging/package.py` writes them to target/fmu/ ($ELASTOGAP_FMU and $ELASTOGAP3_FMU override).

    .venv/bin/python -m pytest tests/python/test_fmi3_package.py

- both model descriptions are valid against their standard's schema and `fmpy validate` finds no
  problem in either FMU;
- the FMI 3.0 description declares every variable of the FMI 2.0 one with the same name, value
  reference, causality, variability, start, unit, min and max (both come from one table);
- terminalsAndIcons/terminalsAndIcons.xml is valid against the FMI 3.0 schema and its members are
  variables of the causalities a terminal may hold.

Only the XML and FMPy's checks of it: no binary is loaded.
"""

import os
import zipfile
from pathlib import Path
from xml.etree import ElementTree

import fmpy
import pytest
import xmlschema
from fmpy.validation import validate_fmu

from gap_law import ROOT, packaged_fmu

SCHEMAS = Path(fmpy.__file__).parent / "schema"
COMPARED = ("valueReference", "causality", "variability", "start", "unit", "min", "max")
# FMI 3.0's predefined variable kinds are restricted to these causalities.
TERMINAL_CAUSALITIES = {"input", "output", "parameter", "calculatedParameter"}


def fmu3_path():
    path = Path(os.environ.get("ELASTOGAP3_FMU", "target/fmu/ElastoGap3.fmu"))
    return path if path.is_absolute() else ROOT / path


@pytest.fixture(scope="module", params=["2.0", "3.0"])
def fmu(request):
    path = packaged_fmu() if request.param == "2.0" else fmu3_path()
    if not path.is_file():
        pytest.fail(f"{path} does not exist: run packaging/package.py")
    return request.param, path


def read(path, name="modelDescription.xml"):
    with zipfile.ZipFile(path) as archive:
        return archive.read(name)


def test_model_description_is_valid_against_its_schema(fmu):
    version, path = fmu
    schema = SCHEMAS / ("fmi2/fmi2ModelDescription.xsd" if version == "2.0" else "fmi3/fmi3ModelDescription.xsd")
    errors = [f"{e.reason} at {e.path}" for e in xmlschema.XMLSchema(str(schema)).iter_errors(read(path))]
    assert errors == []


def test_fmpy_validate_finds_no_problem(fmu):
    _, path = fmu
    assert validate_fmu(str(path)) == []


def variables(path):
    """name -> the compared attributes, read the way each standard writes them."""
    root = ElementTree.fromstring(read(path))
    result = {}
    if root.get("fmiVersion") == "2.0":
        for element in root.iterfind("ModelVariables/ScalarVariable"):
            typed = next(iter(element))
            result[element.get("name")] = {**element.attrib, **typed.attrib}
    else:
        # A Float64's unit is its declared type's (fmi-sim reads units only that way).
        units = {t.get("name"): t.get("unit") for t in root.iterfind("TypeDefinitions/Float64Type")}
        for element in root.find("ModelVariables"):
            start = element.find("Start")
            attributes = dict(element.attrib)
            if start is not None:
                attributes["start"] = start.get("value")
            if element.tag == "Float64" and "declaredType" in attributes:
                attributes["unit"] = units[attributes["declaredType"]]
            result[element.get("name")] = attributes
    return {name: tuple(a.get(key) for key in COMPARED) for name, a in result.items()}


def test_fmi3_and_fmi2_agree_on_every_variable():
    fmi2, fmi3 = variables(packaged_fmu()), variables(fmu3_path())
    assert list(fmi3) == list(fmi2)
    for name in fmi2:
        assert dict(zip(COMPARED, fmi3[name])) == dict(zip(COMPARED, fmi2[name])), name


def test_fmi3_instantiation_token_is_the_fmi2_guid():
    fmi2 = ElementTree.fromstring(read(packaged_fmu()))
    fmi3 = ElementTree.fromstring(read(fmu3_path()))
    assert fmi3.get("instantiationToken") == fmi2.get("guid")
    assert {fmi3.find(i).get("modelIdentifier") for i in ("CoSimulation", "ModelExchange")} == {"ElastoGap3"}


def test_terminals_are_valid_and_name_variables_of_terminal_causality():
    text = read(fmu3_path(), "terminalsAndIcons/terminalsAndIcons.xml")
    schema = xmlschema.XMLSchema(str(SCHEMAS / "fmi3" / "fmi3TerminalsAndIcons.xsd"))
    assert [f"{e.reason} at {e.path}" for e in schema.iter_errors(text)] == []
    causality = {name: values[COMPARED.index("causality")] for name, values in variables(fmu3_path()).items()}
    terminals = ElementTree.fromstring(text).findall("Terminals/Terminal")
    assert [t.get("name") for t in terminals] == ["flange_a", "flange_b", "heatPort"]
    for terminal in terminals:
        members = terminal.findall("TerminalMemberVariable")
        assert members, terminal.get("name")
        names = [m.get("memberName") for m in members]
        assert len(set(names)) == len(names), f"{terminal.get('name')}: member names must be unique"
        for member in members:
            assert causality.get(member.get("variableName")) in TERMINAL_CAUSALITIES, member.attrib
            # Inputs are signals; a flow is the force or heat flow the FMU computes.
            expected = ("signal",) if causality[member.get("variableName")] == "input" else ("inflow", "outflow")
            assert member.get("variableKind") in expected, member.attrib
    with zipfile.ZipFile(fmu3_path()) as archive:
        assert {"terminalsAndIcons/icon.png", "terminalsAndIcons/icon.svg"} <= set(archive.namelist())
