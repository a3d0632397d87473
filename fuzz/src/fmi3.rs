//! The FMI 3.0 side of the harness: a `logMessage` that records per call, the intermediate-update
//! callback a script can steer, and one instance with the checks every call must pass. The FMU is
//! called in-process through the rlib built with the `fmi3` feature (`elastogap::fmi3::*`).

use std::cell::{Cell, RefCell};
use std::ffi::{c_void, CStr, CString};

use elastogap::fmi3::*;
use elastogap::variables::{by_var, Var};
use fmi_sys::fmi3::{
    fmi3Float64, fmi3Instance, fmi3InstanceEnvironment, fmi3Status, fmi3String, fmi3ValueReference,
};

pub const OK: fmi3Status = fmi_sys::fmi3::fmi3Status_fmi3OK;
pub const WARNING: fmi3Status = fmi_sys::fmi3::fmi3Status_fmi3Warning;
pub const DISCARD: fmi3Status = fmi_sys::fmi3::fmi3Status_fmi3Discard;
pub const ERROR: fmi3Status = fmi_sys::fmi3::fmi3Status_fmi3Error;

/// The FMI 3 model description template, whose `<LogCategories>` the FMU must log under.
const MODEL_DESCRIPTION: &str = include_str!("../../modelDescription3.xml.in");

pub fn declared_categories() -> Vec<&'static str> {
    MODEL_DESCRIPTION
        .split("<Category name=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .collect()
}

#[derive(Debug, Clone)]
pub struct LogRecord {
    pub environment: usize,
    pub status: fmi3Status,
    pub category: Option<String>,
    pub message: Option<String>,
}

thread_local! {
    static LOG: RefCell<Vec<LogRecord>> = const { RefCell::new(Vec::new()) };
}

fn text(pointer: fmi3String) -> Option<String> {
    if pointer.is_null() {
        return None;
    }
    // SAFETY: the FMU passes NUL-terminated strings valid for the duration of the callback.
    Some(
        unsafe { CStr::from_ptr(pointer) }
            .to_string_lossy()
            .into_owned(),
    )
}

/// The logger callback: keeps each message for the check of the call that logged it.
///
/// # Safety
///
/// `category` and `message` are null or NUL-terminated strings valid for the call, as the FMU
/// passes them.
pub unsafe extern "C" fn record(
    environment: fmi3InstanceEnvironment,
    status: fmi3Status,
    category: fmi3String,
    message: fmi3String,
) {
    let entry = LogRecord {
        environment: environment as usize,
        status,
        category: text(category),
        message: text(message),
    };
    LOG.with(|log| log.borrow_mut().push(entry));
}

pub fn take_log() -> Vec<LogRecord> {
    LOG.with(|log| std::mem::take(&mut *log.borrow_mut()))
}

/// Puts back records taken earlier, before those logged since.
fn restore_log(earlier: Vec<LogRecord>) {
    LOG.with(|log| {
        let mut log = log.borrow_mut();
        let later = std::mem::replace(&mut *log, earlier);
        log.extend(later);
    });
}

/// What a script asks the intermediate-update callback to do, and what it saw.
#[derive(Default)]
pub struct Environment {
    /// The instance, set after instantiation, for the calls made inside the callback.
    pub instance: Cell<fmi3Instance>,
    pub early_return_allowed: Cell<bool>,
    /// Ask for an early return (only where offered).
    pub request: Cell<bool>,
    /// Ask for it also where `canReturnEarly` is false: the FMU must ignore it.
    pub insist: Cell<bool>,
    /// Try fmi3DoStep inside the callback (refused: the instance is in Intermediate Update Mode).
    pub step_inside: Cell<bool>,
    /// Callbacks seen in the current step: (time, canReturnEarly).
    pub seen: RefCell<Vec<(f64, bool)>>,
}

