//! The tangential force over a co-simulation step, integrated along the step's own normal motion
//! (its dynamics where the step has them, else the extrapolated motion): sliding (the friction's
//! energy, or the time the Gap Force's range held), stick-slip (the sticking friction's spring on
//! the deformation the held slip moves), or through the slip's own mass where the master's
//! answers told it. With stick-slip the tangential port returns at most what it received over the
//! contact and did not dissipate ([`returned_at_most`]).

use super::normal_step::StepEnd;
use super::{ElastoGap, StepReport};
use crate::coupling::{SlipDynamics, TangentialAnswers};
use crate::laws::{
    advance_deformation, dot, slip_speed, ContactLaw, Forces, Friction, PassRate, Tangential,
    TangentialPass, TangentialStep,
};
use crate::step::{
    integrate_plane_stretch, integrate_step, Motion, PlaneDynamics, PlaneMotion, PlaneStretch,
    SubstepLimits,
};

impl ElastoGap {
    /// What the tangential force did over the step: a second integration along the same motion
    /// ([`TangentialPass`]) gives the friction's energy, or the time the Gap Force's range held
    /// (its dampers' force is constant along a held slip); with stick–slip, the sticking
    /// friction's spring along the step; nothing without a tangential force, without slip
    /// (friction) or without contact in the step.
    pub(super) fn tangential_step<L: ContactLaw + Copy>(
        &self,
        law: &L,
        step_end: &StepEnd,
        h: f64,
        limits: SubstepLimits,
        report: &StepReport,
        answers: &TangentialAnswers,
    ) -> TangentialStep {
        let tangential = self.tangential();
        if tangential == Tangential::None {
            return TangentialStep::default();
        }
        let slip_dynamics = answers.dynamics(h);
        let along = AlongTheStep {
            law,
            step_end,
            h,
            limits,
            report,
        };
        match (tangential, slip_dynamics) {
            (Tangential::Friction(friction), _) if friction.max_stiction_deformation > 0.0 => {
                self.stick_slip_step(along, friction, slip_dynamics)
            }
            (Tangential::Friction(friction), Some(dynamics)) if report.integral.substeps > 0 => {
                let through = self.friction_through_mass(along, friction, dynamics);
                TangentialStep {
                    impulse: through.impulse,
                    dissipated: through.dissipated,
                    port_work: through.port_work,
                    predicted_slip: Some(through.slip_end),
                    ..TangentialStep::default()
                }
            }
            _ => Self::sliding_step(
                law,
                tangential,
                self.inputs.v_t,
                step_end,
                h,
                limits,
                report,
            ),
        }
    }

    /// The tangential force's step without a stick state (see [`Self::tangential_step`]).
    fn sliding_step<L: ContactLaw + Copy>(
        law: &L,
        tangential: Tangential,
        v_t: [f64; 2],
        step_end: &StepEnd,
        h: f64,
        limits: SubstepLimits,
        report: &StepReport,
    ) -> TangentialStep {
        // Along the slip: the friction's power is that of the 1-D curve at the slip speed.
        let speed = slip_speed(v_t);
        let expected = match tangential {
            Tangential::None => return TangentialStep::default(),
            Tangential::Friction(_) if speed == 0.0 => return TangentialStep::default(),
            // The friction's energy is about |mu*v_t| times the normal impulse.
            Tangential::Friction(friction) => {
                friction.coefficient(speed).0.abs() * speed * report.integral.impulse.abs()
            }
            // At most the whole step in range.
            Tangential::GapDampers(_) => h,
        };
        if report.integral.substeps == 0 {
            return TangentialStep::default();
        }
        let rate = PassRate::Tangential(tangential);
        let (integral, _) = pass_integral(
            law,
            rate,
            speed,
            step_end,
            step_end.start,
            h,
            expected,
            limits,
        );
        tangential.step_from_pass(integral, v_t)
    }

