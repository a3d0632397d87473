//! What the tests of this target share: the lone body's impact against its exact run, the
//! dropped and the falling ball, the `E_port` check, the worst value of a run, `COUPLING_TRACE`'s
//! trace, and case 4's systems with more than the contacting body.

use std::sync::Arc;

use crate::support::exact::{Body, Partner};
use crate::support::masters::{
    cosimulate, cosimulate_plant_run, Gap, Master, MasterBody, Plant, Reads, Run, Sample, State,
};
use crate::support::reference::{reference, Reference, Start};
use crate::support::scenarios::{issue_damping, worse, ImpactParameters, Report};
use crate::support::Fmu;

pub(crate) const G: f64 = 9.81;

pub(crate) fn free(_: f64, _: f64, _: f64) -> f64 {
    0.0
}

/// Steps after the exact contact's end a lone-body run goes on, for the FMU's corrections of the
/// master's motion to show.
const TAIL_STEPS: usize = 12;

/// A lone body hitting the stop at `p.speed` from `x0`: the master's run and the exact one.
pub(crate) struct LoneImpact {
    pub(crate) reference: Reference,
    h: f64,
    steps: usize,
    x0: f64,
    pub(crate) v_in: f64,
    pub(crate) v_out: f64,
    contact_end: f64,
}

impl LoneImpact {
    pub(crate) fn new(p: ImpactParameters, h: f64, x0: f64) -> LoneImpact {
        let t_c = p.contact_duration();
        let steps = ((x0 / p.speed + 1.5 * t_c) / h).ceil() as usize + TAIL_STEPS;
        let body = Body {
            mass: p.mass,
            c: p.c,
            d: p.d,
            s_rel0: 0.0,
            external: &free,
        };
        // Free flight is exact at any RK4 step; the contact gets 4000 steps per contact duration.
        let start = Start {
            x: x0,
            v: -p.speed,
            partner: None,
            dt_free: h,
            dt_contact: t_c / 4000.0,
        };
        let reference = reference(body, &start, h, steps, 1);
        assert_eq!(reference.events.len(), 1, "{:?}", reference.events);
        let event = reference.events[0];
        let (end, v_out) = (event.end.unwrap(), event.v_out.unwrap());
        // The reference's own energy balance: what the body lost is what the contact dissipated.
        let brought = 0.5 * p.mass * event.v_in.powi(2);
        let lost = brought - 0.5 * p.mass * v_out.powi(2);
        let dissipated = *reference.dissipated.last().unwrap();
        assert!(
            (lost - dissipated).abs() < 1e-8 * brought,
            "{lost} vs {dissipated}"
        );
        LoneImpact {
            reference,
            h,
            steps,
            x0,
            v_in: event.v_in,
            v_out,
            contact_end: end,
        }
    }

    pub(crate) fn run(
        &self,
        fmu: &Arc<Fmu>,
        p: ImpactParameters,
        m_eff: f64,
        master: Master,
    ) -> Vec<Sample> {
        let body = MasterBody::new(p.mass, self.x0, -p.speed, &free);
        let gap = Gap {
            c: p.c,
            d: p.d,
            m_eff,
            s_rel0: 0.0,
        };
        cosimulate(fmu, gap, &body, master, self.h, self.steps, 1)
    }

    pub(crate) fn end_step(&self) -> usize {
        self.reference.step_of(self.contact_end)
    }

    pub(crate) fn dissipated(&self) -> f64 {
        *self.reference.dissipated.last().unwrap()
    }
}

/// Prints a run's samples where `COUPLING_TRACE` is a part of `"<case> <at> <master>"`: one
/// failing row of a report, looked at step by step.
pub(crate) fn trace_if_asked(master: Master, case: &str, at: &str, run: &[Sample], from: usize) {
    let key = format!("{case} {at} {}", master.label());
    if std::env::var("COUPLING_TRACE").is_ok_and(|wanted| key.contains(&wanted)) {
        println!("{key} (judged from sample {from})");
        for (k, s) in run.iter().enumerate() {
            println!(
                "  {k:3} t={:.4e} x={:+.6e} v={:+.6e} held={:+.4e} E_loss={:.6e} E_port={:?} (master {:.12e}) m_est={:.4} x2={:+.6e} v2={:+.6e}",
                s.t, s.x, s.v, s.held, s.e_loss, s.e_port, s.port_energy, s.m_eff_estimate, s.partner_x, s.partner_v
            );
        }
    }
}

