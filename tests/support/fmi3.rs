//! A small FMI 3.0 importer for the tests: it unpacks `ElastoGap3.fmu`, loads
//! `binaries/x86_64-linux/ElastoGap3.so` (or the Windows DLL) and calls the C API as FMPy and
//! fmusim do: an instance environment passed to both callbacks, plain-text log messages, the
//! resource folder as a path. Value references come from the FMU's own variable table, which
//! `tests/python/test_fmi3_package.py` checks against both model descriptions.

use std::ffi::{c_char, c_void, CStr, CString};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use fmi_sys::fmi3::{self, Fmi3Binding};

use super::fmu::unzip;
use super::Status;
use elastogap::variables::VARIABLES;

/// Environment variable naming the FMI 3.0 `.fmu` to test.
pub const FMU3_ENV: &str = "ELASTOGAP3_FMU";

/// `$ELASTOGAP3_FMU`, else `<crate>/target/fmu/ElastoGap3.fmu` (what `packaging/package.py` writes).
pub fn default_fmu3_path() -> PathBuf {
    match std::env::var_os(FMU3_ENV) {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => Path::new(env!("CARGO_MANIFEST_DIR")).join("target/fmu/ElastoGap3.fmu"),
    }
}

/// Where the binary sits in the archive on this platform (FMI 3.0's platform tuples).
pub fn binary3_path_in_archive() -> &'static str {
    if cfg!(windows) {
        "binaries/x86_64-windows/ElastoGap3.dll"
    } else {
        "binaries/x86_64-linux/ElastoGap3.so"
    }
}

/// An unpacked and loaded FMI 3.0 FMU; the library is unloaded before its folder is removed.
pub struct Fmu3 {
    pub binding: Fmi3Binding,
    pub root: PathBuf,
    pub entries: Vec<String>,
    _dir: tempfile::TempDir,
}

impl Fmu3 {
    /// The FMU at [`default_fmu3_path`]; panics with a hint if it cannot be loaded.
    pub fn load_default() -> Arc<Fmu3> {
        let path = default_fmu3_path();
        match Fmu3::open(&path) {
            Ok(fmu) => Arc::new(fmu),
            Err(e) => panic!(
                "cannot load the FMU {}: {e}\n(build it with packaging/package.py, or point {FMU3_ENV} at an .fmu)",
                path.display()
            ),
        }
    }

    pub fn open(archive: &Path) -> Result<Fmu3, String> {
        let dir = tempfile::Builder::new()
            .prefix("elastogap fmu3-")
            .tempdir()
            .map_err(|e| format!("temporary directory: {e}"))?;
        let root = dir.path().to_path_buf();
        let entries = unzip(archive, &root)?;
        let lib_path = root.join(binary3_path_in_archive());
        // SAFETY: loading a shared library runs its initialisers; this is the library under test.
        let binding = unsafe { Fmi3Binding::new(&lib_path) }
            .map_err(|e| format!("cannot load {}: {e}", lib_path.display()))?;
        Ok(Fmu3 {
            binding,
            root,
            entries,
            _dir: dir,
        })
    }

    pub fn resource_path(&self) -> PathBuf {
        self.root.join("resources")
    }
}

/// The value reference of a variable of the table, by name.
pub fn vr(name: &str) -> u32 {
    VARIABLES
        .iter()
        .find(|v| v.name == name)
        .unwrap_or_else(|| panic!("no variable {name}"))
        .value_reference
}

/// What the instance's callbacks saw.
#[derive(Default)]
pub struct Seen {
    pub messages: Vec<(Status, String, String)>,
    /// Times the intermediate-update callback was called at, and whether it could return early.
    pub intermediate: Vec<(f64, bool)>,
    /// Ask for an early return from the intermediate-update callback.
    pub request_early_return: bool,
    /// Outputs read inside the callback, `f` and `contact`, as the master sees them there.
    pub read_inside: Vec<(f64, f64)>,
    /// Ask for an early return even where the FMU said `canReturnEarly = false` (a bad importer).
    pub insist_on_early_return: bool,
    /// A Float64 the callback tries to set (value reference, value), and the statuses it got.
    pub set_inside: Option<(u32, f64)>,
    pub set_inside_statuses: Vec<Status>,
}

/// The instance environment both callbacks get back: what they saw, and the instance (set after
/// instantiation) so that the intermediate-update callback can read outputs.
pub struct Environment3 {
    pub seen: Mutex<Seen>,
    pub instance: Mutex<fmi3::fmi3Instance>,
    pub binding: *const Fmi3Binding,
}

