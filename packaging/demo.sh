#!/usr/bin/env bash
# The demo: set up the machine, build and package both FMUs (target/fmu/ElastoGap.fmu, FMI 2.0, and
# target/fmu/ElastoGap3.fmu, FMI 3.0), then simulate
# Modelica.Mechanics.Translational.Examples.ElastoGap with them inside a small Rust master
# (examples/msl_elastogap/), five times: as a co-simulation (two co-simulation instances, 10 ms
# steps; out/ElastoGap_cosim.*), with the FMU imported as Model Exchange (an adaptive integrator that
# locates the FMU's events; out/ElastoGap_me.*), and as a co-simulation with the parameter m_eff = 1 kg
# (mass2, 1 kg, against a fixed wall: each step integrates the contact's own dynamics; Gauss-Seidel
# master holding f_mean; out/ElastoGap_meff.*), through the FMI 3.0 FMU with early return and event
# mode (each fmi3DoStep returns at a contact's start, and at its end while the FMU steps along the
# master's motion, a communication point there; m_eff = 0 as in the first run, Gauss-Seidel holding
# f_mean, plotted beside the FMI 2.0 run under the same master, the early returns marked;
# out/ElastoGap_fmi3.*), then once more under three force laws for the figure of the
# MSL ElastoGap documentation (out/ElastoGap_laws.*). Results (CSV and plots) go to out/.
#
#   bash packaging/demo.sh                                  # the README's first command
#   bash packaging/demo.sh --reference path/to/ElastoGap.csv
#
# Extra arguments are passed to every run of the example; with --reference each compares its result
# with the MSL reference result and fails when a compared signal leaves the 2e-3 tube.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

bash packaging/setup.sh
.venv/bin/python packaging/package.py

fmu="target/fmu/ElastoGap.fmu"
fmu3="target/fmu/ElastoGap3.fmu"
out="out"
mkdir -p "$out"
# The master is not the FMU: it needs no LTO nor a single codegen unit (the same build as the tests in
# tests/run_all.sh). The FMU it loads is the packaged one, built with the release profile as it ships.
run_example() {
    echo "demo: cargo run --release --example msl_elastogap -- --fmu $fmu --out $out/ $*"
    CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
        cargo run --release --example msl_elastogap -- --fmu "$fmu" --out "$out/" "$@"
}
run_example "$@"
echo
run_example --coupling model-exchange --step 0.005 "$@"
echo
run_example --m-eff 1 --coupling mean --step 0.01 "$@"
echo
run_example --fmi3 "$fmu3" --step 0.01 "$@"
echo
# The figure of the MSL ElastoGap documentation (three force laws); no reference to compare with.
run_example --laws-figure --step 0.001

shopt -s nullglob
svgs=("$out"/*.svg)
if [ "${#svgs[@]}" -gt 0 ]; then
    if command -v rsvg-convert >/dev/null 2>&1; then
        for svg in "${svgs[@]}"; do
            rsvg-convert --background-color=white -o "${svg%.svg}.png" "$svg"
        done
    else
        echo "demo: rsvg-convert not found (Debian package librsvg2-bin): plots left as SVG only"
    fi
fi

echo
echo "demo: results in $root/$out/:"
for file in "$out"/*; do
    if [ -f "$file" ]; then
        echo "  $root/$file"
    fi
done
echo "demo: the FMUs are $root/$fmu (FMI 2.0) and $root/$fmu3 (FMI 3.0); documentation/index.html inside each, unpacked in $root/target/fmu/ElastoGap/ and $root/target/fmu/ElastoGap3/"
