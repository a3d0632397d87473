//! The co-simulation step: the check of the step a master asks for (`check_step`), then
//! `do_step`: what it learns from the master's motion at its start
//! (the mass its answers tell, whether a contact has settled), which integration of the normal
//! contact it takes (`normal_step`), the one bound on every force it hands out
//! (`coupling::bound`), the tangential force's step, the energy it reports (`E_loss`), and its
//! test that everything it leaves is finite.
//!
//! A step whose outputs would not all be finite is refused ([`NonFiniteStep`]; `do_step` says
//! what a refused step leaves changed). The step allocates nothing and logs nothing: the FMI
//! layer reports what it did from the [`StepReport`]. The parts of `do_step_with` are
//! `#[inline(always)]`: they are one function's steps, and compile as one.

use super::normal_step::StepEnd;
use super::{ElastoGap, NonFiniteStep, Number, StepReport, SuppliedAccelerations};
use crate::coupling::{Observed, Prediction, TangentialAnswers, PLAIN_STEP};
use crate::laws::{ContactLaw, PlaneForce, Tangential, TangentialStep};
use crate::step::{Motion, SubstepLimits};

/// The largest mean over a step that the step's test lets through as `|integral| <= h *
/// MEAN_LIMIT` (capped at the largest double, for an `h` that overflows the product): four
/// rounding steps below the largest double, so that the rounded product and quotient cannot
/// reach infinity.
pub(super) const MEAN_LIMIT: f64 = f64::MAX * (1.0 - 4.0 * f64::EPSILON);

/// Whether every value is finite: `value * 0` is 0 for a finite value and NaN otherwise, and the
/// probes are summed pairwise, so that the test's latency grows with the logarithm of their
/// number. A step waits on this test before it commits.
#[inline(always)]
fn all_finite<const N: usize>(values: [f64; N]) -> bool {
    let mut probes = values.map(|value| value * 0.0);
    let mut len = N;
    while len > 1 {
        let half = len / 2;
        for k in 0..half {
            probes[k] += probes[k + len - half];
        }
        len -= half;
    }
    N == 0 || probes[0] == 0.0
}

impl ElastoGap {
    /// The step size is a finite number > 0, the step starts at the FMU's time (up to the
    /// master's rounding) and ends at a later one.
    #[inline]
    pub fn check_step(&self, current_time: f64, h: f64) -> Result<(), String> {
        // `h * 0 == 0` tests finiteness in two instructions; with `h > 0`, `is_finite` compiles
        // to a longer sequence of integer ones (a floating-point class test).
        if !(h > 0.0 && h * 0.0 == 0.0) {
            return Err(format!(
                "communicationStepSize = {} must be a finite number > 0",
                Number(h)
            ));
        }
        let time = self.time;
        // Masters compute their time grid differently (t0 + k*h against a running sum), so the
        // comparison allows a relative rounding slack, but never as much as half the last step:
        // a larger one would let the step restart at the previous step's start, leaving the
        // acceleration estimate a zero time difference to divide by.
        if current_time != time && !self.within_slack(current_time, h) {
            return Err(format!(
                "currentCommunicationPoint = {} is not the FMU's time {}",
                Number(current_time),
                Number(time)
            ));
        }
        let end = current_time + h;
        if !(end.is_finite() && end > current_time) {
            return Err(format!(
                "communicationStepSize = {} does not advance the time {} to a finite later time in double precision",
                Number(h),
                Number(current_time)
            ));
        }
        Ok(())
    }

    /// Whether `current_time` is the FMU's time up to the rounding of the master's time grid.
    fn within_slack(&self, current_time: f64, h: f64) -> bool {
        let time = self.time;
        let last_step = if self.co_simulation.last_step_size > 0.0 {
            self.co_simulation.last_step_size
        } else {
            h
        };
        let slack = (1e-10 * time.abs().max(1.0)).min(0.5 * last_step);
        current_time.is_finite() && (current_time - time).abs() <= slack
    }

