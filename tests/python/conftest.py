"""Fixtures shared by the importer tests (helpers are in gap_law.py)."""

from ctypes import byref

import pytest
from fmpy.fmi1 import printLogMessage
from fmpy.fmi2 import fmi2CallbackFunctions, fmi2CallbackLoggerTYPE
from fmpy.logging import addLoggerProxy

from gap_law import interfaces, packaged_fmu, packaged_fmu3

# FMPy's C logging proxy (fmpy/logging) keeps one process-wide pointer to the Python logger of the
# last simulate_fmu(logger=...): once that run is over the pointer dangles, and the next FMU that logs
# through FMPy's default callbacks crashes the process (the fmucontainer container logs as it is
# instantiated). FMPy's bug; the pointer is set back to FMPy's own printer, kept alive here.
_PRINT_LOG_MESSAGE = fmi2CallbackLoggerTYPE(printLogMessage)


@pytest.fixture(autouse=True)
def fmpy_logger_proxy_reset():
    yield
    callbacks = fmi2CallbackFunctions()
    callbacks.logger = _PRINT_LOG_MESSAGE
    addLoggerProxy(byref(callbacks))


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


@pytest.fixture(scope="session")
def fmu3_path():
    """The FMI 3.0 .fmu (ElastoGap3.fmu): co-simulation and Model Exchange in one."""
    path = packaged_fmu3()
    if not path.is_file():
        pytest.fail(f"{path} does not exist: run packaging/package.py (or set ELASTOGAP3_FMU)")
    return str(path)
