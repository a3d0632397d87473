//! One instance as the importer holds it, [`Instance::run`], the one path of every call on an
//! instance, and the rules for getting and setting its variables.

use std::any::Any;
use std::ffi::{c_char, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::Arc;

use super::arguments::{slice, slice_mut, string};
use super::{allows, error, refusal, Category, Failure, Logger, Outcome, StateMachine};
use super::{Call, Standard, Status};
use crate::laws::GapTables;
use crate::layer::values::{self, Phase};
use crate::layer::TableFile;
use crate::model::{ElastoGap, Interface};
use crate::variables::{by_value_reference, Variable};

pub struct Instance<S: Standard> {
    live: u64,
    pub state: S::State,
    /// The state the last error interrupted: restoring an FMU state returns there (after an
    /// Error status a previously retrieved FMU state may be restored).
    pub state_before_error: S::State,
    pub logger: Logger<S>,
    pub model: ElastoGap,
    pub setup: S::Setup,
    /// FMU states handed out by this instance and not yet freed, so foreign pointers are refused.
    pub(super) snapshots: Vec<*mut ElastoGap>,
    pub table_file: TableFile,
    /// The warning that contacts are too short for the steps without `m_eff` has been given
    /// (once per instance).
    pub short_contact_warned: bool,
}

impl<S: Standard> Instance<S> {
    /// A new instance, handed to the importer as its pointer.
    fn create(
        interface: Interface,
        logger: Logger<S>,
        resources: Option<PathBuf>,
        setup: S::Setup,
    ) -> *mut c_void {
        let instance = Box::new(Instance {
            live: S::LIVE,
            state: S::State::INSTANTIATED,
            state_before_error: S::State::INSTANTIATED,
            logger,
            model: ElastoGap::new(interface, 0.0),
            setup,
            snapshots: Vec::new(),
            table_file: TableFile::new(resources),
            short_contact_warned: false,
        });
        Box::into_raw(instance).cast()
    }

    /// An instantiation: `checks` of the importer's arguments give the instance's interface,
    /// resource folder and setup, or the reason it is refused, logged with the function's name.
    /// A panic refuses it too.
    pub fn instantiate(
        function: &str,
        logger: Logger<S>,
        checks: impl FnOnce() -> Result<(Interface, Option<PathBuf>, S::Setup), String>,
    ) -> *mut c_void {
        catch_unwind(AssertUnwindSafe(|| match checks() {
            Ok((interface, resources, setup)) => Self::create(interface, logger, resources, setup),
            Err(message) => {
                let message = format!("{function}: {message}");
                logger.log(Status::Error, Category::StatusError, &message);
                std::ptr::null_mut()
            }
        }))
        .unwrap_or(std::ptr::null_mut())
    }

    /// The instance behind `pointer` where it is a live one of this standard.
    pub fn peek<'a>(pointer: *mut c_void) -> Option<&'a Self> {
        if pointer.is_null() {
            return None;
        }
        // SAFETY: a non-NULL pointer is one this library returned from an instantiation and the
        // importer has not freed; the liveness mark, read first, catches some misuse on top.
        let instance = unsafe { &*pointer.cast::<Self>() };
        (instance.live == S::LIVE).then_some(instance)
    }

    /// FreeInstance; the liveness mark refuses a double free that left the memory intact.
    pub fn free(pointer: *mut c_void) {
        if pointer.is_null() {
            return;
        }
        let _ = catch_unwind(|| {
            if Self::peek(pointer).is_some() {
                // SAFETY: a live instance, which came from Box::into_raw in `create`.
                drop(unsafe { Box::from_raw(pointer.cast::<Self>()) });
            }
        });
    }

    /// The one path of every instance call: instance check, state table, panic barrier, logging
    /// of failures and escalation of the instance state from the status.
    pub fn run(
        pointer: *mut c_void,
        call: S::Call,
        body: impl FnOnce(&mut Self) -> Outcome,
    ) -> S::Status {
        // SAFETY: `run_raw` hands over a live instance, and no other reference to it is live.
        Self::run_raw(pointer, call, |instance| body(unsafe { &mut *instance }))
    }

    /// A call whose only effect is the state it enters.
    pub fn enter(pointer: *mut c_void, call: S::Call, state: S::State) -> S::Status {
        Self::run(pointer, call, |instance| {
            instance.state = state;
            Ok(())
        })
    }

    /// [`Self::run`] for a body that calls back into the importer, which may call this instance
    /// again: no reference to the instance lives across the body, which gets the pointer and
    /// borrows from it only between the callbacks.
    pub fn run_raw(
        pointer: *mut c_void,
        call: S::Call,
        body: impl FnOnce(*mut Self) -> Outcome,
    ) -> S::Status {
        if pointer.is_null() {
            return S::status(Status::Error);
        }
        let pointer = pointer.cast::<Self>();
        {
            // SAFETY: a non-NULL instance is one this library returned from an instantiation and
            // the importer has not freed; the liveness mark catches some misuse on top.
            let instance = unsafe { &mut *pointer };
            if instance.live != S::LIVE {
                return S::status(Status::Error);
            }
            if instance.state == S::State::FATAL {
                return S::status(Status::Fatal);
            }
            let interface = instance.interface();
            let refused = if !allows::<S>(call, interface, instance.state) {
                Some(refusal::<S>(call, interface, instance.state))
            } else {
                S::refuses(&instance.setup, interface, call)
            };
            if let Some(message) = refused {
                instance
                    .logger
                    .log(Status::Error, Category::StatusError, &message);
                return S::status(Status::Error);
            }
        }
        let outcome = catch_unwind(AssertUnwindSafe(|| body(pointer)));
        // SAFETY: the body's borrows ended with it (or with the unwind); the memory is intact.
        let instance = unsafe { &mut *pointer };
        let status = match outcome {
            Ok(Ok(())) => Status::Ok,
            Ok(Err(failure)) => instance.fail(call.name(), failure),
            Err(panic) => instance.panicked(call.name(), panic),
        };
        S::status(status)
    }

    /// A failed call: logged with its reason, the instance state escalated from its status.
    #[cold]
    fn fail(&mut self, name: &str, failure: Failure) -> Status {
        let message = format!("{name}: {}", failure.message);
        match failure.status {
            Status::Fatal => {
                self.state = S::State::FATAL;
                self.logger
                    .log(Status::Fatal, Category::StatusFatal, &message);
            }
            Status::Discard => {
                self.logger
                    .log(Status::Discard, Category::StatusDiscard, &message);
            }
            status => {
                if self.state != S::State::ERROR {
                    self.state_before_error = self.state;
                }
                self.state = S::State::ERROR;
                self.logger.log(status, Category::StatusError, &message);
            }
        }
        failure.status
    }

    /// A panic caught at the barrier: the instance is unusable from then on.
    #[cold]
    fn panicked(&mut self, name: &str, panic: Box<dyn Any + Send>) -> Status {
        let reason = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown".into());
        self.state = S::State::FATAL;
        let message = format!("{name}: internal error, the instance is unusable: {reason}");
        self.logger
            .log(Status::Fatal, Category::StatusFatal, &message);
        Status::Fatal
    }

    pub fn interface(&self) -> Interface {
        self.model.interface
    }

    /// The parameters take effect: the rules between them, and the tables they name.
    pub fn take_parameters(&mut self) -> Outcome {
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
    pub fn tables_for_state(
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

    /// The variable a value reference names, if a value of `ty` gets and sets it. Inlined: it
    /// runs for every value a getter or setter passes.
    #[inline(always)]
    pub fn variable(value_reference: u32, ty: S::Type) -> Result<&'static Variable, Failure> {
        let variable = by_value_reference(value_reference)
            .ok_or_else(|| error(format!("unknown value reference {value_reference}")))?;
        if !S::admits(ty, variable) {
            return Err(error(S::mismatch(value_reference, variable, ty)));
        }
        Ok(variable)
    }

    /// Where the instance is, for the rules of setting values (`layer::values`).
    fn phase(&self) -> Phase {
        let state = self.state;
        Phase {
            running: state.is_running(),
            continuous_time: state == S::State::CONTINUOUS,
            discrete_equations: state == S::State::INSTANTIATED
                || state == S::State::INITIALIZATION
                || state == S::State::EVENT,
        }
    }

    /// The rules both layers share (`layer::values::set_values`): all or nothing.
    pub fn set_values(
        &mut self,
        values: impl Iterator<Item = (u32, f64)> + Clone,
        ty: S::Type,
    ) -> Outcome {
        let phase = self.phase();
        let resolve = |value_reference| Self::variable(value_reference, ty);
        values::set_values(&mut self.model, values, resolve, phase, S::SET_TIME)
    }

    /// A setter: the importer's arrays of `n` value references and values, each value
    /// converted from its C type.
    pub fn set<T: Copy>(
        &mut self,
        (references, values): (*const u32, *const T),
        n: usize,
        ty: S::Type,
        convert: impl Fn(T) -> f64,
    ) -> Outcome {
        let references = slice(references, n, S::REFERENCES)?;
        let values = slice(values, n, S::VALUES)?;
        let pairs = references.iter().copied();
        self.set_values(pairs.zip(values.iter().map(|x| convert(*x))), ty)
    }

    /// A getter: the importer's arrays of `n` value references and values, each value
    /// converted to its C type; a computed value that is not finite is refused.
    pub fn get<T>(
        &mut self,
        (references, values): (*const u32, *mut T),
        n: usize,
        ty: S::Type,
        convert: impl Fn(f64) -> T,
    ) -> Outcome {
        let references = slice(references, n, S::REFERENCES)?;
        let values = slice_mut(values, n, S::VALUES)?;
        for (k, value_reference) in references.iter().enumerate() {
            let variable = Self::variable(*value_reference, ty)?;
            let value = self.model.read(variable.var);
            values::check_computed(variable, value)?;
            values[k] = convert(value);
        }
        Ok(())
    }

    /// The string getter: `tableFile`'s text, valid until it is set again.
    pub fn get_strings(
        &mut self,
        (references, values): (*const u32, *mut *const c_char),
        n: usize,
    ) -> Outcome {
        let references = slice(references, n, S::REFERENCES)?;
        let values = slice_mut(values, n, S::VALUES)?;
        for (k, reference) in references.iter().enumerate() {
            Self::variable(*reference, S::STRING)?;
            values[k] = self.table_file.text().as_ptr();
        }
        Ok(())
    }

    /// The string setter: only `tableFile`, a fixed parameter.
    pub fn set_strings(
        &mut self,
        (references, values): (*const u32, *const *const c_char),
        n: usize,
    ) -> Outcome {
        let references = slice(references, n, S::REFERENCES)?;
        let values = slice(values, n, S::VALUES)?;
        let mut pairs = Vec::with_capacity(n);
        for (k, (reference, text)) in references.iter().zip(values).enumerate() {
            let text = string(*text).ok_or_else(|| {
                let name = S::VALUES.trim_end_matches("[]");
                error(format!("{name}[{k}] is NULL or not UTF-8"))
            })?;
            pairs.push((*reference, text));
        }
        for (value_reference, text) in &pairs {
            let variable = Self::variable(*value_reference, S::STRING)?;
            let unchanged = self.table_file.text().to_str() == Ok(*text);
            if self.state.is_running() && !unchanged {
                return Err(error(format!(
                    "{} is a fixed parameter and cannot change after initialization",
                    variable.name
                )));
            }
        }
        for (_, text) in pairs {
            self.table_file.set(text).map_err(error)?;
        }
        Ok(())
    }

    /// A getter or setter of a type the FMU has no variable of (`type_name`): an empty call is
    /// fine, any value reference is refused by name.
    pub fn absent(references: *const u32, n: usize, type_name: &str) -> Outcome {
        match slice(references, n, S::REFERENCES)?.first() {
            None => Ok(()),
            Some(reference) => Err(error(format!(
                "value reference {reference}{} is not of type {type_name}: ElastoGap has no {type_name} variable",
                by_value_reference(*reference)
                    .map(|v| format!(" ({})", v.name))
                    .unwrap_or_default()
            ))),
        }
    }

    /// Back to the instantiated state. The FMU states handed out stay valid: the importer owns
    /// them until it frees them or the instance, and may restore one taken before the reset.
    pub fn reset(&mut self) -> Outcome {
        self.model = ElastoGap::new(self.interface(), 0.0);
        self.table_file.clear();
        self.state = S::State::INSTANTIATED;
        Ok(())
    }
}

/// The numbers of value references and of values a getter or setter is given: where a standard's
/// variables may be arrays they are told apart, and this FMU's variables are all scalars.
pub type Counts = (usize, usize);

/// The one count of a getter's or setter's arrays, where the two agree.
pub fn check_scalars((n_value_references, n_values): Counts) -> Result<usize, Failure> {
    if n_values == n_value_references {
        return Ok(n_values);
    }
    Err(error(format!(
        "nValues = {n_values}, but {n_value_references} value references of scalar variables were given"
    )))
}

/// The instance name must be a non-empty string.
pub fn check_instance_name(name: *const c_char) -> Result<(), String> {
    match string(name) {
        Some(name) if !name.is_empty() => Ok(()),
        _ => Err("instanceName must be a non-empty string".into()),
    }
}

/// The importer read the modelDescription.xml of this binary: its token (`what`) is this
/// binary's GUID. `null` is the refusal of no token.
pub fn check_token(token: *const c_char, what: &str, null: &str) -> Result<(), String> {
    match string(token) {
        Some(token) if token == crate::GUID => Ok(()),
        Some(token) => Err(format!(
            "wrong {what} {token}: this binary is {}; the modelDescription.xml does not belong to it",
            crate::GUID
        )),
        None => Err(null.into()),
    }
}

impl<S: Standard> Drop for Instance<S> {
    fn drop(&mut self) {
        self.live = 0;
        for snapshot in self.snapshots.drain(..) {
            // SAFETY: every pointer in the list came from Box::into_raw and was not yet freed.
            drop(unsafe { Box::from_raw(snapshot) });
        }
    }
}
