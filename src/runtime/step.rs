//! The co-simulation step as every layer takes it: from the master's time, the model's time put
//! back where the step is refused, and what the core has to say of it logged.

use super::{error, Category, Failure, Instance, Outcome, Standard, Status};
use crate::model::{ElastoGap, NonFiniteStep, StepReport};

impl<S: Standard> Instance<S> {
    /// The core's check of the step the master asks for; the model's time before it, which
    /// [`Self::take_step`] puts back on a refusal.
    pub fn begin_step(&self, current_time: f64, h: f64) -> Result<f64, Failure> {
        self.model.check_step(current_time, h).map_err(error)?;
        Ok(self.model.time)
    }

    /// Runs `step` from the master's time, which may differ from the FMU's by the slack; a step
    /// the core refuses leaves the time at `time_before`.
    #[inline(always)]
    pub fn take_step<T>(
        &mut self,
        time_before: f64,
        (current_time, h): (f64, f64),
        step: impl FnOnce(&mut Self) -> Result<T, NonFiniteStep>,
    ) -> Result<T, Failure> {
        self.model.time = current_time;
        match step(self) {
            Ok(taken) => Ok(taken),
            Err(_) => {
                self.model.time = time_before;
                Err(error(NonFiniteStep::message(current_time, h)))
            }
        }
    }

    /// The whole step, as the core takes it.
    #[inline(always)]
    pub fn whole_step(&mut self, current_time: f64, h: f64) -> Outcome {
        let time_before = self.begin_step(current_time, h)?;
        let mut report = StepReport::default();
        let interval = (current_time, h);
        self.take_step(time_before, interval, |fmu| {
            fmu.model.do_step(h, &mut report)
        })?;
        self.log_step(current_time, h, &report);
        Ok(())
    }

    /// The step that stops at the contact's first switch inside it (`do_step_to_switch`, from
    /// the caller's preallocated copy of the step's start, which `start` finds in the setup).
    /// There `at_switch` runs (the importer's intermediate update) and tells whether the step
    /// returns early. Otherwise the step is taken again whole from its start, so that it ends
    /// exactly where the whole step ends (a second part from the switch would extrapolate the
    /// master's inputs, given at the step's start, anew from the switch). Whether the step
    /// returned early.
    ///
    /// `pointer` is the instance, checked by `run_raw`: no reference to it lives across
    /// `at_switch`, which may call back into the importer, and the importer into the instance.
    pub fn step_to_switch(
        pointer: *mut Self,
        (current_time, h): (f64, f64),
        start: fn(&mut S::Setup) -> &mut ElastoGap,
        at_switch: impl FnOnce(*mut Self) -> Result<bool, Failure>,
    ) -> Result<bool, Failure> {
        // SAFETY (each borrow below): a live instance, and no other borrow of it is live.
        let fmu = unsafe { &mut *pointer };
        let time_before = fmu.begin_step(current_time, h)?;
        let interval = (current_time, h);
        let mut report = StepReport::default();
        let switch = fmu.take_step(time_before, interval, |fmu| {
            let step_start = start(&mut fmu.setup);
            fmu.model.do_step_to_switch(h, step_start, &mut report)
        })?;
        if switch.is_none() {
            fmu.log_step(current_time, h, &report);
            return Ok(false);
        }
        let early = at_switch(pointer)?;
        let fmu = unsafe { &mut *pointer };
        if early {
            let taken = fmu.model.time - current_time;
            fmu.log_step(current_time, taken, &report);
            return Ok(true);
        }
        report = StepReport::default();
        fmu.take_step(time_before, interval, |fmu| {
            fmu.model.clone_from(start(&mut fmu.setup));
            fmu.model.do_step(h, &mut report)
        })?;
        fmu.log_step(current_time, h, &report);
        Ok(false)
    }

    /// The core's warnings and notes of one step go to the log, not into the call's status:
    /// fmusim ends a run on a returned warning, and the step itself is right. Inlined: a call
    /// would make the plain step store its report to memory.
    #[inline(always)]
    pub fn log_step(&mut self, current_time: f64, h: f64, report: &StepReport) {
        let logger = &self.logger;
        self.model.step_warnings(
            current_time,
            h,
            report,
            &mut self.short_contact_warned,
            |message| logger.log(Status::Warning, Category::StatusWarning, message),
        );
        if logger.is_enabled(Category::Coupling) {
            self.model
                .coupling_notes(current_time, h, report, |message| {
                    logger.log(Status::Ok, Category::Coupling, message)
                });
        }
        if logger.is_enabled(Category::Events) {
            ElastoGap::event_notes(current_time, report, |message| {
                logger.log(Status::Ok, Category::Events, message)
            });
        }
    }
}
