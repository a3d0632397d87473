//! A lone body without a mass (`m_eff` = 0, the default) meets the stop anywhere in a step: on a
//! communication point, within rounding after or before one, or inside the step. Seeded random
//! bodies, laws, speeds and steps from a tenth of the contact's duration to thirty times it,
//! through the packaged FMI 2.0 FMU under every ordering of the units (tests/support/masters.rs)
//! and the FMI 3.0 FMU with early return, with and without event mode
//! (tests/support/early_return_master.rs), against the exact motion (tests/support/exact.rs).
//!
//! What must hold: the rebound exact (1e-6 of the approach speed), `E_loss` equal to the energy
//! the body lost (1e-6 of its approach energy), and once the body has left the stop at the
//! rebound speed no force held that changes its velocity again.
//!
//! `cargo test --release --test touch_down_anywhere -- --nocapture` prints every case that fails.

mod support;

use std::f64::consts::PI;
use std::sync::Arc;

use support::early_return_master::{fmi3_gap, run as run_early};
use support::exact::{Body, Exact};
use support::fmi3::{CsOptions, Fmu3};
use support::masters::{cosimulate_plant_run, Gap, Master, Plant, Reads, Run, State};
use support::random::Random;
use support::Fmu;

const SEED: u64 = 0x45_70_0c_4d_0e_a7;
const CASES: usize = 120;
/// The tolerance on the rebound (of the approach speed) and on `E_loss` (of the approach energy).
const TOLERANCE: f64 = 1e-6;

/// Where in its step the exact touch-down falls.
#[derive(Clone, Copy, Debug)]
enum Placement {
    OnThePoint,
    JustAfter,
    JustBefore,
    Inside(f64),
}