    /// The friction's step with stick–slip (`maxStictionDeformation` > 0): slipping, as without
    /// it, leaving the deformation along the slip; sticking, the spring `mu_s*|f|*xi/delta` on the
    /// deformation the held slip moves (closed form, [`advance_deformation`]) integrated with the
    /// normal force's magnitude over sixteen stretches of the step. The tangential port returns
    /// at most what it received over the contact and did not dissipate (a spring stiffened by a
    /// growing normal force would otherwise return more than it stored); out of contact the
    /// deformation is released and what the port kept counts as dissipated.
    fn stick_slip_step<L: ContactLaw + Copy>(
        &self,
        along: AlongTheStep<'_, L>,
        friction: Friction,
        slip_dynamics: Option<SlipDynamics>,
    ) -> TangentialStep {
        let AlongTheStep {
            law,
            step_end,
            h,
            limits,
            report,
        } = along;
        let v_t = self.inputs.v_t;
        let [received, dissipated] = self.co_simulation.tangential_account;
        let end_forces = law.evaluate(step_end.end.s, step_end.end.v);
        let kept = (received - dissipated).max(0.0);
        let step = if report.integral.substeps == 0 {
            TangentialStep::default()
        } else if let Some(dynamics) = slip_dynamics {
            self.stick_slip_through_mass(along, friction, dynamics, &end_forces, kept)
        } else if !friction.sticks(v_t) {
            let tangential = Tangential::Friction(friction);
            let step = Self::sliding_step(law, tangential, v_t, step_end, h, limits, report);
            TangentialStep {
                deformation: friction.deformation_after_slip(v_t),
                ..step
            }
        } else {
            self.sticking_step(along, friction, kept)
        };
        Self::close_the_stick_account(
            step,
            friction,
            &end_forces,
            self.co_simulation.tangential_account,
        )
    }

    /// Stick–slip through the slip's mass ([`Self::friction_through_mass`]). The master's body
    /// moves as the slip's dynamics predict, not along the held slip: the work the force it is
    /// given does on the port is its mean along that path. For a Jacobi master that force is
    /// held over the next step, from the deformation this step leaves: what the port keeps then
    /// is at most what that deformation stores.
    #[inline(always)]
    fn stick_slip_through_mass<L: ContactLaw + Copy>(
        &self,
        along: AlongTheStep<'_, L>,
        friction: Friction,
        dynamics: SlipDynamics,
        end_forces: &Forces,
        kept: f64,
    ) -> TangentialStep {
        let delta = friction.max_stiction_deformation;
        let through = self.friction_through_mass(along, friction, dynamics);
        let (impulse, port_work) = match dynamics.held {
            None => returned_at_most(through.impulse, through.path, kept),
            Some(_) => {
                let radius = slip_speed(through.deformation);
                let stored = 0.5 * friction.mu_s * end_forces.f.abs() * radius * radius / delta;
                let kept_after = stored.min(kept + through.port_work).max(0.0);
                let (impulse, _) = returned_at_most(through.impulse, through.path, kept_after);
                (impulse, through.port_work)
            }
        };
        TangentialStep {
            impulse,
            port_work,
            deformation: through.deformation,
            predicted_slip: Some(through.slip_end),
            ..TangentialStep::default()
        }
    }

    /// Sticking along the held slip: over each stretch of the step, the spring on the
    /// deformation at the stretch's middle times the normal impulse, held to `f_t_max` over the
    /// time in contact; the port returns at most what it `kept`.
    #[inline(always)]
    fn sticking_step<L: ContactLaw + Copy>(
        &self,
        along: AlongTheStep<'_, L>,
        friction: Friction,
        kept: f64,
    ) -> TangentialStep {
        let (law, step_end, limits) = (along.law, along.step_end, along.limits);
        let v_t = self.inputs.v_t;
        let delta = friction.max_stiction_deformation;
        let (mut xi, mut impulse) = (self.stiction, [0.0; 2]);
        for_each_normal_stretch(along, |stretch| {
            let (normal, dt) = (stretch.normal_impulse, stretch.duration);
            let middle = advance_deformation(xi, v_t, 0.5 * dt, delta);
            let mut piece = middle.map(|x| friction.mu_s * normal * x / delta);
            let magnitude = slip_speed(piece);
            if friction.f_t_max > 0.0 && magnitude > 0.0 {
                let (time, _) = pass_integral(
                    law,
                    PassRate::ContactTime,
                    0.0,
                    step_end,
                    stretch.start,
                    dt,
                    dt,
                    limits,
                );
                let bound = friction.f_t_max * time;
                if magnitude > bound {
                    piece = piece.map(|p| p * bound / magnitude);
                }
            }
            impulse = [impulse[0] + piece[0], impulse[1] + piece[1]];
            xi = if stretch.contact_at_end {
                advance_deformation(xi, v_t, dt, delta)
            } else {
                [0.0; 2]
            };
        });
        let (impulse, work) = returned_at_most(impulse, v_t, kept);
        TangentialStep {
            impulse,
            port_work: work,
            deformation: xi,
            ..TangentialStep::default()
        }
    }