    /// Advances from `self.time` by `h`: with an effective mass, the relative motion is integrated
    /// under the contact's own force ([`crate::coupling`]); without one, the law is integrated
    /// along the motion extrapolated from the inputs.
    ///
    /// A step whose force, motion, energy or prediction is not finite is refused and changes
    /// nothing but what the coupling learnt from the master's motion at its start (a new
    /// `m_eff_estimate`): that motion is valid whatever this step gives.
    ///
    /// What the step did goes to `report`, which starts as the default; a caller stepping in a
    /// loop keeps one (it is larger than the step's own state).
    pub fn do_step(&mut self, h: f64, report: &mut StepReport) -> Result<(), NonFiniteStep> {
        self.evaluate_inputs_now();
        self.co_simulation.contact_latch = None;
        // A reference count, not a copy of the tables: the step allocates nothing.
        let tables = self.tables.clone();
        let law = self.law_with(tables.as_deref());
        if !self.prescribed() && self.co_simulation.coupling.probe_is_due() {
            report.prescribed_motion_found =
                crate::with_law!(&law, law => self.notice_a_prescribed_motion(law));
        }
        if self.prescribed() {
            return crate::with_law!(&law, law => self.prescribed_step(law, h, report));
        }
        crate::with_law!(&law, law => self.do_step_with(law, h, report))
    }

    /// [`Self::do_step`] with the chosen law as its own type, so that the integrators are
    /// compiled for it. Out of line: `do_step` only dispatches, instead of holding a copy of the
    /// whole step per law.
    #[inline(never)]
    fn do_step_with<L: ContactLaw + Copy>(
        &mut self,
        law: &L,
        h: f64,
        report: &mut StepReport,
    ) -> Result<(), NonFiniteStep> {
        let at_start = self.learn_from_the_start(law, h, report);
        // The slip's answers, for friction only (the one tangential force integrated through
        // the slip's mass): taken only if the step is, as a refused step and its retry must not
        // answer twice. Copied only then, as they are a thousand bytes.
        let mut tangential_answers = match self.tangential() {
            Tangential::Friction(_) => Some(self.co_simulation.tangential_answers),
            _ => None,
        };
        if let Some(answers) = tangential_answers.as_mut() {
            let v_s = self.parameters.friction.v_s;
            report.tangential_told = answers.observe(at_start.time, self.inputs.v_t, v_s);
        }
        let dynamic_mass = self.effective_mass().filter(|_| !at_start.plain);
        let free = dynamic_mass.and_then(|mass| self.free_step(law, mass, h, &at_start, report));
        #[cfg(test)]
        let free = super::tests::unless_whole_steps(free);
        let before = free
            .is_none()
            .then(|| self.before_the_step(dynamic_mass.is_some()));
        let (free, step_end, handed, touched, along) = match free {
            Some((free, step_end, handed)) => (Some(free), step_end, handed, None, None),
            None => {
                let (step_end, handed, touched, along) =
                    self.whole_step(law, dynamic_mass, h, &at_start, report);
                (None, step_end, handed, touched, along)
            }
        };
        let law = touched.as_ref().unwrap_or(law);
        let answers = tangential_answers
            .as_ref()
            .unwrap_or(&self.co_simulation.tangential_answers);
        let limits = at_start.limits;
        let tangential = self.tangential_step(law, &step_end, h, limits, report, answers);
        report.friction_energy = tangential.dissipated;
        report.integral.dissipated += tangential.dissipated;
        let (impulse, dissipated) = (report.integral.impulse, report.integral.dissipated);
        let account = self.energy_account(&at_start, &step_end, &tangential, report);
        // Every output the step leaves must be finite: a finite `f` can still come with an
        // infinite `lossPower` (`f_d` near the largest double times `v_rel`). The step waits on
        // this test, so what is known early is tested apart from the integrals, which come last.
        let end_finite = self.end_is_finite(law, step_end.end, &tangential, handed.next)
            && self.co_simulation.coupling.latest_estimate().is_finite();
        let integrals_finite = leaves_finite_means(h, impulse, dissipated, &tangential)
            && step_end.planned_f_mean.is_none_or(f64::is_finite)
            && account.e_loss.is_finite()
            && account.received.is_finite();
        let refused = !(end_finite & integrals_finite);
        #[cfg(test)]
        let refused = refused || super::tests::refusing();
        if refused {
            if let Some(before) = before {
                self.put_back(before);
            }
            return Err(NonFiniteStep);
        }
        let coupling = &mut self.co_simulation.coupling;
        if let Some(free) = free {
            coupling.take_the_free_step(free);
        } else if let Some(along) = along {
            coupling.take_the_prediction_along_the_motion(handed.next, along);
        }
        self.take_tangential_step(at_start.time, h, &tangential, tangential_answers);
        self.take_the_step(&at_start, h, &step_end, &handed, &account, report);
        Ok(())
    }

