//! The normal force laws of `forceLaw`, written out again from their definitions,
//! independently of the FMU's source, and a reference impact computed with them: a body arriving
//! at a fixed housing, integrated by classical RK4 at a fine step from the touch-down with the
//! lift-off located by bisection of the last step.

/// One law with its parameters, as the FMU's parameters name them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LawCase {
    ElastoGap,
    SpringDamper,
    NoPulling,
    /// `hysteresis` = LankaraniNikravesh with the coefficient of restitution `e`.
    HuntCrossley {
        e: f64,
    },
    AdamsImpact {
        d_max: f64,
    },
    /// Power damping `d*(delta/s_ref)^n_d`, rebound damping factor `rdf`.
    RecurDynPower {
        n_d: f64,
        rdf: f64,
    },
    /// Step damping `STEP(delta, 0, 0, d_max, d)`.
    RecurDynStep {
        d_max: f64,
        rdf: f64,
    },
    /// RecurDyn's Gap Force with its default range (contact while `s_rel < s_rel0`), no preload:
    /// `F_n = c*delta^n + d*sgnpow(der(delta), n_v)`.
    GapForce {
        n_v: f64,
    },
}

impl LawCase {
    /// The FMU's parameter settings for this case besides `c`, `d` and `n` (Integers as f64).
    pub fn settings(&self) -> Vec<(&'static str, f64)> {
        match *self {
            LawCase::ElastoGap => vec![("forceLaw", 1.0)],
            LawCase::SpringDamper => vec![("forceLaw", 2.0)],
            LawCase::NoPulling => vec![("forceLaw", 3.0)],
            LawCase::HuntCrossley { e } => {
                vec![("forceLaw", 4.0), ("hysteresis", 3.0), ("e", e)]
            }
            LawCase::AdamsImpact { d_max } => vec![("forceLaw", 5.0), ("d_max", d_max)],
            LawCase::RecurDynPower { n_d, rdf } => vec![
                ("forceLaw", 6.0),
                ("recurDynDamping", 1.0),
                ("n_d", n_d),
                ("rdf", rdf),
            ],
            LawCase::RecurDynStep { d_max, rdf } => vec![
                ("forceLaw", 6.0),
                ("recurDynDamping", 2.0),
                ("d_max", d_max),
                ("rdf", rdf),
            ],
            LawCase::GapForce { n_v } => vec![("forceLaw", 7.0), ("n_v", n_v)],
        }
    }
}

/// MSC Adams' cubic STEP(x, x0, h0, x1, h1).
pub fn adams_step(x: f64, x0: f64, h0: f64, x1: f64, h1: f64) -> f64 {
    if x <= x0 {
        h0
    } else if x >= x1 {
        h1
    } else {
        let r = (x - x0) / (x1 - x0);
        h0 + (h1 - h0) * r * r * (3.0 - 2.0 * r)
    }
}

/// The spring, damper and law parameters of one reference impact (s_ref = 1 m, f_ref = c*s_ref).
#[derive(Clone, Copy, Debug)]
pub struct Contact {
    pub law: LawCase,
    pub c: f64,
    pub d: f64,
    pub n: f64,
}

impl Contact {
    /// The normal force F_n (> 0 pushes the bodies apart) at penetration `delta` > 0, rate
    /// `delta_rate`, for a contact that touched down at `approach` speed.
    pub fn normal_force(&self, delta: f64, delta_rate: f64, approach: f64) -> f64 {
        let spring = self.c * delta.powf(self.n);
        let d = self.d;
        match self.law {
            LawCase::ElastoGap => {
                // f = f_c + clamp(d*v_rel, f_c, -f_c) with f_c = -spring, v_rel = -delta_rate.
                spring + (d * delta_rate).clamp(-spring, spring)
            }
            LawCase::SpringDamper => spring + d * delta_rate,
            LawCase::NoPulling => (spring + d * delta_rate).max(0.0),
            LawCase::HuntCrossley { e } => {
                let chi = 3.0 * (1.0 - e * e) / (4.0 * approach);
                (spring * (1.0 + chi * delta_rate)).max(0.0)
            }
            LawCase::AdamsImpact { d_max } => {
                (spring + adams_step(delta, 0.0, 0.0, d_max, d) * delta_rate).max(0.0)
            }
            LawCase::RecurDynPower { n_d, rdf } => {
                let r = if delta_rate < 0.0 { rdf } else { 1.0 };
                spring + d * delta.powf(n_d) * delta_rate * r
            }
            LawCase::RecurDynStep { d_max, rdf } => {
                let r = if delta_rate < 0.0 { rdf } else { 1.0 };
                spring + adams_step(delta, 0.0, 0.0, d_max, d) * delta_rate * r
            }
            LawCase::GapForce { n_v } => {
                spring + d * delta_rate.signum() * delta_rate.abs().powf(n_v)
            }
        }
    }

    /// The power the contact dissipates: F_n times the penetration rate, less the spring's.
    fn loss_power(&self, delta: f64, delta_rate: f64, approach: f64) -> f64 {
        let spring = self.c * delta.powf(self.n);
        (self.normal_force(delta, delta_rate, approach) - spring) * delta_rate
    }
}