/// The largest of `measure` over the samples from index `from` on (0 if there are none).
pub(crate) fn worst_from(
    run: &[Sample],
    from: usize,
    measure: impl Fn(usize, &Sample) -> f64,
) -> f64 {
    run.iter()
        .enumerate()
        .skip(from)
        .map(|(k, s)| measure(k, s))
        .fold(0.0, worse)
}

/// The FMU's `E_port` against the master's port energy over the steps the gap has seen both ends
/// of: after the gap's step from `t_k`, the Gauss–Seidel gap-first and the Jacobi masters have
/// given it `s_rel` up to `t_k`, the body-first master up to `t_{k+1}`.
pub(crate) fn check_port_energy(
    report: &mut Report,
    master: Master,
    case: &str,
    at: &str,
    run: &[Sample],
) {
    if run.iter().all(|s| s.e_port.is_none()) {
        report.note("the FMU has no output E_port: its check is skipped".to_string());
        return;
    }
    let known_lag = usize::from(master != Master::GaussSeidelBodyFirst);
    let worst = run
        .iter()
        .enumerate()
        .skip(1)
        .map(|(k, s)| {
            let expected = run[k - known_lag].port_energy;
            let fmu = s.e_port.unwrap_or(f64::NAN);
            (fmu - expected).abs() / (1e-9 * expected.abs() + 1e-12)
        })
        .fold(0.0, worse);
    report.check(
        master,
        case,
        "E_port err/(1e-9 rel+1e-12 J)",
        worst,
        1.0,
        at,
    );
}

/// The height every ball is dropped from (m), at rest.
pub(crate) const DROP_HEIGHT: f64 = 0.05;

/// A ball of `mass` dropped from [`DROP_HEIGHT`] onto a stop of stiffness `c` and damping `d`, the
/// gap given `m_eff`, `steps` steps of `h` under `master`.
pub(crate) fn drop_ball(
    fmu: &Arc<Fmu>,
    (mass, c, d): (f64, f64, f64),
    m_eff: f64,
    master: Master,
    h: f64,
    steps: usize,
) -> Vec<Sample> {
    let gravity = move |_: f64, _: f64, _: f64| -mass * G;
    let ball = MasterBody::new(mass, DROP_HEIGHT, 0.0, &gravity);
    let gap = Gap {
        c,
        d,
        m_eff,
        s_rel0: 0.0,
    };
    cosimulate(fmu, gap, &ball, master, h, steps, 1)
}

/// A ball of `mass` falling under `gravity` toward the stop at `speed`, from the height where it
/// meets the stop's edge after `t_in`: its start and its motion under the gap's held force.
pub(crate) fn falling_ball(
    mass: f64,
    gravity: f64,
    speed: f64,
    t_in: f64,
) -> (State, impl Fn(f64, State, f64) -> State) {
    let x0 = speed * t_in + 0.5 * gravity * t_in * t_in;
    let derivative =
        move |_: f64, y: State, held: f64| -> State { [y[1], -held / mass - gravity, 0.0, 0.0] };
    ([x0, -speed, 0.0, 0.0], derivative)
}

/// A system with more than the contacting body: what the master integrates and what is compared.
pub(crate) struct System<'a> {
    pub(crate) case: String,
    c: f64,
    d: f64,
    /// The contacting body's mass (the contact sees it against the fixed stop).
    mass: f64,
    /// The `m_eff` the gap is given: the mass, or 0 (unknown).
    m_eff: f64,
    external: &'a dyn Fn(f64, f64, f64) -> f64,
    pub(crate) start: Start,
    pub(crate) energy: &'a dyn Fn(State) -> f64,
    pub(crate) duration: f64,
}

