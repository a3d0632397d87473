#!/usr/bin/env bash
# Idempotent set-up of a fresh Debian 12 machine (run as root) for building, packaging and testing the
# ElastoGap FMU. Needs Rust stable (cargo, rustfmt, clippy), gcc and python3.11 already on the machine.
#
#   - Debian packages, installed only when missing: libclang-dev (fmi-sys runs bindgen on the FMI
#     headers at build time), librsvg2-bin (rsvg-convert turns the demo's SVG plot into PNG),
#     valgrind (tests/memcheck.rs runs the packaged FMU under memcheck), and for the win64 binary:
#     rustc-web, cargo-web and rust-web-src (a Debian compiler with the source of its own std, which
#     cargo's build-std compiles for x86_64-pc-windows-gnu: rustup's std for that target is not
#     reachable from this machine), gcc-mingw-w64-x86-64 (linker, C headers for bindgen) and
#     wine, wine64 (tests/win64/run.sh runs the Windows tests).
#   - The project's Python venv `.venv` with the pinned versions of packaging/requirements.txt
#     (fmpy, fmu-manipulation-toolbox, numpy, pytest, cargo-zigbuild with ziglang, dask, distributed,
#     matplotlib, Jinja2, pefile, pyelftools, and their dependencies).
#   - A second venv `.venv-cofmupy` with cofmupy 1.0.0 and its dependencies, pinned in
#     packaging/requirements-cofmupy.txt (tests/python/test_cofmupy.py runs it in a subprocess):
#     cofmupy requires fmpy 0.3.20, .venv has 0.3.32. About 0.9 GB (streamlit, pyarrow, scikit-learn).
#   - fmi-sim, the Rust port of fmusim from crates.io (tests/python/test_fmi_sim.py runs the FMU with
#     it), at the pinned version below, with `cargo install --locked --debug` into cargo's bin folder,
#     once per machine. It compiles about 200 crates, Apache Arrow among them: unoptimized, because a
#     release build costs several times the compile time while the tests' runs of the unoptimized
#     tool still take only seconds.
#   - fmusim, the FMI project's reference simulator, twice (tests/python/test_fmusim*.py run both):
#     fmusim 0.7.0 (the Rust tool, `fmusim simulate ...`) and fmusim-c 0.0.39 (the last C release),
#     built by ../shared/tools/fmusim/build.sh from the sources there into
#     ${ELASTOGAP_TOOLS:-~/.cache/elastogap-tools}/fmusim, once per machine, when that folder is beside
#     the checkout (neither tool is in a package registry). The build installs cmake, pkg-config and
#     the libsundials, libxml2, libminizip and zlib headers with apt-get when missing, cargo fetches
#     the crates of the Rust tool's Cargo.lock, and it takes 1 minute for the C tool and 3 to 6 for
#     the Rust one on two cores. Without ../shared the tools are not built and the tests that need
#     them skip (under CI with ../shared there, a missing tool fails them instead).
#   - OMSimulator, OpenModelica's co-simulation tool (tests/python/test_omsimulator.py runs the FMU with
#     a body FMU under its default master), built by ../shared/tools/omsimulator/build.sh from the
#     sources there into ${ELASTOGAP_TOOLS:-~/.cache/elastogap-tools}/omsimulator, once per machine,
#     when that folder is beside the checkout (its PyPI package only downloads a binary from a site
#     this machine cannot reach). The build installs cmake and g++ with apt-get when missing and takes
#     about 6 minutes on two cores; the tests import its Python package from that folder's
#     lib/x86_64-linux-gnu with .venv's Python (which has the lxml it needs). Without ../shared it is
#     not built and the test skips (fails under CI with ../shared there).
#
# A second run finds everything in place and takes a second or two.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
started=$SECONDS

say() { printf 'setup: %s\n' "$*"; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }

# --- Rust toolchain (cannot be installed from here: it must be on the machine) -------------------
command -v cargo >/dev/null 2>&1 || die "cargo not found: install Rust stable (rustup) first"
for component in rustfmt clippy; do
    subcommand=${component/rustfmt/fmt}
    if ! cargo "$subcommand" --version >/dev/null 2>&1; then
        say "adding the missing Rust component $component"
        rustup component add "$component" || die "cargo $subcommand is missing and 'rustup component add $component' failed"
    fi