/// A body of `mass` arriving at `speed` at a fixed housing: the rebound speed over the arrival
/// speed, and the energy the contact dissipated.
#[derive(Clone, Copy, Debug)]
pub struct Rebound {
    pub restitution: f64,
    pub dissipated: f64,
    pub duration: f64,
}

/// The impact integrated from the touch-down (penetration 0, rate `speed`) on (penetration,
/// rate, dissipated energy) by [`integrate_to_lift_off`].
pub fn reference_impact(contact: &Contact, mass: f64, speed: f64, dt: f64) -> Rebound {
    let approach = speed;
    let rhs = |y: [f64; 3]| {
        let delta = y[0].max(0.0);
        [
            y[1],
            -contact.normal_force(delta, y[1], approach) / mass,
            contact.loss_power(delta, y[1], approach),
        ]
    };
    let (end, duration) = integrate_to_lift_off(rhs, [0.0, speed, 0.0], dt);
    Rebound {
        restitution: -end[1] / speed,
        dissipated: end[2],
        duration,
    }
}

/// RK4 at step `dt` on a state whose first two entries are the penetration and its rate (the
/// others: quantities integrated along), from `start` until the penetration is back to 0. The
/// step that leaves contact is bisected to the lift-off to 1e-15 s, so the force's jump there is
/// not smeared. Returns the state at the lift-off and the time it took.
pub fn integrate_to_lift_off<const N: usize>(
    rhs: impl Fn([f64; N]) -> [f64; N],
    start: [f64; N],
    dt: f64,
) -> ([f64; N], f64) {
    let rk4 = |y: [f64; N], h: f64| {
        let k1 = rhs(y);
        let k2 = rhs(std::array::from_fn(|i| y[i] + 0.5 * h * k1[i]));
        let k3 = rhs(std::array::from_fn(|i| y[i] + 0.5 * h * k2[i]));
        let k4 = rhs(std::array::from_fn(|i| y[i] + h * k3[i]));
        std::array::from_fn(|i| y[i] + h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]))
    };
    let mut y = start;
    let mut t = 0.0;
    loop {
        let next = rk4(y, dt);
        if next[0] > 0.0 {
            y = next;
            t += dt;
            assert!(t < 10.0, "no lift-off within 10 s from {start:?}");
            continue;
        }
        // Lift-off inside this step: the longest sub-step that stays inside.
        let (mut inside, mut outside) = (0.0, dt);
        while outside - inside > 1e-15 {
            let middle = 0.5 * (inside + outside);
            if rk4(y, middle)[0] > 0.0 {
                inside = middle;
            } else {
                outside = middle;
            }
        }
        return (rk4(y, outside), t + outside);
    }
}

/// The same impact with the FMU imported for Model Exchange: the body (flange_a fixed at 0, the
/// body at flange_b arriving at `speed` from 1 mm outside the contact) and the FMU's state
/// `E_loss` integrated by classical RK4 at step `dt`. After every step the FMU's event indicators
/// are compared; a sign change is located by bisection of the step to 1e-14 s, the step is taken
/// to just past it and the FMU goes through Event Mode there, as a variable-step tool does. The
/// force law's kinks are events too, so no step integrates across one. Returns the rebound and
/// the number of events.
pub fn model_exchange_impact(
    fmu: &std::sync::Arc<super::Fmu>,
    parameters: &[(&str, f64)],
    mass: f64,
    speed: f64,
    dt: f64,
) -> Result<(Rebound, usize), String> {
    let mut body = MeBody::new(fmu, parameters, mass, [1e-3, -speed])?;
    let mut y = [1e-3, -speed, 0.0];
    let mut t = 0.0;
    let mut events = 0;
    let mut contact_started = None;
    loop {
        let before = body.sides(t, y)?;
        let mut h = dt;
        let mut next = body.rk4(t, y, h)?;
        if body.sides(t + h, next)? != before {
            // The shortest step that changes a side, to 1e-14 s.
            let (mut same, mut changed) = (0.0, dt);
            while changed - same > 1e-14 {
                let middle = 0.5 * (same + changed);
                let trial = body.rk4(t, y, middle)?;
                if body.sides(t + middle, trial)? == before {
                    same = middle;
                } else {
                    changed = middle;
                }
            }
            // Up to the switch on the side the step started on, so that no stage sees the law
            // of the other side (a force that jumps there would cost RK4 its order), then across
            // it by an Euler step of at most 1e-14 s.
            let inside = body.rk4(t, y, same)?;
            let rate = body.rhs(t + same, inside)?;
            h = changed;
            next = std::array::from_fn(|i| inside[i] + (changed - same) * rate[i]);
            body.event(t + h, next)?;
            events += 1;
        }
        t += h;
        y = next;
        if y[0] < 0.0 && contact_started.is_none() {
            contact_started = Some(t);
        }
        if let Some(started) = contact_started {
            if y[0] >= 0.0 && y[1] > 0.0 {
                let rebound = Rebound {
                    restitution: y[1] / speed,
                    dissipated: y[2],
                    duration: t - started,
                };
                return Ok((rebound, events));
            }
        }
        if t > 10.0 {
            return Err("no rebound within 10 s".into());
        }
    }
}

