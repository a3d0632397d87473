//! The performance targets, from the estimates that `benches/fmi_abi.rs` left in
//! `target/criterion/<group>/<bench>/new/estimates.json`:
//!
//! `cargo bench --bench fmi_abi && cargo run --release --example bench_ratios`
//!
//! Every time is criterion's median time per iteration. The verdicts use the paired measurement
//! that the benchmark makes last (`paired_ratios.json`): both sides of a target timed in
//! alternation, the ratio taken per round, so a change of machine speed between two criterion
//! benchmarks does not enter it. The floor is one bare evaluation of the force law; one substep
//! integrates the law at 3 Gauss points, so "3 evaluations" is what a substep cannot do without.
//!
//! With n = 1 the FMU integrates a step in contact in one Gauss piece per smooth stretch, whatever
//! `maxSubstepSize`; the C baseline keeps its fixed substeps. The per-substep columns divide by the
//! pieces each side integrates (one for the FMU, `maxSubstepSize`'s count for C).
//!
//! Targets:
//! 1. a kinematic `fmi2DoStep` in contact with no switch (n = 1, one smooth stretch) costs at most
//!    2x the 3 law evaluations it cannot do without: the 3 Gauss points for `f_mean` over the step
//!    (`f_next` is made only when a master reads it). The step, not the substep, is the unit: with
//!    n = 1 the FMU integrates one Gauss piece per smooth stretch whatever `maxSubstepSize`.
//! 2. a whole `fmi2DoStep` with 10 substeps is no slower than the C baseline with 10 substeps;
//! 3. instantiate + setupExperiment + enter/exitInitializationMode + freeInstance costs no more
//!    than 1,000 pieces at the floor (3,000 bare evaluations).
//!
//! Dynamic mode (`m_eff` = 1 kg, c = 1e6, d = 200, a body at 1 m/s onto a fixed housing), each in
//! bare evaluations of the same law measured in the same run:
//! 4. n = 1, an `fmi2DoStep` holding a whole contact (touch-down, both damper-bound switches,
//!    lift-off) at H = 1.05, 10 and 100 contact durations: at most 300;
//! 5. n = 1, an `fmi2DoStep` of 0.05 contact durations in the middle of the contact: at most 50;
//! 6. n = 1.5, a step holding a whole contact, with the impulse within 1e-6 (relative) at the
//!    default relativeTolerance = 1e-6: at most 1,000.
//!
//! The dynamic rows restore an FMU state before every step (so every timed step is the same one);
//! the restore alone is timed beside it and subtracted.
//!
//! FMI 3.0, paired only:
//! 7. `fmi3DoStep` over `fmi2DoStep` on the same kinematic step (one closed-form piece,
//!    `maxSubstepSize` = 0.1 ms): at most 1.05 in contact, 1.10 out of contact (the four output
//!    arguments are the call's own), 1.2 in contact with early return allowed (no switch in the
//!    step).
//!    Measured when the benchmark ran with `--features fmi3` (the cdylib exports both layers) or
//!    with `$ELASTOGAP3_FMU` beside `$ELASTOGAP_FMU`; otherwise the report says why not.
//!
//! The step real masters take (`master`, paired only): a 1 kg body moved by a master that sets its
//! position and velocity, steps and reads the force it holds, in every configuration (`heldForce`
//! None; Auto with `m_eff` 0 and 1 kg; FMean and FNext with 1 kg) and scenario (free flight far
//! from the stop, the free step before a touch-down, resting on the stop, the steps of a whole
//! contact), against the prescribed step (None) in the same scenario and the C step fed the same
//! inputs:
//! 8. a free step: at most 1.05 the prescribed step;
//! 9. resting in contact: at most 1.5 with a mass, 1.2 without.
//!
//! Exits with status 1 if an estimate is missing, never because a target is missed: timings are
//! reported, not asserted.

use std::path::{Path, PathBuf};

#[path = "../tests/support/performance_table.rs"]
mod performance_table;

/// Gauss points, hence law evaluations, that one substep's quadrature needs.
const EVALUATIONS_PER_SUBSTEP: f64 = 3.0;
const SUBSTEP_COUNTS: [u32; 3] = [1, 10, 100];
/// Pieces the FMU integrates for a step of `benches/fmi_abi.rs` in contact (n = 1).
const PIECES_IN_CONTACT: u32 = 1;
/// The step-size labels of `benches/fmi_abi.rs`.
const STEP_LABELS: [&str; 4] = ["0.1ms", "1ms", "10ms", "30ms"];

