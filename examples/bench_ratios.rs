//! The performance targets of issue 4, from the estimates that `benches/fmi_abi.rs` left in
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
//! Targets:
//! 1. the per-substep cost of a 100-substep `fmi2DoStep` in contact is at most 2x the cost of the
//!    3 law evaluations a substep needs;
//! 2. a whole `fmi2DoStep` with 10 substeps is no slower than the C baseline with 10 substeps;
//! 3. instantiate + setupExperiment + enter/exitInitializationMode + freeInstance costs no more
//!    than 1,000 substeps (at the per-substep cost of target 1).
//!
//! Exits with status 1 if an estimate is missing, never because a target is missed: timings are
//! reported, not asserted.

use std::path::{Path, PathBuf};

/// Gauss points, hence law evaluations, that one substep's quadrature needs.
const EVALUATIONS_PER_SUBSTEP: f64 = 3.0;
const SUBSTEP_COUNTS: [u32; 3] = [1, 10, 100];

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
        let path = self.root.join("paired_ratios.json");
        let text = std::fs::read_to_string(&path).map_err(|e| {
            format!(
                "{}: {e} (run `cargo bench --bench fmi_abi` first)",
                path.display()
            )
        })?;
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
    }
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
    let evaluate = estimates.get("physics/evaluate")?;
    let evaluation = evaluate.median / evaluate.elements.unwrap_or(1.0);
    let substep_floor = EVALUATIONS_PER_SUBSTEP * evaluation;

    println!("Estimates from {}", estimates.root.display());
    println!("Median time per call; 95% confidence interval of the median in brackets.\n");
    println!("Baseline: one bare GapLaw::evaluate (Rust loop)   {evaluation:8.2} ns");
    println!("          3 evaluations (one substep's Gauss points) {substep_floor:8.2} ns\n");

    println!(
        "{:<44} {:>11} {:>23} {:>12} {:>10} {:>10} {:>9}",
        "benchmark", "median ns", "95% CI ns", "ns/substep", "/3 evals", "/1 eval", "/C"
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
                Some(substeps),
                Some(&c_id),
            )?;
            row(&c_id, Some(substeps), None)?;
        }
        row(
            &format!("physics/integrate_step_{substeps}"),
            Some(substeps),
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

    let per_substep = estimates.get("do_step/contact_100")?.median / 100.0;
    let step_10 = estimates.get("do_step/contact_10")?.median;
    let c_step_10 = estimates.get("c_baseline/contact_10")?.median;
    let lifecycle = estimates
        .get("lifecycle/instantiate_initialize_free")?
        .median;
    let paired = estimates.paired()?;
    let quartiles = |key: &str| -> Result<[f64; 3], String> {
        let values: Vec<f64> = paired
            .get(key)
            .and_then(|v| v.as_array())
            .map(|a| a.iter().filter_map(|x| x.as_f64()).collect())
            .unwrap_or_default();
        values
            .try_into()
            .map_err(|_| format!("paired_ratios.json: no quartiles for {key}"))
    };
    let targets = [
        (
            "1. per substep of a 100-substep fmi2DoStep / 3 bare evaluations",
            per_substep / substep_floor,
            quartiles("per_substep_over_3_evaluations")?,
            2.0,
        ),
        (
            "2. fmi2DoStep with 10 substeps / C baseline with 10 substeps",
            step_10 / c_step_10,
            quartiles("do_step_10_over_c_baseline_10")?,
            1.0,
        ),
        (
            "3. instantiate+initialize+free / 1,000 substeps",
            lifecycle / (1000.0 * per_substep),
            quartiles("lifecycle_over_1000_substeps")?,
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
        "   (per substep of a 100-substep fmi2DoStep = {per_substep:.2} ns = {:.2} bare evaluations)",
        per_substep / evaluation
    );
    Ok(())
}
