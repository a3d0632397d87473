//! Convergence study of the FMU's internal substepping (issue 3), through the packaged FMU:
//! the single-mass impact and the MSL ElastoGap example at several communication steps, for a
//! naive coupling, `f_mean` from the FMU's own acceleration estimate, and `f_mean` with input
//! derivatives. Accuracy, not time: run it with
//! `cargo run --release --example convergence [-- --fmu target/fmu/ElastoGap.fmu]`.

#[path = "../tests/support/mod.rs"]
mod support;

use std::sync::Arc;

use support::cosim::{self, Coupling, DemoOptions};
use support::impact::{self, ImpactCoupling};
use support::{msl_reference, Fmu};

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().collect();
    let path = args
        .iter()
        .position(|a| a == "--fmu")
        .and_then(|k| args.get(k + 1))
        .map(std::path::PathBuf::from)
        .unwrap_or_else(support::default_fmu_path);
    let fmu = Arc::new(Fmu::open(&path)?);

    let exact = impact::reference();
    let contact = impact::contact_duration();
    println!(
        "Single-mass impact (m = 1 kg, v = 1 m/s, c = 1e4 N/m, d = 20 N.s/m), contact lasts {:.2} ms",
        contact * 1e3
    );
    println!(
        "reference (RK4, 1e-7 s): rebound coefficient {:.6}, dissipated energy {:.6} J\n",
        exact.restitution, exact.dissipated
    );
    println!(
        "{:>12} | {:>28} | {:>20} | {:>20}",
        "step", "coupling", "rebound error", "E_loss error"
    );
    let steps = [
        ("10 ms", 10e-3),
        ("5 ms", 5e-3),
        ("2 ms", 2e-3),
        ("1 ms", 1e-3),
        ("0.5 ms", 0.5e-3),
        ("contact/2", contact / 2.0),
        ("contact/3", contact / 3.0),
        ("contact/10", contact / 10.0),
    ];
    for (label, h) in steps {
        for coupling in ImpactCoupling::ALL {
            let run = impact::cosimulate(&fmu, h, coupling)?;
            println!(
                "{label:>12} | {:>28} | {:>+19.4}% | {:>+19.4}%",
                coupling.label(),
                100.0 * (run.restitution / exact.restitution - 1.0),
                100.0 * (run.dissipated / exact.dissipated - 1.0),
            );
        }
    }

    println!("\nMSL Translational.Examples.ElastoGap (two FMU instances), max |deviation| of the comparison");
    println!("signals from a high-accuracy solution (RK4 1e-4 s with located switches); the MSL tube is 2e-3\n");
    println!(
        "{:>8} | {:>6} | {:>17} | {:>17} | {:>19} | {:>19}",
        "step",
        "coupling",
        "elastoGap1.v_rel",
        "elastoGap2.s_rel",
        "observed order",
        "inside 2e-3 tube"
    );
    for coupling in [Coupling::Naive, Coupling::MeanForce, Coupling::Best] {
        let mut previous: Option<(f64, f64)> = None;
        for step in [0.01, 0.005, 0.002, 0.001, 0.0005] {
            let options = DemoOptions {
                step,
                coupling,
                ..DemoOptions::default()
            };
            let run = cosim::run_demo(&fmu, &options)?;
            let times: Vec<f64> = run.rows.iter().map(|r| r.time).collect();
            let exact = msl_reference::comparison_at(&times);
            let (mut v_rel, mut s_rel) = (0.0f64, 0.0f64);
            for (row, reference) in run.rows.iter().zip(&exact) {
                let signals = row.comparison();
                v_rel = v_rel.max((signals[0] - reference[0]).abs());
                s_rel = s_rel.max((signals[1] - reference[1]).abs());
            }
            let worst = v_rel.max(s_rel);
            let order = previous
                .map(|(h, e)| format!("{:.2}", (e / worst).ln() / (h / step).ln()))
                .unwrap_or_default();
            println!(
                "{:>6.1}ms | {:>8} | {v_rel:>17.3e} | {s_rel:>17.3e} | {order:>19} | {:>19}",
                step * 1e3,
                coupling.to_string(),
                if worst <= cosim::TUBE { "yes" } else { "no" }
            );
            previous = Some((step, worst));
        }
    }
    Ok(())
}
