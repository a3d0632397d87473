//! A thin, safe wrapper around one FMU instance. Every call returns the FMU's [`Status`] as it is, so
//! tests can assert on errors; nothing is retried or hidden. [`Instance::component`] and
//! [`Instance::binding`] give raw access for deliberately bad calls.

use std::ffi::{c_void, CStr, CString};
use std::ptr;
use std::sync::Arc;

use fmi_sys::fmi2::{self, Fmi2Binding};

use super::fmu::Fmu;
use super::logger::{self, LogRecord, LogSink};
use super::model_description::VarType;
use super::Status;

/// Resolve an FMI function of the binding, panicking with its name if the FMU lacks it.
macro_rules! sym {
    ($self:expr, $name:ident) => {
        match $self.fmu.binding.$name.as_ref() {
            Ok(f) => *f,
            Err(e) => panic!("the FMU does not export {}: {e}", stringify!($name)),
        }
    };
}

/// What `fmi2Instantiate` is given as `fmuResourceLocation`.
#[derive(Clone, Debug, Default)]
pub enum ResourceUri {
    /// `file:///<unpacked>/resources/`, percent-encoded.
    #[default]
    Default,
    /// A NULL pointer (fmusim 0.8 when the archive has no `resources/`).
    Null,
    Custom(String),
}

/// What `componentEnvironment` is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Environment {
    /// The address of this instance's [`LogSink`].
    #[default]
    Sink,
    /// NULL, as FMPy passes; messages go to [`logger::global_sink`].
    Null,
}

#[derive(Clone, Debug)]
pub struct InstantiateOptions {
    pub instance_name: String,
    /// `None`: the GUID of the model description.
    pub guid: Option<String>,
    pub resource_uri: ResourceUri,
    pub environment: Environment,
    pub logging_on: bool,
    pub visible: bool,
    pub fmu_type: fmi2::fmi2Type,
    /// Pass `calloc`/`free` (true) or NULL memory callbacks (false, as fmusim 0.8 does when
    /// `canNotUseMemoryManagementFunctions="true"`).
    pub memory_callbacks: bool,
    /// Pass a callback struct that is overwritten with zeros as soon as `fmi2Instantiate` returns,
    /// as when a host keeps it on its stack: an FMU that kept the pointer instead of a copy then
    /// crashes or loses its logger.
    pub scrub_callbacks: bool,
}

impl Default for InstantiateOptions {
    fn default() -> Self {
        InstantiateOptions {
            instance_name: "instance".to_string(),
            guid: None,
            resource_uri: ResourceUri::Default,
            environment: Environment::Sink,
            logging_on: false,
            visible: false,
            fmu_type: fmi2::fmi2Type_fmi2CoSimulation,
            memory_callbacks: true,
            scrub_callbacks: false,
        }
    }
}

impl InstantiateOptions {
    pub fn named(name: &str) -> Self {
        InstantiateOptions {
            instance_name: name.to_string(),
            ..Default::default()
        }
    }
}

/// `fmi2Instantiate` returned NULL; `logs` holds what the FMU said.
#[derive(Debug)]
pub struct InstantiateFailure {
    pub logs: Vec<LogRecord>,
}

/// An opaque FMU state (`fmi2FMUstate`); NULL until filled by `fmi2GetFMUstate` or
/// `fmi2DeSerializeFMUstate`. Not freed automatically: use [`Instance::free_fmu_state`].
#[derive(Debug)]
pub struct FmuState(pub fmi2::fmi2FMUstate);

impl FmuState {
    pub fn null() -> FmuState {
        FmuState(ptr::null_mut())
    }
    pub fn is_null(&self) -> bool {
        self.0.is_null()
    }
}

impl Default for FmuState {
    fn default() -> Self {
        FmuState::null()
    }
}

