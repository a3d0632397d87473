//! One instance as the importer holds it, the rules for getting and setting its variables, and
//! [`run`], the one path of every call on an instance.

use std::panic::{catch_unwind, AssertUnwindSafe};

use fmi_sys::fmi2::{fmi2Component, fmi2Status, fmi2ValueReference};

use super::logging::{error, Category, Failure, Logger, Outcome};
use super::state::{Call, State};
use super::{DISCARD, ERROR, FATAL, OK};
use std::path::PathBuf;
use std::sync::Arc;

use crate::laws::GapTables;
use crate::layer::values::{self, Phase};
use crate::layer::TableFile;
use crate::model::{ElastoGap, Interface};
use crate::variables::{by_value_reference, Kind, Variable};

/// Marks a live instance, so a stale or foreign pointer is refused instead of used.
pub(super) const LIVE: u64 = 0x454c_4153_544f_4741; // "ELASTOGA"

pub(super) struct Instance {
    pub(super) live: u64,
    pub(super) state: State,
    /// The state the last error interrupted: restoring an FMU state returns there (FMI 2.0,
    /// 2.1.3: after fmi2Error a previously retrieved FMU state may be restored).
    pub(super) state_before_error: State,
    pub(super) logger: Logger,
    pub(super) model: ElastoGap,
    pub(super) start_time: f64,
    /// FMU states handed out by this instance and not yet freed, so foreign pointers are refused.
    pub(super) snapshots: Vec<*mut ElastoGap>,
    pub(super) table_file: TableFile,
    /// The warning that contacts are too short for the steps without `m_eff` has been given
    /// (once per instance).
    pub(super) short_contact_warned: bool,
}

impl Instance {
    pub(super) fn new(
        interface: Interface,
        logger: Logger,
        resources: Option<PathBuf>,
    ) -> Instance {
        Instance {
            live: LIVE,
            state: State::Instantiated,
            state_before_error: State::Instantiated,
            logger,
            model: ElastoGap::new(interface, 0.0),
            start_time: 0.0,
            snapshots: Vec::new(),
            table_file: TableFile::new(resources),
            short_contact_warned: false,
        }
    }

    /// The parameters take effect: the rules between them, and the tables they name.
    pub(super) fn take_parameters(&mut self) -> Outcome {
        self.model
            .check_parameters()
            .map_err(|v| error(v.to_string()))?;
        self.model.tables = self
            .table_file
            .load(self.model.parameters.options.force_law)
            .map_err(error)?;
        Ok(())
    }

    /// The tables for a state taken with those of `fingerprint` (0: none): this instance's, which
    /// must be the same.
    pub(super) fn tables_for_state(
        &self,
        model: &ElastoGap,
        fingerprint: u64,
    ) -> Result<Option<Arc<GapTables>>, Failure> {
        if fingerprint == 0 {
            return Ok(None);
        }
        let tables = match &self.model.tables {
            Some(tables) => Some(Arc::clone(tables)),
            None => self
                .table_file
                .load(model.parameters.options.force_law)
                .map_err(error)?,
        };
        match tables {
            Some(tables) if tables.fingerprint == fingerprint => Ok(Some(tables)),
            _ => Err(error(format!(
                "the state was taken with Gap Force tables (fingerprint {fingerprint:016x}) other than those this instance's tableFile '{}' gives",
                self.table_file.text().to_string_lossy()
            ))),
        }
    }

    /// `fmi2SetString`: only `tableFile`, a fixed parameter.
    pub(super) fn set_strings(&mut self, values: &[(fmi2ValueReference, &str)]) -> Outcome {
        for (value_reference, text) in values {
            let variable = self.variable(*value_reference, Kind::String)?;
            let unchanged = self.table_file.text().to_str() == Ok(*text);
            if self.state.is_running() && !unchanged {
                return Err(error(format!(
                    "{} is a fixed parameter and cannot change after initialization",
                    variable.name
                )));
            }
        }
        for (_, text) in values {
            self.table_file.set(text).map_err(error)?;
        }
        Ok(())
    }

    pub(super) fn interface(&self) -> Interface {
        self.model.interface
    }

