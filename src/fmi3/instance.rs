//! One instance as the importer holds it, the rules for getting and setting its variables, and
//! [`run`], the one path of every call on an instance.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::Arc;

use fmi_sys::fmi3::{fmi3Instance, fmi3IntermediateUpdateCallback, fmi3Status, fmi3ValueReference};

use super::logging::{error, Category, Failure, Logger, Outcome};
use super::state::{Call, State};
use super::{DISCARD, ERROR, FATAL, OK};
use crate::laws::GapTables;
use crate::layer::values::{self, Phase};
use crate::layer::TableFile;
use crate::model::{ElastoGap, Interface};
use crate::variables::{by_value_reference, Kind, Variable};

/// Marks a live instance, so a stale or foreign pointer is refused instead of used.
pub(super) const LIVE: u64 = 0x454c_4153_544f_4733; // "ELASTOG3"

/// The FMI 3.0 type a variable is got and set as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Type {
    Float64,
    /// Integers without a declared type.
    Int32,
    /// The Enumerations (Integers with a declared type), got and set through the Int64 functions.
    Int64,
    Boolean,
    String,
}

impl Type {
    fn admits(self, variable: &Variable) -> bool {
        match self {
            Type::Float64 => variable.kind == Kind::Real,
            Type::Int32 => variable.kind == Kind::Integer && variable.declared_type.is_none(),
            Type::Int64 => variable.kind == Kind::Integer && variable.declared_type.is_some(),
            Type::Boolean => variable.kind == Kind::Boolean,
            Type::String => variable.kind == Kind::String,
        }
    }

    fn of(variable: &Variable) -> &'static str {
        match (variable.kind, variable.declared_type) {
            (Kind::Real, _) => "Float64",
            (Kind::Integer, None) => "Int32",
            (Kind::Integer, Some(_)) => "an Enumeration (Int64)",
            (Kind::Boolean, _) => "Boolean",
            (Kind::String, _) => "String",
        }
    }
}

/// How the importer set up a co-simulation instance (fmi3InstantiateCoSimulation).
#[derive(Clone, Copy)]
pub(super) struct CoSimulationSetup {
    pub(super) event_mode_used: bool,
    pub(super) early_return_allowed: bool,
    pub(super) intermediate_update: fmi3IntermediateUpdateCallback,
}

impl CoSimulationSetup {
    pub(super) const NONE: CoSimulationSetup = CoSimulationSetup {
        event_mode_used: false,
        early_return_allowed: false,
        intermediate_update: None,
    };
}

pub(super) struct Instance {
    pub(super) live: u64,
    pub(super) state: State,
    /// The state the last error interrupted: restoring an FMU state returns there.
    pub(super) state_before_error: State,
    pub(super) logger: Logger,
    pub(super) model: ElastoGap,
    pub(super) setup: CoSimulationSetup,
    /// The step's start, for `do_step_to_switch`: allocated once with the instance, so that a step
    /// allocates nothing.
    pub(super) step_start: ElastoGap,
    /// FMU states handed out by this instance and not yet freed, so foreign pointers are refused.
    pub(super) snapshots: Vec<*mut ElastoGap>,
    pub(super) table_file: TableFile,
    /// The warning that contacts are too short for the steps without `m_eff` was given (once).
    pub(super) short_contact_warned: bool,
}

impl Instance {
    pub(super) fn new(
        interface: Interface,
        logger: Logger,
        resources: Option<PathBuf>,
        setup: CoSimulationSetup,
    ) -> Instance {
        Instance {
            live: LIVE,
            state: State::Instantiated,
            state_before_error: State::Instantiated,
            logger,
            model: ElastoGap::new(interface, 0.0),
            setup,
            step_start: ElastoGap::new(interface, 0.0),
            snapshots: Vec::new(),
            table_file: TableFile::new(resources),
            short_contact_warned: false,
        }
    }

    pub(super) fn interface(&self) -> Interface {
        self.model.interface
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

    pub(super) fn variable(
        &self,
        value_reference: fmi3ValueReference,
        ty: Type,
    ) -> Result<&'static Variable, Failure> {
        Self::lookup(value_reference, ty)
    }