impl System<'_> {
    /// The master's plant: the body at flange_b and, if there is one, its partner on a spring.
    fn derivative(&self, t: f64, y: State, held: f64) -> State {
        let on_partner = self
            .start
            .partner
            .map_or(0.0, |(p, _, _)| p.force_on_partner(y[0], y[2]));
        let partner_accel = self
            .start
            .partner
            .map_or(0.0, |(p, _, _)| on_partner / p.mass);
        [
            y[1],
            ((self.external)(t, y[0], y[1]) - on_partner - held) / self.mass,
            y[3],
            partner_accel,
        ]
    }

    /// The contacting body as the reference integrates it.
    pub(crate) fn body(&self) -> Body<'_> {
        Body {
            mass: self.mass,
            c: self.c,
            d: self.d,
            s_rel0: 0.0,
            external: self.external,
        }
    }

    /// The master's state at the start.
    pub(crate) fn initial(&self) -> State {
        let (x2, v2) = self.start.partner.map_or((0.0, 0.0), |(_, x, v)| (x, v));
        [self.start.x, self.start.v, x2, v2]
    }

    /// The master's RK4 substeps per communication step `h`: as fine as the reference between
    /// contacts.
    pub(crate) fn substeps(&self, h: f64) -> usize {
        (h / self.start.dt_free).ceil() as usize
    }

    /// One co-simulation of the system with the gap under `master` at steps `h`.
    pub(crate) fn run(&self, fmu: &Arc<Fmu>, master: Master, h: f64) -> Vec<Sample> {
        self.run_reading(fmu, master, h, Reads::Connected, &[])
    }

    /// [`Self::run`] with what the master reads, and more parameters by name.
    pub(crate) fn run_reading(
        &self,
        fmu: &Arc<Fmu>,
        master: Master,
        h: f64,
        reads: Reads,
        parameters: &[(&str, f64)],
    ) -> Vec<Sample> {
        let derivative = |t: f64, y: State, held: f64| self.derivative(t, y, held);
        let plant = Plant {
            initial: self.initial(),
            derivative: &derivative,
        };
        let gap = Gap {
            c: self.c,
            d: self.d,
            m_eff: self.m_eff,
            s_rel0: 0.0,
        };
        let run = Run {
            master,
            h,
            steps: (self.duration / h).round() as usize,
            substeps: self.substeps(h),
            reads,
        };
        let (run, _) = cosimulate_plant_run(fmu, gap, parameters, &plant, run);
        run.unwrap_or_else(|message| panic!("{}: {message}", self.case))
    }

    /// Case 4's checks at steps `h` of 1, 5 and 10 ms for every master.
    pub(crate) fn check(&self, fmu: &Arc<Fmu>, report: &mut Report) {
        let t_c = std::f64::consts::PI * (self.mass / self.c).sqrt();
        let e0 = (self.energy)(self.initial());
        // The acceptance steps, or those listed in `COUPLING_STEPS` (seconds, comma-separated).
        let steps: Vec<f64> =
            std::env::var("COUPLING_STEPS").map_or(vec![1e-3, 5e-3, 10e-3], |list| {
                list.split(',')
                    .map(|h| {
                        h.trim()
                            .parse()
                            .expect("COUPLING_STEPS: step sizes in seconds")
                    })
                    .collect()
            });
        for h in steps {
            let steps = (self.duration / h).round() as usize;
            let exact = reference(self.body(), &self.start, h, steps, self.substeps(h));
            assert!(exact.events.len() >= 2, "{}: {:?}", self.case, exact.events);
            let at = format!(
                "h={}ms ({:.1}T_c) {} contacts",
                h * 1e3,
                h / t_c,
                exact.events.len()
            );
            for master in Master::EVERY_ORDERING {
                let run = self.run(fmu, master, h);
                let state = |s: &Sample| [s.x, s.v, s.partner_x, s.partner_v];
                // Judged from the 4th step after the one each contact ended in: a master that
                // held no force over the contact's step (body first, or Jacobi when the contact
                // was not foreseen) cannot have the exact motion before the coupling has corrected
                // it (case 1's window for such a contact). The energy "after each contact" is the
                // one at the window's first point (the driven body's energy passes near 0 between
                // contacts, where a relative error means nothing); "never above" holds at all of
                // the window's points, and so do the positions.
                let windows = exact.after_each_contact(4);
                let energy_error =
                    |k: usize| (self.energy)(state(&run[k])) - (self.energy)(exact.states[k]);
                let relative = windows
                    .iter()
                    .map(|w| energy_error(w.start).abs() / (self.energy)(exact.states[w.start]))
                    .fold(0.0, worse);
                let after: Vec<usize> = windows.into_iter().flatten().collect();
                let above = after
                    .iter()
                    .map(|&k| energy_error(k) / e0)
                    .fold(f64::MIN, worse);
                let position = |which: usize| {
                    after
                        .iter()
                        .map(|&k| {
                            let x = [run[k].x, run[k].partner_x][which];
                            (x - exact.states[k][2 * which]).abs() / exact.stroke(which)
                        })
                        .fold(0.0, worse)
                };
                let case = &self.case;
                trace_if_asked(master, case, &at, &run, after.first().copied().unwrap_or(0));
                report.check(
                    master,
                    case,
                    "energy rel. err after contacts",
                    relative,
                    0.02,
                    &at,
                );
                report.check(master, case, "energy above exact / E0", above, 5e-3, &at);
                report.check(
                    master,
                    case,
                    "position err / stroke",
                    position(0),
                    0.02,
                    &at,
                );
                if self.start.partner.is_some() {
                    report.check(
                        master,
                        case,
                        "partner pos err / stroke",
                        position(1),
                        0.02,
                        &at,
                    );
                }
                check_port_energy(report, master, case, &at, &run);
            }
        }
    }
}