    pub(super) fn variable(
        &self,
        value_reference: fmi2ValueReference,
        kind: Kind,
    ) -> Result<&'static Variable, Failure> {
        Self::lookup(value_reference, kind)
    }

    /// [`Self::variable`], which needs nothing of the instance.
    fn lookup(
        value_reference: fmi2ValueReference,
        kind: Kind,
    ) -> Result<&'static Variable, Failure> {
        let variable = by_value_reference(value_reference)
            .ok_or_else(|| error(format!("unknown value reference {value_reference}")))?;
        if variable.kind != kind {
            return Err(error(format!(
                "value reference {value_reference} is {} ({:?}), not {kind:?}",
                variable.name, variable.kind
            )));
        }
        Ok(variable)
    }

    /// Where the instance is, for the rules of setting values (`layer::values`).
    fn phase(&self) -> Phase {
        Phase {
            running: self.state.is_running(),
            continuous_time: self.state == State::ContinuousTimeMode,
            discrete_equations: matches!(
                self.state,
                State::Instantiated | State::InitializationMode | State::EventMode
            ),
        }
    }

    /// The rules both layers share (`layer::values::set_values`): all or nothing.
    pub(super) fn set_values(
        &mut self,
        values: impl Iterator<Item = (fmi2ValueReference, f64)> + Clone,
        kind: Kind,
    ) -> Outcome {
        let phase = self.phase();
        let resolve = |value_reference| Self::lookup(value_reference, kind);
        values::set_values(&mut self.model, values, resolve, phase, "fmi2SetTime")
    }

    pub(super) fn get_values(
        &mut self,
        value_references: &[fmi2ValueReference],
        kind: Kind,
        mut write: impl FnMut(usize, f64),
    ) -> Outcome {
        for (k, value_reference) in value_references.iter().enumerate() {
            let variable = self.variable(*value_reference, kind)?;
            let value = self.model.read(variable.var);
            check_computed(variable, value)?;
            write(k, value);
        }
        Ok(())
    }

    /// The FMU states handed out stay valid: the importer owns them until fmi2FreeFMUstate or
    /// fmi2FreeInstance, and may restore one taken before the reset.
    pub(super) fn reset(&mut self) {
        self.model = ElastoGap::new(self.interface(), 0.0);
        self.start_time = 0.0;
        self.table_file.clear();
    }

    pub(super) fn owns_snapshot(&self, snapshot: *mut ElastoGap) -> bool {
        self.snapshots.contains(&snapshot)
    }

    fn free_snapshots(&mut self) {
        for snapshot in self.snapshots.drain(..) {
            // SAFETY: every pointer in the list came from Box::into_raw and was not yet freed.
            drop(unsafe { Box::from_raw(snapshot) });
        }
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        self.live = 0;
        self.free_snapshots();
    }
}

/// `layer::values::check_computed`, with this layer's status.
pub(super) fn check_computed(variable: &Variable, value: f64) -> Outcome {
    values::check_computed(variable, value).map_err(error)
}

/// `layer::values::check_finite`, with this layer's status.
pub(super) fn check_finite(what: &str, results: &[f64]) -> Outcome {
    values::check_finite(what, results).map_err(error)
}

/// The one path of every instance call: instance check, state table, panic barrier, logging of
/// failures and escalation of the instance state from the status.
pub(super) fn run(
    component: fmi2Component,
    call: Call,
    body: impl FnOnce(&mut Instance) -> Outcome,
) -> fmi2Status {
    if component.is_null() {
        return ERROR;
    }
    let instance_ptr = component.cast::<Instance>();
    // SAFETY: a non-NULL component is one this library returned from fmi2Instantiate and the
    // importer has not freed; the liveness mark catches some misuse on top of that.
    let instance = unsafe { &mut *instance_ptr };
    if instance.live != LIVE {
        return ERROR;
    }
    if instance.state == State::Fatal {
        return FATAL;
    }
    if !call.allows(instance.interface(), instance.state) {
        let message = call.refusal(instance.interface(), instance.state);
        instance.logger.log(ERROR, Category::StatusError, &message);
        return ERROR;
    }
    match catch_unwind(AssertUnwindSafe(|| body(instance))) {
        Ok(Ok(())) => OK,
        Ok(Err(failure)) => {
            let message = format!("{}: {}", call.name(), failure.message);
            if failure.status == FATAL {
                instance.state = State::Fatal;
                instance.logger.log(FATAL, Category::StatusFatal, &message);
            } else if failure.status == DISCARD {
                instance
                    .logger
                    .log(DISCARD, Category::StatusDiscard, &message);
            } else {
                if instance.state != State::Error {
                    instance.state_before_error = instance.state;
                }
                instance.state = State::Error;
                instance
                    .logger
                    .log(failure.status, Category::StatusError, &message);
            }
            failure.status
        }
        Err(panic) => {
            let reason = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown".into());
            // SAFETY: the body's borrow ended with the unwind; the instance memory is intact.
            let instance = unsafe { &mut *instance_ptr };
            instance.state = State::Fatal;
            let message = format!(
                "{}: internal error, the instance is unusable: {reason}",
                call.name()
            );
            instance.logger.log(FATAL, Category::StatusFatal, &message);
            FATAL
        }
    }
}