pub struct Instance {
    fmu: Arc<Fmu>,
    /// The interface it was instantiated for.
    fmu_type: fmi2::fmi2Type,
    component: fmi2::fmi2Component,
    name: String,
    environment: Environment,
    // Boxed so their addresses stay put for as long as the FMU may use them (until after
    // fmi2FreeInstance in Drop, which runs before the fields are dropped).
    sink: Box<LogSink>,
    _callbacks: Box<fmi2::fmi2CallbackFunctions>,
}

// SAFETY: an FMI instance may be used from any thread, one call at a time; `&mut self`/ownership
// rules guarantee that here, and the FMU promises no globals.
unsafe impl Send for Instance {}

impl std::fmt::Debug for Instance {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Instance")
            .field("name", &self.name)
            .field("component", &self.component)
            .finish()
    }
}

fn cstring(text: &str) -> CString {
    CString::new(text).expect("no NUL inside strings passed to the FMU")
}

fn to_fmi_bool(b: bool) -> fmi2::fmi2Boolean {
    if b {
        fmi2::fmi2True as fmi2::fmi2Boolean
    } else {
        fmi2::fmi2False as fmi2::fmi2Boolean
    }
}

impl Instance {
    /// `fmi2Instantiate` with `options`.
    pub fn instantiate(
        fmu: &Arc<Fmu>,
        options: &InstantiateOptions,
    ) -> Result<Instance, InstantiateFailure> {
        let sink = Box::new(LogSink::new());
        let env = match options.environment {
            Environment::Sink => logger::env_of(&sink),
            Environment::Null => ptr::null_mut(),
        };
        let (allocate, release): (
            fmi2::fmi2CallbackAllocateMemory,
            fmi2::fmi2CallbackFreeMemory,
        ) = if options.memory_callbacks {
            (
                Some(logger::memory::allocate),
                Some(logger::memory::release),
            )
        } else {
            (None, None)
        };
        let callbacks = Box::new(fmi2::fmi2CallbackFunctions {
            logger: logger::logger_callback(),
            allocateMemory: allocate,
            freeMemory: release,
            stepFinished: None,
            componentEnvironment: env,
        });
        let name = cstring(&options.instance_name);
        let guid = cstring(
            options
                .guid
                .as_deref()
                .unwrap_or(&fmu.model_description.guid),
        );
        let resource = match &options.resource_uri {
            ResourceUri::Default => Some(cstring(&fmu.resource_uri())),
            ResourceUri::Null => None,
            ResourceUri::Custom(uri) => Some(cstring(uri)),
        };
        let instantiate = match fmu.binding.fmi2Instantiate.as_ref() {
            Ok(f) => *f,
            Err(e) => panic!("the FMU does not export fmi2Instantiate: {e}"),
        };
        let mut temporary = *callbacks;
        let functions: *const fmi2::fmi2CallbackFunctions = if options.scrub_callbacks {
            &temporary
        } else {
            &*callbacks
        };
        // SAFETY: all pointers are valid for the call; `callbacks` and `sink` outlive the instance.
        let component = unsafe {
            instantiate(
                name.as_ptr(),
                options.fmu_type,
                guid.as_ptr(),
                resource.as_ref().map_or(ptr::null(), |r| r.as_ptr()),
                functions,
                to_fmi_bool(options.visible),
                to_fmi_bool(options.logging_on),
            )
        };
        if options.scrub_callbacks {
            // SAFETY: writing zeros into our own local struct; volatile so it is not elided.
            unsafe {
                ptr::write_volatile(
                    &mut temporary,
                    fmi2::fmi2CallbackFunctions {
                        logger: None,
                        allocateMemory: None,
                        freeMemory: None,
                        stepFinished: None,
                        componentEnvironment: ptr::null_mut(),
                    },
                )
            };
        }
        if component.is_null() {
            let logs = match options.environment {
                Environment::Sink => sink.snapshot(),
                Environment::Null => logger::global_sink()
                    .snapshot()
                    .into_iter()
                    .filter(|r| r.instance_name.as_deref() == Some(options.instance_name.as_str()))
                    .collect(),
            };
            // Keep the addresses valid in case the FMU wrongly kept them.
            Box::leak(sink);
            Box::leak(callbacks);
            return Err(InstantiateFailure { logs });
        }
        let instance = Instance {
            fmu: Arc::clone(fmu),
            fmu_type: options.fmu_type,
            component,
            name: options.instance_name.clone(),
            environment: options.environment,
            sink,
            _callbacks: callbacks,
        };
        Ok(instance)
    }