pub unsafe extern "C" fn log_message(
    environment: fmi3::fmi3InstanceEnvironment,
    status: fmi3::fmi3Status,
    category: fmi3::fmi3String,
    message: fmi3::fmi3String,
) {
    let text = |p: *const c_char| {
        if p.is_null() {
            "<NULL>".to_string()
        } else {
            // SAFETY: the FMU passes NUL-terminated strings valid for the call.
            unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
        }
    };
    if std::env::var_os("ELASTOGAP_TEST_ECHO_LOG").is_some() {
        eprintln!("[{status}] {}: {}", text(category), text(message));
    }
    // SAFETY: the environment is the `Environment3` this importer passed, alive while the instance is.
    let environment = unsafe { &*environment.cast::<Environment3>() };
    environment.seen.lock().unwrap().messages.push((
        Status::from(status),
        text(category),
        text(message),
    ));
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn intermediate_update(
    environment: fmi3::fmi3InstanceEnvironment,
    time: f64,
    _set_requested: bool,
    get_allowed: bool,
    _step_finished: bool,
    can_return_early: bool,
    early_return_requested: *mut bool,
    early_return_time: *mut f64,
) {
    // SAFETY: as in `log_message`; the output pointers are the FMU's, valid for the call.
    let environment = unsafe { &*environment.cast::<Environment3>() };
    let (request, insist, set_inside) = {
        let mut seen = environment.seen.lock().unwrap();
        seen.intermediate.push((time, can_return_early));
        (
            seen.request_early_return,
            seen.insist_on_early_return,
            seen.set_inside,
        )
    };
    if let Some((reference, value)) = set_inside {
        let instance = *environment.instance.lock().unwrap();
        // SAFETY: the binding outlives the instance; arrays of one element.
        let status =
            unsafe { (*environment.binding).fmi3SetFloat64(instance, &reference, 1, &value, 1) };
        let status = Status::from(status);
        environment
            .seen
            .lock()
            .unwrap()
            .set_inside_statuses
            .push(status);
    }
    if get_allowed {
        let instance = *environment.instance.lock().unwrap();
        let refs = [vr("f")];
        let mut f = [f64::NAN];
        let mut contact = [false];
        // SAFETY: the binding outlives the instance; arrays of the sizes passed.
        unsafe {
            let binding = &*environment.binding;
            binding.fmi3GetFloat64(instance, refs.as_ptr(), 1, f.as_mut_ptr(), 1);
            let refs = [vr("contact")];
            binding.fmi3GetBoolean(instance, refs.as_ptr(), 1, contact.as_mut_ptr(), 1);
        }
        let contact = f64::from(u8::from(contact[0]));
        environment
            .seen
            .lock()
            .unwrap()
            .read_inside
            .push((f[0], contact));
    }
    if !early_return_requested.is_null() {
        // SAFETY: see above.
        unsafe {
            *early_return_requested = (request && can_return_early) || insist;
            if !early_return_time.is_null() {
                *early_return_time = time;
            }
        }
    }
}

/// How a co-simulation instance is made.
#[derive(Clone, Copy, Debug, Default)]
pub struct CsOptions {
    pub early_return_allowed: bool,
    pub event_mode_used: bool,
    /// Hand the FMU the intermediate-update callback.
    pub intermediate_update: bool,
}

/// What `fmi3DoStep` returned.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepOutcome {
    pub status: Status,
    pub event_handling_needed: bool,
    pub terminate: bool,
    pub early_return: bool,
    pub last_successful_time: f64,
}

/// One `fmi3Instance` of an [`Fmu3`].
pub struct Instance3 {
    pub fmu: Arc<Fmu3>,
    pub instance: fmi3::fmi3Instance,
    pub environment: Box<Environment3>,
}

impl Instance3 {
    pub fn environment(fmu: &Arc<Fmu3>) -> Box<Environment3> {
        Box::new(Environment3 {
            seen: Mutex::new(Seen::default()),
            instance: Mutex::new(std::ptr::null_mut()),
            binding: &fmu.binding,
        })
    }

    /// A co-simulation instance with the FMU's own token; `None` if instantiation failed.
    pub fn co_simulation(fmu: &Arc<Fmu3>, options: CsOptions) -> Option<Instance3> {
        Self::co_simulation_named(fmu, "gap", options)
    }

