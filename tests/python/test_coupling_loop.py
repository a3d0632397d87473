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


def test_the_law_in_use_is_stable_through_a_confirmed_mass_and_not_under_delay_at_ten_per_cent():
    sys.path.insert(0, str(ROOT / "tools"))
    import coupling_loop

    three_step = coupling_loop.LAWS["three-step law (1.5, 1.75)"]
    dead_beat = coupling_loop.LAWS["dead-beat law (1, 1.5)"]
    # A lone body's answer is exact and adopted from 0.5 %: the three-step law is stable there
    # under either master.
    low, high = coupling_loop.STEADY
    for radius in (coupling_loop.radius_holding_f_mean, coupling_loop.radius_holding_f_next):
        assert coupling_loop.worst_over_range(radius, three_step, low, high) < 0.6
    # A mass kept within 10 % of the answers: stable with f_mean, not under f_next's delay at 0.9x
    # (the limit docs/coupling.md states).
    low, high = coupling_loop.CONFIRMED
    assert coupling_loop.worst_over_range(coupling_loop.radius_holding_f_mean, three_step, low, high) < 0.9
    assert coupling_loop.radius_holding_f_next(0.9, three_step) > 1.0
    # docs/coupling.md: "not beyond about 8 % low (g < 0.92; 1.08 at 10 % low)".
    assert round(coupling_loop.radius_holding_f_next(0.9, three_step), 2) == 1.08
    assert coupling_loop.radius_holding_f_next(0.92, three_step) > 1.0
    assert coupling_loop.radius_holding_f_next(0.93, three_step) < 1.0
    # At the right mass the dead-beat law settles in two steps (radius 0).
    assert coupling_loop.radius_holding_f_mean(1.0, dead_beat) < 1e-6
