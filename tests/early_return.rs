//! FMI 3.0 co-simulation with early return, against the exact motion and against the FMI 2.0 FMU
//! under the same master (`tests/support/early_return_master.rs`): a body at flange_b, alone, on
//! a spring to an anchor, or under a constant push, hits the stop at a random speed, with random
//! law parameters and communication steps from a tenth of the contact's duration to three times
//! it, `m_eff` right or 0, under Gauss–Seidel and Jacobi. Seeded: every run draws the same cases.
//!
//! What must hold: every early return lies on a contact switch (`contact` changes there in event
//! mode); a lone body is exact under both; no run's energy error with early return is more than
//! twice the FMI 2.0 run's and a quarter of the approach's energy; and over the runs with the
//! mass known, the errors in the final energy and in `E_loss` sum to less with early return than
//! without, under each master. The errors are the final mechanical energy's and `E_loss`'s
//! against the exact motion, over the approach's kinetic energy.
//!
//! `cargo test --release --test early_return -- --nocapture` prints the table of errors.

mod support;

use support::early_return_master::{fmi2_gap, fmi3_gap, run};
use support::exact::{Body, Exact};
use support::fmi3::{CsOptions, Fmu3};
use support::generated::Generated;
use support::masters::{Gap, Master, Plant, State};
use support::random::Random;
use support::Fmu;

/// The body's surroundings.
#[derive(Clone, Copy, Debug)]
enum Surroundings {
    Alone,
    /// On a spring of this stiffness (N/m) to an anchor at the start position.
    OnSpring(f64),
    /// Pushed toward the stop by a constant force (N).
    Pushed(f64),
}

#[derive(Clone, Copy, Debug)]
struct Case {
    mass: f64,
    c: f64,
    d: f64,
    speed: f64,
    /// The communication step against the contact's duration.
    step_ratio: f64,
    mass_known: bool,
    surroundings: Surroundings,
}

impl Case {
    fn contact_duration(&self) -> f64 {
        std::f64::consts::PI * (self.mass / self.c).sqrt()
    }

    fn draw(random: &mut Random, k: usize) -> Case {
        let mass = random.log_uniform(0.2, 5.0);
        let c = random.log_uniform(1e3, 1e5);
        // Damping ratio from 0.02 to 0.3 of critical.
        let d = random.log_uniform(0.02, 0.3) * 2.0 * (c * mass).sqrt();
        let surroundings = match k % 3 {
            0 => Surroundings::Alone,
            1 => Surroundings::OnSpring(c * random.log_uniform(0.01, 0.2)),
            _ => Surroundings::Pushed(mass * random.log_uniform(1.0, 30.0)),
        };
        Case {
            mass,
            c,
            d,
            speed: random.log_uniform(0.3, 3.0),
            step_ratio: [0.1, 0.4, 1.3, 3.0][k % 4],
            mass_known: k.is_multiple_of(2),
            surroundings,
        }
    }

    fn external(&self, x0: f64) -> impl Fn(f64, f64, f64) -> f64 {
        let surroundings = self.surroundings;
        move |_t, x, _v| match surroundings {
            Surroundings::Alone => 0.0,
            Surroundings::OnSpring(k) => -k * (x - x0),
            Surroundings::Pushed(force) => -force,
        }
    }
}

/// The errors of one run against the exact motion, relative to the approach's kinetic energy.
#[derive(Clone, Copy, Debug)]
struct Errors {
    energy: f64,
    e_loss: f64,
}

fn errors(end: &support::early_return_master::RunEnd, exact: &Exact, case: &Case) -> Errors {
    let scale = 0.5 * case.mass * case.speed * case.speed;
    let mechanical = |x: f64, v: f64| {
        0.5 * case.mass * v * v
            + match case.surroundings {
                Surroundings::Alone => 0.0,
                Surroundings::OnSpring(k) => 0.5 * k * (x - start_gap(case)).powi(2),
                Surroundings::Pushed(force) => force * x,
            }
    };
    let (x, v) = (end.state[0], end.state[1]);
    Errors {
        energy: (mechanical(x, v) - mechanical(exact.x, exact.v)).abs() / scale,
        e_loss: (end.e_loss - exact.dissipated).abs() / scale,
    }
}

/// Where the body starts: a quarter of the contact's duration at its speed above the stop.
fn start_gap(case: &Case) -> f64 {
    0.25 * case.contact_duration() * case.speed + 1e-4
}