done

# --- Python interpreter for the venv ------------------------------------------------------------
python=""
for candidate in python3.11 python3; do
    if command -v "$candidate" >/dev/null 2>&1 \
        && "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
        python=$(command -v "$candidate")
        break
    fi
done
[ -n "$python" ] || die "python3.11 (or a newer python3) not found"

# --- Debian packages, only those missing --------------------------------------------------------
packages=()
# bindgen (via clang-sys) needs libclang and clang's builtin headers (stddef.h): libclang-dev brings
# both. LIBCLANG_PATH set by the user means a libclang of their own choosing.
package_installed() {
    [ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" = "installed" ]
}
if [ -z "${LIBCLANG_PATH:-}" ] && ! package_installed libclang-dev; then
    packages+=(libclang-dev)
fi
command -v rsvg-convert >/dev/null 2>&1 || packages+=(librsvg2-bin)
command -v valgrind >/dev/null 2>&1 || packages+=(valgrind)
# The win64 toolchain. Not pinned: bookworm-security moves rustc-web and rust-web-src together, and
# the check below refuses a pair that does not match.
for package in rustc-web cargo-web rust-web-src gcc-mingw-w64-x86-64 wine wine64; do
    package_installed "$package" || packages+=("$package")
done
# Debian's own python3.11 keeps venv's ensurepip in a separate package.
if ! "$python" -c 'import ensurepip, venv' >/dev/null 2>&1; then
    version=$("$python" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
    packages+=("python$version-venv")
fi

if [ "${#packages[@]}" -gt 0 ]; then
    [ "$(id -u)" -eq 0 ] || die "missing Debian packages (${packages[*]}): run this script as root"
    say "installing Debian packages: ${packages[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
fi

# --- The win64 toolchain: the std source must be that of the compiler -----------------------------
# build-std compiles /usr/lib/rustlib/src/rust with /usr/bin/rustc: win64_cargo.sh refuses a std
# source of another release (fails here, before any build) and names the versions.
win64_toolchain=$(bash "$root/packaging/win64_cargo.sh" --check-toolchain) || die "the win64 toolchain is not usable (above)"

# --- The project's venv -------------------------------------------------------------------------
venv="$root/.venv"
requirements="$root/packaging/requirements.txt"
stamp="$venv/.elastogap-requirements"
# What the venv was made from: the pins and the interpreter. A change of either reinstalls.
python_version() { "$1" -c 'import sys; print(sys.version.split()[0])' 2>/dev/null; }
wanted="$(sha256sum "$requirements" | cut -d' ' -f1) $(python_version "$python")"
check_imports() {
    "$venv/bin/python" -c 'import fmpy, fmpy.validation, fmu_manipulation_toolbox, numpy, pytest, ziglang, dask.distributed, matplotlib, scipy, jinja2, pefile, elftools' >/dev/null 2>&1 \
        && [ -x "$venv/bin/cargo-zigbuild" ]
}

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$wanted" ] && check_imports; then
    say "venv .venv up to date"
else
    if [ "$(python_version "$venv/bin/python")" != "$(python_version "$python")" ]; then
        say "creating venv .venv with $python ($(python_version "$python"))"
        rm -rf "$venv"
        "$python" -m venv "$venv"
    fi
    say "installing pinned Python packages into .venv (packaging/requirements.txt)"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$requirements"
    check_imports || die "the venv .venv was set up but fmpy/fmu-manipulation-toolbox/numpy/pytest/ziglang/dask/matplotlib/scipy/jinja2/pefile/pyelftools do not import or cargo-zigbuild is missing"
    printf '%s\n' "$wanted" >"$stamp"
fi

# --- cofmupy's venv -------------------------------------------------------------------------------
# Its own venv: cofmupy 1.0.0 pins fmpy==0.3.20, which .venv's fmpy 0.3.32 excludes.
cofmupy_venv="$root/.venv-cofmupy"
cofmupy_requirements="$root/packaging/requirements-cofmupy.txt"
cofmupy_stamp="$cofmupy_venv/.elastogap-requirements"
cofmupy_wanted="$(sha256sum "$cofmupy_requirements" | cut -d' ' -f1) $(python_version "$python")"
if [ -f "$cofmupy_stamp" ] && [ "$(cat "$cofmupy_stamp")" = "$cofmupy_wanted" ] \
    && "$cofmupy_venv/bin/python" -c 'import cofmupy' >/dev/null 2>&1; then
    say "venv .venv-cofmupy up to date"
else
    if [ "$(python_version "$cofmupy_venv/bin/python")" != "$(python_version "$python")" ]; then
        say "creating venv .venv-cofmupy with $python"
        rm -rf "$cofmupy_venv"
        "$python" -m venv "$cofmupy_venv"
    fi
    say "installing cofmupy and its pinned dependencies into .venv-cofmupy (packaging/requirements-cofmupy.txt)"
    "$cofmupy_venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$cofmupy_requirements"
    "$cofmupy_venv/bin/python" -c 'import cofmupy' >/dev/null 2>&1 || die "the venv .venv-cofmupy was set up but cofmupy does not import"
    printf '%s\n' "$cofmupy_wanted" >"$cofmupy_stamp"
fi

# --- fmi-sim, an importer the tests use -----------------------------------------------------------
fmi_sim_version=0.7.0
installed_crates=$(cargo install --list 2>/dev/null || true)
if grep -qx "fmi-sim v$fmi_sim_version:" <<<"$installed_crates"; then
    say "fmi-sim $fmi_sim_version installed"
else
    say "installing fmi-sim $fmi_sim_version with cargo install (compiles for many minutes)"
    install_started=$SECONDS
    cargo install fmi-sim --version "$fmi_sim_version" --locked --debug --quiet \
        || die "cargo install fmi-sim --version $fmi_sim_version --locked --debug failed"
    say "fmi-sim $fmi_sim_version installed in $((SECONDS - install_started)) s"
fi

# --- fmusim and fmusim-c, the FMI project's reference simulators, from ../shared ---------------------
# The same folder tests/python/reference_tools.py looks in.
fmusim_dir="${ELASTOGAP_TOOLS:-$HOME/.cache/elastogap-tools}/fmusim"
fmusim_sources="$(cd "$root/.." && pwd)/shared/tools/fmusim"
if [ -x "$fmusim_dir/fmusim" ] && [ -x "$fmusim_dir/fmusim-c" ]; then
    say "fmusim and fmusim-c in $fmusim_dir"
elif [ -f "$fmusim_sources/build.sh" ]; then
    say "building fmusim-c 0.0.39 and fmusim 0.7.0 from $fmusim_sources into $fmusim_dir (minutes, once per machine)"
    fmusim_started=$SECONDS
    bash "$fmusim_sources/build.sh" "$fmusim_dir" || die "bash $fmusim_sources/build.sh $fmusim_dir failed"
    say "fmusim and fmusim-c built in $((SECONDS - fmusim_started)) s"
else
    say "no $fmusim_sources beside the checkout: fmusim and fmusim-c not built (their tests skip)"
fi

# --- OMSimulator, OpenModelica's co-simulation tool, from ../shared -----------------------------------
# The same folder tests/python/reference_tools.py looks in.
omsimulator_dir="${ELASTOGAP_TOOLS:-$HOME/.cache/elastogap-tools}/omsimulator"
omsimulator_sources="$(cd "$root/.." && pwd)/shared/tools/omsimulator"
if [ -x "$omsimulator_dir/bin/OMSimulator" ]; then
    say "OMSimulator in $omsimulator_dir"
elif [ -f "$omsimulator_sources/build.sh" ]; then
    say "building OMSimulator from $omsimulator_sources into $omsimulator_dir (6 minutes, once per machine)"
    omsimulator_started=$SECONDS
    bash "$omsimulator_sources/build.sh" "$omsimulator_dir" \
        || die "bash $omsimulator_sources/build.sh $omsimulator_dir failed"
    say "OMSimulator built in $((SECONDS - omsimulator_started)) s"
else
    say "no $omsimulator_sources beside the checkout: OMSimulator not built (its test skips)"
fi

say "ready in $((SECONDS - started)) s (cargo $(cargo --version | cut -d' ' -f2), $("$venv/bin/python" --version); win64: $win64_toolchain)"
