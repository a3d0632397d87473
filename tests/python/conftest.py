"""Fixtures shared by the importer tests (helpers are in gap_law.py)."""

import pytest

from gap_law import interfaces, packaged_fmu


@pytest.fixture(scope="session")
def fmu_path():
    path = packaged_fmu()
    if not path.is_file():
        pytest.fail(f"{path} does not exist: run packaging/package.py (or set ELASTOGAP_FMU)")
    return str(path)


@pytest.fixture(scope="session")
def me_fmu_path(fmu_path):
    """The .fmu, for the Model Exchange tests: they skip only while it declares no <ModelExchange>."""
    if "ModelExchange" not in interfaces(fmu_path):
        pytest.skip(f"{fmu_path} declares no <ModelExchange> interface (co-simulation only so far)")
    return fmu_path
