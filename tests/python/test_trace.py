"""The behaviour trace through FMPy: Model Exchange under CVode and forward Euler, every variable
FMPy records, kept bit for bit as one SHA-256 per run in tests/data/trace_fmpy.txt (the Rust side of
the trace is tests/trace.rs). A change meant to move code and not behaviour must leave every hash
as it was; after one meant to alter behaviour, write the file anew with TRACE_WRITE=1 and say why
in the commit.
"""

import hashlib
import os
from pathlib import Path

import numpy as np
from fmpy import read_model_description, simulate_fmu

from test_model_exchange import CASES, STOP_TIME, input_rows, start_values

TRACE = Path(__file__).resolve().parents[1] / "data" / "trace_fmpy.txt"
LAWS = {"ElastoGap": 1, "HuntCrossley": 4, "AdamsImpact": 5, "RecurDynContact": 6}


def runs():
    for case_name, case in CASES.items():
        for law_name, law in LAWS.items():
            for solver in ("CVode", "Euler"):
                yield f"{case_name}-{law_name}-{solver}", case, law, solver


def trace(fmu_path, case, law, solver):
    names = [
        v.name
        for v in read_model_description(fmu_path).modelVariables
        if v.causality in ("output", "local", "input") and v.type in ("Real", "Boolean")
        # The event indicators' variables are the indicator vector the solver steps on itself.
        and not v.name.startswith("eventIndicator.")
    ]
    result = simulate_fmu(
        fmu_path,
        fmi_type="ModelExchange",
        solver=solver,
        start_time=0.0,
        stop_time=STOP_TIME,
        output_interval=1e-3,
        start_values=dict(start_values(case), forceLaw=law),
        input=input_rows(case),
        output=names,
    )
    digest = hashlib.sha256()
    for name in result.dtype.names:
        digest.update(name.encode())
        digest.update(np.ascontiguousarray(result[name], dtype=np.float64).tobytes())
    return f"{digest.hexdigest()[:16]} {result.size}"


def test_every_traced_model_exchange_run_gives_the_recorded_bits(me_fmu_path):
    lines = {name: trace(me_fmu_path, case, law, solver) for name, case, law, solver in runs()}
    text = "# run, SHA-256 (first 16 hex digits) of its recorded columns' bits, rows\n"
    text += "".join(f"{name} {line}\n" for name, line in lines.items())
    if os.environ.get("TRACE_WRITE") == "1":
        TRACE.write_text(text)
        return
    recorded = dict(
        line.split(" ", 1) for line in TRACE.read_text().splitlines() if not line.startswith("#")
    )
    assert recorded.keys() == lines.keys(), "the trace file lists other runs than the test makes"
    differing = [f"{name} {line}" for name, line in lines.items() if recorded[name] != line]
    assert not differing, f"{len(differing)} of {len(lines)} runs differ from {TRACE}:\n" + "\n".join(
        differing
    )