    /// A co-simulation instance with the default options, its messages in its own sink; panics
    /// if `fmi2Instantiate` fails.
    pub fn new(fmu: &Arc<Fmu>, name: &str) -> Instance {
        Instance::instantiate(fmu, &InstantiateOptions::named(name))
            .unwrap_or_else(|f| panic!("fmi2Instantiate({name}) returned NULL; log: {:#?}", f.logs))
    }

    pub fn is_model_exchange(&self) -> bool {
        self.fmu_type == fmi2::fmi2Type_fmi2ModelExchange
    }

    pub fn fmu(&self) -> &Arc<Fmu> {
        &self.fmu
    }
    pub fn binding(&self) -> &Fmi2Binding {
        &self.fmu.binding
    }
    /// The raw `fmi2Component` (NULL after [`Instance::free`]).
    pub fn component(&self) -> fmi2::fmi2Component {
        self.component
    }
    pub fn name(&self) -> &str {
        &self.name
    }
    /// The `componentEnvironment` that was passed (NULL for [`Environment::Null`]).
    pub fn environment_pointer(&self) -> *mut c_void {
        match self.environment {
            Environment::Sink => logger::env_of(&self.sink),
            Environment::Null => ptr::null_mut(),
        }
    }
    pub fn sink(&self) -> &LogSink {
        &self.sink
    }

    /// Everything the FMU logged for this instance so far: from its own sink, or, with a NULL
    /// environment, the global sink's records carrying this instance's name.
    pub fn logs(&self) -> Vec<LogRecord> {
        match self.environment {
            Environment::Sink => self.sink.snapshot(),
            Environment::Null => logger::global_sink()
                .snapshot()
                .into_iter()
                .filter(|r| r.instance_name.as_deref() == Some(self.name.as_str()))
                .collect(),
        }
    }

    /// Forget the component without calling `fmi2FreeInstance` (after a test freed it raw).
    pub fn forget_component(&mut self) {
        self.component = ptr::null_mut();
    }

    /// `fmi2FreeInstance` now (Drop does it otherwise).
    pub fn free(mut self) {
        self.free_now();
    }

    fn free_now(&mut self) {
        if !self.component.is_null() {
            let f = sym!(self, fmi2FreeInstance);
            // SAFETY: a live component of this library, freed once.
            unsafe { f(self.component) };
            self.component = ptr::null_mut();
        }
    }

    // ---- names -----------------------------------------------------------------------------

    /// Value reference of `name` of type `var_type` from the model description (panics if absent).
    pub fn vr(&self, name: &str, var_type: VarType) -> u32 {
        self.fmu.model_description.vr(name, var_type)
    }

    // ---- life cycle ------------------------------------------------------------------------

    pub fn set_debug_logging(&mut self, logging_on: bool, categories: &[&str]) -> Status {
        let f = sym!(self, fmi2SetDebugLogging);
        let owned: Vec<CString> = categories.iter().map(|c| cstring(c)).collect();
        let pointers: Vec<fmi2::fmi2String> = owned.iter().map(|c| c.as_ptr()).collect();
        let list = if pointers.is_empty() {
            ptr::null()
        } else {
            pointers.as_ptr()
        };
        // SAFETY: valid component and array for the duration of the call.
        Status::from(unsafe {
            f(
                self.component,
                to_fmi_bool(logging_on),
                pointers.len(),
                list,
            )
        })
    }