/// A body at flange_b of a Model Exchange instance, flange_a fixed at 0.
struct MeBody {
    gap: super::Instance,
    s_b: u32,
    v_b: u32,
    f: u32,
    indicators: usize,
    mass: f64,
}

fn ok_or(status: super::Status, what: &str) -> Result<(), String> {
    match status {
        super::Status::Ok => Ok(()),
        other => Err(format!("{what} returned {other:?}")),
    }
}

impl MeBody {
    fn new(
        fmu: &std::sync::Arc<super::Fmu>,
        parameters: &[(&str, f64)],
        mass: f64,
        start: [f64; 2],
    ) -> Result<MeBody, String> {
        use super::{Instance, InstantiateOptions, VarType};
        let options = InstantiateOptions {
            fmu_type: fmi_sys::fmi2::fmi2Type_fmi2ModelExchange,
            ..InstantiateOptions::named("model exchange impact")
        };
        let mut gap = Instance::instantiate(fmu, &options)
            .map_err(|failure| format!("fmi2Instantiate: {:?}", failure.logs))?;
        for &(name, value) in parameters {
            ok_or(gap.set_by_name(name, value), name)?;
        }
        let [s_b, v_b, f] = ["flange_b.s", "flange_b.v", "f"].map(|n| gap.vr(n, VarType::Real));
        ok_or(gap.setup_experiment(None, 0.0, None), "fmi2SetupExperiment")?;
        ok_or(
            gap.enter_initialization_mode(),
            "fmi2EnterInitializationMode",
        )?;
        ok_or(gap.set_real(&[s_b, v_b], &start), "fmi2SetReal")?;
        ok_or(gap.exit_initialization_mode(), "fmi2ExitInitializationMode")?;
        ok_or(
            gap.enter_continuous_time_mode(),
            "fmi2EnterContinuousTimeMode",
        )?;
        Ok(MeBody {
            gap,
            s_b,
            v_b,
            f,
            indicators: fmu.model_description.number_of_event_indicators,
            mass,
        })
    }

    /// Time, state `E_loss` and inputs of a point (x, v, E_loss).
    fn set_point(&mut self, t: f64, y: [f64; 3]) -> Result<(), String> {
        ok_or(self.gap.set_time(t), "fmi2SetTime")?;
        ok_or(
            // The stiction deformation stays 0: these laws run without stick-slip.
            self.gap.set_continuous_states(&[y[2], 0.0, 0.0]),
            "fmi2SetContinuousStates",
        )?;
        ok_or(
            self.gap.set_real(&[self.s_b, self.v_b], &[y[0], y[1]]),
            "fmi2SetReal",
        )
    }

    fn rhs(&mut self, t: f64, y: [f64; 3]) -> Result<[f64; 3], String> {
        self.set_point(t, y)?;
        let (status, force) = self.gap.get_real(&[self.f]);
        ok_or(status, "fmi2GetReal(f)")?;
        let (status, derivative) = self.gap.get_derivatives(3);
        ok_or(status, "fmi2GetDerivatives")?;
        Ok([y[1], -force[0] / self.mass, derivative[0]])
    }

    fn rk4(&mut self, t: f64, y: [f64; 3], h: f64) -> Result<[f64; 3], String> {
        let k1 = self.rhs(t, y)?;
        let k2 = self.rhs(t + 0.5 * h, std::array::from_fn(|i| y[i] + 0.5 * h * k1[i]))?;
        let k3 = self.rhs(t + 0.5 * h, std::array::from_fn(|i| y[i] + 0.5 * h * k2[i]))?;
        let k4 = self.rhs(t + h, std::array::from_fn(|i| y[i] + h * k3[i]))?;
        Ok(std::array::from_fn(|i| {
            y[i] + h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i])
        }))
    }

    /// The sides of the event indicators (`z > 0`) at a point.
    fn sides(&mut self, t: f64, y: [f64; 3]) -> Result<Vec<bool>, String> {
        self.set_point(t, y)?;
        let (status, z) = self.gap.get_event_indicators(self.indicators);
        ok_or(status, "fmi2GetEventIndicators")?;
        Ok(z.iter().map(|z| *z > 0.0).collect())
    }

    /// Event Mode at a point, and back to Continuous-Time Mode.
    fn event(&mut self, t: f64, y: [f64; 3]) -> Result<(), String> {
        self.set_point(t, y)?;
        ok_or(self.gap.enter_event_mode(), "fmi2EnterEventMode")?;
        let (status, info) = self.gap.new_discrete_states();
        ok_or(status, "fmi2NewDiscreteStates")?;
        if info.terminateSimulation != 0 {
            return Err("the FMU asked to terminate".into());
        }
        ok_or(
            self.gap.enter_continuous_time_mode(),
            "fmi2EnterContinuousTimeMode",
        )
    }
}