struct Estimate {
    /// Median time per iteration, ns.
    median: f64,
    lower: f64,
    upper: f64,
    /// Elements per iteration, when the benchmark declared a throughput.
    elements: Option<f64>,
}

struct Estimates {
    root: PathBuf,
}

impl Estimates {
    fn criterion_dir() -> PathBuf {
        if let Some(home) = std::env::var_os("CRITERION_HOME") {
            return PathBuf::from(home);
        }
        let target = std::env::var_os("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"));
        target.join("criterion")
    }

    fn get(&self, id: &str) -> Result<Estimate, String> {
        let dir = self.root.join(id).join("new");
        let read = |name: &str| -> Result<serde_json::Value, String> {
            let path = dir.join(name);
            let text = std::fs::read_to_string(&path).map_err(|e| {
                format!(
                    "{}: {e} (run `cargo bench --bench fmi_abi` first)",
                    path.display()
                )
            })?;
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
        };
        let estimates = read("estimates.json")?;
        let number = |pointer: &str| {
            estimates
                .pointer(pointer)
                .and_then(serde_json::Value::as_f64)
                .ok_or_else(|| format!("{id}: no {pointer} in estimates.json"))
        };
        let elements = read("benchmark.json")
            .ok()
            .and_then(|b| b.pointer("/throughput/Elements").and_then(|e| e.as_f64()));
        Ok(Estimate {
            median: number("/median/point_estimate")?,
            lower: number("/median/confidence_interval/lower_bound")?,
            upper: number("/median/confidence_interval/upper_bound")?,
            elements,
        })
    }
}

impl Estimates {
    /// The paired measurement `benches/fmi_abi.rs` writes after the criterion benchmarks.
    fn paired(&self) -> Result<serde_json::Value, String> {
        self.json("paired_ratios.json")
    }

    fn json(&self, name: &str) -> Result<serde_json::Value, String> {
        let path = self.root.join(name);
        let text = std::fs::read_to_string(&path).map_err(|e| {
            format!(
                "{}: {e} (run `cargo bench --bench fmi_abi` first)",
                path.display()
            )
        })?;
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
    }
}

/// The three numbers (quartiles) under `key` of a JSON object, if it holds exactly three.
fn triple(object: &serde_json::Value, key: &str) -> Option<[f64; 3]> {
    let values: Vec<f64> = object
        .get(key)?
        .as_array()?
        .iter()
        .filter_map(|x| x.as_f64())
        .collect();
    values.try_into().ok()
}

fn verdict(ratio: f64, limit: f64) -> &'static str {
    if ratio <= limit {
        "met"
    } else {
        "MISSED"
    }
}

