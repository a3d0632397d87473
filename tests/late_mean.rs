//! A master that steps every unit at once with `f_mean` connected holds each step's `f_mean` over
//! the step after it (OMSimulator's default master does). Met in the run's first step, a lone
//! body without a mass answers the contact's first probe twice: the master held it over two
//! steps, while the FMU gave a larger one for the second. Two answers to one force tell no mass
//! (`pair_answers_to_probes`): their difference is the velocities' rounding, and a mass read
//! through it is any mass at all, which the contact then throws the body with. Read in time,
//! the probes' answers, each a step late, tell a mass that is not the body's; three answers in a
//! row tell the late reading (`tell_a_late_mean_by_three_answers`).
//!
//! Seeded random lone bodies under that master, reading every output as FMPy's `simulate_fmu`
//! does: no reported mass (`m_eff_estimate`) is [`ROUNDING_TOLD`] times off the body's own, and
//! the energy stays within the contract's [`BOUND`]. Given half or twice their mass, the same
//! bodies stay within it too. Bodies that are not alone do not yet under this master, as `cargo
//! test --release --test safety_sweep late -- --ignored --nocapture` reports.

mod support;

use std::f64::consts::PI;
use std::sync::Arc;

use support::masters::{cosimulate_plant_run, Gap, Master, Plant, Reads, Run, State};
use support::random::Random;
use support::Fmu;

const SEED: u64 = 0x1a7e_3ea4;
const CASES: usize = 60;
/// A factor no answer's doubt reaches: a mass read through the velocities' rounding is off by
/// many orders of magnitude more.
const ROUNDING_TOLD: f64 = 1e3;
/// The contract's bound for a body without a mass or with a wrong one: the bodies' energy never
/// above this many times the exact motion's largest (a lone body's: its start).
const BOUND: f64 = 10.0;

struct Case {
    mass: f64,
    c: f64,
    zeta: f64,
    speed: f64,
    /// The step in contact durations, and where in the first step the touch-down falls.
    step: f64,
    fraction: f64,
}

impl Case {
    fn draw(random: &mut Random) -> Case {
        Case {
            mass: random.log_uniform(0.05, 20.0),
            c: random.log_uniform(1e3, 1e7),
            zeta: 0.02 + 0.4 * random.unit(),
            speed: random.log_uniform(0.1, 5.0),
            step: random.log_uniform(0.1, 30.0),
            fraction: 0.05 + 0.9 * random.unit(),
        }
    }

    fn h(&self) -> f64 {
        self.step * PI * (self.mass / self.c).sqrt()
    }
}

/// The case under the late master reading every output, the gap given `m_eff`.
fn run(fmu: &Arc<Fmu>, case: &Case, m_eff: f64) -> Vec<support::masters::Sample> {
    let mass = case.mass;
    let derivative = |_: f64, y: State, held: f64| [y[1], -held / mass, 0.0, 0.0];
    let plant = Plant {
        initial: [case.speed * case.h() * case.fraction, -case.speed, 0.0, 0.0],
        derivative: &derivative,
    };
    let gap = Gap {
        c: case.c,
        d: case.zeta * 2.0 * (case.c * mass).sqrt(),
        m_eff,
        s_rel0: 0.0,
    };
    let run = Run {
        master: Master::JacobiMeanLate,
        h: case.h(),
        steps: 12,
        substeps: 1,
        reads: Reads::Every,
    };
    let (samples, _) = cosimulate_plant_run(fmu, gap, &[], &plant, run);
    samples.unwrap_or_else(|message| panic!("{}: {message}", case.label()))
}

impl Case {
    fn label(&self) -> String {
        format!(
            "m = {:.3} kg, c = {:.3e}, h = {:.2} T_c",
            self.mass, self.c, self.step
        )
    }
}

#[test]
fn a_body_met_in_the_first_step_without_a_mass_stays_within_the_bound() {
    let fmu = Fmu::load_default();
    let mut random = Random(SEED);
    let mut worst = (1.0, String::new());
    let mut worst_energy = (1.0, String::new());
    for index in 0..CASES {
        let case = Case::draw(&mut random);
        let mass = case.mass;
        let label = format!("#{index}: {}", case.label());
        for sample in &run(&fmu, &case, 0.0) {
            // A lone body's energy over its start, the exact motion's largest.
            let energy = (sample.v / case.speed).powi(2);
            let estimate = sample.m_eff_estimate;
            let mass_off = if estimate > 0.0 {
                (estimate / mass).max(mass / estimate)
            } else {
                1.0
            };
            let off = energy.max(mass_off);
            if energy > worst_energy.0 {
                worst_energy = (energy, format!("{label} at t = {:.4e}", sample.t));
            }
            assert!(
                off.is_finite(),
                "{label}: v {}, m_eff_estimate {estimate}",
                sample.v
            );
            if off > worst.0 {
                worst = (off, format!("{label} at t = {:.4e}: energy {energy:.3e} times the start, m_eff_estimate {estimate:.4e} kg", sample.t));
            }
        }
    }
    println!("the worst: {:.3e} times off ({})", worst.0, worst.1);
    println!(
        "the largest energy: {:.3e} times the start ({})",
        worst_energy.0, worst_energy.1
    );
    assert!(
        worst_energy.0 <= BOUND,
        "{:.3e} times the start: {}",
        worst_energy.0,
        worst_energy.1
    );
    assert!(
        worst.0 < ROUNDING_TOLD,
        "{:.3e} times off: {}",
        worst.0,
        worst.1
    );
}

/// The same bodies given half or twice their mass: the first answer cannot tell the late `f_mean`
/// from the `f_next` of nothing read before the step, and the second, through a mass twice off,
/// fits neither reading several times better than the other. Read as holding `f_next`, a body
/// given twice its mass would be read as several times its mass and thrown out with many times its
/// energy.
#[test]
fn a_body_met_in_the_first_step_with_a_wrong_mass_stays_within_the_bound() {
    let fmu = Fmu::load_default();
    let mut random = Random(SEED);
    let mut worst = (1.0, String::new());
    for index in 0..CASES {
        let case = Case::draw(&mut random);
        let m_eff = [0.5, 2.0][index % 2] * case.mass;
        let label = format!("#{index}: {}, m_eff {m_eff:.3} kg", case.label());
        for sample in &run(&fmu, &case, m_eff) {
            let energy = (sample.v / case.speed).powi(2);
            assert!(energy.is_finite(), "{label}: v {}", sample.v);
            if energy > worst.0 {
                worst = (energy, format!("{label} at t = {:.4e}", sample.t));
            }
        }
    }
    println!("the worst: {:.3e} times the start ({})", worst.0, worst.1);
    assert!(
        worst.0 <= BOUND,
        "{:.3e} times the start: {}",
        worst.0,
        worst.1
    );
}