/// The intermediate-update callback: checks what the FMU offers and answers as the
/// [`Environment`] asks.
///
/// # Safety
///
/// `environment` points to the [`Environment`] the instance was made with, alive while the
/// instance is; `early_return_requested` and `early_return_time` are null or valid for writing,
/// as the FMU passes them.
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn intermediate_update(
    environment: fmi3InstanceEnvironment,
    time: fmi3Float64,
    _set_requested: bool,
    get_allowed: bool,
    _step_finished: bool,
    can_return_early: bool,
    early_return_requested: *mut bool,
    early_return_time: *mut fmi3Float64,
) {
    // SAFETY: the environment is the harness's `Environment`, alive while the instance is.
    let environment = unsafe { &*environment.cast::<Environment>() };
    assert!(
        !can_return_early || environment.early_return_allowed.get(),
        "intermediateUpdate offered canReturnEarly = true to an instance made with earlyReturnAllowed = false"
    );
    assert!(time.is_finite(), "intermediateUpdate at time {time}");
    environment.seen.borrow_mut().push((time, can_return_early));
    let instance = environment.instance.get();
    // The step's own messages stay for its check; those of the calls made here are checked here.
    let outer = take_log();
    if get_allowed {
        let vr = [by_var(Var::F).value_reference];
        let mut f = [f64::NAN];
        // SAFETY: arrays of one element.
        let status = unsafe { fmi3GetFloat64(instance, vr.as_ptr(), 1, f.as_mut_ptr(), 1) };
        assert!(
            status != OK || f[0].is_finite(),
            "fmi3GetFloat64 in intermediateUpdate returned fmi3OK with f = {}",
            f[0]
        );
        assert!(
            status == OK || status == ERROR,
            "fmi3GetFloat64 in intermediateUpdate returned {status}"
        );
    }
    if environment.step_inside.get() {
        let (mut a, mut b, mut c, mut d) = (false, false, false, 0.0);
        // SAFETY: valid out-pointers.
        let status =
            unsafe { fmi3DoStep(instance, time, 1e-3, false, &mut a, &mut b, &mut c, &mut d) };
        assert_eq!(
            status, ERROR,
            "fmi3DoStep inside intermediateUpdate was not refused"
        );
    }
    take_log();
    restore_log(outer);
    if !early_return_requested.is_null() {
        let request = (environment.request.get() && can_return_early) || environment.insist.get();
        // SAFETY: the FMU's out-pointers, valid for the call.
        unsafe {
            *early_return_requested = request;
            if !early_return_time.is_null() {
                *early_return_time = time;
            }
        }
    }
}

/// Checks what one call logged against the status it returned: a status the FMU never returns,
/// a failure without a reason, a message under an undeclared category or with a foreign
/// environment are findings.
pub fn check_call(call: &str, status: fmi3Status, environment: Option<usize>) {
    let log = take_log();
    assert!(
        matches!(status, OK | WARNING | DISCARD | ERROR),
        "{call} returned status {status} (fmi3Fatal means an internal panic); log: {log:?}"
    );
    let declared = declared_categories();
    for entry in &log {
        let category = entry.category.as_deref().unwrap_or("<NULL>");
        assert!(
            category != "logAll" && declared.contains(&category),
            "{call} logged under undeclared category {category}: {entry:?}"
        );
        let message = entry.message.as_deref().unwrap_or("");
        assert!(
            !message.is_empty(),
            "{call} logged an empty message: {entry:?}"
        );
        if let Some(environment) = environment {
            assert_eq!(
                entry.environment, environment,
                "{call} logged with a foreign instanceEnvironment"
            );
        }
    }
    if status != OK && environment.is_some() {
        assert!(
            log.iter().any(|e| e.status == status
                && e.message.as_deref().is_some_and(|m| m.starts_with("fmi3"))),
            "{call} returned status {status} without logging why (a message naming the function); log: {log:?}"
        );
    }
}

/// How an instance was made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interface {
    CoSimulation,
    ModelExchange,
}

/// A live instance of the FMI 3 layer, freed on drop.
pub struct Instance3 {
    pub instance: fmi3Instance,
    pub environment: Box<Environment>,
    pub has_logger: bool,
    pub interface: Interface,
    pub event_mode_used: bool,
}