    /// The tangential port's account (`[received, dissipated]` before the step) after `step`:
    /// of what the port kept, what the deformation stores at the step's end stays, the rest is
    /// dissipated (never less than before). Out of contact the deformation is released and
    /// the account closed.
    #[inline(always)]
    fn close_the_stick_account(
        mut step: TangentialStep,
        friction: Friction,
        end_forces: &Forces,
        account: [f64; 2],
    ) -> TangentialStep {
        let delta = friction.max_stiction_deformation;
        let [mut received, mut dissipated] = account;
        received += step.port_work;
        let stored = if end_forces.contact {
            let radius = slip_speed(step.deformation);
            0.5 * friction.mu_s * end_forces.f.abs() * radius * radius / delta
        } else {
            0.0
        };
        let target = if end_forces.contact {
            dissipated.max(received - stored)
        } else {
            received.max(dissipated)
        };
        step.dissipated = (target - dissipated).max(0.0);
        dissipated = target;
        if end_forces.contact {
            step.account = [received, dissipated];
        } else {
            step.deformation = [0.0; 2];
            step.account = [0.0; 2];
        }
        step
    }

    /// The friction over the step through the slip's own dynamics ([`integrate_plane_stretch`]),
    /// from the master's slip and the deformation the contact holds (along the slip if it slips),
    /// with the normal force's magnitude over sixteen stretches of the step; out of contact at a
    /// stretch's end the deformation is released.
    ///
    /// A master that holds the step's own force (Gauss–Seidel) gets the mean force of the
    /// slip's motion under it. A Jacobi master holds the force the FMU gave last over this step
    /// and the one it gives now over the next: the step follows the slip's motion under the held
    /// force (the deformation and the dissipation are those of this step), then predicts the next
    /// step from there under the contact's own force (at the normal force of the step's end), and
    /// gives that prediction's mean.
    fn friction_through_mass<L: ContactLaw + Copy>(
        &self,
        along: AlongTheStep<'_, L>,
        friction: Friction,
        dynamics: SlipDynamics,
    ) -> ThroughMass {
        let AlongTheStep {
            law, step_end, h, ..
        } = along;
        let v_t = self.inputs.v_t;
        let dt = h / TANGENTIAL_STRETCHES as f64;
        let xi = if friction.sticks(v_t) {
            self.stiction
        } else {
            friction.deformation_after_slip(v_t)
        };
        let plane = match dynamics.held {
            // The slip follows the held force whatever the contact does.
            Some(held) => PlaneDynamics {
                mass: f64::INFINITY,
                a_ext: std::array::from_fn(|axis| {
                    dynamics.plane.a_ext[axis] - held[axis] / dynamics.plane.mass
                }),
            },
            None => dynamics.plane,
        };
        let mut this_step = PlaneStretch {
            end: PlaneMotion { xi, v: v_t },
            ..PlaneStretch::default()
        };
        for_each_normal_stretch(along, |stretch| {
            let dt = stretch.duration;
            let mean = stretch.normal_impulse / dt;
            let next = integrate_plane_stretch(&friction, mean, this_step.end, plane, dt);
            this_step = this_step.followed_by(&next, !stretch.contact_at_end);
        });
        let Some(held) = dynamics.held else {
            return ThroughMass {
                impulse: this_step.impulse,
                path: this_step.travelled.map(|x| x / h),
                port_work: dot(this_step.impulse, this_step.travelled) / h,
                dissipated: this_step.dissipated,
                deformation: this_step.end.xi,
                slip_end: this_step.end.v,
            };
        };
        let end_forces = law.evaluate(step_end.end.s, step_end.end.v);
        let mut next_step = PlaneStretch {
            end: this_step.end,
            ..PlaneStretch::default()
        };
        if end_forces.contact {
            let later = dynamics.later(h);
            for _ in 0..TANGENTIAL_STRETCHES {
                let stretch =
                    integrate_plane_stretch(&friction, end_forces.f, next_step.end, later, dt);
                next_step = next_step.followed_by(&stretch, false);
            }
        }
        ThroughMass {
            impulse: next_step.impulse,
            path: next_step.travelled.map(|x| x / h),
            port_work: dot(held, this_step.travelled),
            dissipated: this_step.dissipated,
            deformation: this_step.end.xi,
            slip_end: this_step.end.v,
        }
    }
}