    pub fn setup_experiment(
        &mut self,
        tolerance: Option<f64>,
        start_time: f64,
        stop_time: Option<f64>,
    ) -> Status {
        let f = sym!(self, fmi2SetupExperiment);
        // SAFETY: plain values.
        Status::from(unsafe {
            f(
                self.component,
                to_fmi_bool(tolerance.is_some()),
                tolerance.unwrap_or(0.0),
                start_time,
                to_fmi_bool(stop_time.is_some()),
                stop_time.unwrap_or(0.0),
            )
        })
    }

    pub fn enter_initialization_mode(&mut self) -> Status {
        let f = sym!(self, fmi2EnterInitializationMode);
        // SAFETY: plain call on our component.
        Status::from(unsafe { f(self.component) })
    }

    pub fn exit_initialization_mode(&mut self) -> Status {
        let f = sym!(self, fmi2ExitInitializationMode);
        // SAFETY: plain call on our component.
        Status::from(unsafe { f(self.component) })
    }

    pub fn terminate(&mut self) -> Status {
        let f = sym!(self, fmi2Terminate);
        // SAFETY: plain call on our component.
        Status::from(unsafe { f(self.component) })
    }

    pub fn reset(&mut self) -> Status {
        let f = sym!(self, fmi2Reset);
        // SAFETY: plain call on our component.
        Status::from(unsafe { f(self.component) })
    }

    // ---- values by value reference ---------------------------------------------------------

    pub fn get_real(&mut self, vrs: &[u32]) -> (Status, Vec<f64>) {
        let f = sym!(self, fmi2GetReal);
        let mut values = vec![f64::NAN; vrs.len()];
        // SAFETY: arrays of length nvr.
        let s = unsafe { f(self.component, vrs.as_ptr(), vrs.len(), values.as_mut_ptr()) };
        (Status::from(s), values)
    }

    pub fn set_real(&mut self, vrs: &[u32], values: &[f64]) -> Status {
        assert_eq!(vrs.len(), values.len(), "one value per value reference");
        let f = sym!(self, fmi2SetReal);
        // SAFETY: arrays of length nvr.
        Status::from(unsafe { f(self.component, vrs.as_ptr(), vrs.len(), values.as_ptr()) })
    }

    pub fn get_integer(&mut self, vrs: &[u32]) -> (Status, Vec<i32>) {
        let f = sym!(self, fmi2GetInteger);
        let mut values = vec![i32::MIN; vrs.len()];
        // SAFETY: arrays of length nvr.
        let s = unsafe { f(self.component, vrs.as_ptr(), vrs.len(), values.as_mut_ptr()) };
        (Status::from(s), values)
    }

    pub fn set_integer(&mut self, vrs: &[u32], values: &[i32]) -> Status {
        assert_eq!(vrs.len(), values.len(), "one value per value reference");
        let f = sym!(self, fmi2SetInteger);
        // SAFETY: arrays of length nvr.
        Status::from(unsafe { f(self.component, vrs.as_ptr(), vrs.len(), values.as_ptr()) })
    }

    /// Raw `fmi2Boolean` values (anything non-zero is true).
    pub fn get_boolean_raw(&mut self, vrs: &[u32]) -> (Status, Vec<fmi2::fmi2Boolean>) {
        let f = sym!(self, fmi2GetBoolean);
        let mut values = vec![-1; vrs.len()];
        // SAFETY: arrays of length nvr.
        let s = unsafe { f(self.component, vrs.as_ptr(), vrs.len(), values.as_mut_ptr()) };
        (Status::from(s), values)
    }

    pub fn get_boolean(&mut self, vrs: &[u32]) -> (Status, Vec<bool>) {
        let (s, raw) = self.get_boolean_raw(vrs);
        (s, raw.into_iter().map(|b| b != 0).collect())
    }

    pub fn set_boolean(&mut self, vrs: &[u32], values: &[bool]) -> Status {
        let raw: Vec<fmi2::fmi2Boolean> = values.iter().map(|&b| to_fmi_bool(b)).collect();
        self.set_boolean_raw(vrs, &raw)
    }

