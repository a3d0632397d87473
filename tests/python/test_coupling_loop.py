"""The stability table of docs/coupling.md is what tools/coupling_loop.py computes: the spectral
radius of the correction loop against the error of the mass, for both masters and three laws."""

import subprocess
import sys

from gap_law import ROOT


def test_the_loop_table_of_docs_coupling_is_as_computed():
    result = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "coupling_loop.py"), "--check", str(ROOT / "docs" / "coupling.md")],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr


def test_the_robust_law_is_stable_from_half_to_twice_the_mass_and_the_fast_laws_are_not():
    sys.path.insert(0, str(ROOT / "tools"))
    import coupling_loop

    robust = coupling_loop.LAWS["robust law (0.1, 0.6)"]
    assert coupling_loop.worst_over_range(robust) < 0.9
    three_step = coupling_loop.LAWS["three-step law (1.5, 1.75)"]
    # The reason the robust law exists: under f_next's delay the fast law is unstable at 0.9x.
    assert coupling_loop.radius_holding_f_next(0.9, three_step) > 1.0
    # At the right mass the dead-beat law settles in two steps (radius 0).
    dead_beat = coupling_loop.LAWS["dead-beat law (1, 1.5)"]
    assert coupling_loop.radius_holding_f_mean(1.0, dead_beat) < 1e-6
