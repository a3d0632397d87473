//! The step of a motion the user declared prescribed (`heldForce` = None): the law's integral
//! along the motion the inputs extrapolate, and nothing else.
//!
//! No body answers a prescribed motion, so nothing here reads the master's answers, learns a
//! mass, bounds, owes or probes: the coupling's rules (docs/coupling.md) are for a master that
//! holds the force on a body. What is left is what a plain C FMU's step does, and it is kept
//! apart so that it costs no more (docs/performance.md).

use super::do_step::leaves_finite_means;
use super::{ElastoGap, NonFiniteStep, StepReport};
use crate::coupling::Prediction;
use crate::laws::{ContactLaw, Tangential, TangentialStep};
use crate::step::Motion;

impl ElastoGap {
    /// [`ElastoGap::do_step`] for a prescribed motion. The port received what the law's mean
    /// force over the last step did along the master's displacement: on a prescribed motion that
    /// force is the contact's, whichever output the master reads.
    /// Out of line, as `do_step_with`: its code and its place in the binary do not move with
    /// the coupling's. Its parts are `#[inline(always)]`: one function's steps, compiled as one.
    #[inline(never)]
    pub(super) fn prescribed_step<L: ContactLaw + Copy>(
        &mut self,
        law: &L,
        h: f64,
        report: &mut StepReport,
    ) -> Result<(), NonFiniteStep> {
        let time = self.time;
        let limits = self.substep_limits();
        let step_end = self.kinematic_step(law, h, limits, report);
        // From the start, in registers: reading the returned end back stalled on its stores.
        let end = step_end.start.at(h);
        let touched = report
            .integral
            .touchdown_v_rel
            .and_then(|v_rel| law.touched_down(v_rel));
        let law = touched.as_ref().unwrap_or(law);
        let next = if self.coupling.f_next_read {
            Prediction::Kinematic {
                start: end,
                h,
                probe: None,
            }
            .force(law, limits)
        } else {
            0.0
        };
        let plane = self.tangential();
        let tangential = if plane == Tangential::None {
            TangentialStep::default()
        } else {
            self.tangential_step(law, &step_end, h, limits, report, &self.tangential_answers)
        };
        report.friction_energy = tangential.dissipated;
        let impulse = report.integral.impulse;
        let dissipated = report.integral.dissipated + tangential.dissipated;
        let model_loss = self.coupling.model_loss + dissipated;
        let e_loss = model_loss.max(self.e_loss);
        // The port's work over the step before, now that the master has said where it went.
        let s = self.inputs.s_b - self.inputs.s_a;
        let e_port = if self.coupling.last_h > 0.0 {
            self.coupling.e_port + self.f_mean * (s - self.coupling.last.s)
        } else {
            self.coupling.e_port
        } + tangential.port_work;
        let finite = self.end_is_finite(law, end, &tangential, next)
            && leaves_finite_means(h, impulse, dissipated, &tangential)
            && e_loss.is_finite()
            && e_port.is_finite();
        if !finite {
            return Err(NonFiniteStep);
        }
        let left = PrescribedEnd {
            end,
            next,
            impulse,
            dissipated,
            model_loss,
            e_loss,
            e_port,
            s,
        };
        self.take_prescribed_step(time, h, &left, plane, &tangential, report);
        Ok(())
    }

    /// The step passed its test: the instance takes it.
    #[inline(always)]
    fn take_prescribed_step(
        &mut self,
        time: f64,
        h: f64,
        left: &PrescribedEnd,
        plane: Tangential,
        tangential: &TangentialStep,
        report: &StepReport,
    ) {
        self.coupling.e_port = left.e_port;
        self.coupling.last.time = time;
        self.coupling.last.s = left.s;
        self.coupling.last.v = self.inputs.v_b - self.inputs.v_a;
        self.coupling.model_loss = left.model_loss;
        self.coupling.f_next = if self.coupling.f_next_read {
            Prediction::Known(left.next)
        } else {
            Prediction::Kinematic {
                start: left.end,
                h,
                probe: None,
            }
        };
        self.coupling.last_h = h;
        self.coupling.last_contact_impulse = left.impulse;
        self.coupling.last_dissipated = left.dissipated;
        self.f_mean = left.impulse / h;
        self.coupling.last_force = self.f_mean;
        // Without a tangential force these are 0: written only where a tangential force that
        // a tunable parameter has since turned off left them otherwise, and not divided by `h`
        // (copying the pass's zeros cost a tenth of the step: a store-forwarding stall).
        if plane != Tangential::None {
            self.f_t_mean = tangential.impulse.map(|component| component / h);
            self.stiction = tangential.deformation;
            self.tangential_account = tangential.account;
        } else if self.f_t_mean != [0.0; 2]
            || self.stiction != [0.0; 2]
            || self.tangential_account != [0.0; 2]
        {
            self.f_t_mean = [0.0; 2];
            self.stiction = [0.0; 2];
            self.tangential_account = [0.0; 2];
        }
        self.end_of_step = Some(left.end);
        let reported = left.e_loss - self.e_loss;
        self.e_loss = left.e_loss;
        if self.parameters.use_heat_port {
            self.q_flow_mean = self.heat_flow(reported / h);
        }
        self.history.push(time, &self.inputs);
        self.supplied = Default::default();
        if let Some(v_rel) = report.integral.touchdown_v_rel {
            self.touchdown_speed = -v_rel;
        }
        self.time = time + h;
        self.last_step_size = h;
    }
}

/// What a prescribed step leaves, once tested, for the instance to take.
struct PrescribedEnd {
    /// The relative motion at the step's end, and `f_next` from there (0 where unread).
    end: Motion,
    next: f64,
    /// The normal impulse (N.s) and what the step dissipated, the friction included (J).
    impulse: f64,
    dissipated: f64,
    /// What the model dissipated so far, and `E_loss`.
    model_loss: f64,
    e_loss: f64,
    /// What the port received, and the relative position the master reported, from where the
    /// next step counts the port's work.
    e_port: f64,
    s: f64,
}
