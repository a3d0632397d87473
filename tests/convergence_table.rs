//! The co-simulation accuracy figures of `docs/accuracy.md` and `docs/m-eff.md`, and README's
//! headline impact row, generated from runs of the packaged FMU (`$ELASTOGAP_FMU`): the
//! single-mass impact (1 kg at 1 m/s into c = 1e4 N/m, d = 20 N.s/m) against an RK4 reference, and
//! the MSL ElastoGap example against a high-accuracy solution.
//!
//! `CONVERGENCE_WRITE=1 cargo test --release --test convergence_table` writes the tables into the
//! docs between their markers; without it the test makes them anew and fails where the committed
//! text differs. Errors at rounding level (below [`ROUNDING`]) show as a bound, so that only a
//! change of the FMU's behaviour shows.

mod support;

use std::sync::Arc;

use support::cosim::{self, Coupling, DemoOptions};
use support::generated::Generated;
use support::impact::{self, Impact, ImpactCoupling};
use support::masters::Master;
use support::{msl_reference, Fmu};

const COMMAND: &str = "CONVERGENCE_WRITE=1 cargo test --release --test convergence_table";
/// Relative errors below this are the reference's (RK4 at 1e-7 s) and the arithmetic's, not the
/// coupling's.
const ROUNDING: f64 = 1e-9;
/// Relative errors from this on are shown in per cent.
const PERCENT: f64 = 1e-3;
/// The steps of the mass study, in contact durations.
const RATIOS: [f64; 8] = [0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 100.0];
/// `heldForce` = None's code.
const HELD_NONE: f64 = 4.0;

/// A relative error: in per cent to three significant digits from [`PERCENT`] on, below it as a
/// signed fraction, and as a bound at rounding level.
fn error(relative: f64) -> String {
    if relative.abs() < ROUNDING {
        return format!("< {ROUNDING:e}");
    }
    if relative.abs() < PERCENT {
        return format!("{relative:+.1e}");
    }
    let percent = 100.0 * relative;
    let digits = (2 - percent.abs().log10().floor() as i32).max(0) as usize;
    format!("{percent:+.digits$} %")
}

fn impact_errors(run: &Impact, exact: &Impact) -> (f64, f64) {
    (
        run.restitution / exact.restitution - 1.0,
        run.dissipated / exact.dissipated - 1.0,
    )
}

/// The impact table, and README's headline cell for 1 ms.
fn impact_table(fmu: &Arc<Fmu>, exact: &Impact) -> (String, String) {
    let contact = impact::contact_duration();
    let steps = [
        ("1 ms", 1e-3),
        ("3.14 ms (a tenth of the contact)", contact / 10.0),
        ("15.7 ms (half the contact)", contact / 2.0),
    ];
    let mut table = String::from(
        "| step: rebound / `E_loss` error | naive `f(t_k)` | `f_mean` | `f_mean` + input derivatives |\n| --- | --- | --- | --- |\n",
    );
    let mut headline = Vec::new();
    for (label, h) in steps {
        let mut cells = Vec::new();
        for coupling in ImpactCoupling::ALL {
            let run = impact::cosimulate(fmu, h, coupling).expect("the impact runs");
            let (rebound, loss) = impact_errors(&run, exact);
            cells.push(format!("{} / {}", error(rebound), error(loss)));
            if h == 1e-3 && coupling != ImpactCoupling::MeanForceWithDerivatives {
                headline.push(format!(
                    "{} {}",
                    coupling_name(coupling),
                    cells.last().unwrap()
                ));
            }
        }
        table.push_str(&format!("| {label} | {} |\n", cells.join(" | ")));
    }
    let known =
        impact::cosimulate_with_mass(fmu, 1e-3, 1.0, Master::GaussSeidel).expect("the impact runs");
    let (rebound, loss) = impact_errors(&known.impact, exact);
    headline.push(format!(
        "`m_eff` = 1 kg {} / {}",
        error(rebound),
        error(loss)
    ));
    (table, headline.join("; "))
}

fn coupling_name(coupling: ImpactCoupling) -> &'static str {
    match coupling {
        ImpactCoupling::Naive => "naive `f(t_k)`",
        ImpactCoupling::MeanForce => "`f_mean`",
        ImpactCoupling::MeanForceWithDerivatives => "`f_mean` + input derivatives",
    }
}

