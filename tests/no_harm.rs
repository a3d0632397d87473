//! Without a mass, where plain substepping along the master's motion is already
//! right, the FMU does no harm. At steps up to half a contact, each body's position after a contact
//! is no further from the exact motion than under `heldForce` = None (the motion taken as
//! prescribed) under the same master, plus 1 % of the stroke, wherever None is safe (its bodies'
//! energy within 1.1 times the exact run's largest).
//!
//! Seeded random systems: a body alone, on a spring to ground, or with a second body behind it on a
//! spring, of random mass, stiffness, damping and speed; the step 0.05 to 0.5 contact durations;
//! the touch-down in the run's first step or after up to five free ones; under every ordering of
//! `support::masters`. The reference is an exact run without the FMU (`support::exact`).
//!
//! The default suite holds the FMU to it where a probe's answer gives the mass exactly: a lone body
//! met after a free step has shown its external acceleration, none, under a master that steps all
//! units at once (it held the probe a step late and nothing over the step before the answer, and
//! the replayed contact restores the position those two steps owe); and a body on a spring to
//! ground met after three free steps, whose means show the acceleration linear in the position,
//! under every master. The whole requirement is not met yet (`-- --ignored`).
//! `NO_HARM_ONLY=<case>` prints that case's runs point by point.

mod support;

use std::f64::consts::PI;
use std::sync::Arc;

use support::exact::{plant_rates, Body, Exact, Partner};
use support::masters::{cosimulate_plant_with, Gap, Master, Plant, State};
use support::random::Random;
use support::Fmu;

const SEED: u64 = 0x450a_04a6_31e5;
const CASES: usize = 300;
/// The steps, in contact durations, the requirement covers.
const SHORTEST: f64 = 0.05;
const LONGEST: f64 = 0.5;
/// Where None is safe: its bodies' energy within this many times the exact run's largest.
const SAFE: f64 = 1.1;
/// How much further from the exact motion than None a body may end, as a share of the stroke.
const ALLOWANCE: f64 = 0.01;
/// The communication point of the comparison: this many steps after the exact contact ends.
const AFTER: f64 = 3.0;
/// The master's RK4 steps per period of a spring in the plant.
const SUBSTEPS_PER_PERIOD: f64 = 400.0;
/// `heldForce` = None's code.
const HELD_NONE: f64 = 4.0;

#[derive(Clone, Copy, Debug)]
enum Kind {
    Lone,
    /// On a spring to ground of this stiffness, at its rest at the start.
    Spring(f64),
    Partner(Partner),
}

#[derive(Clone, Copy, Debug)]
struct Case {
    mass: f64,
    c: f64,
    d: f64,
    speed: f64,
    /// The step in contact durations of the contacting body's mass.
    step: f64,
    /// Free steps before the one the body reaches the stop in (alone), and where in that one.
    lead: usize,
    fraction: f64,
    kind: Kind,
}

impl Case {
    fn draw(random: &mut Random) -> Case {
        let mass = random.log_uniform(0.2, 5.0);
        let c = random.log_uniform(1e3, 1e6);
        let zeta = 0.02 + 0.28 * random.unit();
        let speed = random.log_uniform(0.2, 3.0);
        let step = random.log_uniform(SHORTEST, LONGEST);
        let lead = (random.unit() * 6.0) as usize;
        let fraction = 0.05 + 0.9 * random.unit();
        let contact_duration = PI * (mass / c).sqrt();
        let h = step * contact_duration;
        let draw = random.unit();
        let kind = if draw < 1.0 / 3.0 {
            Kind::Lone
        } else if draw < 2.0 / 3.0 {
            // Slow enough to bring the body to the stop: omega * (lead + 1) * h < 1.
            let period = random.log_uniform(8.0, 40.0) * (lead as f64 + 1.0) * h;
            Kind::Spring(mass * (2.0 * PI / period).powi(2))
        } else {
            let partner_mass = mass * random.log_uniform(0.3, 3.0);
            let reduced = mass * partner_mass / (mass + partner_mass);
            let period = contact_duration * random.log_uniform(5.0, 40.0);
            Kind::Partner(Partner {
                mass: partner_mass,
                stiffness: reduced * (2.0 * PI / period).powi(2),
                rest_length: 1.0,
            })
        };
        Case {
            mass,
            c,
            d: zeta * 2.0 * (c * mass).sqrt(),
            speed,
            step,
            lead,
            fraction,
            kind,
        }
    }

    fn contact_duration(&self) -> f64 {
        PI * (self.mass / self.c).sqrt()
    }

    fn h(&self) -> f64 {
        self.step * self.contact_duration()
    }

    fn x0(&self) -> f64 {
        self.speed * (self.lead as f64 + self.fraction) * self.h()
    }

    /// Both bodies move together toward the stop at `speed`.
    fn initial(&self) -> State {
        let x0 = self.x0();
        [x0, -self.speed, x0 + 1.0, -self.speed]
    }

