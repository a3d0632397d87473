//! Timing of the FMU through its C ABI, called the way an importer calls it: the built shared
//! library is loaded with libloading and every call goes through a C function pointer. In the same
//! run, two baselines:
//!
//! - `laws/evaluate`: the bare force law (`GapLaw::evaluate`) called from Rust in a loop, the
//!   floor that one piece's three Gauss points cannot go below; `kinematic/*` times
//!   `integrate_step` against it;
//! - `c_baseline/*`: the same step written as a plain C FMU would (`benches/c/baseline_step.c`,
//!   compiled here with `cc -O2 -shared -fPIC` and loaded the same way), doing the same work.
//!
//! - `dynamic/*`: the dynamic mode (`m_eff` = 1 kg set through `fmi2SetReal`), whole
//!   `fmi2DoStep`s through the C ABI holding a whole contact (n = 1 and 1.5, H = 1.05 to 100
//!   contact durations) or a step inside one; each timed call restores an FMU state first, and
//!   `dynamic/restore_*` times the restore alone to be subtracted.
//!
//! - `fmi3_over_fmi2` (paired only, `fmi_abi/fmi3.rs`): `fmi3DoStep` against `fmi2DoStep` on the
//!   same kinematic step, out of contact and in contact (at most 1.05).
//!
//! Which library is timed: the packaged FMU named by `$ELASTOGAP_FMU` (unpacked as an importer
//! does), else the cdylib that `cargo bench` has just built next to this benchmark, so the numbers
//! never belong to a stale package; for FMI 3.0, `$ELASTOGAP3_FMU`, else that cdylib when built
//! with `--features fmi3` (it then exports both layers). `examples/bench_ratios.rs` turns the
//! estimates into the ratios of the performance targets:
//!
//! `cargo bench --features fmi3 --bench fmi_abi && cargo run --release --example bench_ratios`
//!
//! Every scenario is checked once outside the timing (status, contact, substep count, agreement of
//! the C baseline with the Rust physics), so a timing never belongs to a failed or different call.

#[path = "../tests/support/mod.rs"]
mod support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use elastogap::laws::GapLaw;
use elastogap::step::{Motion, SubstepLimits};
use elastogap::variables::Var;

use benchmarks::{
    bench_c_baseline, bench_do_step, bench_fmu_state, bench_io, bench_kinematic, bench_laws,
    bench_lifecycle,
};
use dynamic::{bench_dynamic, dynamic_cases};
use library::{built_library, check_value_references, vr, Component, Library, Loaded, INPUTS, OK};
use paired::{paired_ratios, quartiles, time_calls, Fmi2DoStep, PAIRED_ROUNDS};

// ---------------------------------------------------------------------------------------------
// The scenario: the single-mass impact of the accuracy tests, held at one instant of contact.
// ---------------------------------------------------------------------------------------------

const LAW: GapLaw = GapLaw {
    c: 1e4,
    d: 20.0,
    s_rel0: 0.0,
    n: 1.0,
    s_ref: 1.0,
    f_ref: 0.0,
};

/// Communication step; the substep counts come from `maxSubstepSize` alone.
const STEP: f64 = 1e-3;
const SUBSTEP_COUNTS: [u32; 3] = [1, 10, 100];
const MAX_SUBSTEP_COUNT: i32 = 1000;
/// Relative accuracy of the adaptive pieces (laws with n != 1), as the FMU uses by default.
const TOLERANCE: f64 = 1e-6;
/// Relative agreement of two integrals that are exact for n = 1 up to rounding.
const EXACT_AGREEMENT: f64 = 1e-9;
/// Relative agreement of the C baseline's fixed substeps with the Rust adaptive pieces for n != 1.
const C_FIXED_SUBSTEP_AGREEMENT: f64 = 1e-5;
/// The FMU's default `maxSubstepSize`: the C baseline's substep in the step-size comparisons.
const DEFAULT_SUBSTEPS_PER_STEP: u32 = 10;
/// Communication steps of the step-size comparisons, with their labels in benchmark ids.
const STEP_SIZES: [(f64, &str); 4] = [
    (1e-4, "0.1ms"),
    (1e-3, "1ms"),
    (1e-2, "10ms"),
    (3e-2, "30ms"),
];
/// With n = 1 the law is piecewise affine: the FMU integrates a step in contact whose damper stays
/// linear and whose v_rel keeps its sign (`IN_CONTACT`) in one closed-form piece, whatever
/// `maxSubstepSize`.
const PIECES_IN_CONTACT: u32 = 1;
/// The law evaluations a kinematic `fmi2DoStep` in contact cannot do without (n = 1, one smooth
/// stretch): 3 Gauss points for `f_mean` over the step (`f_next` is made when a master reads it,
/// which this one does not).
const KINEMATIC_GAUSS_POINTS_IN_CONTACT: f64 = 3.0;

/// Flange inputs (s_a, v_a, s_b, v_b): 1 mm into the gap and closing at 0.1 m/s, so the damper
/// stays linear (|d*v_rel| = 2 N < |f_c| = 10 N) over the whole step; or 10 mm apart and opening.
const IN_CONTACT: [f64; 4] = [0.0, 0.1, -1e-3, 0.0];
const OUT_OF_CONTACT: [f64; 4] = [0.0, -0.1, 1e-2, 0.0];
/// Accelerations of flange_a and flange_b supplied as order-1 derivatives of the velocities.
const INPUT_ACCELERATIONS: [f64; 2] = [-2.0, 2.0];