impl Placement {
    /// The touch-down's place as a fraction of the step after the third communication point.
    fn fraction(self) -> f64 {
        match self {
            Placement::OnThePoint => 0.0,
            Placement::JustAfter => 1e-9,
            Placement::JustBefore => 1.0 - 1e-9,
            Placement::Inside(f) => f,
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Case {
    index: usize,
    mass: f64,
    c: f64,
    d: f64,
    speed: f64,
    h: f64,
    placement: Placement,
}

impl Case {
    fn draw(index: usize, random: &mut Random) -> Case {
        let mass = random.log_uniform(0.05, 20.0);
        let c = random.log_uniform(1e3, 1e7);
        let zeta = random.log_uniform(0.02, 0.5);
        let speed = random.log_uniform(0.1, 5.0);
        let ratio = random.log_uniform(0.1, 30.0);
        let inside = random.unit();
        let placement = match index % 4 {
            0 => Placement::OnThePoint,
            1 => Placement::JustAfter,
            2 => Placement::JustBefore,
            _ => Placement::Inside(inside),
        };
        let t_c = PI * (mass / c).sqrt();
        Case {
            index,
            mass,
            c,
            d: 2.0 * zeta * (c * mass).sqrt(),
            speed,
            h: ratio * t_c,
            placement,
        }
    }

    fn contact_duration(&self) -> f64 {
        PI * (self.mass / self.c).sqrt()
    }

    /// The start position: the body meets the stop (`x = 0`) at `(3 + fraction)*h`.
    fn x0(&self) -> f64 {
        (3.0 + self.placement.fraction()) * self.h * self.speed
    }

    /// Steps to well past the contact: its duration (at most five times the undamped one) and
    /// four steps more.
    fn steps(&self) -> usize {
        4 + ((5.0 * self.contact_duration()) / self.h).ceil() as usize + 4
    }

    fn gap(&self) -> Gap {
        Gap {
            c: self.c,
            d: self.d,
            m_eff: 0.0,
            s_rel0: 0.0,
        }
    }

    fn describe(&self) -> String {
        format!(
            "#{} m={:.3} c={:.3e} d={:.3e} v0={:.3} h={:.3}T_c touch-down {:?}",
            self.index,
            self.mass,
            self.c,
            self.d,
            self.speed,
            self.h / self.contact_duration(),
            self.placement
        )
    }
}

/// The exact motion's rebound velocity and contact end.
struct ExactRebound {
    v_out: f64,
    end: f64,
}

fn free(_: f64, _: f64, _: f64) -> f64 {
    0.0
}

fn exact(case: &Case) -> ExactRebound {
    let body = Body {
        mass: case.mass,
        c: case.c,
        d: case.d,
        s_rel0: 0.0,
        external: &free,
    };
    let t_c = case.contact_duration();
    let mut exact = Exact::new(body, case.x0(), -case.speed, case.h, t_c / 4000.0);
    exact.advance_to(case.steps() as f64 * case.h);
    let event = exact.events[0];
    ExactRebound {
        v_out: event.v_out.expect("the exact contact ends"),
        end: event.end.expect("the exact contact ends"),
    }
}

/// What one run ended with: the velocity at every communication point after the exact contact's
/// end, the final velocity and `E_loss`.
struct Outcome {
    after: Vec<f64>,
    v_end: f64,
    e_loss: f64,
}

fn fmi2_run(fmu: &Arc<Fmu>, case: &Case, master: Master, end: f64) -> Result<Outcome, String> {
    let mass = case.mass;
    let derivative = move |_t: f64, y: State, held: f64| [y[1], -held / mass, 0.0, 0.0];
    let plant = Plant {
        initial: [case.x0(), -case.speed, 0.0, 0.0],
        derivative: &derivative,
    };
    let run = Run {
        master,
        h: case.h,
        steps: case.steps(),
        substeps: 1,
        reads: Reads::Connected,
    };
    let samples = cosimulate_plant_run(fmu, case.gap(), &[], &plant, run).0?;
    let last = samples.last().expect("samples");
    Ok(Outcome {
        after: samples.iter().filter(|s| s.t >= end).map(|s| s.v).collect(),
        v_end: last.v,
        e_loss: last.e_loss,
    })
}

fn fmi3_run(fmu: &Arc<Fmu3>, case: &Case, master: Master, event_mode: bool) -> Outcome {
    let mass = case.mass;
    let derivative = move |_t: f64, y: State, held: f64| [y[1], -held / mass, 0.0, 0.0];
    let plant = Plant {
        initial: [case.x0(), -case.speed, 0.0, 0.0],
        derivative: &derivative,
    };
    let options = CsOptions {
        early_return_allowed: true,
        event_mode_used: event_mode,
        intermediate_update: false,
    };
    let mut gap = fmi3_gap(fmu, case.gap(), case.x0(), -case.speed, options);
    let stop = case.steps() as f64 * case.h;
    let end = run_early(&mut gap, &plant, master, case.h, stop, 1);
    Outcome {
        after: vec![end.state[1]],
        v_end: end.state[1],
        e_loss: end.e_loss,
    }
}

/// Why a run fails, or None.
fn judge(case: &Case, exact: &ExactRebound, outcome: &Outcome) -> Option<String> {
    let e0 = 0.5 * case.mass * case.speed * case.speed;
    let lost = e0 - 0.5 * case.mass * outcome.v_end * outcome.v_end;
    let tolerance = TOLERANCE * case.speed;
    let mut why = Vec::new();
    if (outcome.v_end - exact.v_out).abs() > tolerance || !outcome.v_end.is_finite() {
        why.push(format!(
            "rebound {:.9} against {:.9}",
            outcome.v_end, exact.v_out
        ));
    }
    if (outcome.e_loss - lost).abs() > TOLERANCE * e0 || !outcome.e_loss.is_finite() {
        why.push(format!(
            "E_loss {:.6e} J against the body's loss {:.6e} J",
            outcome.e_loss, lost
        ));
    }
    let off = |v: &f64| (v - exact.v_out).abs() > tolerance;
    let left = outcome.after.iter().position(|v| !off(v));
    if let Some(v) = left.and_then(|k| outcome.after[k..].iter().find(|v| off(v))) {
        why.push(format!(
            "a velocity of {v:.9} after it had left at the rebound speed"
        ));
    }
    (!why.is_empty()).then(|| why.join("; "))
}

/// Every case under the FMI 2.0 masters `fmi2` and the FMI 3.0 early-return masters `fmi3` (with
/// and without event mode) rebounds exactly; the failures are listed with --nocapture.
fn assert_every_run_rebounds(fmi2: &[Master], fmi3: &[Master]) {
    let fmu = Fmu::load_default();
    let fmu3 = Fmu3::load_default();
    let mut random = Random(SEED);
    let mut failures = Vec::new();
    let mut runs = 0;
    for index in 0..CASES {
        let case = Case::draw(index, &mut random);
        let exact = exact(&case);
        for &master in fmi2 {
            runs += 1;
            let verdict = match fmi2_run(&fmu, &case, master, exact.end) {
                Ok(outcome) => judge(&case, &exact, &outcome),
                Err(message) => Some(message),
            };
            if let Some(why) = verdict {
                failures.push(format!(
                    "{} FMI 2.0 {}: {why}",
                    case.describe(),
                    master.label()
                ));
            }
        }
        for &master in fmi3 {
            for event_mode in [false, true] {
                runs += 1;
                let outcome = fmi3_run(&fmu3, &case, master, event_mode);
                if let Some(why) = judge(&case, &exact, &outcome) {
                    failures.push(format!(
                        "{} FMI 3.0 early return{} {}: {why}",
                        case.describe(),
                        if event_mode { ", event mode," } else { "" },
                        master.label()
                    ));
                }
            }
        }
    }
    for failure in &failures {
        println!("{failure}");
    }
    assert!(
        failures.is_empty(),
        "{} of {runs} runs failed (listed above with --nocapture)",
        failures.len()
    );
}

#[test]
fn a_lone_body_without_a_mass_rebounds_exactly_wherever_it_touches_down() {
    assert_every_run_rebounds(
        &Master::EVERY_ORDERING,
        &[Master::GaussSeidel, Master::Jacobi],
    );
}
