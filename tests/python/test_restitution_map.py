"""tools/restitution_map.py: its impacts against closed forms, the map's physics (energy balance,
monotone in the damping), the root finder, and the distributed run against the serial one."""

import math
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import restitution_map as rm  # noqa: E402


def spring_damper_restitution(c, d, mass):
    """The damped oscillator over half its period: exp(-zeta*pi/sqrt(1 - zeta^2))."""
    zeta = d / (2.0 * math.sqrt(c * mass))
    return math.exp(-zeta * math.pi / math.sqrt(1.0 - zeta * zeta))


def case(series, parameter, value, v0=1.0, n=1.0, c=1e4, mass=1.0):
    _, force_law, settings, _ = next(s for s in rm.SERIES if s[0] == series)
    return {"series": series, "forceLaw": force_law, "settings": settings, "parameter": parameter,
            "value": value, "v0": v0, "n": n, "c": c, "mass": mass, "d": 20.0}


@pytest.mark.parametrize("d, v0, mass", [(20.0, 1.0, 1.0), (150.0, 0.3, 1.0), (5.0, 4.0, 2.5)])
def test_a_spring_damper_impact_is_the_damped_oscillator(fmu_path, d, v0, mass):
    e_eff, e_loss, lifted_off, _ = rm.impact(fmu_path, case("SpringDamper", "d", d, v0=v0, mass=mass))
    exact = spring_damper_restitution(1e4, d, mass)
    assert lifted_off
    assert e_eff == pytest.approx(exact, rel=1e-9)
    assert e_loss == pytest.approx(0.5 * mass * v0 * v0 * (1.0 - exact * exact), rel=1e-9)


def test_the_root_finder_inverts_the_closed_form(fmu_path):
    # zeta for e = 0.8: -ln(e)/sqrt(pi^2 + ln(e)^2), d = 2*zeta*sqrt(c*m).
    e = 0.8
    zeta = -math.log(e) / math.sqrt(math.pi ** 2 + math.log(e) ** 2)
    d, achieved = rm.solve(fmu_path, "SpringDamper", "d", e, 1e4, 1.0, 1.0, 1.0, 0.01, 5000.0)
    assert achieved == pytest.approx(e, abs=1e-10)
    assert d == pytest.approx(2.0 * zeta * math.sqrt(1e4), rel=1e-9)
    # The same machinery for any law: which d makes ElastoGap with n = 1.5 rebound at 0.8.
    d, achieved = rm.solve(fmu_path, "ElastoGap", "d", e, 1e4, 1.5, 1.0, 1.0, 0.01, 5000.0)
    assert achieved == pytest.approx(e, abs=1e-10) and 0.01 < d < 5000.0


def test_the_map_balances_energy_and_falls_with_the_damping(fmu_path):
    rows = rm.run_serial(fmu_path, rm.quick_grid())
    assert len(rows) == len(rm.quick_grid())
    columns = {name: k for k, name in enumerate(rm.COLUMNS)}
    curves = {}
    for row in rows:
        v0, mass, e_eff, e_loss = (row[columns[k]] for k in ("v0", "mass", "e_eff", "E_loss"))
        if row[columns["lifted_off"]]:
            # The spring gives back what it stored: all the body lost is dissipated, to the
            # FMU's relativeTolerance (1e-6) of the impact's energy where n != 1.
            energy = 0.5 * mass * v0 * v0
            assert e_loss == pytest.approx(energy * (1.0 - e_eff * e_eff), abs=1e-5 * energy), row
            assert 0.0 < e_eff <= 1.0, row
            key = (row[columns["series"]], v0, row[columns["n"]])
            curves.setdefault(key, []).append((row[columns["value"]], e_eff))
        else:
            # Caught: an overdamped contact that creeps back and never lets the body go.
            assert abs(e_eff) < 1e-3, row
    for (series, v0, n), points in curves.items():
        parameter = next(s[3] for s in rm.SERIES if s[0] == series)
        values = [e for _, e in sorted(points)]
        # More damping, less rebound; a larger requested e, more rebound.
        expected = sorted(values, reverse=parameter != "e")
        assert values == expected, (series, v0, n, sorted(points))