    /// The force on the contacting body besides the gap and the partner.
    fn external(&self, x: f64) -> f64 {
        match self.kind {
            Kind::Spring(k) => -k * (x - self.x0()),
            _ => 0.0,
        }
    }

    fn partner(&self) -> Option<Partner> {
        match self.kind {
            Kind::Partner(p) => Some(p),
            _ => None,
        }
    }

    fn substeps(&self) -> usize {
        let period = match self.kind {
            Kind::Lone => return 1,
            Kind::Spring(k) => 2.0 * PI * (self.mass / k).sqrt(),
            Kind::Partner(p) => 2.0 * PI / (p.stiffness * (1.0 / self.mass + 1.0 / p.mass)).sqrt(),
        };
        ((SUBSTEPS_PER_PERIOD * self.h() / period).ceil() as usize).max(1)
    }

    fn energy(&self, y: State) -> f64 {
        let [x, v, partner_x, partner_v] = y;
        let kinetic = 0.5 * self.mass * v * v;
        match self.kind {
            Kind::Lone => kinetic,
            Kind::Spring(k) => kinetic + 0.5 * k * (x - self.x0()).powi(2),
            Kind::Partner(p) => {
                let stretch = partner_x - x - p.rest_length;
                kinetic
                    + 0.5 * p.mass * partner_v * partner_v
                    + 0.5 * p.stiffness * stretch * stretch
            }
        }
    }
}

/// The exact run at the communication points, the point of the comparison and the stroke: the
/// path each body travels from the touch-down to that point (the larger of the two).
struct Reference {
    states: Vec<State>,
    at: usize,
    stroke: f64,
}

fn exact<'a>(case: &Case, external: &'a dyn Fn(f64, f64, f64) -> f64) -> Exact<'a> {
    let body = Body {
        mass: case.mass,
        c: case.c,
        d: case.d,
        s_rel0: 0.0,
        external,
    };
    let dt = case.contact_duration() / 2000.0;
    let y = case.initial();
    let run = Exact::new(body, y[0], y[1], dt, dt);
    match case.partner() {
        Some(p) => run.with_partner(p, y[2], y[3]),
        None => run,
    }
}

fn reference(case: &Case) -> Reference {
    let external = |_: f64, x: f64, _: f64| case.external(x);
    let h = case.h();
    let mut probe = exact(case, &external);
    let mut until = (case.lead as f64 + 1.0) * h;
    while probe.events.first().is_none_or(|e| e.end.is_none()) {
        until += case.contact_duration();
        assert!(
            until < 1e3 * h,
            "{case:?}: the exact run's first contact never ends"
        );
        probe.advance_to(until);
    }
    let first = probe.events[0];
    let end = first.end.expect("the first contact ended");
    let at = (end / h + AFTER).ceil() as usize;
    let mut sampled = exact(case, &external);
    let states = (0..=at)
        .map(|k| {
            sampled.advance_to(k as f64 * h);
            [sampled.x, sampled.v, sampled.partner_x, sampled.partner_v]
        })
        .collect();
    // The paths from the touch-down on, summed over a hundredth of the contact's duration.
    let mut path = exact(case, &external);
    path.advance_to(first.start);
    let (mut x, mut partner_x) = (path.x, path.partner_x);
    let (mut stroke, mut stroke_partner) = (0.0, 0.0);
    let fine = case.contact_duration() / 100.0;
    while path.t < at as f64 * h {
        path.advance_to((path.t + fine).min(at as f64 * h));
        stroke += (path.x - x).abs();
        stroke_partner += (path.partner_x - partner_x).abs();
        (x, partner_x) = (path.x, path.partner_x);
    }
    Reference {
        states,
        at,
        stroke: stroke.max(stroke_partner),
    }
}

/// A run under `master` with `m_eff` = 0, `heldForce` at Auto or None: the states at the
/// communication points up to the comparison's.
fn run(fmu: &Arc<Fmu>, case: &Case, at: usize, master: Master, none: bool) -> Vec<State> {
    let partner = case.partner();
    let derivative = move |_: f64, y: State, held: f64| {
        plant_rates(case.mass, partner, y, case.external(y[0]) - held)
    };
    let plant = Plant {
        initial: case.initial(),
        derivative: &derivative,
    };
    let gap = Gap {
        c: case.c,
        d: case.d,
        m_eff: 0.0,
        s_rel0: 0.0,
    };
    let parameters: &[(&str, f64)] = if none {
        &[("heldForce", HELD_NONE)]
    } else {
        &[]
    };
    let (h, substeps) = (case.h(), case.substeps());
    let (samples, _) = cosimulate_plant_with(fmu, gap, parameters, &plant, master, h, at, substeps);
    let samples = samples.unwrap_or_else(|message| panic!("{case:?} under {master:?}: {message}"));
    samples
        .iter()
        .map(|s| [s.x, s.v, s.partner_x, s.partner_v])
        .collect()
}