/// The MSL example's largest deviation of the comparison signals from the high-accuracy solution.
fn msl_table(fmu: &Arc<Fmu>) -> String {
    let mut table = String::from(
        "| MSL example: largest deviation (tube 2e-3) | naive `f(t_k)` | `f_mean` | `f_mean` + input derivatives |\n| --- | --- | --- | --- |\n",
    );
    for step in [0.01, 0.001] {
        let cells: Vec<String> = [Coupling::Naive, Coupling::MeanForce, Coupling::Best]
            .iter()
            .map(|&coupling| {
                let options = DemoOptions {
                    step,
                    coupling,
                    ..DemoOptions::default()
                };
                let run = cosim::run_demo(fmu, &options).expect("the MSL example runs");
                let times: Vec<f64> = run.rows.iter().map(|r| r.time).collect();
                let exact = msl_reference::comparison_at(&times);
                let worst = run
                    .rows
                    .iter()
                    .zip(&exact)
                    .map(|(row, reference)| {
                        let signals = row.comparison();
                        (signals[0] - reference[0])
                            .abs()
                            .max((signals[1] - reference[1]).abs())
                    })
                    .fold(0.0, f64::max);
                format!("{worst:.1e}")
            })
            .collect();
        table.push_str(&format!("| {} ms | {} |\n", step * 1e3, cells.join(" | ")));
    }
    table
}

/// The impact through the contact's own dynamics, `m_eff` 1 kg and 0, both masters.
fn mass_table(fmu: &Arc<Fmu>, exact: &Impact) -> String {
    let contact = impact::contact_duration();
    let mut table = String::from("| Step H / T_c |");
    for ratio in RATIOS {
        table.push_str(&format!(" {ratio} |"));
    }
    table.push_str(&format!("\n|{}\n", " --- |".repeat(RATIOS.len() + 1)));
    for m_eff in [1.0, 0.0] {
        for master in [Master::GaussSeidel, Master::Jacobi] {
            let mut row = format!(
                "| `m_eff` = {m_eff}, {}: rebound, `E_loss` |",
                master.label()
            );
            for ratio in RATIOS {
                let run = impact::cosimulate_with_mass(fmu, ratio * contact, m_eff, master)
                    .expect("the impact runs");
                let (rebound, loss) = impact_errors(&run.impact, exact);
                row.push_str(&format!(" {}, {} |", error(rebound), error(loss)));
            }
            table.push_str(&row);
            table.push('\n');
        }
    }
    table
}

/// Plain substepping (`heldForce` = None, the law's integral along the master's motion) at short
/// steps, the impact with damping ratio 0.1, both masters.
fn plain_table(fmu: &Arc<Fmu>, exact: &Impact) -> String {
    let contact = impact::contact_duration();
    let mut table = String::from(
        "| `h` | rebound / `E_loss` error, master holds `f_mean` | holds `f_next` |\n| --- | --- | --- |\n",
    );
    for divisor in [100.0, 50.0, 10.0] {
        let cells: Vec<String> = [Master::GaussSeidel, Master::Jacobi]
            .iter()
            .map(|&master| {
                let parameters = [("c", impact::C), ("d", impact::D), ("heldForce", HELD_NONE)];
                let h = contact / divisor;
                let run = impact::cosimulate_with_parameters(fmu, h, &parameters, contact, master)
                    .expect("the impact runs");
                let (rebound, loss) = impact_errors(&run.impact, exact);
                format!("{} / {}", error(rebound), error(loss))
            })
            .collect();
        table.push_str(&format!("| `T_c/{divisor}` | {} |\n", cells.join(" | ")));
    }
    table
}

#[test]
fn the_accuracy_figures_match_a_run_of_the_packaged_fmu() {
    let fmu = Fmu::load_default();
    let exact = impact::reference();
    let (impact, headline) = impact_table(&fmu, &exact);
    let msl = msl_table(&fmu);
    let mass = mass_table(&fmu, &exact);
    let plain = plain_table(&fmu, &exact);
    let mut docs = Generated::new("CONVERGENCE_WRITE", COMMAND);
    docs.block("docs/accuracy.md", "impact", &impact);
    docs.block("docs/accuracy.md", "msl", &msl);
    docs.block("docs/m-eff.md", "mass", &mass);
    docs.block("docs/coupling.md", "plain", &plain);
    docs.row(
        "README.md",
        "| Impact at 1 ms steps (1 kg at 1 m/s): rebound / `E_loss` error |",
        &format!("{headline} | [accuracy](docs/accuracy.md), [m_eff](docs/m-eff.md) |"),
    );
    docs.assert_settled();
}
