//! Energies that stay bounded: case 4's systems of unknown mass under every master, the random
//! systems of the stress sweep and the sweeps built on its failures.

use std::sync::Arc;

use crate::common::{each_body_with_partner_behind, each_driven_body, trace_if_asked, System};
use crate::support::masters::{cosimulate_plant, Gap, Master, Plant, Sample, State};
use crate::support::random::Random;
use crate::support::reference::reference;
use crate::support::scenarios::{worse, Report};
use crate::support::Fmu;
/// Case 4's systems with the default `m_eff` = 0 under every master (case 4c's, beyond the
/// acceptance cases; docs/coupling.md): at every communication point the bodies' energy stays
/// within 10 times the initial energy of the exact motion's. A body pushed by a spring or a drive
/// never gives the steady external acceleration a clear probe's answer needs, so an unclear probe
/// must not let the next step deliver the whole impulse along the extrapolated motion, nor, under
/// Jacobi, a rough answer let the contact the probes held back be integrated from where the master
/// then is, deep in the stop: either multiplies the energy by many orders of magnitude. The
/// correction through an estimated mass is held to the model's energy; a driven body comes
/// closest to the bound, its drive doing more work on a motion whose phase the first contact put
/// off.
#[test]
fn bodies_not_alone_of_unknown_mass_stay_bounded_under_every_master() {
    let fmu = Fmu::load_default();
    let mut report = Report::new("case 4c's systems: energy above the exact");
    let mut check = |system: &System| {
        let e0 = (system.energy)(system.initial());
        for h in [1e-3, 5e-3, 10e-3] {
            let steps = (system.duration / h).round() as usize;
            let exact = reference(system.body(), &system.start, h, steps, system.substeps(h));
            for master in Master::EVERY_ORDERING {
                let run = system.run(&fmu, master, h);
                let above = run
                    .iter()
                    .zip(&exact.states)
                    .map(|(s, &y)| {
                        let state = [s.x, s.v, s.partner_x, s.partner_v];
                        ((system.energy)(state) - (system.energy)(y)) / e0
                    })
                    .fold(f64::MIN, worse);
                let at = format!("h={}ms", h * 1e3);
                trace_if_asked(master, &system.case, &at, &run, 0);
                report.check(
                    master,
                    &system.case,
                    "energy above exact / E0",
                    above,
                    10.0,
                    &at,
                );
            }
        }
    };
    each_body_with_partner_behind(0.0, &mut check);
    each_driven_body(0.0, check);
    report.finish_in_the_default_suite();
}