    /// As [`Self::co_simulation`], with the instance name the FMU logs under.
    pub fn co_simulation_named(
        fmu: &Arc<Fmu3>,
        name: &str,
        options: CsOptions,
    ) -> Option<Instance3> {
        let environment = Self::environment(fmu);
        let name = CString::new(name).unwrap();
        let token = CString::new(elastogap::GUID).unwrap();
        let resources = CString::new(fmu.resource_path().to_string_lossy().as_ref()).unwrap();
        let update: fmi3::fmi3IntermediateUpdateCallback = if options.intermediate_update {
            Some(intermediate_update)
        } else {
            None
        };
        // SAFETY: valid strings and callbacks; the environment outlives the instance.
        let instance = unsafe {
            fmu.binding.fmi3InstantiateCoSimulation(
                name.as_ptr(),
                token.as_ptr(),
                resources.as_ptr(),
                false,
                false,
                options.event_mode_used,
                options.early_return_allowed,
                std::ptr::null(),
                0,
                (&*environment as *const Environment3)
                    .cast_mut()
                    .cast::<c_void>(),
                Some(log_message),
                update,
            )
        };
        Self::made(fmu, instance, environment)
    }

    /// A Model Exchange instance; `None` if instantiation failed.
    pub fn model_exchange(fmu: &Arc<Fmu3>) -> Option<Instance3> {
        let environment = Self::environment(fmu);
        let name = CString::new("gap").unwrap();
        let token = CString::new(elastogap::GUID).unwrap();
        let resources = CString::new(fmu.resource_path().to_string_lossy().as_ref()).unwrap();
        // SAFETY: as above.
        let instance = unsafe {
            fmu.binding.fmi3InstantiateModelExchange(
                name.as_ptr(),
                token.as_ptr(),
                resources.as_ptr(),
                false,
                false,
                (&*environment as *const Environment3)
                    .cast_mut()
                    .cast::<c_void>(),
                Some(log_message),
            )
        };
        Self::made(fmu, instance, environment)
    }

    pub fn made(
        fmu: &Arc<Fmu3>,
        instance: fmi3::fmi3Instance,
        environment: Box<Environment3>,
    ) -> Option<Instance3> {
        if instance.is_null() {
            return None;
        }
        *environment.instance.lock().unwrap() = instance;
        Some(Instance3 {
            fmu: Arc::clone(fmu),
            instance,
            environment,
        })
    }

    pub fn b(&self) -> &Fmi3Binding {
        &self.fmu.binding
    }