    /// The step as planned by the whole machinery (a free step does not need it,
    /// [`Self::free_step`]): through the mass or along the motion, the forces it hands out
    /// within the bound, the law as a contact that touched down in the step goes on under, and
    /// where it made no dynamic plan, the prediction along the motion the coupling takes once
    /// the step passed its test. It writes in the coupling as it goes: what it may rewrite is
    /// kept before it ([`Self::before_the_step`]).
    #[inline(always)]
    fn whole_step<L: ContactLaw + Copy>(
        &mut self,
        law: &L,
        dynamic_mass: Option<f64>,
        h: f64,
        at_start: &StepStart,
        report: &mut StepReport,
    ) -> (StepEnd, HandedForces, Option<L>, Option<Prediction>) {
        let dynamic = dynamic_mass.is_some();
        let step_end = match dynamic_mass {
            Some(mass) => {
                let (next_before, settled) = (at_start.next_before, at_start.settled);
                self.dynamic_step(law, mass, h, next_before, settled, report)
            }
            None => self.probing_kinematic_step(law, h, at_start, report),
        };
        // A contact that touched down inside the step goes on under the law as it touched down.
        let touched = report
            .integral
            .touchdown_v_rel
            .and_then(|v_rel| law.touched_down(v_rel));
        let law_now = touched.as_ref().unwrap_or(law);
        // Along the motion (no mass), f_next is the law's integral from the step's end.
        let h_next = self.co_simulation.next_step.unwrap_or(h);
        let kinematic_next = self.next_along_the_motion(&step_end, h_next, at_start, report);
        let along = (!dynamic).then_some(&kinematic_next);
        let handed = self.bounded_forces(law_now, &step_end, h, at_start, along, report);
        let with_a_mass = self.effective_mass().is_some();
        report.cut_for_want_of_a_reading = self
            .co_simulation
            .coupling
            .report_a_cut_for_want_of_a_reading(with_a_mass);
        let along = (!dynamic).then_some(kinematic_next);
        (step_end, handed, touched, along)
    }

    /// What the step learns from the master's motion at its start, before it integrates: the
    /// mass the master's answers tell, whether the step is plain (short against the contact
    /// through the mass in use: the law's integral along the motion, the answers ignored) and
    /// whether the contact has settled; and the `f_next` that a master that steps all units at
    /// once holds over this step.
    #[inline(always)]
    fn learn_from_the_start<L: ContactLaw + Copy>(
        &mut self,
        law: &L,
        h: f64,
        report: &mut StepReport,
    ) -> StepStart {
        let time = self.time;
        let observed = self.observed();
        // The port's work over a probe's step had the impulse along the motion been held, and
        // what the port counts for it below.
        let probed_work = self
            .co_simulation
            .coupling
            .work_along_the_probed_motion(observed);
        let e_port_before = self.co_simulation.coupling.port_energy();
        self.tell_held_force();
        let limits = self.substep_limits();
        let initial = self.take_in_what_came_before(law, observed, h, limits);
        let duration = match self.effective_mass() {
            Some(mass) => self.contact_duration(law, mass, observed.v),
            None => 0.0,
        };
        let plain = h <= PLAIN_STEP * duration;
        self.co_simulation.coupling.take_the_step_as_plain(plain);
        let learned = self.co_simulation.coupling.observe(
            observed,
            self.effective_mass(),
            law.contact_ends(),
        );
        if let Some(work) = probed_work {
            self.co_simulation
                .coupling
                .hold_back_the_probes_work(work, e_port_before);
        }
        if plain {
            self.co_simulation.coupling.forget_owed();
        }
        report.mass_disagreement = learned.disagreement;
        report.late_mean_found = learned.late_mean;
        // Settled: no contact under way for the master or the model, nothing owed. Then whatever
        // the port received and the contact did not report dissipated was dissipated all the
        // same (no energy is stored), and whatever it returned beyond that is the passivity
        // controller's to take back. Not for a two-sided contact range (the Gap Force): left at
        // its other end, its spring and preload have done net work that no dissipation accounts
        // for, so there E_loss stays the model's.
        let one_sided = law.contact_ends().0.is_none();
        // A plain step's E_loss is the law's integral along the motion, settled or not.
        let settled =
            one_sided && !plain && self.co_simulation.coupling.is_settled(law, observed, h);
        if settled {
            self.co_simulation.coupling.settle_port();
        }
        // What a master that steps all units at once holds over this step: the f_next it read.
        let least_mass = self.least_mass();
        let next_before = if self.co_simulation.coupling.master_reads_next() {
            let held = self.co_simulation.coupling.next_held();
            Some(
                self.co_simulation
                    .coupling
                    .make_f_next(law, limits, least_mass, held),
            )
        } else {
            None
        };
        report.new_estimate = learned.new_estimate;
        report.approach_speed = self.co_simulation.coupling.approach_speed();
        StepStart {
            time,
            limits,
            initial,
            plain,
            one_sided,
            settled,
            least_mass,
            next_before,
        }
    }