/// The bodies' position error at the comparison's point over the stroke, and the largest energy
/// over the exact run's largest (NaN if any is).
fn measure(case: &Case, exact: &Reference, states: &[State]) -> (f64, f64) {
    let (y, z) = (states[exact.at], exact.states[exact.at]);
    let mut error = (y[0] - z[0]).abs();
    if case.partner().is_some() {
        error = error.max((y[2] - z[2]).abs());
    }
    let largest = |states: &[State]| {
        states
            .iter()
            .map(|&y| case.energy(y))
            .fold(0.0, |a: f64, e| {
                if a.is_nan() || e.is_nan() {
                    f64::NAN
                } else {
                    a.max(e)
                }
            })
    };
    (
        error / exact.stroke,
        largest(states) / largest(&exact.states),
    )
}

fn print_runs(case: &Case, exact: &Reference, auto: &[State], none: &[State]) {
    println!("{case:?}, stroke {:.4e}", exact.stroke);
    for (k, z) in exact.states.iter().enumerate() {
        println!(
            "{k:>4} exact x {:+.5e} | Auto x {:+.5e} E {:.4e} | None x {:+.5e} E {:.4e}",
            z[0],
            auto[k][0],
            case.energy(auto[k]),
            none[k][0],
            case.energy(none[k])
        );
    }
}

/// The drawn cases `covered` selects, under `masters`: how many runs were compared (None safe) and
/// those that ended further off than None allows.
fn compare(covered: impl Fn(&Case) -> bool, masters: &[Master]) -> (usize, Vec<String>) {
    let fmu = Fmu::load_default();
    let only: Option<usize> = std::env::var("NO_HARM_ONLY")
        .ok()
        .and_then(|v| v.parse().ok());
    let mut random = Random(SEED);
    let (mut compared, mut harmed) = (0, Vec::new());
    for index in 0..CASES {
        let case = Case::draw(&mut random);
        if !covered(&case) || only.is_some_and(|n| n != index) {
            continue;
        }
        let exact = reference(&case);
        for &master in masters {
            let auto_run = run(&fmu, &case, exact.at, master, false);
            let none_run = run(&fmu, &case, exact.at, master, true);
            if only.is_some() {
                println!("{}", master.label());
                print_runs(&case, &exact, &auto_run, &none_run);
            }
            let (auto, auto_energy) = measure(&case, &exact, &auto_run);
            let (none, none_energy) = measure(&case, &exact, &none_run);
            let line = format!(
                "#{index} {} h = {:.3} T_c, lead {}, {:?}: Auto {:.3} % (E {:.3}), None {:.3} % (E {:.3})",
                master.label(),
                case.step,
                case.lead,
                case.kind,
                100.0 * auto,
                auto_energy,
                100.0 * none,
                none_energy
            );
            assert!(auto_energy.is_finite(), "{line}");
            if none_energy.is_nan() || none_energy > SAFE {
                continue;
            }
            compared += 1;
            if auto > none + ALLOWANCE {
                harmed.push(line);
            }
        }
    }
    (compared, harmed)
}

fn assert_no_harm(compared: usize, harmed: &[String]) {
    println!(
        "{compared} runs compared where None is safe; {} harmed",
        harmed.len()
    );
    assert!(compared > 0, "no run compared");
    assert!(
        harmed.is_empty(),
        "without a mass the FMU ended further from the exact motion than None:\n{}",
        harmed.join("\n")
    );
}

#[test]
fn without_a_mass_a_lone_body_met_after_a_free_step_ends_no_further_off_than_none_under_jacobi() {
    let lone_after_a_free_step = |case: &Case| matches!(case.kind, Kind::Lone) && case.lead > 0;
    let stepping_all_at_once = [Master::Jacobi, Master::JacobiReadingAfter];
    let (compared, harmed) = compare(lone_after_a_free_step, &stepping_all_at_once);
    assert_no_harm(compared, &harmed);
}

#[test]
fn without_a_mass_a_body_on_a_spring_met_after_three_free_steps_ends_no_further_off_than_none() {
    // Three free means show the external acceleration linear in the position, which the
    // probe's answer is read through.
    let spring_after_three_free_steps =
        |case: &Case| matches!(case.kind, Kind::Spring(_)) && case.lead >= 3;
    let (compared, harmed) = compare(spring_after_three_free_steps, &Master::EVERY_ORDERING);
    assert_no_harm(compared, &harmed);
}

#[test]
#[ignore = "issue 45 item 2, not met yet: cargo test --release --test no_harm -- --ignored --nocapture"]
fn without_a_mass_short_steps_end_no_further_off_than_none() {
    let (compared, harmed) = compare(|_| true, &Master::EVERY_ORDERING);
    for line in &harmed {
        println!("{line}");
    }
    assert_no_harm(compared, &harmed);
}