fn max_substep_size(substeps: u32) -> f64 {
    STEP / f64::from(substeps)
}

fn relative_motion(inputs: [f64; 4], accelerations: Option<[f64; 2]>) -> Motion {
    Motion {
        s: inputs[2] - inputs[0],
        v: inputs[3] - inputs[1],
        a: accelerations.map_or(0.0, |[a_a, a_b]| a_b - a_a),
    }
}

fn limits(substeps: u32) -> SubstepLimits {
    SubstepLimits {
        max_size: max_substep_size(substeps),
        max_count: MAX_SUBSTEP_COUNT as u32,
        tolerance: TOLERANCE,
    }
}

/// An entry point as a plain function pointer, resolved before the timing like an importer does
/// after loading.
macro_rules! entry {
    ($library:expr, $name:ident) => {
        *$library
            .binding()
            .$name
            .as_ref()
            .unwrap_or_else(|e| panic!("{} is not exported: {e}", stringify!($name)))
    };
}

#[path = "fmi_abi/benchmarks.rs"]
mod benchmarks;
#[path = "fmi_abi/c_baseline.rs"]
mod c_baseline;
#[path = "fmi_abi/dynamic.rs"]
mod dynamic;
#[path = "fmi_abi/library.rs"]
mod library;
#[path = "fmi_abi/master.rs"]
mod master;
#[path = "fmi_abi/paired.rs"]
mod paired;

#[path = "fmi_abi/fmi3.rs"]
mod fmi3_pairs;

/// Where criterion keeps its estimates: `$CARGO_TARGET_DIR/criterion`, else `target/criterion`.
fn criterion_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"))
        .join("criterion")
}

fn benches(c: &mut Criterion) {
    check_value_references();
    let library = Library::load();
    eprintln!("timing {}", library.origin);
    if std::env::var_os("ELASTOGAP_BENCH_FMI3_ONLY").is_some() {
        fmi3_pairs_only(&library);
        return;
    }
    if std::env::var_os("ELASTOGAP_BENCH_MASTER_ONLY").is_some() {
        master_rows_only(&library);
        return;
    }
    bench_laws(c);
    bench_kinematic(c);
    bench_do_step(c, &library);
    bench_c_baseline(c, &library);
    bench_io(c, &library);
    bench_lifecycle(c, &library);
    bench_fmu_state(c, &library);
    let mut dynamic = dynamic_cases(&library);
    bench_dynamic(c, &dynamic);
    let library3 = fmi3_pairs::Library3::load(&library);
    match &library3 {
        Ok(library3) => eprintln!("pairing FMI 3.0 with FMI 2.0: {}", library3.origin),
        Err(why) => eprintln!("fmi3DoStep against fmi2DoStep not measured: {why}"),
    }
    let mut pairs = library3
        .as_ref()
        .map(|library3| fmi3_pairs::pairs(&library, library3));
    paired_ratios(
        &library,
        &mut dynamic,
        pairs.as_deref_mut().map_err(|why| why.as_str()),
    );
}

/// `ELASTOGAP_BENCH_MASTER_ONLY=1`: only the rows of the step real masters take, each median
/// over the prescribed step printed (a quick look while working on the coupling; nothing is
/// written).
fn master_rows_only(library: &Library) {
    let baseline = c_baseline::CBaseline::build();
    let mut rows = master::MasterRows::new(library, &baseline);
    for _ in 0..PAIRED_ROUNDS {
        rows.round(&baseline);
    }
    let report = rows.report();
    for (key, value) in report.as_object().into_iter().flatten() {
        eprintln!(
            "{key}: {} ns, {}",
            value["ns_per_step"][1], value["over_prescribed"][1]
        );
    }
}

/// `ELASTOGAP_BENCH_FMI3_ONLY=1`: only the pairs of `fmi3DoStep` against `fmi2DoStep`, their
/// quartiles printed (a quick look while working on the FMI 3.0 layer; nothing is written).
fn fmi3_pairs_only(library: &Library) {
    let library3 = fmi3_pairs::Library3::load(library).unwrap_or_else(|why| panic!("{why}"));
    let do_step = entry!(library, fmi2DoStep);
    let set_real = entry!(library, fmi2SetReal);
    let mut pairs = fmi3_pairs::pairs(library, &library3);
    for round in 0..PAIRED_ROUNDS {
        for pair in pairs.iter_mut() {
            pair.round(round, set_real, do_step);
        }
    }
    for pair in pairs.iter_mut() {
        let (key, value) = pair.report();
        eprintln!("{key}: {}", value["fmi3_over_fmi2"]);
    }
}

fn config() -> Criterion {
    // Short runs: the whole benchmark finishes in a few minutes on two shared cores.
    Criterion::default()
        .warm_up_time(Duration::from_millis(800))
        .measurement_time(Duration::from_secs(2))
        .sample_size(20)
}

criterion_group! {
    name = fmi_abi;
    config = config();
    targets = benches
}
criterion_main!(fmi_abi);