/// What the friction through the slip's mass gave over a step.
struct ThroughMass {
    /// The impulse the master is to hold (N.s), and the mean slip it is held along (m/s).
    impulse: [f64; 2],
    path: [f64; 2],
    /// The work the force the master held over this step did on the port (J).
    port_work: f64,
    /// The energy dissipated over this step (J), the deformation it leaves (m), and the slip it
    /// predicts at its end (m/s).
    dissipated: f64,
    deformation: [f64; 2],
    slip_end: [f64; 2],
}

/// The stretches a step's tangential force is integrated over with the normal force's
/// magnitude.
const TANGENTIAL_STRETCHES: usize = 16;

/// What a step's tangential force is integrated along: the normal law, the step's motion and
/// size, the substep limits and the normal step's report.
#[derive(Clone, Copy)]
struct AlongTheStep<'a, L> {
    law: &'a L,
    step_end: &'a StepEnd,
    h: f64,
    limits: SubstepLimits,
    report: &'a StepReport,
}

/// One of a step's [`TANGENTIAL_STRETCHES`]: where it starts along the step's motion, how long
/// it lasts, the normal force's magnitude integrated over it (N.s) and whether the contact holds
/// at its end.
struct NormalStretch {
    start: Motion,
    duration: f64,
    normal_impulse: f64,
    contact_at_end: bool,
}

/// Visits the step's stretches in order, the normal force over each integrated along the step's
/// motion.
fn for_each_normal_stretch<L: ContactLaw + Copy>(
    along: AlongTheStep<'_, L>,
    mut visit: impl FnMut(NormalStretch),
) {
    let (law, step_end, h) = (along.law, along.step_end, along.h);
    let duration = h / TANGENTIAL_STRETCHES as f64;
    let expected = along.report.integral.impulse.abs();
    let mut start = step_end.start;
    for _ in 0..TANGENTIAL_STRETCHES {
        let (normal_impulse, end) = pass_integral(
            law,
            PassRate::NormalForce,
            0.0,
            step_end,
            start,
            duration,
            expected,
            along.limits,
        );
        visit(NormalStretch {
            start,
            duration,
            normal_impulse,
            contact_at_end: law.evaluate(end.s, end.v).contact,
        });
        start = end;
    }
}

/// The tangential port returns at most what it `kept` (received and did not dissipate): the
/// impulse held along the mean slip `v_t` of the master's body, scaled back if its work
/// `impulse.v_t` would return more than that. Returns the impulse and its work.
fn returned_at_most(impulse: [f64; 2], v_t: [f64; 2], kept: f64) -> ([f64; 2], f64) {
    let work = dot(impulse, v_t);
    if work < -kept {
        let share = kept / -work;
        (impulse.map(|i| i * share), -kept)
    } else {
        (impulse, work)
    }
}

/// The integral of `rate` along the step's motion (`step_end`: the law's dynamics where the step
/// has them, else the extrapolated motion) over `duration` from `start`, and the motion there. A
/// dynamic step holds the integral to its tolerance of the motion's kinetic energy: `expected`
/// (the integral's rough size) scales it to that.
#[allow(clippy::too_many_arguments)]
fn pass_integral<L: ContactLaw + Copy>(
    law: &L,
    rate: PassRate,
    v_t: f64,
    step_end: &StepEnd,
    start: Motion,
    duration: f64,
    expected: f64,
    limits: SubstepLimits,
) -> (f64, Motion) {
    let pass = |scale| TangentialPass {
        law: *law,
        rate,
        v_t,
        scale,
    };
    match step_end.dynamics {
        Some(dynamics) => {
            let kinetic = dynamics.mass * (start.v * start.v + (start.a * duration).powi(2));
            let scale = if kinetic > 0.0 && expected > 0.0 && (kinetic / expected).is_finite() {
                kinetic / expected
            } else {
                1.0
            };
            let step = crate::step::integrate_dynamics(&pass(scale), start, dynamics, duration);
            (step.integral.dissipated / scale, step.end)
        }
        None => (
            integrate_step(&pass(1.0), start, duration, limits).dissipated,
            start.at(duration),
        ),
    }
}