#[test]
fn early_return_stops_on_switches_and_is_better_on_the_whole() {
    let fmu2 = Fmu::load_default();
    let fmu3 = Fmu3::load_default();
    let mut random = Random(0x5eed_3a11_e4e1_0037);
    let mut failures = Vec::new();
    // Sums of the errors of the runs with the mass known, per master: energy and E_loss, FMI 2
    // then FMI 3.
    let mut known = [[0.0f64; 4]; 2];
    let mut known_runs = [0usize; 2];
    println!(
        "{:>3} {:>6} {:>8} {:>7} {:>5} {:>5} {:<22} {:<8} | {:>9} {:>9} | {:>9} {:>9} | {:>3}",
        "k",
        "m",
        "c",
        "d",
        "v",
        "h/Tc",
        "surroundings",
        "master",
        "dE fmi2",
        "dE fmi3",
        "loss 2",
        "loss 3",
        "ER"
    );
    for k in 0..24 {
        let case = Case::draw(&mut random, k);
        let x0 = start_gap(&case);
        let external = case.external(x0);
        let mass = case.mass;
        let derivative =
            |t: f64, y: State, held: f64| [y[1], (external(t, y[0], y[1]) - held) / mass, 0.0, 0.0];
        let plant = Plant {
            initial: [x0, -case.speed, 0.0, 0.0],
            derivative: &derivative,
        };
        let duration = case.contact_duration();
        let h = case.step_ratio * duration;
        let stop = (x0 / case.speed + 3.0 * duration).max(6.0 * h);
        let gap = Gap {
            c: case.c,
            d: case.d,
            m_eff: if case.mass_known { case.mass } else { 0.0 },
            s_rel0: 0.0,
        };
        let body = Body {
            mass,
            c: case.c,
            d: case.d,
            s_rel0: 0.0,
            external: &external,
        };
        let mut exact = Exact::new(body, x0, -case.speed, duration / 2000.0, duration / 20000.0);
        exact.advance_to(stop);
        for master in [Master::GaussSeidel, Master::Jacobi] {
            let mut fmi2 = fmi2_gap(&fmu2, gap, x0, -case.speed);
            let end2 = run(&mut fmi2, &plant, master, h, stop, 64);
            let options = CsOptions {
                early_return_allowed: true,
                event_mode_used: true,
                intermediate_update: false,
            };
            let mut fmi3 = fmi3_gap(&fmu3, gap, x0, -case.speed, options);
            let end3 = run(&mut fmi3, &plant, master, h, stop, 64);
            let (e2, e3) = (errors(&end2, &exact, &case), errors(&end3, &exact, &case));
            println!(
                "{k:>3} {:>6.3} {:>8.0} {:>7.2} {:>5.2} {:>5.1} {:<22} {:<8} | {:>9.2e} {:>9.2e} | {:>9.2e} {:>9.2e} | {:>3}",
                case.mass,
                case.c,
                case.d,
                case.speed,
                case.step_ratio,
                format!("{:?}", case.surroundings),
                format!("{master:?}"),
                e2.energy,
                e3.energy,
                e2.e_loss,
                e3.e_loss,
                fmi3.early_returns.len()
            );
            // Every early return is at a switch: in event mode, contact changes there.
            for (time, changed) in &fmi3.early_returns {
                assert!(
                    changed,
                    "case {k} {master:?}: early return at {time} without a switch"
                );
            }
            // A lone body: exact under both, whatever the step and whether the mass is known.
            if matches!(case.surroundings, Surroundings::Alone) {
                for (label, e) in [("FMI 2", e2), ("FMI 3", e3)] {
                    if e.energy > 1e-6 || e.e_loss > 1e-6 {
                        failures.push(format!("case {k} {master:?} {label}: {e:?}"));
                    }
                }
            }
            // No run gains energy from early return beyond what the FMI 2.0 step gives.
            if e3.energy > 2.0 * e2.energy + 0.25 {
                failures.push(format!(
                    "case {k} {master:?}: {e2:?} (FMI 2) against {e3:?} (FMI 3)"
                ));
            }
            if case.mass_known {
                known_runs[usize::from(master == Master::Jacobi)] += 1;
                let sums = &mut known[usize::from(master == Master::Jacobi)];
                sums[0] += e2.energy;
                sums[1] += e3.energy;
                sums[2] += e2.e_loss;
                sums[3] += e3.e_loss;
            }
            let _ = fmi3.instance.terminate();
        }
    }
    // With the mass known, early return is better on the whole under either master.
    let mut table = String::from(
        "| Runs with the mass known, summed | energy error, FMI 2.0 | with early return | `E_loss` error, FMI 2.0 | with early return |\n| --- | --- | --- | --- | --- |\n",
    );
    for (master, (sums, runs)) in ["Gauss–Seidel", "Jacobi"]
        .iter()
        .zip(known.iter().zip(known_runs))
    {
        let cells: Vec<String> = sums.iter().map(|x| format!("{x:.2}")).collect();
        table.push_str(&format!(
            "| {master} ({runs} runs) | {} |\n",
            cells.join(" | ")
        ));
    }
    let mut docs = Generated::new(
        "EARLY_RETURN_WRITE",
        "EARLY_RETURN_WRITE=1 cargo test --release --test early_return",
    );
    docs.block("docs/fmi3.md", "sums", &table);
    for (master, sums) in ["Gauss-Seidel", "Jacobi"].iter().zip(known) {
        println!(
            "{master}, mass known: energy error {:.3e} (FMI 2) against {:.3e} (FMI 3); E_loss error {:.3e} against {:.3e}",
            sums[0], sums[1], sums[2], sums[3]
        );
        if sums[1] > sums[0] || sums[3] > sums[2] {
            failures.push(format!(
                "{master}: early return worse on the whole: {sums:?}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    docs.assert_settled();
}