    /// Before the first step: the spring energy the contact holds where the master starts it, and
    /// a step the master's bodies took before the FMU saw one (returns the master's motion at
    /// the end of initialization, if it set one); with a mass, a contact the model's last step
    /// missed.
    #[inline(always)]
    fn take_in_what_came_before<L: ContactLaw>(
        &mut self,
        law: &L,
        observed: Observed,
        h: f64,
        limits: SubstepLimits,
    ) -> Option<Observed> {
        let with_a_mass = self.effective_mass().is_some();
        let coupling = &mut self.co_simulation.coupling;
        if coupling.last_step_length() == 0.0 {
            coupling.count_initial_energy(law, observed);
        }
        let initial = coupling.take_the_initial_motion();
        if let Some(initial) = initial {
            coupling.begin_after_unseen_step(law, initial, observed, h, limits);
        }
        if with_a_mass {
            coupling.begin_after_missed_contact(law, observed, limits);
        }
        initial
    }

    /// `f_next` along the motion: the law's integral over the next step (`h`, as long as this one
    /// unless an early return tells otherwise) from this one's end, with the probe's share while
    /// the mass is unknown.
    #[inline(always)]
    fn next_along_the_motion(
        &self,
        step_end: &StepEnd,
        h: f64,
        at_start: &StepStart,
        report: &StepReport,
    ) -> Prediction {
        Prediction::Kinematic {
            start: step_end.end,
            h,
            probe: (!at_start.plain
                && self
                    .co_simulation
                    .coupling
                    .probing(report.integral.substeps == 0 || report.grazed))
            .then(|| {
                self.co_simulation
                    .coupling
                    .probe_sizing(step_end.end.v.abs(), h)
            }),
        }
    }

    /// The forces the step hands out, under the one bound on every held force
    /// (`coupling::bound`): `f_mean` over this step from the master's motion at its start, and
    /// `f_next` over the next one whatever this step does (made here if the master reads it, so
    /// that a step never hands out one that is not finite): the dynamic plan's, or where the
    /// step had none, `kinematic_next`'s.
    #[inline(always)]
    fn bounded_forces<L: ContactLaw>(
        &mut self,
        law: &L,
        step_end: &StepEnd,
        h: f64,
        at_start: &StepStart,
        kinematic_next: Option<&Prediction>,
        report: &StepReport,
    ) -> HandedForces {
        let (limits, least_mass) = (at_start.limits, at_start.least_mass);
        let planned = step_end
            .planned_f_mean
            .unwrap_or(report.integral.impulse / h);
        let f_mean = self
            .co_simulation
            .coupling
            .bound_noting_the_reading(planned, h, least_mass, None);
        let f_mean = self
            .co_simulation
            .coupling
            .bound_as_if_late(f_mean, h, least_mass);
        if f_mean != planned {
            // What the bound cut was owed by a position the master cannot reach without energy
            // the port never received: from here the correction restores the velocity only.
            self.co_simulation.coupling.restore_the_velocity_first();
        }
        // Only a master that steps all units at once holds f_next: over this step it held the
        // one it read before it, or, where it read none, nothing.
        let held_now = at_start.next_before.unwrap_or(0.0);
        let next = if self.co_simulation.coupling.master_reads_next() {
            match kinematic_next {
                None => self
                    .co_simulation
                    .coupling
                    .make_f_next(law, limits, least_mass, held_now),
                Some(kinematic_next) => {
                    let (force, probes) = kinematic_next.force(law, limits);
                    let h_next = self.co_simulation.next_step.unwrap_or(h);
                    let force = self.co_simulation.coupling.bound_noting_the_reading(
                        force,
                        h_next,
                        least_mass,
                        Some(held_now),
                    );
                    self.co_simulation
                        .coupling
                        .note_probe_in_next(kinematic_next, probes, force);
                    force
                }
            }
        } else {
            0.0
        };
        // A master found to hold f_mean a step late, or perhaps (the f_next it reads besides it
        // holds this one), is handed in it the force for that step.
        let f_mean = if self.co_simulation.coupling.may_hold_the_mean_late() {
            next
        } else {
            f_mean
        };
        HandedForces { f_mean, next }
    }