def test_the_distributed_map_equals_the_serial_one(fmu_path, tmp_path):
    cases = rm.quick_grid()
    serial = rm.run_serial(fmu_path, cases, chunk_size=10)
    distributed = rm.run_dask(fmu_path, cases, workers=2, chunk_size=10, show_progress=False)
    assert [repr(row) for row in distributed] == [repr(row) for row in serial]
    rm.write_csv(distributed, tmp_path / "impacts.csv")
    lines = (tmp_path / "impacts.csv").read_text().splitlines()
    assert lines[0].split(",") == rm.COLUMNS and len(lines) == len(cases) + 1


def test_the_pages_counts_and_figures_are_the_full_maps(fmu_path):
    """docs/restitution-map.md states what the default grid gives: its size, which impacts never
    let the body go (and from which damping), and how far the Hunt-Crossley models' restitution
    lies from the one requested; each is the full map's, run here serially."""
    page = " ".join((Path(__file__).resolve().parents[2] / "docs" / "restitution-map.md")
                    .read_text(encoding="utf-8").split())
    cases = rm.grid()
    rows = rm.run_serial(fmu_path, cases)
    columns = {name: k for k, name in enumerate(rm.COLUMNS)}
    assert f"The default grid is {len(rows):,} impacts" in page
    root = Path(__file__).resolve().parents[2]
    for other in ("README.md", "docs/force-laws.md"):
        assert f"{len(rows):,} impacts" in " ".join((root / other).read_text(encoding="utf-8").split()), other
    caught = {}
    for row in rows:
        if not row[columns["lifted_off"]]:
            series = row[columns["series"]].split(" ")[0]
            count, least = caught.get(series, (0, math.inf))
            caught[series] = (count + 1, min(least, row[columns["value"]]))
    stated = {"SpringDamper": "{} SpringDamper impacts (from d = {} N.s/m",
              "GapForce": "{} GapForce (from d = {},", "NoPulling": "{} NoPulling (from d = {})",
              "AdamsImpact": "{} AdamsImpact (from d = {})"}
    assert set(caught) == set(stated), caught
    for series, (count, least) in caught.items():
        assert stated[series].format(count, f"{float(f'{least:.2g}'):g}") in page, (series, count, least)
    for series, label in [("Flores", "Flores et al."), ("Gonthier", "Gonthier et al.")]:
        off = max(abs(row[columns["e_eff"]] - row[columns["value"]]) for row in rows
                  if row[columns["series"]] == f"HuntCrossley ({series})")
        assert f"{off:.2g}" in page, (label, off)
    # "Of the laws damped by d, ElastoGap keeps the most restitution at high damping after
    # RecurDynContact with Step damping; SpringDamper loses it first; RecurDynContact with Power
    # damping hardly damps at all" (at 1 m/s, n = 1, the largest d).
    top = max(row[columns["value"]] for row in rows if row[columns["parameter"]] == "d")
    at_top = {row[columns["series"]]: row[columns["e_eff"]] for row in rows
              if row[columns["parameter"]] == "d" and row[columns["value"]] == top
              and row[columns["v0"]] == 1.0 and row[columns["n"]] == 1.0}
    power, step = at_top.pop("RecurDynContact (Power)"), at_top.pop("RecurDynContact (Step)")
    ranked = sorted(at_top, key=at_top.get, reverse=True)
    assert power > 0.9 and step > at_top["ElastoGap"], (power, step, at_top)
    assert ranked[0] == "ElastoGap" and ranked[-1] == "SpringDamper", at_top
    e_eff, _, _, _ = rm.impact(fmu_path, case("HuntCrossley (LankaraniNikravesh)", "e", 0.8))
    assert f"e = 0.8 gives {e_eff:.3f} with Lankarani–Nikravesh" in page, e_eff
