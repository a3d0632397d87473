//! The paired ratios: each target's two sides timed in alternation within each round.

use std::ffi::CString;
use std::hint::black_box;
use std::time::Instant;

use elastogap::laws::GapLaw;
use elastogap::step::integrate_step;
use elastogap::variables::Var;
use fmi_sys::fmi2;

use super::benchmarks::{evaluate_all, evaluate_all_with, evaluation_points, EVALUATION_POINTS};
use super::c_baseline::{CBaseline, CInstance};
use super::dynamic::DynamicCase;
use super::fmi3_pairs;
use super::library::{callbacks, Component, Library, INPUTS, OK};
use super::master::MasterRows;
use super::{
    criterion_dir, limits, max_substep_size, relative_motion, DEFAULT_SUBSTEPS_PER_STEP,
    EXACT_AGREEMENT, IN_CONTACT, KINEMATIC_GAUSS_POINTS_IN_CONTACT, LAW, PIECES_IN_CONTACT, STEP,
    STEP_SIZES, SUBSTEP_COUNTS,
};

// ---------------------------------------------------------------------------------------------
// Paired ratios: each target's two sides timed in alternation
// ---------------------------------------------------------------------------------------------

/// Rounds of the paired measurement; each round times every side once, for about 2 ms each.
pub(crate) const PAIRED_ROUNDS: usize = 101;

/// Mean time per call, ns, of `calls` calls of `body`.
pub(crate) fn time_calls(calls: u32, mut body: impl FnMut()) -> f64 {
    let start = Instant::now();
    for _ in 0..calls {
        body();
    }
    start.elapsed().as_secs_f64() * 1e9 / f64::from(calls)
}

/// The median and the quartiles of `values`.
pub(crate) fn quartiles(mut values: Vec<f64>) -> [f64; 3] {
    values.sort_by(f64::total_cmp);
    let at = |q: f64| values[((values.len() - 1) as f64 * q).round() as usize];
    [at(0.25), at(0.5), at(0.75)]
}

