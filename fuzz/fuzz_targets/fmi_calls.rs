//! Random sequences of FMI 2.0 calls, in any state, with random arguments: value references,
//! counts, NULL and valid pointers, extreme reals, any parameters and step sizes, communication
//! points off the FMU's time, foreign and stale FMU states, corrupt serialized states, and the
//! Model Exchange calls with any time, any state values and arrays of any length.
//!
//! Findings are panics: a crash, a failed call that logged no reason, a status other than
//! fmi2OK/fmi2Error, or an output that an OK call returned and that breaks the model's invariants.

#![no_main]

use std::ffi::CString;

use arbitrary::Arbitrary;
use elastogap::fmi2::*;
use elastogap::variables::STATES;
use elastogap::variables::{Var, VARIABLES};
use elastogap_fuzz::{Instance, CO_SIMULATION, MODEL_EXCHANGE, OK};
use fmi_sys::fmi2::{fmi2EventInfo, fmi2FMUstate, fmi2Status, fmi2ValueReference};
use libfuzzer_sys::fuzz_target;

#[path = "fmi_calls/co_simulation.rs"]
mod co_simulation;
#[path = "fmi_calls/fmu_states.rs"]
mod fmu_states;
#[path = "fmi_calls/life_cycle.rs"]
mod life_cycle;
#[path = "fmi_calls/model_exchange.rs"]
mod model_exchange;
#[path = "fmi_calls/values.rs"]
mod values;