    /// The energy the step reports (`E_loss`) and the port's account it is held to.
    #[inline(always)]
    fn energy_account(
        &self,
        at_start: &StepStart,
        step_end: &StepEnd,
        tangential: &TangentialStep,
        report: &StepReport,
    ) -> EnergyAccount {
        let dissipated = report.integral.dissipated;
        // What the model dissipated, less what a replay with an adopted mass took back of it.
        let model_loss =
            self.co_simulation.coupling.model_loss() + dissipated - report.replayed_e_loss_excess;
        // With a mass, E_loss never runs ahead of what the port has received (the bodies' answer
        // to a contact integrated through a wrong mass can return energy the model took as
        // dissipated): it follows the model up to there, and never falls. Along the motion (no
        // mass) it is the law's integral, as the master's motion did not answer it.
        let received = self.co_simulation.coupling.port_energy()
            + tangential.port_work
            + self.co_simulation.coupling.initial_energy();
        // The port's energy lags the step just taken (the master reports its positions at the
        // next step): while a contact is reported, the model's prediction of that step's work
        // counts too, so that E_loss does not wait a step behind the bodies.
        let receiving = received + step_end.predicted_port_work;
        let mut e_loss = if report.dynamic && at_start.one_sided {
            self.e_loss.max(model_loss.min(received.max(receiving)))
        } else {
            model_loss.max(self.e_loss)
        };
        // Once settled, whatever the port received beyond that was dissipated too (the contact
        // stores nothing then). Where the port received less, the passivity controller takes the
        // excess back from the bodies (beyond the model's own error, PASSIVITY_TOLERANCE of the
        // contact's dissipation, which E_loss keeps).
        let settled_through = at_start.settled && report.integral.substeps == 0;
        if settled_through && received > e_loss {
            e_loss = received;
        }
        EnergyAccount {
            model_loss,
            received,
            e_loss,
            settled_through,
        }
    }

    /// The step passed its test: the instance takes the tangential force's means, its stiction
    /// state and what the slip's answers predicted.
    #[inline(always)]
    fn take_tangential_step(
        &mut self,
        time: f64,
        h: f64,
        tangential: &TangentialStep,
        tangential_answers: Option<TangentialAnswers>,
    ) {
        self.co_simulation.f_t_mean = tangential.impulse.map(|component| component / h);
        self.stiction = tangential.deformation;
        self.co_simulation.tangential_account = tangential.account;
        let predicted = tangential.predicted_slip;
        if let Some(mut answers) = tangential_answers {
            answers.record(
                time,
                h,
                self.inputs.v_t,
                self.co_simulation.f_t_mean,
                predicted,
            );
            self.co_simulation.tangential_answers = answers;
        }
        // The tangential port: the master holds f_t_mean along the v_t it set, so the tangential
        // force's work over the step is what that port received.
        self.co_simulation
            .coupling
            .count_the_tangential_ports_work(tangential.port_work);
    }