/// Criterion times one benchmark after another, so on a shared machine a change of speed between
/// two of them (another process, the CPU clock) enters their ratio. Here the two sides of each
/// target are timed in alternation, many times over, and the ratio is taken within each round:
/// the median of those ratios is what `examples/bench_ratios.rs` reports as the targets.
pub(crate) fn paired_ratios(
    library: &Library,
    dynamic: &mut [DynamicCase],
    fmi3: Result<&mut [fmi3_pairs::Pair], &str>,
) {
    let set_state = entry!(library, fmi2SetFMUstate);
    let law_1_5 = GapLaw { n: 1.5, ..LAW };
    let do_step = entry!(library, fmi2DoStep);
    let set_real = entry!(library, fmi2SetReal);
    let instantiate = entry!(library, fmi2Instantiate);
    let setup = entry!(library, fmi2SetupExperiment);
    let enter = entry!(library, fmi2EnterInitializationMode);
    let exit = entry!(library, fmi2ExitInitializationMode);
    let free = entry!(library, fmi2FreeInstance);
    let baseline = CBaseline::build();
    let c_instance = baseline.instance(10, IN_CONTACT);
    let fmu_10 = Component::ready(library, "paired 10", 10, IN_CONTACT);
    let fmu_100 = Component::ready(library, "paired 100", 100, IN_CONTACT);
    let points = evaluation_points();
    let name = CString::new("paired lifecycle").unwrap();
    let callbacks = callbacks();
    let (mut t_fmu_10, mut t_c_10, mut t_fmu_100) = (0.0, 0.0, 0.0);
    let mut steps = step_comparisons(library, &baseline);
    let mut master = MasterRows::new(library, &baseline);

    let mut in_contact_over_gauss_points = Vec::with_capacity(PAIRED_ROUNDS);
    let mut step_10_over_c = Vec::with_capacity(PAIRED_ROUNDS);
    let mut lifecycle_over_3000_evaluations = Vec::with_capacity(PAIRED_ROUNDS);
    let mut fmi3 = fmi3;
    for round in 0..PAIRED_ROUNDS {
        let evaluation = time_calls(1_000, || {
            black_box(evaluate_all(&points));
        }) / EVALUATION_POINTS as f64;
        // Every step's inputs set before it, as a master feeds a prescribed motion.
        // SAFETY (all calls below): live instances, arrays of the announced lengths.
        let in_contact = time_calls(600, || unsafe {
            set_real(fmu_100.raw, INPUTS.as_ptr(), 4, IN_CONTACT.as_ptr());
            assert_eq!(do_step(fmu_100.raw, t_fmu_100, STEP, 1), OK);
            t_fmu_100 += STEP;
        });
        let fmu_step = time_calls(4_000, || unsafe {
            set_real(fmu_10.raw, INPUTS.as_ptr(), 4, IN_CONTACT.as_ptr());
            assert_eq!(do_step(fmu_10.raw, t_fmu_10, STEP, 1), OK);
            t_fmu_10 += STEP;
        });
        let c_step = time_calls(4_000, || unsafe {
            baseline.set_inputs(c_instance.raw, IN_CONTACT);
            assert_eq!((baseline.do_step)(c_instance.raw, t_c_10, STEP), 0);
            t_c_10 += STEP;
        });
        let lifecycle = time_calls(4_000, || unsafe {
            let raw = instantiate(
                name.as_ptr(),
                fmi2::fmi2Type_fmi2CoSimulation,
                library.guid.as_ptr(),
                library.resource_uri.as_ptr(),
                &*callbacks,
                0,
                0,
            );
            assert_eq!(setup(raw, 0, 0.0, 0.0, 0, 0.0), OK);
            assert_eq!(enter(raw), OK);
            assert_eq!(exit(raw), OK);
            free(raw);
        });
        in_contact_over_gauss_points
            .push(in_contact / (KINEMATIC_GAUSS_POINTS_IN_CONTACT * evaluation));
        step_10_over_c.push(fmu_step / c_step);
        lifecycle_over_3000_evaluations.push(lifecycle / (3000.0 * evaluation));
        for comparison in &mut steps {
            comparison.round(set_real, do_step, &baseline);
        }
        master.round(&baseline);
        if let Ok(pairs) = &mut fmi3 {
            for pair in pairs.iter_mut() {
                pair.round(round, set_real, do_step);
            }
        }
        let evaluation_1_5 = time_calls(200, || {
            black_box(evaluate_all_with(&law_1_5, &points));
        }) / EVALUATION_POINTS as f64;
        for case in dynamic.iter_mut() {
            let floor = if case.n == 1.0 {
                evaluation
            } else {
                evaluation_1_5
            };
            case.round(set_state, do_step, floor);
        }
    }
    let mut report = serde_json::json!({
        "library": library.origin,
        "rounds": PAIRED_ROUNDS,
        "do_step_in_contact_over_3_evaluations": quartiles(in_contact_over_gauss_points),
        "do_step_10_over_c_baseline_10": quartiles(step_10_over_c),
        "lifecycle_over_3000_evaluations": quartiles(lifecycle_over_3000_evaluations),
    });
    let mut comparisons = serde_json::Map::new();
    for comparison in steps {
        comparisons.insert(
            comparison.key.clone(),
            serde_json::json!({
                "h": comparison.h,
                "max_substep_size": max_substep_size(comparison.substeps),
                "c_substeps": comparison.c_substeps,
                "fmu_pieces": PIECES_IN_CONTACT,
                "do_step_over_c_baseline": quartiles(comparison.ratios),
            }),
        );
    }
    report["do_step_over_c_baseline"] = serde_json::Value::Object(comparisons);
    let mut cases = serde_json::Map::new();
    for case in dynamic.iter_mut() {
        cases.insert(case.id.clone(), case.report());
    }
    report["dynamic"] = serde_json::Value::Object(cases);
    report["master"] = master.report();
    report["fmi3_over_fmi2"] = match fmi3 {
        Ok(pairs) => {
            serde_json::Value::Object(pairs.iter_mut().map(|pair| pair.report()).collect())
        }
        Err(why) => serde_json::json!({ "not_measured": why }),
    };
    let path = criterion_dir().join("paired_ratios.json");
    std::fs::create_dir_all(path.parent().unwrap()).expect("criterion's folder");
    std::fs::write(&path, serde_json::to_string_pretty(&report).unwrap()).expect("write ratios");
    eprintln!("paired ratios (quartiles) in {}: {report}", path.display());
}

/// A whole `fmi2DoStep` in contact against the C baseline's, both with the same inputs, step and
/// `maxSubstepSize`: n = 1, so the FMU integrates one Gauss piece where the C baseline integrates
/// its fixed substeps.
struct StepComparison<'a> {
    key: String,
    fmu: Component<'a>,
    c: CInstance<'a>,
    h: f64,
    substeps: u32,
    c_substeps: u32,
    calls: u32,
    time: (f64, f64),
    ratios: Vec<f64>,
}

