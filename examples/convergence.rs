//! Convergence study of the FMU's internal substepping, through the packaged FMU: the
//! single-mass impact and the MSL ElastoGap example at several communication steps, for a naive
//! coupling, `f_mean` from the FMU's own acceleration estimate, and `f_mean` with input
//! derivatives; then the single-mass impact with the contact's own dynamics inside the step
//! (parameter `m_eff`), at steps from 0.1 to 100 contact durations, for a Gauss-Seidel master
//! (holds `f_mean`) and a Jacobi master (holds the `f_next` read before the step), with the mass
//! known (`m_eff = 1`) and unknown (`m_eff = 0`, the FMU estimates it). Accuracy, not time: run it
//! with `cargo run --release --example convergence [-- --fmu target/fmu/ElastoGap.fmu]`.

#[path = "../tests/support/mod.rs"]
mod support;

use std::sync::Arc;

use support::cosim::{self, Coupling, DemoOptions};
use support::impact::{self, ImpactCoupling};
use support::masters::Master;
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

    mass_study(&fmu, exact, contact)
}

/// The single-mass impact with `m_eff` set (1 kg, the body's mass on a fixed housing) or 0 (the
/// FMU estimates it from the master's answer to the contact), at steps from a tenth of the
/// contact to 100 contact durations, for both masters.
fn mass_study(fmu: &Arc<Fmu>, exact: impact::Impact, contact: f64) -> Result<(), String> {
    println!(
        "\nSingle-mass impact with the contact's own dynamics in each step (parameter m_eff), the step H"
    );
    println!(
        "in contact durations; the mass starts {} steps before the gap, the run ends {} steps after the contact.",
        impact::STEPS_BEFORE_CONTACT,
        impact::STEPS_AFTER_CONTACT
    );
    println!("Gauss-Seidel master: steps the gap first, holds f_mean over the same step;");
    println!(
        "Jacobi master: steps all units at once, holds over [t_k, t_k+H] the f_next read at t_k.\n"
    );
    println!(
        "{:>6} | {:>9} | {:>20} | {:>6} | {:>13} | {:>13} | {:>14} | {:>8}",
        "H/T_c",
        "H",
        "master",
        "m_eff",
        "rebound error",
        "E_loss error",
        "m_eff_estimate",
        "logCoupling"
    );
    for m_eff in [1.0, 0.0] {
        for master in Master::ALL {
            for ratio in [0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 100.0] {
                let h = ratio * contact;
                let run = impact::cosimulate_with_mass(fmu, h, m_eff, master)?;
                println!(
                    "{ratio:>6} | {:>7.3}ms | {:>20} | {:>6} | {:>+13.2e} | {:>+13.2e} | {:>14.6} | {:>8}",
                    h * 1e3,
                    master.label(),
                    m_eff,
                    run.impact.restitution / exact.restitution - 1.0,
                    run.impact.dissipated / exact.dissipated - 1.0,
                    run.m_eff_estimate,
                    run.coupling_messages.len()
                );
            }
        }
    }
    println!(
        "\n(errors relative: run/reference - 1; logCoupling: messages logged under that category)"
    );
    Ok(())
}
