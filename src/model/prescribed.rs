//! The step of a motion the user declared prescribed (`heldForce` = None): the law's integral
//! along the motion the inputs extrapolate, and nothing else.
//!
//! No body answers a prescribed motion, so nothing here reads the master's answers, learns a
//! mass, bounds, owes or probes: the coupling's rules (docs/coupling.md) are for a master that
//! holds the force on a body. What is left is what a plain C FMU's step does, and it is kept
//! apart so that it costs no more (docs/performance.md).

use super::do_step::MEAN_LIMIT;
use super::{ElastoGap, NonFiniteStep, StepReport};
use crate::coupling::{Observed, Prediction};
use crate::laws::{ContactLaw, Tangential, TangentialStep};
use crate::step::{Motion, SubstepLimits};

impl ElastoGap {
    /// [`ElastoGap::do_step`] for a prescribed motion. The port received what the law's mean
    /// force over the last step did along the master's displacement: on a prescribed motion that
    /// force is the contact's, whichever output the master reads.
    /// Out of line, as `do_step_with`: its code and its place in the binary do not move with
    /// the coupling's. Its parts are `#[inline(always)]`. Its test of finite means is written
    /// out rather than shared with `do_step_with`'s (`leaves_finite_means`): shared, the same
    /// instructions would be laid out otherwise, and this step would fall behind the C step.
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
        // From the start, in registers: reading the returned end back waits on its stores.
        let end = step_end.start.at(h);
        let touched = report
            .integral
            .touchdown_v_rel
            .and_then(|v_rel| law.touched_down(v_rel));
        let law = touched.as_ref().unwrap_or(law);
        let h_next = self.co_simulation.next_step.unwrap_or(h);
        let next = self.next_along_the_prescribed_motion(law, end, h_next, limits);
        let plane = self.tangential();
        let tangential = if plane == Tangential::None {
            TangentialStep::default()
        } else {
            self.tangential_step(
                law,
                &step_end,
                h,
                limits,
                report,
                &self.co_simulation.tangential_answers,
            )
        };
        report.friction_energy = tangential.dissipated;
        let impulse = report.integral.impulse;
        let dissipated = report.integral.dissipated + tangential.dissipated;
        let model_loss = self.co_simulation.coupling.model_loss() + dissipated;
        let e_loss = model_loss.max(self.e_loss);
        let s = step_end.start.s;
        let e_port =
            self.co_simulation.coupling.port_energy_to(self.f_mean, s) + tangential.port_work;
        let mean_bound = (h * MEAN_LIMIT).min(f64::MAX);
        let finite = self.end_is_finite(law, end, &tangential, next)
            && impulse.abs() <= mean_bound
            && dissipated.abs() <= mean_bound
            && tangential.impulse.iter().all(|i| i.abs() <= mean_bound)
            && tangential.port_work.is_finite()
            && e_loss.is_finite()
            && e_port.is_finite();
        if !finite {
            return Err(NonFiniteStep);
        }
        let start = Observed {
            time,
            s,
            v: step_end.start.v,
        };
        let integral = (impulse, dissipated);
        let coupling = &mut self.co_simulation.coupling;
        self.f_mean = coupling.take_prescribed_step_result(start, h, integral, e_port, model_loss);
        let along = Prediction::Kinematic {
            start: end,
            h: h_next,
            probe: None,
        };
        coupling.take_the_prediction_along_the_motion(next, along);
        self.keep_the_tangential_outputs(plane, &tangential, h);
        self.co_simulation.end_of_step = Some(end);
        let reported = e_loss - self.e_loss;
        self.e_loss = e_loss;
        self.co_simulation.q_flow_mean = self.heat_flow(reported / h);
        self.history.push(time, &self.inputs);
        self.supplied = Default::default();
        if let Some(v_rel) = report.integral.touchdown_v_rel {
            self.touchdown_speed = -v_rel;
        }
        self.time = time + h;
        self.co_simulation.last_step_size = h;
        Ok(())
    }

    /// `f_next` along the motion from the step's end, where the master reads it (0 otherwise).
    #[inline(always)]
    fn next_along_the_prescribed_motion<L: ContactLaw>(
        &self,
        law: &L,
        end: Motion,
        h: f64,
        limits: SubstepLimits,
    ) -> f64 {
        if self.co_simulation.coupling.master_reads_next() {
            Prediction::Kinematic {
                start: end,
                h,
                probe: None,
            }
            .force(law, limits)
            .0
        } else {
            0.0
        }
    }

    /// The tangential outputs of the step. Without a tangential force they are 0: written only
    /// where a tangential force that a tunable parameter has since turned off left them
    /// otherwise, and not divided by `h` (copying the pass's zeros would stall the step on store
    /// forwarding).
    #[inline(always)]
    fn keep_the_tangential_outputs(
        &mut self,
        plane: Tangential,
        tangential: &TangentialStep,
        h: f64,
    ) {
        if plane != Tangential::None {
            self.co_simulation.f_t_mean = tangential.impulse.map(|component| component / h);
            self.stiction = tangential.deformation;
            self.co_simulation.tangential_account = tangential.account;
        } else if self.co_simulation.f_t_mean != [0.0; 2]
            || self.stiction != [0.0; 2]
            || self.co_simulation.tangential_account != [0.0; 2]
        {
            self.co_simulation.f_t_mean = [0.0; 2];
            self.stiction = [0.0; 2];
            self.co_simulation.tangential_account = [0.0; 2];
        }
    }
}