    pub fn seen(&self) -> std::sync::MutexGuard<'_, Seen> {
        self.environment.seen.lock().unwrap()
    }

    pub fn set_f64(&mut self, name: &str, value: f64) -> Status {
        let refs = [vr(name)];
        // SAFETY: arrays of one element.
        Status::from(unsafe {
            self.b()
                .fmi3SetFloat64(self.instance, refs.as_ptr(), 1, &value, 1)
        })
    }

    pub fn get_f64(&mut self, name: &str) -> f64 {
        let refs = [vr(name)];
        let mut value = f64::NAN;
        // SAFETY: arrays of one element.
        let status = unsafe {
            self.b()
                .fmi3GetFloat64(self.instance, refs.as_ptr(), 1, &mut value, 1)
        };
        assert_eq!(Status::from(status), Status::Ok, "fmi3GetFloat64({name})");
        value
    }

    /// `fmi3SetFloat64` of several variables at once.
    pub fn set_float64(&mut self, refs: &[u32], values: &[f64]) -> Status {
        // SAFETY: arrays of the lengths passed.
        Status::from(unsafe {
            self.b().fmi3SetFloat64(
                self.instance,
                refs.as_ptr(),
                refs.len(),
                values.as_ptr(),
                values.len(),
            )
        })
    }

    /// `fmi3GetFloat64` of several variables at once, the status not asserted.
    pub fn get_float64(&mut self, refs: &[u32], values: &mut [f64]) -> Status {
        // SAFETY: arrays of the lengths passed.
        Status::from(unsafe {
            self.b().fmi3GetFloat64(
                self.instance,
                refs.as_ptr(),
                refs.len(),
                values.as_mut_ptr(),
                values.len(),
            )
        })
    }

    /// `fmi3GetBoolean` of several variables at once, the status not asserted.
    pub fn get_boolean(&mut self, refs: &[u32], values: &mut [bool]) -> Status {
        // SAFETY: arrays of the lengths passed.
        Status::from(unsafe {
            self.b().fmi3GetBoolean(
                self.instance,
                refs.as_ptr(),
                refs.len(),
                values.as_mut_ptr(),
                values.len(),
            )
        })
    }

    /// `fmi3GetFMUState` into `state`: a null `state` gets a new FMU state, an existing one is
    /// overwritten (the standard's reuse, no allocation per call).
    pub fn get_fmu_state(&mut self, state: &mut fmi3::fmi3FMUState) -> Status {
        // SAFETY: a live instance; `state` is null or a state of this instance.
        Status::from(unsafe { self.b().fmi3GetFMUState(self.instance, state) })
    }

    /// `fmi3SetFMUState`: the instance goes back to `state`.
    pub fn set_fmu_state(&mut self, state: fmi3::fmi3FMUState) -> Status {
        // SAFETY: a live instance; `state` one of its states.
        Status::from(unsafe { self.b().fmi3SetFMUState(self.instance, state) })
    }

    /// `fmi3FreeFMUState`; `state` is null afterwards.
    pub fn free_fmu_state(&mut self, state: &mut fmi3::fmi3FMUState) -> Status {
        if state.is_null() {
            return Status::Ok;
        }
        // SAFETY: a live instance; `state` one of its states, freed once.
        Status::from(unsafe { self.b().fmi3FreeFMUState(self.instance, state) })
    }

    /// The messages the FMU logged, one a line, for an error report.
    pub fn log_text(&self) -> String {
        self.seen()
            .messages
            .iter()
            .map(|(status, category, message)| format!("  [{status:?} {category}] {message}"))
            .collect::<Vec<_>>()
            .join("\n")
    }

    pub fn get_bool(&mut self, name: &str) -> bool {
        let refs = [vr(name)];
        let mut value = false;
        // SAFETY: arrays of one element.
        let status = unsafe {
            self.b()
                .fmi3GetBoolean(self.instance, refs.as_ptr(), 1, &mut value, 1)
        };
        assert_eq!(Status::from(status), Status::Ok, "fmi3GetBoolean({name})");
        value
    }

    pub fn set_i64(&mut self, name: &str, value: i64) -> Status {
        let refs = [vr(name)];
        // SAFETY: arrays of one element.
        Status::from(unsafe {
            self.b()
                .fmi3SetInt64(self.instance, refs.as_ptr(), 1, &value, 1)
        })
    }

    pub fn enter_initialization_mode(&mut self, start_time: f64) -> Status {
        // SAFETY: a live instance.
        Status::from(unsafe {
            self.b()
                .fmi3EnterInitializationMode(self.instance, false, 0.0, start_time, false, 0.0)
        })
    }

    pub fn exit_initialization_mode(&mut self) -> Status {
        // SAFETY: a live instance.
        Status::from(unsafe { self.b().fmi3ExitInitializationMode(self.instance) })
    }

    pub fn do_step(&mut self, time: f64, h: f64) -> StepOutcome {
        self.do_step_with(time, h, true)
    }

    /// `fmi3DoStep` with its `noSetFMUStatePriorToCurrentPoint`: false where the master may set
    /// the instance back to a state before `time` (to take the step again).
    pub fn do_step_with(&mut self, time: f64, h: f64, no_set_prior: bool) -> StepOutcome {
        let (mut event, mut terminate, mut early, mut last) = (false, false, false, f64::NAN);
        // SAFETY: a live instance; four valid output pointers.
        let status = unsafe {
            self.b().fmi3DoStep(
                self.instance,
                time,
                h,
                no_set_prior,
                &mut event,
                &mut terminate,
                &mut early,
                &mut last,
            )
        };
        StepOutcome {
            status: Status::from(status),
            event_handling_needed: event,
            terminate,
            early_return: early,
            last_successful_time: last,
        }
    }

    pub fn enter_event_mode(&mut self) -> Status {
        // SAFETY: a live instance.
        Status::from(unsafe { self.b().fmi3EnterEventMode(self.instance) })
    }

    /// `fmi3UpdateDiscreteStates`: the status and whether the discrete states need another update.
    pub fn update_discrete_states(&mut self) -> (Status, bool) {
        let (mut again, mut terminate, mut nominals, mut values, mut defined) =
            (false, false, false, false, false);
        let mut next = 0.0;
        // SAFETY: a live instance; valid output pointers.
        let status = unsafe {
            self.b().fmi3UpdateDiscreteStates(
                self.instance,
                &mut again,
                &mut terminate,
                &mut nominals,
                &mut values,
                &mut defined,
                &mut next,
            )
        };
        (Status::from(status), again)
    }

    pub fn enter_step_mode(&mut self) -> Status {
        // SAFETY: a live instance.
        Status::from(unsafe { self.b().fmi3EnterStepMode(self.instance) })
    }

    pub fn terminate(&mut self) -> Status {
        // SAFETY: a live instance.
        Status::from(unsafe { self.b().fmi3Terminate(self.instance) })
    }
}

impl Drop for Instance3 {
    fn drop(&mut self) {
        // SAFETY: the instance is live and freed once.
        unsafe { self.fmu.binding.fmi3FreeInstance(self.instance) };
    }
}