    /// [`Self::variable`], which needs nothing of the instance.
    fn lookup(value_reference: fmi3ValueReference, ty: Type) -> Result<&'static Variable, Failure> {
        let variable = by_value_reference(value_reference)
            .ok_or_else(|| error(format!("unknown value reference {value_reference}")))?;
        if !ty.admits(variable) {
            return Err(error(format!(
                "value reference {value_reference} is {}, of type {}, not {ty:?}",
                variable.name,
                Type::of(variable)
            )));
        }
        Ok(variable)
    }

    /// `fmi3SetString`: only `tableFile`, a fixed parameter.
    pub(super) fn set_strings(&mut self, values: &[(fmi3ValueReference, &str)]) -> Outcome {
        for (value_reference, text) in values {
            let variable = self.variable(*value_reference, Type::String)?;
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
        values: impl Iterator<Item = (fmi3ValueReference, f64)> + Clone,
        ty: Type,
    ) -> Outcome {
        let phase = self.phase();
        let resolve = |value_reference| Self::lookup(value_reference, ty);
        values::set_values(&mut self.model, values, resolve, phase, "fmi3SetTime")
    }

    pub(super) fn get_values(
        &mut self,
        value_references: &[fmi3ValueReference],
        ty: Type,
        mut write: impl FnMut(usize, f64),
    ) -> Outcome {
        for (k, value_reference) in value_references.iter().enumerate() {
            let variable = self.variable(*value_reference, ty)?;
            let value = self.model.read(variable.var);
            check_computed(variable, value)?;
            write(k, value);
        }
        Ok(())
    }

    /// The FMU states handed out stay valid: the importer owns them until fmi3FreeFMUState or
    /// fmi3FreeInstance, and may restore one taken before the reset.
    pub(super) fn reset(&mut self) {
        self.model = ElastoGap::new(self.interface(), 0.0);
        self.table_file.clear();
        self.state = State::Instantiated;
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

impl Instance {
    /// Whether `fmi3DoStep` on `instance` takes the step that stops at switches (early return
    /// allowed, or an intermediate-update callback given): read before `run` checks the instance,
    /// as `run` itself reads it, and only where the instance is one of this library's (`run` then
    /// refuses any other either way).
    pub(super) fn stops_at_switches(instance: fmi3Instance) -> bool {
        if instance.is_null() {
            return false;
        }
        // SAFETY: as in `run_raw`: a non-NULL instance is one this library returned and the
        // importer has not freed; its liveness mark is read before anything else.
        let instance = unsafe { &*instance.cast::<Instance>() };
        instance.live == LIVE
            && (instance.setup.early_return_allowed || instance.setup.intermediate_update.is_some())
    }
}

/// The one path of every instance call: instance check, state table, panic barrier, logging of
/// failures and escalation of the instance state from the status.
pub(super) fn run(
    instance: fmi3Instance,
    call: Call,
    body: impl FnOnce(&mut Instance) -> Outcome,
) -> fmi3Status {
    // SAFETY: `pointer` is a live instance: `run_raw` checked it.
    run_raw(instance, call, |pointer| body(unsafe { &mut *pointer }))
}

/// [`run`] for a body that calls back into the importer (fmi3DoStep's intermediateUpdate), which
/// may call this instance again: no reference to the instance lives across the body, which gets
/// the pointer and borrows from it only between the callbacks.
pub(super) fn run_raw(
    instance: fmi3Instance,
    call: Call,
    body: impl FnOnce(*mut Instance) -> Outcome,
) -> fmi3Status {
    if instance.is_null() {
        return ERROR;
    }
    let pointer = instance.cast::<Instance>();
    {
        // SAFETY: a non-NULL instance is one this library returned from an fmi3Instantiate*
        // function and the importer has not freed; the liveness mark catches some misuse on top.
        let instance = unsafe { &mut *pointer };
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
        // A co-simulation instance whose master said it uses no event mode has no Event Mode in
        // its state machine: entering it is a call in the wrong state, which changes nothing.
        if matches!(call, Call::EnterEventMode)
            && instance.interface() == Interface::CoSimulation
            && !instance.setup.event_mode_used
        {
            let message = format!(
                "{}: the instance was instantiated with eventModeUsed = false, so its state machine has no Event Mode",
                call.name()
            );
            instance.logger.log(ERROR, Category::StatusError, &message);
            return ERROR;
        }
    }
    let outcome = catch_unwind(AssertUnwindSafe(|| body(pointer)));
    // SAFETY: the body's borrows ended with it (or with the unwind); the memory is intact.
    let instance = unsafe { &mut *pointer };
    match outcome {
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