/// Random systems a user might couple the gap to, beyond the acceptance cases' grids: a body of
/// 0.1 to 10 kg, alone or with a second body behind it on a spring, under gravity toward the stop
/// or free, meeting c = 1e3 to 1e9 N/m with any damping up to the critical, anywhere in its first
/// three steps, at 0.1 to 100 contact durations per step, the gap given the mass, a mass 0.5 to 2
/// times off, or none, under every master. None of these systems gains energy, so the bodies'
/// energy (kinetic, the spring's, gravity's) at every communication point must stay below 10
/// times the initial energy: what the correction of a held force may lend for a step (case 2's
/// bound of 3 times the impact speed is 9 times the energy), never a blow-up. Not met: with
/// `STRESS_SYSTEMS=1000`, runs under every master go above; docs/coupling.md says which. One
/// system or one master on request: `STRESS_ONLY=<index>`, `STRESS_MASTER=<label>`.
#[test]
#[ignore = "a measurement: cargo test --release --test coupling_robustness stress -- --ignored --nocapture"]
fn stress_random_systems_never_blow_up() {
    let fmu = Fmu::load_default();
    let mut report = Report::new("stress: random systems, energy / E0 at any point");
    let mut draw = Random(0x9e37_79b9_7f4a_7c15);
    let systems: usize = std::env::var("STRESS_SYSTEMS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(200);
    for index in 0..systems {
        let mass = draw.log_uniform(0.1, 10.0);
        let c = draw.log_uniform(1e3, 1e9);
        let critical = 2.0 * (c * mass).sqrt();
        let d = critical * draw.unit().powi(2);
        let speed = draw.log_uniform(0.1, 10.0);
        let t_c = std::f64::consts::PI * (mass / c).sqrt();
        let h = t_c * draw.log_uniform(0.1, 100.0);
        let x0 = speed * h * 3.0 * draw.unit();
        let gravity = if draw.unit() < 0.3 {
            draw.log_uniform(0.1, 100.0)
        } else {
            0.0
        };
        let partner = (draw.unit() < 0.5).then(|| {
            let m2 = mass * draw.log_uniform(0.1, 10.0);
            // The two bodies' own oscillation resolved by the master's steps: a period of 10 to
            // 200 steps (a coarser one no held force can follow, contact or not).
            let period = h * draw.log_uniform(10.0, 200.0);
            let k = (2.0 * std::f64::consts::PI / period).powi(2) / (1.0 / mass + 1.0 / m2);
            (m2, k)
        });
        let m_eff = match (draw.unit() * 3.0) as u32 {
            0 => 0.0,
            1 => mass,
            _ => mass * draw.log_uniform(0.5, 2.0),
        };
        let system = Loose {
            mass,
            c,
            d,
            speed,
            h,
            x0,
            gravity,
            partner,
            m_eff,
        };
        let case = format!(
            "#{index} m={mass:.2} c={c:.1e} d/dc={:.2} v={speed:.2} g={gravity:.1} partner={} m_eff={:.2}",
            d / critical,
            partner.map_or("-".to_string(), |(m2, k)| format!("{m2:.2}/{k:.1e}")),
            m_eff / mass
        );
        // One system, or one master, on request: a failing row looked at on its own.
        if std::env::var("STRESS_ONLY").is_ok_and(|only| only != index.to_string()) {
            continue;
        }
        for master in Master::EVERY_ORDERING {
            if std::env::var("STRESS_MASTER").is_ok_and(|m| m != master.label()) {
                continue;
            }
            let (worst, run) = system.worst_energy(&fmu, master, 60);
            let at = format!("h={:.2}T_c x0={:.2}vh", h / t_c, x0 / (speed * h));
            trace_if_asked(master, &case, &at, &run, 0);
            report.check(master, &case, "energy / E0", worst, 10.0, &at);
        }
    }
    report.finish();
}

/// Checks each of `systems` under each of `masters`: no more than `bound` times the initial
/// energy at any communication point over 60 steps.
fn stays_bounded(report: &mut Report, masters: &[Master], systems: &[(String, Loose)], bound: f64) {
    let fmu = Fmu::load_default();
    for (case, system) in systems {
        for &master in masters {
            let at = format!("h={:.2}T_c", system.h / system.contact_duration());
            let key = format!("{case} {at} {}", master.label());
            // One system on request, as in the stress sweep: a failing row looked at on its own.
            if std::env::var("BOUNDED_ONLY").is_ok_and(|only| !key.contains(&only)) {
                continue;
            }
            let (worst, run) = system.worst_energy(&fmu, master, 60);
            trace_if_asked(master, case, &at, &run, 0);
            report.check(master, case, "energy / E0", worst, bound, &at);
        }
    }
}

/// A heavy ball given a mass 0.6 or 0.7 times its own, under strong gravity on a soft floor,
/// met in its first steps at one or two contact durations per step, under a master that steps
/// all units at once: its answers read through the given mass pollute every external
/// acceleration measured after them, so estimates from one answer each wander and the loop can
/// run away (the stress sweep's #1). The answers fitted together tell the mass
/// (`coupling::mass_fit`) and the loop stops. Not met: the stress sweep's bound of 10 times; the
/// ball goes deep into the floor before six answers are in, and its way back up costs more than
/// 10 times the (small) initial energy (docs/coupling.md). Asserted: no runaway, at most 1e4
/// times.
#[test]
fn a_heavy_ball_given_too_little_mass_under_a_jacobi_master_does_not_run_away() {
    let mut report = Report::new("heavy ball, m_eff 0.6-0.7x, Jacobi: energy / E0 (runaway)");
    let mut systems = Vec::new();
    for mass in [1.0_f64, 3.0] {
        for c in [8e3, 3e4] {
            for gravity in [20.0, 37.0] {
                for factor in [0.6, 0.7] {
                    for ratio in [1.0, 2.0] {
                        let system = Loose {
                            gravity,
                            m_eff: factor * mass,
                            ..Loose::lone(mass, c, 0.85, 0.14, ratio, 0.43)
                        };
                        let case = format!("m={mass} c={c:.0e} g={gravity} m_eff=x{factor}");
                        systems.push((case, system));
                    }
                }
            }
        }
    }
    stays_bounded(
        &mut report,
        &[Master::Jacobi, Master::JacobiReadingAfter],
        &systems,
        1e4,
    );
    report.finish();
}

/// A lone body of unknown mass (`m_eff` = 0) under weak gravity, met in the first step at 10 to
/// 70 contact durations per step: no step before tells the external acceleration, so the probes'
/// answers read with it as 0 tell no mass; were probing to end as for a master that prescribes
/// the motion, the next step would give the whole impulse along a motion deep in the stop (the
/// stress sweep's #284). Two answers to probes of different size tell the mass and the
/// acceleration together.
#[test]
fn a_body_of_unknown_mass_met_in_the_first_step_under_weak_gravity_stays_bounded() {
    let mut report = Report::new("unknown mass, first step, weak gravity: energy / E0");
    let mut systems = Vec::new();
    for mass in [0.5_f64, 2.0] {
        for gravity in [0.1, 1.0] {
            for ratio in [10.0, 30.0, 70.0] {
                for phase in [0.2, 0.4, 0.7] {
                    let system = Loose {
                        gravity,
                        ..Loose::lone(mass, 3e5, 0.03, 0.6, ratio, phase)
                    };
                    let case = format!("m={mass} g={gravity} @{phase}");
                    systems.push((case, system));
                }
            }
        }
    }
    stays_bounded(
        &mut report,
        &[Master::GaussSeidel, Master::GaussSeidelBodyFirst],
        &systems,
        10.0,
    );
    report.finish();
}

/// A body of `mass` under `gravity` (m/s^2, toward the stop), alone or with a second body behind
/// it on a spring (`partner`: its mass and the spring's stiffness), `x0` from the stop at `speed`
/// toward it, meeting a stop of stiffness `c` and damping `d` whose gap is given `m_eff`, at steps
/// of `h`: the stress sweep's systems and the sweeps built on its failures.
#[derive(Clone, Copy)]
struct Loose {
    mass: f64,
    c: f64,
    d: f64,
    speed: f64,
    h: f64,
    x0: f64,
    gravity: f64,
    partner: Option<(f64, f64)>,
    m_eff: f64,
}

impl Loose {
    /// The spring's length at rest.
    const REST: f64 = 1.0;

    /// A lone body, free and of unknown mass (`m_eff` = 0), meeting the stop with `damping` of
    /// the critical at `steps_per_contact` contact durations per step, `phase` of its first
    /// step's travel from the stop.
    fn lone(
        mass: f64,
        c: f64,
        damping: f64,
        speed: f64,
        steps_per_contact: f64,
        phase: f64,
    ) -> Loose {
        let t_c = std::f64::consts::PI * (mass / c).sqrt();
        let h = steps_per_contact * t_c;
        Loose {
            mass,
            c,
            d: damping * 2.0 * (c * mass).sqrt(),
            speed,
            h,
            x0: phase * speed * h,
            gravity: 0.0,
            partner: None,
            m_eff: 0.0,
        }
    }

    fn contact_duration(&self) -> f64 {
        std::f64::consts::PI * (self.mass / self.c).sqrt()
    }

    /// The bodies' mechanical energy (kinetic, the spring's, gravity's).
    fn energy(&self, y: State) -> f64 {
        let spring = self.partner.map_or(0.0, |(m2, k)| {
            0.5 * k * (y[2] - y[0] - Self::REST).powi(2) + 0.5 * m2 * y[3] * y[3]
        });
        0.5 * self.mass * y[1] * y[1] + self.mass * self.gravity * y[0] + spring
    }

    /// The largest energy at a communication point over `steps` steps under `master`, in units of
    /// the initial energy, and the run.
    fn worst_energy(&self, fmu: &Arc<Fmu>, master: Master, steps: usize) -> (f64, Vec<Sample>) {
        let Loose {
            mass,
            gravity,
            partner,
            ..
        } = *self;
        let derivative = move |_: f64, y: State, held: f64| -> State {
            let spring = partner.map_or(0.0, |(_, k)| k * (y[2] - y[0] - Self::REST));
            let partner_accel = partner.map_or(0.0, |(m2, _)| -spring / m2);
            [y[1], (spring - held) / mass - gravity, y[3], partner_accel]
        };
        let plant = Plant {
            initial: match partner {
                Some(_) => [self.x0, -self.speed, self.x0 + Self::REST, -self.speed],
                None => [self.x0, -self.speed, 0.0, 0.0],
            },
            derivative: &derivative,
        };
        let gap = Gap {
            c: self.c,
            d: self.d,
            m_eff: self.m_eff,
            s_rel0: 0.0,
        };
        let substeps = partner.map_or(4, |_| 40);
        let run = cosimulate_plant(fmu, gap, &plant, master, self.h, steps, substeps);
        let e0 = self.energy(plant.initial);
        let worst = run
            .iter()
            .map(|s| self.energy([s.x, s.v, s.partner_x, s.partner_v]) / e0)
            .fold(0.0, worse);
        (worst, run)
    }
}