fn main() {
    if let Err(message) = run() {
        eprintln!("{message}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let estimates = Estimates {
        root: Estimates::criterion_dir(),
    };
    let evaluate = estimates.get("laws/evaluate")?;
    let evaluation = evaluate.median / evaluate.elements.unwrap_or(1.0);
    let substep_floor = EVALUATIONS_PER_SUBSTEP * evaluation;

    println!("Estimates from {}", estimates.root.display());
    println!("Median time per call; 95% confidence interval of the median in brackets.\n");
    println!("Baseline: one bare GapLaw::evaluate (Rust loop)   {evaluation:8.2} ns");
    println!("          3 evaluations (one substep's Gauss points) {substep_floor:8.2} ns\n");

    println!(
        "{:<44} {:>11} {:>23} {:>12} {:>10} {:>10} {:>9}",
        "benchmark", "median ns", "95% CI ns", "ns/piece", "/3 evals", "/1 eval", "/C"
    );
    let row = |id: &str, substeps: Option<u32>, c_id: Option<&str>| -> Result<f64, String> {
        let e = estimates.get(id)?;
        let per_substep = substeps.map(|n| e.median / f64::from(n));
        let c_ratio = match c_id {
            Some(c_id) => Some(e.median / estimates.get(c_id)?.median),
            None => None,
        };
        let show = |value: Option<f64>, digits: usize| {
            value.map_or(String::from("-"), |v| format!("{v:.digits$}"))
        };
        println!(
            "{:<44} {:>11.1} {:>23} {:>12} {:>10} {:>10} {:>9}",
            id,
            e.median,
            format!("[{:.1}, {:.1}]", e.lower, e.upper),
            show(per_substep, 2),
            show(per_substep.map(|p| p / substep_floor), 2),
            show(per_substep.map(|p| p / evaluation), 2),
            show(c_ratio, 2),
        );
        Ok(e.median)
    };

    for substeps in SUBSTEP_COUNTS {
        for suffix in ["", "_with_derivatives"] {
            let c_id = format!("c_baseline/contact_{substeps}{suffix}");
            row(
                &format!("do_step/contact_{substeps}{suffix}"),
                Some(PIECES_IN_CONTACT),
                Some(&c_id),
            )?;
            row(&c_id, Some(substeps), None)?;
        }
        row(
            &format!("kinematic/integrate_step_{substeps}"),
            Some(PIECES_IN_CONTACT),
            None,
        )?;
    }
    for substeps in SUBSTEP_COUNTS {
        for suffix in ["", "_with_derivatives"] {
            row(&format!("do_step/free_{substeps}{suffix}"), None, None)?;
        }
    }
    for id in [
        "io/set_all_inputs",
        "io/get_all_outputs",
        "io/communication_step_10",
        "lifecycle/instantiate_initialize_free",
        "fmu_state/get_into_existing",
        "fmu_state/get_new_and_free",
        "fmu_state/set",
        "fmu_state/serialize",
        "fmu_state/deserialize_into_existing",
    ] {
        row(id, None, None)?;
    }

    let per_substep = estimates.get("do_step/contact_100")?.median / f64::from(PIECES_IN_CONTACT);
    let step_10 = estimates.get("do_step/contact_10")?.median;
    let c_step_10 = estimates.get("c_baseline/contact_10")?.median;
    let lifecycle = estimates
        .get("lifecycle/instantiate_initialize_free")?
        .median;
    let paired = estimates.paired()?;
    let quartiles = |key: &str| -> Result<[f64; 3], String> {
        triple(&paired, key).ok_or_else(|| format!("paired_ratios.json: no quartiles for {key}"))
    };
    let targets = [
        (
            "1. kinematic fmi2DoStep in contact, n = 1 / 3 evals",
            per_substep / (2.0 * substep_floor),
            quartiles("do_step_in_contact_over_3_evaluations")?,
            2.0,
        ),
        (
            "2. fmi2DoStep with 10 substeps / C baseline with 10 substeps",
            step_10 / c_step_10,
            quartiles("do_step_10_over_c_baseline_10")?,
            1.0,
        ),
        (
            "3. instantiate+initialize+free / 3,000 evals",
            lifecycle / (1000.0 * substep_floor),
            quartiles("lifecycle_over_3000_evaluations")?,
            1.0,
        ),
    ];
    println!(
        "\nTargets. 'paired': median [quartiles] of the ratio over {} rounds that time both sides in\n\
         alternation (robust against the machine's speed drifting between benchmarks; the verdict);\n\
         'criterion': the ratio of the two criterion medians above.\n",
        paired.get("rounds").and_then(|r| r.as_u64()).unwrap_or(0)
    );
    println!(
        "{:<66} {:>22} {:>10} {:>6}  verdict",
        "target", "paired", "criterion", "limit"
    );
    for (name, criterion_ratio, [low, median, high], limit) in targets {
        println!(
            "{name:<66} {:>22} {criterion_ratio:>10.3} {limit:>6.1}  {}",
            format!("{median:.3} [{low:.3}, {high:.3}]"),
            verdict(median, limit)
        );
    }
    println!(
        "   (kinematic fmi2DoStep in contact = {per_substep:.2} ns = {:.2} bare evaluations)",
        per_substep / evaluation
    );
    kinematic(&estimates, evaluation)?;
    step_comparisons(&paired)?;
    dynamic(&estimates, &paired, evaluation)?;
    fmi3_over_fmi2(&paired)?;
    println!(
        "\nThe step real masters take (targets 8 and 9): ns per step with the master's set and get\n\
         calls, and paired ratios, median [quartiles].\n"
    );
    print!("{}", performance_table::master_table(&paired)?);
    Ok(())
}

/// `fmi3DoStep` against `fmi2DoStep` on the same step, paired (target 7).
fn fmi3_over_fmi2(paired: &serde_json::Value) -> Result<(), String> {
    println!("\nfmi3DoStep / fmi2DoStep on the same kinematic step (H = 1 ms), paired: median [quartiles].\n");
    let Some(pairs) = paired.get("fmi3_over_fmi2").and_then(|v| v.as_object()) else {
        println!("   not in paired_ratios.json: run the benchmark again (`--features fmi3`)");
        return Ok(());
    };
    if let Some(why) = pairs.get("not_measured").and_then(|v| v.as_str()) {
        println!("   not measured: {why}");
        return Ok(());
    }
    println!(
        "{:<40} {:>18} {:>18} {:>24} {:>6}  verdict",
        "step", "fmi2DoStep ns", "fmi3DoStep ns", "fmi3 / fmi2", "limit"
    );
    for (key, value) in pairs {
        let quartiles = |k: &str| {
            triple(value, k).ok_or_else(|| format!("paired_ratios.json: no {k} for {key}"))
        };
        let [low, median, high] = quartiles("fmi3_over_fmi2")?;
        let [_, fmi2_ns, _] = quartiles("fmi2_ns")?;
        let [_, fmi3_ns, _] = quartiles("fmi3_ns")?;
        let limit = value.get("limit").and_then(|v| v.as_f64());
        println!(
            "{key:<40} {fmi2_ns:>18.1} {fmi3_ns:>18.1} {:>24} {:>6}  {}",
            format!("{median:.3} [{low:.3}, {high:.3}]"),
            limit.map_or("-".to_string(), |l| format!("{l:.2}")),
            limit.map_or("(information)", |l| verdict(median, l))
        );
    }
    Ok(())
}

/// `integrate_step` over one whole contact (touch-down, both damper bounds, lift-off) in steps of
/// 0.1 to 30 ms, in bare evaluations of the law (n = 1) measured in the same run.
fn kinematic(estimates: &Estimates, evaluation: f64) -> Result<(), String> {
    let counts = estimates.json("kinematic_counts.json")?;
    let evaluate_1_5 = estimates.get("laws/evaluate_n1.5")?;
    let evaluation_1_5 = evaluate_1_5.median / evaluate_1_5.elements.unwrap_or(1.0);
    println!(
        "\nintegrate_step over one whole contact in the step (c = 1e4, d = 20; tolerance 1e-6 for n = 1.5).\n\
         'x eval': median time / one bare evaluation of the same law ({evaluation:.2} ns for n = 1,\n\
         {evaluation_1_5:.2} ns for n = 1.5, whose powf the spring force needs); 'evals': law evaluations\n\
         the step makes (kink indicators not counted); 'ns/eval': median time / evals;\n\
         'error': relative impulse error against the same integration at tolerance 1e-12.\n"
    );
    println!(
        "{:<44} {:>11} {:>9} {:>7} {:>7} {:>10} {:>10}",
        "benchmark", "median ns", "x eval", "pieces", "evals", "ns/eval", "error"
    );
    for label in STEP_LABELS {
        for kind in ["n1", "n1.5", "n1.5_max_1e-4"] {
            let name = format!("{kind}_whole_contact_{label}");
            let e = estimates.get(&format!("kinematic/{name}"))?;
            let count = counts
                .get(&name)
                .ok_or_else(|| format!("kinematic_counts.json: no {name}"))?;
            let number = |key: &str| count.get(key).and_then(|v| v.as_f64()).unwrap_or(f64::NAN);
            println!(
                "{:<44} {:>11.1} {:>9.1} {:>7} {:>7} {:>10.2} {:>10.1e}",
                format!("kinematic/{name}"),
                e.median,
                e.median
                    / if kind == "n1" {
                        evaluation
                    } else {
                        evaluation_1_5
                    },
                number("pieces"),
                number("evaluations"),
                e.median / number("evaluations"),
                number("impulse_error"),
            );
        }
    }
    Ok(())
}

/// The paired `fmi2DoStep` against the C baseline at every `maxSubstepSize` of the list and every
/// step size, the FMU with one piece (n = 1), C with its fixed substeps.
fn step_comparisons(paired: &serde_json::Value) -> Result<(), String> {
    let comparisons = paired
        .get("do_step_over_c_baseline")
        .and_then(|v| v.as_object())
        .ok_or("paired_ratios.json: no do_step_over_c_baseline")?;
    println!(
        "\nfmi2DoStep in contact (n = 1, one piece) / C baseline (fixed substeps), paired: median\n\
         [quartiles]; below 1 the FMU is ahead.\n"
    );
    println!(
        "{:<36} {:>8} {:>10} {:>10} {:>24}  verdict",
        "comparison", "H ms", "max sub", "C subst.", "FMU / C"
    );
    for (key, value) in comparisons {
        let number = |k: &str| value.get(k).and_then(|v| v.as_f64()).unwrap_or(f64::NAN);
        let [low, median, high] = triple(value, "do_step_over_c_baseline")
            .ok_or_else(|| format!("paired_ratios.json: no quartiles for {key}"))?;
        println!(
            "{key:<36} {:>8.1} {:>10.0e} {:>10} {:>24}  {}",
            number("h") * 1e3,
            number("max_substep_size"),
            number("c_substeps"),
            format!("{median:.3} [{low:.3}, {high:.3}]"),
            if median < 1.0 { "ahead" } else { "BEHIND" }
        );
    }
    Ok(())
}

/// The dynamic-mode targets (`m_eff` = 1 kg): whole `fmi2DoStep`s through the C ABI in bare
/// evaluations of the same law, paired (the verdict) and from the criterion medians.
fn dynamic(
    estimates: &Estimates,
    paired: &serde_json::Value,
    evaluation: f64,
) -> Result<(), String> {
    let cases = paired
        .get("dynamic")
        .and_then(|v| v.as_object())
        .ok_or("paired_ratios.json: no dynamic")?;
    let evaluate_1_5 = estimates.get("laws/evaluate_n1.5")?;
    let evaluation_1_5 = evaluate_1_5.median / evaluate_1_5.elements.unwrap_or(1.0);
    println!(
        "\nDynamic mode (m_eff = 1 kg; c = 1e6, d = 200; 1 m/s onto a fixed housing): one fmi2DoStep\n\
         through the C ABI / one bare evaluation of the same law. 'paired': median [quartiles] over\n\
         the rounds, the verdict; 'criterion': (median of restore+step - median of restore) / the\n\
         criterion evaluation; '+ f_next': the step and an fmi2GetReal of f_next after it, as a\n\
         master that steps all units at once pays (f_next is made when first read); 'evals': law or\n\
         closed-form evaluations of the step's two plans (f_mean and f_next); 'error': relative\n\
         impulse error against tolerance 1e-12 (limit 1e-6).\n"
    );
    println!(
        "{:<30} {:>7} {:>9} {:>20} {:>9} {:>20} {:>6} {:>6} {:>8}  verdict",
        "case",
        "H/T",
        "step ns",
        "paired x eval",
        "criterion",
        "+ f_next",
        "limit",
        "evals",
        "error"
    );
    for (id, case) in cases {
        let number = |k: &str| case.get(k).and_then(|v| v.as_f64()).unwrap_or(f64::NAN);
        let triple = |k: &str| -> Result<[f64; 3], String> {
            triple(case, k).ok_or_else(|| format!("paired_ratios.json: no {k} for {id}"))
        };
        let [low, median, high] = triple("step_over_evaluation")?;
        let [j_low, j_median, j_high] = triple("step_and_f_next_over_evaluation")?;
        let [_, step_ns, _] = triple("step_ns")?;
        let floor = if number("n") == 1.0 {
            evaluation
        } else {
            evaluation_1_5
        };
        let criterion = (estimates.get(&format!("dynamic/{id}"))?.median
            - estimates.get(&format!("dynamic/restore_{id}"))?.median)
            / floor;
        let (limit, error) = (number("limit"), number("impulse_error"));
        let accurate = error <= 1e-6;
        println!(
            "{id:<30} {:>7} {step_ns:>9.0} {:>20} {criterion:>9.0} {:>20} {limit:>6.0} {:>6} {error:>8.1e}  {}{}",
            number("h_over_contact_duration"),
            format!("{median:.0} [{low:.0}, {high:.0}]"),
            format!("{j_median:.0} [{j_low:.0}, {j_high:.0}]"),
            number("evaluations"),
            if verdict(median, limit) == verdict(j_median, limit) {
                verdict(median, limit).to_string()
            } else {
                format!("{} (+ f_next: {})", verdict(median, limit), verdict(j_median, limit))
            },
            if accurate { "" } else { ", accuracy MISSED" }
        );
    }
    Ok(())
}