/// The arguments an instance is made with.
#[derive(Clone, Debug, Default)]
pub struct Make {
    pub name: Option<CString>,
    pub token: Option<CString>,
    pub resources: Option<CString>,
    pub logger: bool,
    pub logging_on: bool,
    pub event_mode_used: bool,
    pub early_return_allowed: bool,
    pub intermediate_update: bool,
    /// A NULL requiredIntermediateVariables announced with this many elements.
    pub null_required: Option<u8>,
}

impl Make {
    pub fn standard() -> Make {
        Make {
            name: Some(CString::new("fuzz3").unwrap()),
            token: Some(CString::new(elastogap::GUID).unwrap()),
            resources: Some(CString::new("/tmp/fuzz resources/").unwrap()),
            logger: true,
            ..Make::default()
        }
    }
}

fn as_ptr(s: &Option<CString>) -> *const std::ffi::c_char {
    s.as_ref().map_or(std::ptr::null(), |s| s.as_ptr())
}

impl Instance3 {
    pub fn environment_address(&self) -> usize {
        &*self.environment as *const Environment as usize
    }

    pub fn logger(&self) -> Option<usize> {
        self.has_logger.then(|| self.environment_address())
    }

    /// Runs one call on this instance and checks it with [`check_call`].
    pub fn call(&self, name: &str, f: impl FnOnce(fmi3Instance) -> fmi3Status) -> fmi3Status {
        take_log();
        let status = f(self.instance);
        check_call(name, status, self.logger());
        status
    }

    /// Instantiates; `None` if the FMU refused, which it must have logged when it had a logger.
    pub fn instantiate(make: &Make, interface: Interface) -> Option<Instance3> {
        let environment = Box::new(Environment::default());
        environment
            .early_return_allowed
            .set(make.early_return_allowed);
        let pointer = (&*environment as *const Environment)
            .cast_mut()
            .cast::<c_void>();
        let log: fmi_sys::fmi3::fmi3LogMessageCallback =
            if make.logger { Some(record) } else { None };
        let required = [1u32];
        let (required, n_required) = match make.null_required {
            Some(n) => (std::ptr::null(), usize::from(n)),
            None => (required.as_ptr(), 0),
        };
        take_log();
        // SAFETY: every pointer is NULL or valid for the call; the environment outlives the
        // instance.
        let instance = unsafe {
            match interface {
                Interface::CoSimulation => fmi3InstantiateCoSimulation(
                    as_ptr(&make.name),
                    as_ptr(&make.token),
                    as_ptr(&make.resources),
                    false,
                    make.logging_on,
                    make.event_mode_used,
                    make.early_return_allowed,
                    required,
                    n_required,
                    pointer,
                    log,
                    if make.intermediate_update {
                        Some(intermediate_update)
                    } else {
                        None
                    },
                ),
                Interface::ModelExchange => fmi3InstantiateModelExchange(
                    as_ptr(&make.name),
                    as_ptr(&make.token),
                    as_ptr(&make.resources),
                    false,
                    make.logging_on,
                    pointer,
                    log,
                ),
            }
        };
        let logged = take_log();
        if instance.is_null() {
            if make.logger {
                assert!(
                    logged.iter().any(|e| e.status == ERROR),
                    "instantiation refused without a logged reason: {make:?}"
                );
            }
            return None;
        }
        environment.instance.set(instance);
        Some(Instance3 {
            instance,
            environment,
            has_logger: make.logger,
            interface,
            event_mode_used: make.event_mode_used && interface == Interface::CoSimulation,
        })
    }

    pub fn get_real(&self, var: Var) -> Option<f64> {
        let vr: [fmi3ValueReference; 1] = [by_var(var).value_reference];
        let mut value = [f64::NAN];
        let status = self.call("fmi3GetFloat64", |c| unsafe {
            fmi3GetFloat64(c, vr.as_ptr(), 1, value.as_mut_ptr(), 1)
        });
        (status == OK).then_some(value[0])
    }
}

impl Drop for Instance3 {
    fn drop(&mut self) {
        // SAFETY: the instance is live; it is freed exactly once, here.
        unsafe { fmi3FreeInstance(self.instance) };
        take_log();
    }
}
