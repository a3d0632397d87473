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
use elastogap::variables::{Causality, Var, VARIABLES};
use elastogap::variables::{EVENT_INDICATORS, STATES};
use elastogap_fuzz::{
    check_returned_array, check_step, Instance, CO_SIMULATION, MODEL_EXCHANGE, OK,
};
use fmi_sys::fmi2::{
    fmi2Boolean, fmi2Byte, fmi2EventInfo, fmi2FMUstate, fmi2Integer, fmi2Real, fmi2Status,
    fmi2StatusKind, fmi2String, fmi2ValueReference,
};
use libfuzzer_sys::fuzz_target;

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

    fn run_on_instance(&mut self, call: &Call) {
        let instance = self.instance().expect("checked by the caller");
        match call {
            Call::SetDebugLogging {
                on,
                categories,
                array,
            } => {
                let owned: Vec<Option<CString>> = categories
                    .iter()
                    .map(|category| match category {
                        Category::Known(k) => {
                            let names = elastogap_fuzz::declared_categories();
                            Some(CString::new(names[usize::from(*k) % names.len()]).unwrap())
                        }
                        Category::Null => None,
                        Category::Other(text) => text.make("logNothing"),
                    })
                    .collect();
                let pointers: Vec<fmi2String> = owned
                    .iter()
                    .map(|s| s.as_ref().map_or(std::ptr::null(), |s| s.as_ptr()))
                    .collect();
                let (p, n) = array.pass(&pointers);
                instance.call("fmi2SetDebugLogging", |c| unsafe {
                    fmi2SetDebugLogging(c, fmi2Boolean::from(*on), n, p)
                });
            }
            Call::SetupExperiment {
                tolerance,
                start,
                stop,
            } => {
                instance.call("fmi2SetupExperiment", |c| unsafe {
                    fmi2SetupExperiment(
                        c,
                        fmi2Boolean::from(tolerance.is_some()),
                        tolerance.map_or(0.0, Real::value),
                        start.value(),
                        fmi2Boolean::from(stop.is_some()),
                        stop.map_or(0.0, Real::value),
                    )
                });
            }
            Call::EnterInitializationMode => {
                instance.call("fmi2EnterInitializationMode", |c| unsafe {
                    fmi2EnterInitializationMode(c)
                });
            }
            Call::ExitInitializationMode => {
                let status = instance.call("fmi2ExitInitializationMode", |c| unsafe {
                    fmi2ExitInitializationMode(c)
                });
                if status == OK {
                    instance.check_outputs("after fmi2ExitInitializationMode");
                }
            }
            Call::Terminate => {
                instance.call("fmi2Terminate", |c| unsafe { fmi2Terminate(c) });
            }
            Call::Reset => {
                instance.call("fmi2Reset", |c| unsafe { fmi2Reset(c) });
            }
            Call::GetReal {
                references,
                array,
                out,
            } => {
                let vrs: Vec<_> = references.iter().map(|r| r.value()).collect();
                let mut values = vec![0.0 as fmi2Real; vrs.len()];
                let (p, n) = array.pass(&vrs);
                let (q, _) = out.pass_mut(&mut values);
                let status = instance.call("fmi2GetReal", |c| unsafe { fmi2GetReal(c, p, n, q) });
                if status == OK {
                    // Parameters echo what was set before initialization; computed values must
                    // be finite.
                    for (reference, x) in vrs.iter().zip(&values).take(n) {
                        let variable = elastogap::variables::by_value_reference(*reference)
                            .expect("an OK call names known variables");
                        if matches!(variable.causality, Causality::Output | Causality::Local) {
                            assert!(
                                x.is_finite(),
                                "fmi2GetReal returned fmi2OK with {} = {x}",
                                variable.name
                            );
                        }
                    }
                }
            }
            Call::GetInteger {
                references,
                array,
                out,
            } => {
                let vrs: Vec<_> = references.iter().map(|r| r.value()).collect();
                let mut values = vec![0 as fmi2Integer; vrs.len()];
                let (p, n) = array.pass(&vrs);
                let (q, _) = out.pass_mut(&mut values);
                instance.call("fmi2GetInteger", |c| unsafe { fmi2GetInteger(c, p, n, q) });
            }
            Call::GetBoolean {
                references,
                array,
                out,
            } => {
                let vrs: Vec<_> = references.iter().map(|r| r.value()).collect();
                let mut values = vec![0 as fmi2Boolean; vrs.len()];
                let (p, n) = array.pass(&vrs);
                let (q, _) = out.pass_mut(&mut values);
                instance.call("fmi2GetBoolean", |c| unsafe { fmi2GetBoolean(c, p, n, q) });
                if values.iter().any(|b| *b != 0 && *b != 1) {
                    panic!(
                        "fmi2GetBoolean wrote a value other than fmi2True/fmi2False: {values:?}"
                    );
                }
            }
            Call::GetString {
                references,
                array,
                out,
            } => {
                let vrs: Vec<_> = references.iter().map(|r| r.value()).collect();
                let mut values = vec![std::ptr::null() as fmi2String; vrs.len()];
                let (p, n) = array.pass(&vrs);
                let (q, _) = out.pass_mut(&mut values);
                instance.call("fmi2GetString", |c| unsafe { fmi2GetString(c, p, n, q) });
            }
            Call::SetReal {
                values,
                array,
                values_array,
            } => {
                let vrs: Vec<_> = values.iter().map(|(r, _)| r.value()).collect();
                let xs: Vec<fmi2Real> = values.iter().map(|(_, x)| x.value()).collect();
                let (p, n) = array.pass(&vrs);
                let (q, _) = values_array.pass(&xs);
                instance.call("fmi2SetReal", |c| unsafe { fmi2SetReal(c, p, n, q) });
            }
            Call::SetInteger {
                values,
                array,
                values_array,
            } => {
                let vrs: Vec<_> = values.iter().map(|(r, _)| r.value()).collect();
                let xs: Vec<fmi2Integer> = values.iter().map(|(_, x)| *x).collect();
                let (p, n) = array.pass(&vrs);
                let (q, _) = values_array.pass(&xs);
                instance.call("fmi2SetInteger", |c| unsafe { fmi2SetInteger(c, p, n, q) });
            }
            Call::SetBoolean {
                values,
                array,
                values_array,
            } => {
                let vrs: Vec<_> = values.iter().map(|(r, _)| r.value()).collect();
                let xs: Vec<fmi2Boolean> = values.iter().map(|(_, x)| *x).collect();
                let (p, n) = array.pass(&vrs);
                let (q, _) = values_array.pass(&xs);
                instance.call("fmi2SetBoolean", |c| unsafe { fmi2SetBoolean(c, p, n, q) });
            }
            Call::SetString {
                references,
                strings,
                array,
            } => {
                let vrs: Vec<_> = references.iter().map(|r| r.value()).collect();
                let owned: Vec<Option<CString>> = (0..vrs.len())
                    .map(|k| strings.get(k).and_then(|s| s.make("text")))
                    .collect();
                let pointers: Vec<fmi2String> = owned
                    .iter()
                    .map(|s| s.as_ref().map_or(std::ptr::null(), |s| s.as_ptr()))
                    .collect();
                let (p, n) = array.pass(&vrs);
                instance.call("fmi2SetString", |c| unsafe {
                    fmi2SetString(c, p, n, pointers.as_ptr())
                });
            }
            Call::SetKey { which, value } => {
                let x = value.value();
                match which % 7 {
                    0 => {
                        instance.set_reals(&[(Var::MaxSubstepSize, x)]);
                    }
                    1 => {
                        let vr =
                            [elastogap::variables::by_var(Var::MaxSubstepCount).value_reference];
                        let n = [x as fmi2Integer];
                        instance.call("fmi2SetInteger", |c| unsafe {
                            fmi2SetInteger(c, vr.as_ptr(), 1, n.as_ptr())
                        });
                    }
                    2 => {
                        instance.set_reals(&[(Var::FlangeBS, x)]);
                    }
                    3 => {
                        instance.set_reals(&[(Var::FlangeBV, x)]);
                    }
                    4 => {
                        instance.set_reals(&[(Var::SRel0, x)]);
                    }
                    5 => {
                        instance.set_reals(&[(Var::VTx, x), (Var::VTy, -0.5 * x)]);
                    }
                    _ => {
                        instance.set_reals(&[(Var::N, x)]);
                    }
                }
            }
            Call::ChooseLaw {
                law,
                variant,
                which,
                value,
            } => {
                let choices = [
                    (Var::ForceLaw, 1 + i32::from(*law % 7)),
                    (Var::Hysteresis, 1 + i32::from(*variant % 5)),
                    (Var::RecurDynDamping, 1 + i32::from(*variant % 2)),
                    // Friction (refused with the Gap Force) in about half the choices.
                    (Var::FrictionLaw, 1 + i32::from(*law / 7 % 3)),
                    (Var::FrictionInterpolation, 1 + i32::from(*variant / 4 % 2)),
                ];
                for (var, choice) in choices {
                    let vr = [elastogap::variables::by_var(var).value_reference];
                    let n = [choice];
                    instance.call("fmi2SetInteger", |c| unsafe {
                        fmi2SetInteger(c, vr.as_ptr(), 1, n.as_ptr())
                    });
                }
                let parameter = [
                    Var::Chi,
                    Var::E,
                    Var::V0Min,
                    Var::DMax,
                    Var::ND,
                    Var::Rdf,
                    Var::NV,
                    Var::Preload,
                    Var::RangeMin,
                    Var::RangeMax,
                    Var::MuS,
                    Var::MuD,
                    Var::VS,
                    Var::VD,
                    Var::FTMax,
                    Var::VTy,
                    Var::DX,
                    Var::DY,
                    Var::NX,
                    Var::NY,
                    Var::PreloadX,
                    Var::PreloadY,
                    Var::MaxStictionDeformation,
                ][usize::from(*which) % 23];
                instance.set_reals(&[(parameter, value.value())]);
                // The Gap Force's tables: none, or one of the files `table_files` wrote (valid
                // ones and a refused one).
                let vr = [elastogap::variables::by_var(Var::TableFile).value_reference];
                let file = table_files()[usize::from(*variant) % 4].as_ptr();
                instance.call("fmi2SetString", |c| unsafe {
                    fmi2SetString(c, vr.as_ptr(), 1, &file)
                });
            }
            Call::GetFMUstate(slot) => {
                let p = self.state_pointer(*slot);
                let instance = self.instance().expect("checked");
                instance.call("fmi2GetFMUstate", |c| unsafe { fmi2GetFMUstate(c, p) });
            }
            Call::SetFMUstate(slot) => {
                let state = self.state_value(*slot);
                let status =
                    instance.call("fmi2SetFMUstate", |c| unsafe { fmi2SetFMUstate(c, state) });
                if status == OK && instance.running() {
                    instance.check_outputs("after fmi2SetFMUstate");
                }
            }
            Call::FreeFMUstate(slot) => {
                let p = self.state_pointer(*slot);
                let instance = self.instance().expect("checked");
                instance.call("fmi2FreeFMUstate", |c| unsafe { fmi2FreeFMUstate(c, p) });
            }
            Call::SerializedFMUstateSize { slot, null_size } => {
                let state = self.state_value(*slot);
                let mut size = usize::MAX;
                let p: *mut usize = if *null_size {
                    std::ptr::null_mut()
                } else {
                    &mut size
                };
                let status = instance.call("fmi2SerializedFMUstateSize", |c| unsafe {
                    fmi2SerializedFMUstateSize(c, state, p)
                });
                if status == OK {
                    assert_eq!(size, elastogap::snapshot::SERIALIZED_SIZE);
                }
            }
            Call::SerializeFMUstate {
                slot,
                size,
                null_buffer,
            } => {
                let state = self.state_value(*slot);
                let size = size.map_or(elastogap::snapshot::SERIALIZED_SIZE, usize::from);
                let mut buffer = vec![0xA5u8; size];
                let p: *mut fmi2Byte = if *null_buffer {
                    std::ptr::null_mut()
                } else {
                    buffer.as_mut_ptr().cast()
                };
                let status = instance.call("fmi2SerializeFMUstate", |c| unsafe {
                    fmi2SerializeFMUstate(c, state, p, size)
                });
                if status == OK {
                    self.serialized = buffer;
                }
            }
            Call::DeSerializeFMUstate { source, slot } => {
                let bytes: Option<Vec<u8>> = match source {
                    Serialized::LastWritten {
                        flips,
                        field,
                        truncate,
                    } => {
                        let mut bytes = self.serialized.clone();
                        for (at, xor) in flips {
                            if !bytes.is_empty() {
                                let k = usize::from(*at) % bytes.len();
                                bytes[k] ^= xor;
                            }
                        }
                        if let Some((index, value)) = field {
                            let at = 12 + 8 * usize::from(*index);
                            if at + 8 <= bytes.len() {
                                bytes[at..at + 8].copy_from_slice(&value.value().to_le_bytes());
                            }
                        }
                        if let Some(length) = truncate {
                            bytes.truncate(usize::from(*length));
                        }
                        Some(bytes)
                    }
                    Serialized::Raw(bytes) => Some(bytes.clone()),
                    Serialized::Null(_) => None,
                };
                let size = match (source, &bytes) {
                    (Serialized::Null(size), _) => usize::from(*size).max(1),
                    (_, Some(bytes)) => bytes.len(),
                    (_, None) => 0,
                };
                let data: *const fmi2Byte = bytes
                    .as_ref()
                    .map_or(std::ptr::null(), |b| b.as_ptr().cast());
                let p = self.state_pointer(*slot);
                let instance = self.instance().expect("checked");
                instance.call("fmi2DeSerializeFMUstate", |c| unsafe {
                    fmi2DeSerializeFMUstate(c, data, size, p)
                });
            }
            Call::GetDirectionalDerivative {
                unknowns,
                knowns,
                arrays,
            } => {
                let unknown_refs: Vec<_> = unknowns.iter().map(|r| r.value()).collect();
                let known_refs: Vec<_> = knowns.iter().map(|(r, _)| r.value()).collect();
                let seeds: Vec<fmi2Real> = knowns.iter().map(|(_, x)| x.value()).collect();
                let mut results = vec![f64::NAN; unknown_refs.len()];
                let (pu, nu) = arrays[0].pass(&unknown_refs);
                let (pk, nk) = arrays[1].pass(&known_refs);
                let (ps, _) = arrays[2].pass(&seeds);
                let (pr, _) = arrays[3].pass_mut(&mut results);
                let status = instance.call("fmi2GetDirectionalDerivative", |c| unsafe {
                    fmi2GetDirectionalDerivative(c, pu, nu, pk, nk, ps, pr)
                });
                if status == OK {
                    assert!(
                        results[..nu].iter().all(|x| x.is_finite()),
                        "fmi2GetDirectionalDerivative returned fmi2OK with {results:?}"
                    );
                }
            }
            Call::SetRealInputDerivatives { values, arrays } => {
                let vrs: Vec<_> = values.iter().map(|(r, _, _)| r.value()).collect();
                let orders: Vec<fmi2Integer> = values.iter().map(|(_, o, _)| *o).collect();
                let xs: Vec<fmi2Real> = values.iter().map(|(_, _, x)| x.value()).collect();
                let (p, n) = arrays[0].pass(&vrs);
                let (po, _) = arrays[1].pass(&orders);
                let (px, _) = arrays[2].pass(&xs);
                instance.call("fmi2SetRealInputDerivatives", |c| unsafe {
                    fmi2SetRealInputDerivatives(c, p, n, po, px)
                });
            }
            Call::GetRealOutputDerivatives { values, arrays } => {
                let vrs: Vec<_> = values.iter().map(|(r, _)| r.value()).collect();
                let orders: Vec<fmi2Integer> = values.iter().map(|(_, o)| *o).collect();
                let mut xs = vec![f64::NAN; vrs.len()];
                let (p, n) = arrays[0].pass(&vrs);
                let (po, _) = arrays[1].pass(&orders);
                let (px, _) = arrays[2].pass_mut(&mut xs);
                let status = instance.call("fmi2GetRealOutputDerivatives", |c| unsafe {
                    fmi2GetRealOutputDerivatives(c, p, n, po, px)
                });
                if status == OK {
                    assert!(
                        xs[..n].iter().all(|x| x.is_finite()),
                        "fmi2GetRealOutputDerivatives returned fmi2OK with {xs:?}"
                    );
                }
            }
            Call::DoStep {
                when,
                h,
                no_set_prior,
            } => {
                instance.cap_substeps();
                let now = instance.time();
                let base = now.unwrap_or(0.0);
                let t = match when {
                    When::Now => base,
                    When::NowPlus(dt) => base + dt.value(),
                    When::NowScaled(factor) => base * factor.value(),
                    When::At(t) => t.value(),
                };
                let h = h.value();
                let before = now.and_then(|_| instance.check_outputs("before fmi2DoStep"));
                let status = instance.call("fmi2DoStep", |c| unsafe {
                    fmi2DoStep(c, t, h, fmi2Boolean::from(*no_set_prior))
                });
                if status == OK {
                    let after = instance
                        .check_outputs("after fmi2DoStep")
                        .expect("outputs are readable after an OK step");
                    check_step(before, after, h);
                }
            }
            Call::CancelStep => {
                instance.call("fmi2CancelStep", |c| unsafe { fmi2CancelStep(c) });
            }
            Call::GetStatus { kind, null } => {
                let mut value: fmi2Status = 0;
                let p = if *null {
                    std::ptr::null_mut()
                } else {
                    &mut value
                };
                instance.call("fmi2GetStatus", |c| unsafe {
                    fmi2GetStatus(c, *kind as fmi2StatusKind, p)
                });
            }
            Call::GetRealStatus { kind, null } => {
                let mut value = 0.0;
                let p = if *null {
                    std::ptr::null_mut()
                } else {
                    &mut value
                };
                instance.call("fmi2GetRealStatus", |c| unsafe {
                    fmi2GetRealStatus(c, *kind as fmi2StatusKind, p)
                });
            }
            Call::GetIntegerStatus { kind, null } => {
                let mut value = 0;
                let p = if *null {
                    std::ptr::null_mut()
                } else {
                    &mut value
                };
                instance.call("fmi2GetIntegerStatus", |c| unsafe {
                    fmi2GetIntegerStatus(c, *kind as fmi2StatusKind, p)
                });
            }
            Call::GetBooleanStatus { kind, null } => {
                let mut value = 0;
                let p = if *null {
                    std::ptr::null_mut()
                } else {
                    &mut value
                };
                instance.call("fmi2GetBooleanStatus", |c| unsafe {
                    fmi2GetBooleanStatus(c, *kind as fmi2StatusKind, p)
                });
            }
            Call::GetStringStatus { kind, null } => {
                let mut value: fmi2String = std::ptr::null();
                let p = if *null {
                    std::ptr::null_mut()
                } else {
                    &mut value
                };
                instance.call("fmi2GetStringStatus", |c| unsafe {
                    fmi2GetStringStatus(c, *kind as fmi2StatusKind, p)
                });
            }
            Call::EnterEventMode => {
                instance.call("fmi2EnterEventMode", |c| unsafe { fmi2EnterEventMode(c) });
            }
            Call::NewDiscreteStates { null_info } => {
                // Not the values the FMU must write, so that a field it leaves is caught.
                let mut info = fmi2EventInfo {
                    newDiscreteStatesNeeded: 7,
                    terminateSimulation: 7,
                    nominalsOfContinuousStatesChanged: 7,
                    valuesOfContinuousStatesChanged: 7,
                    nextEventTimeDefined: 7,
                    nextEventTime: f64::NAN,
                };
                let p: *mut fmi2EventInfo = if *null_info {
                    std::ptr::null_mut()
                } else {
                    &mut info
                };
                let status = instance.call("fmi2NewDiscreteStates", |c| unsafe {
                    fmi2NewDiscreteStates(c, p)
                });
                if status == OK {
                    instance.check_event("after fmi2NewDiscreteStates", &info);
                }
            }
            Call::EnterContinuousTimeMode => {
                instance.call("fmi2EnterContinuousTimeMode", |c| unsafe {
                    fmi2EnterContinuousTimeMode(c)
                });
            }
            Call::CompletedIntegratorStep {
                no_set_prior,
                null_enter_event_mode,
                null_terminate,
            } => {
                let (mut enter_event_mode, mut terminate): (fmi2Boolean, fmi2Boolean) = (7, 7);
                let pe: *mut fmi2Boolean = if *null_enter_event_mode {
                    std::ptr::null_mut()
                } else {
                    &mut enter_event_mode
                };
                let pt: *mut fmi2Boolean = if *null_terminate {
                    std::ptr::null_mut()
                } else {
                    &mut terminate
                };
                let status = instance.call("fmi2CompletedIntegratorStep", |c| unsafe {
                    fmi2CompletedIntegratorStep(c, fmi2Boolean::from(*no_set_prior), pe, pt)
                });
                if status == OK {
                    // No step events and no reason to stop: both answers are fmi2False.
                    assert_eq!(
                        (enter_event_mode, terminate),
                        (0, 0),
                        "fmi2CompletedIntegratorStep returned fmi2OK with (enterEventMode, terminateSimulation)"
                    );
                    instance.check_outputs("after fmi2CompletedIntegratorStep");
                }
            }
            Call::SetContinuousStates { x, extra, array } => {
                let values: Vec<fmi2Real> = std::iter::once(x.value())
                    .chain(extra.iter().map(|r| r.value()))
                    .collect();
                let (p, n) = array.pass(&values);
                let status = instance.call("fmi2SetContinuousStates", |c| unsafe {
                    fmi2SetContinuousStates(c, p, n)
                });
                if status == OK {
                    instance.check_states_read_back("after fmi2SetContinuousStates", &values[..n]);
                }
            }
            Call::GetDerivatives(output) => {
                let mut values = output.buffer(STATES.len());
                let (p, n) = output.array.pass_mut(&mut values);
                let status = instance.call("fmi2GetDerivatives", |c| unsafe {
                    fmi2GetDerivatives(c, p, n)
                });
                if status == OK {
                    instance.check_derivatives("fmi2GetDerivatives", &values[..n]);
                }
            }
            Call::GetEventIndicators(output) => {
                let mut values = output.buffer(EVENT_INDICATORS.len());
                let (p, n) = output.array.pass_mut(&mut values);
                let status = instance.call("fmi2GetEventIndicators", |c| unsafe {
                    fmi2GetEventIndicators(c, p, n)
                });
                if status == OK {
                    assert_eq!(n, EVENT_INDICATORS.len(), "an OK call with a wrong ni");
                    check_returned_array("fmi2GetEventIndicators", &values[..n], false);
                }
            }
            Call::GetContinuousStates(output) => {
                let mut values = output.buffer(STATES.len());
                let (p, n) = output.array.pass_mut(&mut values);
                let status = instance.call("fmi2GetContinuousStates", |c| unsafe {
                    fmi2GetContinuousStates(c, p, n)
                });
                if status == OK {
                    instance.check_continuous_states("fmi2GetContinuousStates", &values[..n]);
                }
            }
            Call::GetNominalsOfContinuousStates(output) => {
                let mut values = output.buffer(STATES.len());
                let (p, n) = output.array.pass_mut(&mut values);
                let status = instance.call("fmi2GetNominalsOfContinuousStates", |c| unsafe {
                    fmi2GetNominalsOfContinuousStates(c, p, n)
                });
                if status == OK {
                    assert_eq!(n, STATES.len(), "an OK call with a wrong nx");
                    check_returned_array("fmi2GetNominalsOfContinuousStates", &values[..n], true);
                }
            }
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