impl StepComparison<'_> {
    fn round(&mut self, set_real: Fmi2SetReal, do_step: Fmi2DoStep, baseline: &CBaseline) {
        let (raw, c_raw, h) = (self.fmu.raw, self.c.raw, self.h);
        let (t_fmu, t_c) = &mut self.time;
        // SAFETY (both): live instances, arrays of the announced lengths.
        let fmu = time_calls(self.calls, || unsafe {
            set_real(raw, INPUTS.as_ptr(), 4, IN_CONTACT.as_ptr());
            assert_eq!(do_step(raw, *t_fmu, h, 1), OK);
            *t_fmu += h;
        });
        let c = time_calls(self.calls, || unsafe {
            baseline.set_inputs(c_raw, IN_CONTACT);
            assert_eq!((baseline.do_step)(c_raw, *t_c, h), 0);
            *t_c += h;
        });
        self.ratios.push(fmu / c);
    }
}

pub(crate) type Fmi2SetReal = unsafe extern "C" fn(
    fmi2::fmi2Component,
    *const fmi2::fmi2ValueReference,
    usize,
    *const fmi2::fmi2Real,
) -> fmi2::fmi2Status;

pub(crate) type Fmi2DoStep = unsafe extern "C" fn(
    fmi2::fmi2Component,
    fmi2::fmi2Real,
    fmi2::fmi2Real,
    fmi2::fmi2Boolean,
) -> fmi2::fmi2Status;

/// Every `maxSubstepSize` of `SUBSTEP_COUNTS` at the step `STEP`, and every step of `STEP_SIZES`
/// at the default `maxSubstepSize`; each side called about 1 ms per round.
fn step_comparisons<'a>(library: &'a Library, baseline: &'a CBaseline) -> Vec<StepComparison<'a>> {
    let do_step = entry!(library, fmi2DoStep);
    let mut configurations: Vec<(String, f64, u32)> = SUBSTEP_COUNTS
        .iter()
        .map(|&n| (format!("h_1ms_c_substeps_{n}"), STEP, n))
        .collect();
    for (h, label) in STEP_SIZES {
        configurations.push((
            format!("h_{label}_max_substep_1e-4"),
            h,
            DEFAULT_SUBSTEPS_PER_STEP,
        ));
    }
    configurations
        .into_iter()
        .map(|(key, h, substeps)| {
            let fmu = Component::ready(library, &key, substeps, IN_CONTACT);
            let c = baseline.instance(substeps, IN_CONTACT);
            let motion = relative_motion(IN_CONTACT, None);
            let limits = limits(substeps);
            let rust = integrate_step(&LAW, motion, h, limits);
            let [_, _, c_substeps] = baseline.integrate(&LAW, motion, h, limits);
            assert_eq!(rust.substeps, PIECES_IN_CONTACT, "{key}");
            assert_eq!(rust.transition_count, 0, "{key}");
            // One step each, checked: same mean force, so both do the same work when timed.
            // SAFETY: live instances.
            unsafe {
                assert_eq!(do_step(fmu.raw, 0.0, h, 1), OK);
                assert_eq!((baseline.do_step)(c.raw, 0.0, h), 0);
            }
            // SAFETY: a live C instance.
            let (rust_mean, c_mean) = (fmu.real(Var::FMean), unsafe { (baseline.f_mean)(c.raw) });
            assert!(
                (rust_mean - c_mean).abs() <= EXACT_AGREEMENT * c_mean.abs(),
                "{key}: {rust_mean} vs {c_mean}"
            );
            let started = Instant::now();
            let mut time = h;
            for _ in 0..20 {
                // SAFETY: a live instance.
                unsafe { assert_eq!((baseline.do_step)(c.raw, time, h), 0) };
                time += h;
            }
            let per_call = started.elapsed().as_secs_f64() * 1e9 / 20.0;
            StepComparison {
                key,
                fmu,
                c,
                h,
                substeps,
                c_substeps: c_substeps as u32,
                calls: (1e6 / per_call).clamp(20.0, 4000.0) as u32,
                time: (h, time),
                ratios: Vec::with_capacity(PAIRED_ROUNDS),
            }
        })
        .collect()
}
