"""The plot README shows (docs/coupling/mass_error.png, drawn by tools/coupling_map.py) is of the
packaged FMU as it is: its data, docs/coupling/mass_error.csv, is what the impacts give now."""

import csv
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import coupling_map  # noqa: E402


def test_the_committed_plot_data_is_the_fmus(fmu_path):
    rows, _, _ = coupling_map.run(str(fmu_path), 10.0)
    now = coupling_map.rounded(rows)
    with open(ROOT / "docs" / "coupling" / "mass_error.csv", newline="") as handle:
        committed = list(csv.DictReader(handle))
    for row in now:
        row.update({k: str(v) for k, v in row.items()})
    assert committed == now, (
        "docs/coupling/mass_error.csv differs from the FMU's impacts: run "
        "`.venv/bin/python tools/coupling_map.py --png docs/coupling/mass_error.png "
        "--csv docs/coupling/mass_error.csv`"
    )