    /// The step passed its test: the instance takes the forces, the motion and the energy it
    /// leaves, and the coupling what the next step starts from.
    #[inline(always)]
    fn take_the_step(
        &mut self,
        at_start: &StepStart,
        h: f64,
        step_end: &StepEnd,
        handed: &HandedForces,
        account: &EnergyAccount,
        report: &StepReport,
    ) {
        let (time, next_before) = (at_start.time, at_start.next_before);
        self.f_mean = handed.f_mean;
        self.co_simulation.end_of_step = Some(step_end.end);
        // Settled, the model's account takes up what the port received too.
        let model_loss = if account.settled_through {
            account.model_loss.max(account.received)
        } else {
            account.model_loss
        };
        let reported = account.e_loss - self.e_loss;
        self.e_loss = account.e_loss;
        self.co_simulation.q_flow_mean = self.heat_flow(reported / h);
        self.history.push(time, &self.inputs);
        self.supplied = SuppliedAccelerations::default();
        let integral = (report.integral.impulse, report.integral.dissipated);
        let (f_mean, dynamic) = (self.f_mean, report.dynamic);
        let coupling = &mut self.co_simulation.coupling;
        coupling.take_step_result(h, f_mean, next_before, model_loss, dynamic, integral);
        if let Some(v_rel) = report.integral.touchdown_v_rel {
            self.touchdown_speed = -v_rel;
        }
        self.time = time + h;
        self.co_simulation.last_step_size = h;
    }

    /// Whether every output the step leaves at its end is finite: a finite `f` can still come
    /// with an infinite `lossPower` (`f_d` near the largest double times `v_rel`), and the
    /// friction's outputs with the deformation the step leaves too (a finite normal force times
    /// a slip near the largest double can make `lossPower` infinite, and no output read after
    /// an OK step may be).
    #[inline(always)]
    pub(super) fn end_is_finite<L: ContactLaw>(
        &self,
        law: &L,
        end: Motion,
        tangential: &TangentialStep,
        next: f64,
    ) -> bool {
        let forces = law.evaluate(end.s, end.v);
        let plane = match self.tangential() {
            Tangential::None => PlaneForce::default(),
            plane => {
                // The stiction state the step leaves is an output (`xi_x`, `xi_y`) and, with the
                // tangential port's account, what the next step starts from.
                let [d_x, d_y] = tangential.deformation;
                let [received, dissipated] = tangential.account;
                if !all_finite([d_x, d_y, received, dissipated]) {
                    return false;
                }
                let sticking = self.sticking().then_some(tangential.deformation);
                plane.force(&forces, self.inputs.v_t, sticking)
            }
        };
        all_finite([
            end.s,
            end.v,
            end.a,
            forces.f,
            forces.f_c,
            forces.f_d,
            forces.loss_power + plane.loss_power,
            plane.f_t[0],
            plane.f_t[1],
            next,
        ])
    }
}

/// What the step learnt from the master's motion at its start, for the rest of the step.
pub(super) struct StepStart {
    pub(super) time: f64,
    pub(super) limits: SubstepLimits,
    /// On the first step: the master's motion at the end of initialization (its bodies may have
    /// stepped on unseen since).
    pub(super) initial: Option<Observed>,
    /// The step is short against the contact through the mass in use (docs/coupling.md, "Short
    /// steps"): the law's integral along the motion, the master's answers ignored.
    pub(super) plain: bool,
    /// The contact range has one end (not the Gap Force's).
    one_sided: bool,
    /// No contact under way for the master or the model, nothing owed.
    pub(super) settled: bool,
    least_mass: f64,
    /// The `f_next` the master read before this step, if it read one.
    pub(super) next_before: Option<f64>,
}

/// The forces the step hands out, bounded.
pub(super) struct HandedForces {
    pub(super) f_mean: f64,
    /// `f_next` as the master reads it (0 where it does not).
    pub(super) next: f64,
}

/// The energy the step reports, and the port's account it is held to.
struct EnergyAccount {
    /// What the model dissipated over the contact so far.
    model_loss: f64,
    /// What the port has received (J), the energy the contact held at the start included.
    received: f64,
    e_loss: f64,
    /// Settled, and no contact in the step: whatever the port received was dissipated.
    settled_through: bool,
}

/// Whether the step's integrals leave finite means over it: tested before their divisions by
/// `h` (a division has three times a multiplication's latency), as `|integral| <= h *
/// MEAN_LIMIT` keeps `integral / h` finite; the tangential port's work with them.
#[inline(always)]
fn leaves_finite_means(h: f64, impulse: f64, dissipated: f64, tangential: &TangentialStep) -> bool {
    let mean_bound = (h * MEAN_LIMIT).min(f64::MAX);
    impulse.abs() <= mean_bound
        && dissipated.abs() <= mean_bound
        && tangential.impulse.iter().all(|i| i.abs() <= mean_bound)
        && tangential.port_work.is_finite()
}