    pub fn set_boolean_raw(&mut self, vrs: &[u32], values: &[fmi2::fmi2Boolean]) -> Status {
        assert_eq!(vrs.len(), values.len(), "one value per value reference");
        let f = sym!(self, fmi2SetBoolean);
        // SAFETY: arrays of length nvr.
        Status::from(unsafe { f(self.component, vrs.as_ptr(), vrs.len(), values.as_ptr()) })
    }

    /// `fmi2GetString`; NULL results come back as `None`.
    pub fn get_string(&mut self, vrs: &[u32]) -> (Status, Vec<Option<String>>) {
        let f = sym!(self, fmi2GetString);
        let mut values: Vec<fmi2::fmi2String> = vec![ptr::null(); vrs.len()];
        // SAFETY: arrays of length nvr.
        let s = unsafe { f(self.component, vrs.as_ptr(), vrs.len(), values.as_mut_ptr()) };
        let strings = values
            .into_iter()
            .map(|p| {
                // SAFETY: the FMU returns NUL-terminated strings valid until its next call.
                (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
            })
            .collect();
        (Status::from(s), strings)
    }

    pub fn set_string(&mut self, vrs: &[u32], values: &[&str]) -> Status {
        assert_eq!(vrs.len(), values.len(), "one value per value reference");
        let f = sym!(self, fmi2SetString);
        let owned: Vec<CString> = values.iter().map(|v| cstring(v)).collect();
        let pointers: Vec<fmi2::fmi2String> = owned.iter().map(|c| c.as_ptr()).collect();
        // SAFETY: arrays of length nvr.
        Status::from(unsafe { f(self.component, vrs.as_ptr(), vrs.len(), pointers.as_ptr()) })
    }

    // ---- values by name --------------------------------------------------------------------

    pub fn set_real_by_name(&mut self, name: &str, value: f64) -> Status {
        let vr = self.vr(name, VarType::Real);
        self.set_real(&[vr], &[value])
    }

    pub fn get_real_by_name(&mut self, name: &str) -> (Status, f64) {
        let vr = self.vr(name, VarType::Real);
        let (s, v) = self.get_real(&[vr]);
        (s, v[0])
    }

    pub fn set_integer_by_name(&mut self, name: &str, value: i32) -> Status {
        let vr = self.vr(name, VarType::Integer);
        self.set_integer(&[vr], &[value])
    }

    pub fn get_integer_by_name(&mut self, name: &str) -> (Status, i32) {
        let vr = self.vr(name, VarType::Integer);
        let (s, v) = self.get_integer(&[vr]);
        (s, v[0])
    }

    pub fn set_boolean_by_name(&mut self, name: &str, value: bool) -> Status {
        let vr = self.vr(name, VarType::Boolean);
        self.set_boolean(&[vr], &[value])
    }

    /// Sets a parameter or input with the setter of its declared type: Integers and Enumerations
    /// take `value` as an integer, Booleans as `value != 0`.
    pub fn set_by_name(&mut self, name: &str, value: f64) -> Status {
        let variable = self.fmu.model_description.var(name);
        let vr = [variable.value_reference];
        match variable.var_type {
            VarType::Real => self.set_real(&vr, &[value]),
            VarType::Integer | VarType::Enumeration => self.set_integer(&vr, &[value as i32]),
            VarType::Boolean => self.set_boolean(&vr, &[value != 0.0]),
            VarType::String => panic!("{name} is a String variable"),
        }
    }

    pub fn get_boolean_by_name(&mut self, name: &str) -> (Status, bool) {
        let vr = self.vr(name, VarType::Boolean);
        let (s, v) = self.get_boolean(&[vr]);
        (s, v[0])
    }

    /// The Real `name`, asserting that `fmi2GetReal` returned OK.
    pub fn real(&mut self, name: &str) -> f64 {
        let (s, v) = self.get_real_by_name(name);
        assert_eq!(s, Status::Ok, "fmi2GetReal({name}) on {}", self.name);
        v
    }

    /// The Boolean `name`, asserting that `fmi2GetBoolean` returned OK.
    pub fn boolean(&mut self, name: &str) -> bool {
        let (s, v) = self.get_boolean_by_name(name);
        assert_eq!(s, Status::Ok, "fmi2GetBoolean({name}) on {}", self.name);
        v
    }

    /// The Integer `name`, asserting that `fmi2GetInteger` returned OK.
    pub fn integer(&mut self, name: &str) -> i32 {
        let (s, v) = self.get_integer_by_name(name);
        assert_eq!(s, Status::Ok, "fmi2GetInteger({name}) on {}", self.name);
        v
    }

    // ---- co-simulation ---------------------------------------------------------------------

    pub fn set_real_input_derivatives(
        &mut self,
        vrs: &[u32],
        orders: &[i32],
        values: &[f64],
    ) -> Status {
        assert!(vrs.len() == orders.len() && vrs.len() == values.len());
        let f = sym!(self, fmi2SetRealInputDerivatives);
        // SAFETY: arrays of length nvr.
        Status::from(unsafe {
            f(
                self.component,
                vrs.as_ptr(),
                vrs.len(),
                orders.as_ptr(),
                values.as_ptr(),
            )
        })
    }

    pub fn get_real_output_derivatives(
        &mut self,
        vrs: &[u32],
        orders: &[i32],
    ) -> (Status, Vec<f64>) {
        assert_eq!(vrs.len(), orders.len());
        let f = sym!(self, fmi2GetRealOutputDerivatives);
        let mut values = vec![f64::NAN; vrs.len()];
        // SAFETY: arrays of length nvr.
        let s = unsafe {
            f(
                self.component,
                vrs.as_ptr(),
                vrs.len(),
                orders.as_ptr(),
                values.as_mut_ptr(),
            )
        };
        (Status::from(s), values)
    }

    pub fn do_step(
        &mut self,
        current_time: f64,
        step: f64,
        no_set_fmu_state_prior: bool,
    ) -> Status {
        let f = sym!(self, fmi2DoStep);
        // SAFETY: plain values.
        Status::from(unsafe {
            f(
                self.component,
                current_time,
                step,
                to_fmi_bool(no_set_fmu_state_prior),
            )
        })
    }

    pub fn cancel_step(&mut self) -> Status {
        let f = sym!(self, fmi2CancelStep);
        // SAFETY: plain call on our component.
        Status::from(unsafe { f(self.component) })
    }

    pub fn get_status(&mut self, kind: fmi2::fmi2StatusKind) -> (Status, Status) {
        let f = sym!(self, fmi2GetStatus);
        let mut value: fmi2::fmi2Status = 99;
        // SAFETY: valid out pointer.
        let s = unsafe { f(self.component, kind, &mut value) };
        (Status::from(s), Status::from(value))
    }

    pub fn get_real_status(&mut self, kind: fmi2::fmi2StatusKind) -> (Status, f64) {
        let f = sym!(self, fmi2GetRealStatus);
        let mut value = f64::NAN;
        // SAFETY: valid out pointer.
        let s = unsafe { f(self.component, kind, &mut value) };
        (Status::from(s), value)
    }

    pub fn get_integer_status(&mut self, kind: fmi2::fmi2StatusKind) -> (Status, i32) {
        let f = sym!(self, fmi2GetIntegerStatus);
        let mut value = i32::MIN;
        // SAFETY: valid out pointer.
        let s = unsafe { f(self.component, kind, &mut value) };
        (Status::from(s), value)
    }

    pub fn get_boolean_status(&mut self, kind: fmi2::fmi2StatusKind) -> (Status, bool) {
        let f = sym!(self, fmi2GetBooleanStatus);
        let mut value: fmi2::fmi2Boolean = -1;
        // SAFETY: valid out pointer.
        let s = unsafe { f(self.component, kind, &mut value) };
        (Status::from(s), value != 0)
    }

    pub fn get_string_status(&mut self, kind: fmi2::fmi2StatusKind) -> (Status, Option<String>) {
        let f = sym!(self, fmi2GetStringStatus);
        let mut value: fmi2::fmi2String = ptr::null();
        // SAFETY: valid out pointer; the result is a NUL-terminated string or NULL.
        let s = unsafe { f(self.component, kind, &mut value) };
        let text = (!value.is_null()).then(|| {
            unsafe { CStr::from_ptr(value) }
                .to_string_lossy()
                .into_owned()
        });
        (Status::from(s), text)
    }

    // ---- FMU state -------------------------------------------------------------------------

    /// `fmi2GetFMUstate` into `state` (a NULL state gets a new one; a non-NULL one is overwritten).
    pub fn get_fmu_state(&mut self, state: &mut FmuState) -> Status {
        let f = sym!(self, fmi2GetFMUstate);
        // SAFETY: valid out pointer.
        Status::from(unsafe { f(self.component, &mut state.0) })
    }

    pub fn set_fmu_state(&mut self, state: &FmuState) -> Status {
        let f = sym!(self, fmi2SetFMUstate);
        // SAFETY: a state from this FMU (or NULL in a deliberately bad call).
        Status::from(unsafe { f(self.component, state.0) })
    }

    /// `fmi2FreeFMUstate`; the FMU sets `state` to NULL.
    pub fn free_fmu_state(&mut self, state: &mut FmuState) -> Status {
        let f = sym!(self, fmi2FreeFMUstate);
        // SAFETY: valid in/out pointer.
        Status::from(unsafe { f(self.component, &mut state.0) })
    }

    pub fn serialized_fmu_state_size(&mut self, state: &FmuState) -> (Status, usize) {
        let f = sym!(self, fmi2SerializedFMUstateSize);
        let mut size = usize::MAX;
        // SAFETY: valid out pointer.
        let s = unsafe { f(self.component, state.0, &mut size) };
        (Status::from(s), size)
    }

    /// `fmi2SerializedFMUstateSize` then `fmi2SerializeFMUstate` into a buffer of that size.
    pub fn serialize_fmu_state(&mut self, state: &FmuState) -> (Status, Vec<u8>) {
        let (s, size) = self.serialized_fmu_state_size(state);
        if s != Status::Ok {
            return (s, Vec::new());
        }
        let mut bytes = vec![0u8; size];
        let f = sym!(self, fmi2SerializeFMUstate);
        // SAFETY: buffer of `size` bytes.
        let s = unsafe {
            f(
                self.component,
                state.0,
                bytes.as_mut_ptr() as *mut fmi2::fmi2Byte,
                size,
            )
        };
        (Status::from(s), bytes)
    }

    pub fn deserialize_fmu_state(&mut self, bytes: &[u8], state: &mut FmuState) -> Status {
        let f = sym!(self, fmi2DeSerializeFMUstate);
        // SAFETY: buffer of `bytes.len()` bytes; valid in/out state pointer.
        Status::from(unsafe {
            f(
                self.component,
                bytes.as_ptr() as *const fmi2::fmi2Byte,
                bytes.len(),
                &mut state.0,
            )
        })
    }

    // ---- directional derivative ------------------------------------------------------------

    /// `fmi2GetDirectionalDerivative`: d(unknowns) for a seed `seed` on `knowns`.
    pub fn get_directional_derivative(
        &mut self,
        unknowns: &[u32],
        knowns: &[u32],
        seed: &[f64],
    ) -> (Status, Vec<f64>) {
        assert_eq!(knowns.len(), seed.len(), "one seed value per known");
        let f = sym!(self, fmi2GetDirectionalDerivative);
        let mut out = vec![f64::NAN; unknowns.len()];
        // SAFETY: arrays of the given lengths.
        let s = unsafe {
            f(
                self.component,
                unknowns.as_ptr(),
                unknowns.len(),
                knowns.as_ptr(),
                knowns.len(),
                seed.as_ptr(),
                out.as_mut_ptr(),
            )
        };
        (Status::from(s), out)
    }

    // ---- Model Exchange ----------------------------------------------------------------------

    pub fn enter_event_mode(&mut self) -> Status {
        let f = sym!(self, fmi2EnterEventMode);
        // SAFETY: plain call on our component.
        Status::from(unsafe { f(self.component) })
    }

    /// `fmi2NewDiscreteStates`, with the event info it filled in.
    pub fn new_discrete_states(&mut self) -> (Status, fmi2::fmi2EventInfo) {
        let f = sym!(self, fmi2NewDiscreteStates);
        // Every flag set, so a field the FMU forgets to write shows.
        let mut info = fmi2::fmi2EventInfo {
            newDiscreteStatesNeeded: 1,
            terminateSimulation: 1,
            nominalsOfContinuousStatesChanged: 1,
            valuesOfContinuousStatesChanged: 1,
            nextEventTimeDefined: 1,
            nextEventTime: f64::NAN,
        };
        // SAFETY: a writable struct of the standard's layout.
        let s = unsafe { f(self.component, &mut info) };
        (Status::from(s), info)
    }

    pub fn enter_continuous_time_mode(&mut self) -> Status {
        let f = sym!(self, fmi2EnterContinuousTimeMode);
        // SAFETY: plain call on our component.
        Status::from(unsafe { f(self.component) })
    }

    /// `fmi2CompletedIntegratorStep`: (status, enterEventMode, terminateSimulation).
    pub fn completed_integrator_step(
        &mut self,
        no_set_fmu_state_prior: bool,
    ) -> (Status, bool, bool) {
        let f = sym!(self, fmi2CompletedIntegratorStep);
        let (mut enter_event_mode, mut terminate) = (9, 9);
        // SAFETY: two writable booleans.
        let s = unsafe {
            f(
                self.component,
                to_fmi_bool(no_set_fmu_state_prior),
                &mut enter_event_mode,
                &mut terminate,
            )
        };
        (Status::from(s), enter_event_mode != 0, terminate != 0)
    }

    pub fn set_time(&mut self, time: f64) -> Status {
        let f = sym!(self, fmi2SetTime);
        // SAFETY: plain values.
        Status::from(unsafe { f(self.component, time) })
    }

    pub fn set_continuous_states(&mut self, x: &[f64]) -> Status {
        let f = sym!(self, fmi2SetContinuousStates);
        // SAFETY: an array of x.len() values.
        Status::from(unsafe { f(self.component, x.as_ptr(), x.len()) })
    }

    /// Reads `n` values with one of the Model Exchange array getters.
    fn get_array(
        &mut self,
        n: usize,
        f: unsafe extern "C" fn(fmi2::fmi2Component, *mut f64, usize) -> fmi2::fmi2Status,
    ) -> (Status, Vec<f64>) {
        let mut values = vec![f64::NAN; n];
        // SAFETY: a writable array of n values.
        let s = unsafe { f(self.component, values.as_mut_ptr(), n) };
        (Status::from(s), values)
    }

    pub fn get_continuous_states(&mut self, n: usize) -> (Status, Vec<f64>) {
        let f = sym!(self, fmi2GetContinuousStates);
        self.get_array(n, f)
    }

    pub fn get_derivatives(&mut self, n: usize) -> (Status, Vec<f64>) {
        let f = sym!(self, fmi2GetDerivatives);
        self.get_array(n, f)
    }

    pub fn get_event_indicators(&mut self, n: usize) -> (Status, Vec<f64>) {
        let f = sym!(self, fmi2GetEventIndicators);
        self.get_array(n, f)
    }

    pub fn get_nominals_of_continuous_states(&mut self, n: usize) -> (Status, Vec<f64>) {
        let f = sym!(self, fmi2GetNominalsOfContinuousStates);
        self.get_array(n, f)
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        self.free_now();
    }
}