/// Case 4a's second body: 1 kg behind the contacting one on a 1e3 N/m spring.
const PARTNER: Partner = Partner {
    mass: 1.0,
    stiffness: 1e3,
    rest_length: 0.1,
};

/// Both bodies' kinetic energy and the spring's between them (case 4a).
fn energy_with_partner(y: State) -> f64 {
    let stretch = y[2] - y[0] - PARTNER.rest_length;
    0.5 * y[1] * y[1]
        + 0.5 * PARTNER.mass * y[3] * y[3]
        + 0.5 * PARTNER.stiffness * stretch * stretch
}

/// Case 4a's systems: c = 1e4 to 1e8 N/m, 1 and 2 m/s, the gap given `m_eff`.
pub(crate) fn each_body_with_partner_behind(m_eff: f64, mut visit: impl FnMut(&System)) {
    for c in [1e4_f64, 1e5, 1e6, 1e7, 1e8] {
        for speed in [1.0, 2.0] {
            visit(&System {
                m_eff,
                ..with_partner_behind(c, speed)
            });
        }
    }
}

/// Case 4a's system at stiffness `c`: both bodies coming in together at `speed`, the first 5 mm
/// from the stop, 0.5 s (two contacts: the first hits the stop, the second pushes it back in).
fn with_partner_behind(c: f64, speed: f64) -> System<'static> {
    System {
        case: format!("c={c:.0e} d={:.0} v={speed}", issue_damping(c)),
        c,
        d: issue_damping(c),
        mass: 1.0,
        m_eff: 1.0,
        external: &free,
        start: Start {
            x: 0.005,
            v: -speed,
            partner: Some((PARTNER, 0.005 + PARTNER.rest_length, -speed)),
            dt_free: 1e-4,
            dt_contact: std::f64::consts::PI * (1.0 / c).sqrt() / 2000.0,
        },
        energy: &energy_with_partner,
        duration: 0.5,
    }
}

/// Case 4b's systems: a 1 kg body on a 200 N/m spring, driven near its resonance by a sinusoidal
/// force into a stiff stop (c = 1e6 N/m), two dampings and four drive frequencies, the gap given
/// `m_eff`.
pub(crate) fn each_driven_body(m_eff: f64, mut visit: impl FnMut(&System)) {
    let (mass, k_s, rest, amplitude) = (1.0_f64, 200.0_f64, 0.01, 2.0);
    let natural = (k_s / mass).sqrt();
    let energy = |y: State| 0.5 * mass * y[1] * y[1] + 0.5 * k_s * (y[0] - rest).powi(2);
    for d in [200.0, 2000.0] {
        for tuning in [0.8, 0.9, 1.0, 1.1] {
            let omega = tuning * natural;
            let external =
                move |t: f64, x: f64, _: f64| -k_s * (x - rest) + amplitude * (omega * t).sin();
            let start = Start {
                x: rest,
                v: -0.5,
                partner: None,
                dt_free: 1e-4,
                dt_contact: std::f64::consts::PI * (mass / 1e6).sqrt() / 2000.0,
            };
            visit(&System {
                case: format!("d={d} drive {tuning}*w_n"),
                c: 1e6,
                d,
                mass,
                m_eff,
                external: &external,
                start,
                energy: &energy,
                duration: 2.0,
            });
        }
    }
}