/// Table files for the Gap Force, written once per process as absolute paths: no file (empty),
/// both tables, a damping table alone, and one the FMU refuses (unsorted abscissae).
fn table_files() -> &'static [CString; 4] {
    static FILES: std::sync::OnceLock<[CString; 4]> = std::sync::OnceLock::new();
    FILES.get_or_init(|| {
        let directory = std::env::temp_dir().join(format!("elastogap-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(&directory).expect("a temporary directory");
        let write = |name: &str, text: &str| {
            let path = directory.join(name);
            std::fs::write(&path, text).expect("a temporary file");
            CString::new(path.to_str().expect("a UTF-8 path")).expect("no NUL")
        };
        [
            CString::default(),
            write(
                "both.json",
                r#"{"stiffness": [[-0.01, -500], [-0.002, -50], [0, 0], [0.01, 300]],
                    "damping": [[-2, -30], [-0.1, -5], [0, 0], [0.5, 8], [3, 20]]}"#,
            ),
            write("damping.json", r#"{"damping": [[-1, -10], [1, 10]]}"#),
            write("refused.json", r#"{"stiffness": [[0, 0], [-1, 1]]}"#),
        ]
    })
}

/// Bounds the work per input; each call is bounded by the FMU (maxSubstepCount).
const MAX_CALLS: usize = 48;
const MAX_STEPS: usize = 12;
const INSTANCE_SLOTS: usize = 2;
const STATE_SLOTS: usize = 3;

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Real {
    Zero,
    NegativeZero,
    One,
    MinusOne,
    Half,
    Nan,
    Infinity,
    NegativeInfinity,
    Max,
    Lowest,
    MinPositive,
    Subnormal,
    Epsilon,
    /// `mantissa * 10^exponent`: ordinary magnitudes of either sign.
    Decimal(i16, i8),
    Bits(u64),
}

impl Real {
    fn value(self) -> f64 {
        match self {
            Real::Zero => 0.0,
            Real::NegativeZero => -0.0,
            Real::One => 1.0,
            Real::MinusOne => -1.0,
            Real::Half => 0.5,
            Real::Nan => f64::NAN,
            Real::Infinity => f64::INFINITY,
            Real::NegativeInfinity => f64::NEG_INFINITY,
            Real::Max => f64::MAX,
            Real::Lowest => f64::MIN,
            Real::MinPositive => f64::MIN_POSITIVE,
            Real::Subnormal => f64::from_bits(1),
            Real::Epsilon => f64::EPSILON,
            Real::Decimal(m, e) => f64::from(m) * 10f64.powi(i32::from(e) / 4),
            Real::Bits(bits) => f64::from_bits(bits),
        }
    }
}

/// A value reference: mostly one of the table's, sometimes anything.
#[derive(Arbitrary, Debug, Clone, Copy)]
enum Reference {
    Known(u8),
    Raw(u32),
}

impl Reference {
    fn value(self) -> fmi2ValueReference {
        match self {
            Reference::Known(k) => VARIABLES[usize::from(k) % VARIABLES.len()].value_reference,
            Reference::Raw(r) => r,
        }
    }
}

/// How an array argument is passed: as owned by the harness, or with a lie the FMU must catch.
#[derive(Arbitrary, Debug, Clone, Copy)]
enum Array {
    /// A valid array with its true length.
    Valid,
    /// A valid array but a count of 0.
    CountZero,
    /// A valid array, announcing only its first `k` elements.
    Prefix(u8),
    /// NULL, with the count the array would have had.
    Null,
}

impl Array {
    /// The pointer and count to pass for `values`.
    fn pass<T>(self, values: &[T]) -> (*const T, usize) {
        match self {
            Array::Valid => (values.as_ptr(), values.len()),
            Array::CountZero => (values.as_ptr(), 0),
            Array::Prefix(k) => (values.as_ptr(), usize::from(k).min(values.len())),
            Array::Null => (std::ptr::null(), values.len().max(1)),
        }
    }

    fn pass_mut<T>(self, values: &mut [T]) -> (*mut T, usize) {
        let (pointer, n) = self.pass(values);
        (pointer.cast_mut(), n)
    }
}

#[derive(Arbitrary, Debug, Clone)]
enum Text {
    Null,
    Empty,
    Plain,
    Bytes(Vec<u8>),
}

impl Text {
    fn make(&self, plain: &str) -> Option<CString> {
        match self {
            Text::Null => None,
            Text::Empty => Some(CString::default()),
            Text::Plain => Some(CString::new(plain).expect("no NUL")),
            Text::Bytes(bytes) => Some(
                CString::new(
                    bytes
                        .iter()
                        .copied()
                        .filter(|b| *b != 0)
                        .collect::<Vec<_>>(),
                )
                .expect("NULs removed"),
            ),
        }
    }
}

#[derive(Arbitrary, Debug, Clone)]
enum Category {
    Known(u8),
    Null,
    Other(Text),
}

/// Which FMU state variable of the harness a call passes, or NULL for the pointer itself.
#[derive(Arbitrary, Debug, Clone, Copy)]
enum StateSlot {
    Slot(u8),
    NullPointer,
}

/// Where a serialized state to deserialize comes from.
#[derive(Arbitrary, Debug, Clone)]
enum Serialized {
    /// The last buffer `fmi2SerializeFMUstate` wrote, with bytes changed.
    LastWritten {
        flips: Vec<(u16, u8)>,
        field: Option<(u8, Real)>,
        truncate: Option<u16>,
    },
    Raw(Vec<u8>),
    Null(u16),
}

/// The fmuType an instance is requested for.
#[derive(Arbitrary, Debug, Clone, Copy)]
enum FmuType {
    ModelExchange,
    CoSimulation,
    Other(u32),
}

impl FmuType {
    fn value(self) -> u32 {
        match self {
            FmuType::ModelExchange => MODEL_EXCHANGE,
            FmuType::CoSimulation => CO_SIMULATION,
            FmuType::Other(other) => other,
        }
    }
}

/// The length of an array the harness hands to a Model Exchange call: the model's, or any.
#[derive(Arbitrary, Debug, Clone, Copy)]
enum Length {
    Model,
    Other(u8),
}

/// An array a Model Exchange call fills: its length, and how it is passed.
#[derive(Arbitrary, Debug, Clone, Copy)]
struct Output {
    length: Length,
    array: Array,
}

impl Output {
    /// A buffer of the chosen length, for a model array of `model_length` values, filled with NaN
    /// so that a value the FMU did not write fails the finiteness check.
    fn buffer(self, model_length: usize) -> Vec<f64> {
        let length = match self.length {
            Length::Model => model_length,
            Length::Other(n) => usize::from(n % 8),
        };
        vec![f64::NAN; length]
    }
}

/// When a step starts, relative to the FMU's own time.
#[derive(Arbitrary, Debug, Clone, Copy)]
enum When {
    Now,
    NowPlus(Real),
    NowScaled(Real),
    At(Real),
}

#[derive(Arbitrary, Debug, Clone)]
enum Call {
    Instantiate {
        name: Text,
        fmu_type: FmuType,
        guid: Text,
        resource: Text,
        callbacks: bool,
        logger: bool,
        logging_on: bool,
    },
    FreeInstance,
    SetDebugLogging {
        on: bool,
        categories: Vec<Category>,
        array: Array,
    },
    SetupExperiment {
        tolerance: Option<Real>,
        start: Real,
        stop: Option<Real>,
    },
    EnterInitializationMode,
    ExitInitializationMode,
    Terminate,
    Reset,
    GetReal {
        references: Vec<Reference>,
        array: Array,
        out: Array,
    },
    GetInteger {
        references: Vec<Reference>,
        array: Array,
        out: Array,
    },
    GetBoolean {
        references: Vec<Reference>,
        array: Array,
        out: Array,
    },
    GetString {
        references: Vec<Reference>,
        array: Array,
        out: Array,
    },
    SetReal {
        values: Vec<(Reference, Real)>,
        array: Array,
        values_array: Array,
    },
    SetInteger {
        values: Vec<(Reference, i32)>,
        array: Array,
        values_array: Array,
    },
    SetBoolean {
        values: Vec<(Reference, i32)>,
        array: Array,
        values_array: Array,
    },
    SetString {
        references: Vec<Reference>,
        strings: Vec<Text>,
        array: Array,
    },
    /// Sets a value the integration depends on most: maxSubstepSize, maxSubstepCount or an input.
    SetKey {
        which: u8,
        value: Real,
    },
    /// Chooses a force law and its variant (Hunt-Crossley's hysteresis model, RecurDyn's
    /// damping), and one of the laws' parameters: a random Integer would rarely name an item.
    ChooseLaw {
        law: u8,
        variant: u8,
        which: u8,
        value: Real,
    },
    GetFMUstate(StateSlot),
    SetFMUstate(StateSlot),
    FreeFMUstate(StateSlot),
    SerializedFMUstateSize {
        slot: StateSlot,
        null_size: bool,
    },
    SerializeFMUstate {
        slot: StateSlot,
        size: Option<u16>,
        null_buffer: bool,
    },
    DeSerializeFMUstate {
        source: Serialized,
        slot: StateSlot,
    },
    GetDirectionalDerivative {
        unknowns: Vec<Reference>,
        knowns: Vec<(Reference, Real)>,
        arrays: [Array; 4],
    },
    SetRealInputDerivatives {
        values: Vec<(Reference, i32, Real)>,
        arrays: [Array; 3],
    },
    GetRealOutputDerivatives {
        values: Vec<(Reference, i32)>,
        arrays: [Array; 3],
    },
    DoStep {
        when: When,
        h: Real,
        no_set_prior: bool,
    },
    CancelStep,
    GetStatus {
        kind: u32,
        null: bool,
    },
    GetRealStatus {
        kind: u32,
        null: bool,
    },
    GetIntegerStatus {
        kind: u32,
        null: bool,
    },
    GetBooleanStatus {
        kind: u32,
        null: bool,
    },
    GetStringStatus {
        kind: u32,
        null: bool,
    },
    EnterEventMode,
    NewDiscreteStates {
        null_info: bool,
    },
    EnterContinuousTimeMode,
    CompletedIntegratorStep {
        no_set_prior: bool,
        null_enter_event_mode: bool,
        null_terminate: bool,
    },
    /// Relative to the last time set on the instance.
    SetTime(When),
    /// Sets `x` followed by `extra`: one value is the model's count.
    SetContinuousStates {
        x: Real,
        extra: Vec<Real>,
        array: Array,
    },
    GetDerivatives(Output),
    GetEventIndicators(Output),
    GetContinuousStates(Output),
    GetNominalsOfContinuousStates(Output),
    /// Calls a function with a NULL instance.
    NullInstance(u8),
    /// Switches the instance slot later calls go to.
    UseInstance(u8),
}

/// What one input drives: how far to bring a first instance before the random calls.
#[derive(Arbitrary, Debug, Clone, Copy)]
enum Prelude {
    None,
    Instantiated,
    Initialized,
    /// Initialized, in contact and moving, after a few steps.
    Stepping,
    /// A Model Exchange instance, not initialized.
    ModelExchangeInstantiated,
    /// A Model Exchange instance in Continuous-Time Mode, in contact and moving, after an event.
    ModelExchangeContinuous,
}

#[derive(Arbitrary, Debug)]
struct Script {
    prelude: Prelude,
    calls: Vec<Call>,
}

struct Harness {
    instances: [Option<Instance>; INSTANCE_SLOTS],
    current: usize,
    /// The importer's `fmi2FMUstate` variables; may hold states of a freed instance, which the
    /// FMU must refuse without touching (it only compares addresses).
    states: [fmi2FMUstate; STATE_SLOTS],
    serialized: Vec<u8>,
    steps: usize,
    /// The last time fmi2SetTime accepted, per instance slot: Model Exchange has no status query
    /// that tells it.
    times: [f64; INSTANCE_SLOTS],
}

impl Harness {
    fn instance(&self) -> Option<&Instance> {
        self.instances[self.current].as_ref()
    }

    fn state_pointer(&mut self, slot: StateSlot) -> *mut fmi2FMUstate {
        match slot {
            StateSlot::Slot(k) => &mut self.states[usize::from(k) % STATE_SLOTS],
            StateSlot::NullPointer => std::ptr::null_mut(),
        }
    }

    fn state_value(&self, slot: StateSlot) -> fmi2FMUstate {
        match slot {
            StateSlot::Slot(k) => self.states[usize::from(k) % STATE_SLOTS],
            StateSlot::NullPointer => std::ptr::null_mut(),
        }
    }

    fn prelude(&mut self, prelude: Prelude) {
        let instance = match prelude {
            Prelude::None => return,
            Prelude::Instantiated | Prelude::Initialized | Prelude::Stepping => {
                Instance::standard()
            }
            Prelude::ModelExchangeInstantiated | Prelude::ModelExchangeContinuous => {
                Instance::standard_of(MODEL_EXCHANGE)
            }
        };
        if !matches!(
            prelude,
            Prelude::Instantiated | Prelude::ModelExchangeInstantiated
        ) {
            let ok = |s: fmi2Status| assert_eq!(s, OK, "prelude call failed");
            ok(instance.call("fmi2SetupExperiment", |c| unsafe {
                fmi2SetupExperiment(c, 0, 0.0, 0.0, 0, 0.0)
            }));
            ok(instance.call("fmi2EnterInitializationMode", |c| unsafe {
                fmi2EnterInitializationMode(c)
            }));
            ok(instance.set_reals(&[(Var::C, 1e4), (Var::D, 20.0), (Var::N, 1.5)]));
            ok(instance.call("fmi2ExitInitializationMode", |c| unsafe {
                fmi2ExitInitializationMode(c)
            }));
            if matches!(prelude, Prelude::Stepping) {
                ok(instance.set_reals(&[(Var::FlangeBS, -1e-3), (Var::FlangeBV, -0.5)]));
                for k in 0..3 {
                    ok(instance.call("fmi2DoStep", |c| unsafe {
                        fmi2DoStep(c, f64::from(k) * 1e-3, 1e-3, 0)
                    }));
                }
            }
            if matches!(prelude, Prelude::ModelExchangeContinuous) {
                ok(instance.set_reals(&[(Var::FlangeBS, -1e-3), (Var::FlangeBV, -0.5)]));
                let mut info = fmi2EventInfo::default();
                ok(instance.call("fmi2NewDiscreteStates", |c| unsafe {
                    fmi2NewDiscreteStates(c, &mut info)
                }));
                ok(instance.call("fmi2EnterContinuousTimeMode", |c| unsafe {
                    fmi2EnterContinuousTimeMode(c)
                }));
            }
        }
        self.instances[0] = Some(instance);
    }

    fn run(&mut self, call: &Call) {
        match call {
            Call::Instantiate {
                name,
                fmu_type,
                guid: guid_text,
                resource,
                callbacks,
                logger,
                logging_on,
            } => {
                if self.instances[self.current].is_some() {
                    return;
                }
                let name = name.make("fuzz");
                let guid_value = guid_text.make(elastogap::GUID);
                let resource = resource.make("file:///tmp/fuzz%20resources/");
                self.times[self.current] = 0.0;
                self.instances[self.current] = Instance::instantiate(
                    name.as_deref(),
                    fmu_type.value(),
                    guid_value.as_deref(),
                    resource.as_deref(),
                    *callbacks,
                    *logger,
                    *logging_on,
                );
            }
            Call::FreeInstance => {
                self.instances[self.current] = None;
            }
            Call::UseInstance(k) => self.current = usize::from(*k) % INSTANCE_SLOTS,
            Call::NullInstance(which) => self.null_instance(*which),
            Call::DoStep { .. } if self.steps >= MAX_STEPS => {}
            _ => {
                if self.instance().is_some() {
                    if matches!(call, Call::DoStep { .. }) {
                        self.steps += 1;
                    }
                    if let Call::SetTime(when) = call {
                        self.set_time(*when);
                    } else {
                        self.run_on_instance(call);
                    }
                }
            }
        }
    }

    fn null_instance(&mut self, which: u8) {
        let null = std::ptr::null_mut();
        let mut time = 0.0;
        let mut state: fmi2FMUstate = std::ptr::null_mut();
        let mut info = fmi2EventInfo::default();
        let mut x = [0.0; STATES.len()];
        // SAFETY: a NULL instance with otherwise valid arguments; the FMU must refuse it.
        let status = unsafe {
            match which % 10 {
                0 => fmi2DoStep(null, 0.0, 1e-3, 0),
                1 => fmi2EnterInitializationMode(null),
                2 => fmi2GetRealStatus(null, 2, &mut time),
                3 => fmi2GetFMUstate(null, &mut state),
                4 => fmi2Reset(null),
                5 => fmi2NewDiscreteStates(null, &mut info),
                6 => fmi2SetTime(null, 0.0),
                7 => fmi2GetDerivatives(null, x.as_mut_ptr(), x.len()),
                8 => fmi2SetContinuousStates(null, x.as_ptr(), x.len()),
                _ => {
                    fmi2FreeInstance(null);
                    fmi_sys::fmi2::fmi2Status_fmi2Error
                }
            }
        };
        assert_ne!(status, OK, "a call on a NULL instance returned fmi2OK");
        elastogap_fuzz::take_log();
    }

    fn set_time(&mut self, when: When) {
        let base = self.times[self.current];
        let time = match when {
            When::Now => base,
            When::NowPlus(dt) => base + dt.value(),
            When::NowScaled(factor) => base * factor.value(),
            When::At(t) => t.value(),
        };
        let instance = self.instance().expect("checked by the caller");
        let status = instance.call("fmi2SetTime", |c| unsafe { fmi2SetTime(c, time) });
        if status == OK {
            self.times[self.current] = time;
        }
    }

    /// Runs a call on the current instance, with the function of its kind.
    fn run_on_instance(&mut self, call: &Call) {
        let instance = self.instance().expect("checked by the caller");
        match call {
            Call::SetDebugLogging { .. }
            | Call::SetupExperiment { .. }
            | Call::EnterInitializationMode
            | Call::ExitInitializationMode
            | Call::Terminate
            | Call::Reset => life_cycle::run(instance, call),
            Call::GetReal { .. }
            | Call::GetInteger { .. }
            | Call::GetBoolean { .. }
            | Call::GetString { .. } => values::get(instance, call),
            Call::SetReal { .. }
            | Call::SetInteger { .. }
            | Call::SetBoolean { .. }
            | Call::SetString { .. } => values::set(instance, call),
            Call::SetKey { which, value } => values::set_key(instance, *which, *value),
            Call::ChooseLaw {
                law,
                variant,
                which,
                value,
            } => values::choose_law(instance, *law, *variant, *which, *value),
            Call::GetFMUstate(_)
            | Call::SetFMUstate(_)
            | Call::FreeFMUstate(_)
            | Call::SerializedFMUstateSize { .. }
            | Call::SerializeFMUstate { .. } => self.fmu_state(call),
            Call::DeSerializeFMUstate { source, slot } => self.deserialize_fmu_state(source, *slot),
            Call::GetDirectionalDerivative { .. }
            | Call::SetRealInputDerivatives { .. }
            | Call::GetRealOutputDerivatives { .. } => co_simulation::derivatives(instance, call),
            Call::DoStep { .. } | Call::CancelStep => co_simulation::step(instance, call),
            Call::GetStatus { .. }
            | Call::GetRealStatus { .. }
            | Call::GetIntegerStatus { .. }
            | Call::GetBooleanStatus { .. }
            | Call::GetStringStatus { .. } => co_simulation::status(instance, call),
            Call::EnterEventMode
            | Call::NewDiscreteStates { .. }
            | Call::EnterContinuousTimeMode
            | Call::CompletedIntegratorStep { .. } => model_exchange::modes(instance, call),
            Call::SetContinuousStates { .. }
            | Call::GetDerivatives(_)
            | Call::GetEventIndicators(_)
            | Call::GetContinuousStates(_)
            | Call::GetNominalsOfContinuousStates(_) => model_exchange::arrays(instance, call),
            Call::Instantiate { .. }
            | Call::SetTime(_)
            | Call::FreeInstance
            | Call::UseInstance(_)
            | Call::NullInstance(_) => unreachable!("handled without an instance"),
        }
    }
}

fuzz_target!(|script: Script| {
    let mut harness = Harness {
        instances: [None, None],
        current: 0,
        states: [std::ptr::null_mut(); STATE_SLOTS],
        serialized: Vec::new(),
        steps: 0,
        times: [0.0; INSTANCE_SLOTS],
    };
    harness.prelude(script.prelude);
    for call in script.calls.iter().take(MAX_CALLS) {
        harness.run(call);
    }
    // Instances free their FMU states; the leak sanitizer checks that they do.
});
