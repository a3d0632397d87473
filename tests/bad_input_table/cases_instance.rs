//! The cases of `fmi2Instantiate`, of the instance and pointer arguments, and of value references
//! and causality.

use std::ffi::{c_char, CString};
use std::ptr;
use std::sync::Arc;

use crate::harness::*;
use crate::support::{self, vr, Fmu, Instance, InstantiateOptions, LogRecord, ResourceUri, Status};
use crate::table::Returned;
use elastogap::variables::Var;
use fmi_sys::fmi2;

fn instantiate(fmu: &Arc<Fmu>, options: InstantiateOptions) -> Outcome {
    match Instance::instantiate(fmu, &options) {
        Ok(inst) => Outcome {
            returned: Returned::Instance(true),
            logs: inst.sink().take(),
            after: After::Instance(inst),
        },
        Err(failure) => Outcome {
            returned: Returned::Instance(false),
            logs: failure.logs,
            after: After::NoInstance,
        },
    }
}

/// `fmi2Instantiate` with raw arguments the test importer never passes; the instance, if any, is
/// freed again. Logger calls land in a sink passed as `componentEnvironment`.
fn instantiate_raw(
    fmu: &Arc<Fmu>,
    name: Option<&str>,
    guid: Option<&str>,
    callbacks: Option<fn(&support::LogSink) -> fmi2::fmi2CallbackFunctions>,
) -> (fmi2::fmi2Component, Vec<LogRecord>) {
    let sink = Box::new(support::LogSink::new());
    let name = name.map(|n| CString::new(n).unwrap());
    let guid = guid.map(|g| CString::new(g).unwrap());
    let uri = CString::new(fmu.resource_uri()).unwrap();
    let functions = callbacks.map(|make| make(&sink));
    let as_ptr = |s: &Option<CString>| s.as_ref().map_or(ptr::null(), |s| s.as_ptr());
    let instantiate = *fmu.binding.fmi2Instantiate.as_ref().unwrap();
    // SAFETY: every pointer is NULL or valid for the call; the sink outlives the instance, which
    // the caller frees before returning.
    let component = unsafe {
        instantiate(
            as_ptr(&name),
            fmi2::fmi2Type_fmi2CoSimulation,
            as_ptr(&guid),
            uri.as_ptr(),
            functions
                .as_ref()
                .map_or(ptr::null(), |f| f as *const fmi2::fmi2CallbackFunctions),
            0,
            0,
        )
    };
    let logs = sink.take();
    // The FMU copied the callbacks; the sink must stay valid while the component lives.
    Box::leak(sink);
    (component, logs)
}

fn callbacks_into(sink: &support::LogSink) -> fmi2::fmi2CallbackFunctions {
    fmi2::fmi2CallbackFunctions {
        logger: support::logger::logger_callback(),
        allocateMemory: None,
        freeMemory: None,
        stepFinished: None,
        componentEnvironment: support::logger::env_of(sink),
    }
}

fn callbacks_without_logger(sink: &support::LogSink) -> fmi2::fmi2CallbackFunctions {
    fmi2::fmi2CallbackFunctions {
        logger: None,
        ..callbacks_into(sink)
    }
}

fn free_raw(fmu: &Arc<Fmu>, component: fmi2::fmi2Component) {
    if !component.is_null() {
        let free = *fmu.binding.fmi2FreeInstance.as_ref().unwrap();
        // SAFETY: a live component of this FMU, freed once.
        unsafe { free(component) };
    }
}

fn raw_instantiate_outcome(
    fmu: &Arc<Fmu>,
    name: Option<&str>,
    guid: Option<&str>,
    callbacks: Option<fn(&support::LogSink) -> fmi2::fmi2CallbackFunctions>,
) -> Outcome {
    let (component, logs) = instantiate_raw(fmu, name, guid, callbacks);
    let created = !component.is_null();
    free_raw(fmu, component);
    Outcome {
        returned: Returned::Instance(created),
        logs,
        after: if created {
            After::Checked("Instantiated")
        } else {
            After::NoInstance
        },
    }
}

fn raw_get_real(inst: &mut Instance, null_vr: bool, null_value: bool, n: usize) -> Status {
    let vrs = [vr(Var::C), vr(Var::D)];
    let mut values = [0.0; 2];
    let get = *inst.binding().fmi2GetReal.as_ref().unwrap();
    // SAFETY: deliberately NULL arrays; the FMU must check them against n.
    Status::from(unsafe {
        get(
            inst.component(),
            if null_vr { ptr::null() } else { vrs.as_ptr() },
            n,
            if null_value {
                ptr::null_mut()
            } else {
                values.as_mut_ptr()
            },
        )
    })
}

fn raw_set_real_null_values(inst: &mut Instance) -> Status {
    let vrs = [vr(Var::FlangeAS), vr(Var::FlangeBS)];
    let set = *inst.binding().fmi2SetReal.as_ref().unwrap();
    // SAFETY: deliberately NULL value array with nvr = 2.
    Status::from(unsafe { set(inst.component(), vrs.as_ptr(), 2, ptr::null()) })
}

/// Every function that takes an instance, called with NULL: all must refuse alike.
fn null_instance_calls(fmu: &Arc<Fmu>) -> Status {
    let b = &fmu.binding;
    let c: fmi2::fmi2Component = ptr::null_mut();
    let mut real = 0.0;
    let reference = vr(Var::C);
    let mut state: fmi2::fmi2FMUstate = ptr::null_mut();
    // SAFETY: the FMU must refuse a NULL instance before touching any other argument; the others
    // are valid anyway.
    let statuses = unsafe {
        [
            b.fmi2DoStep.as_ref().unwrap()(c, 0.0, STEP, 0),
            b.fmi2GetReal.as_ref().unwrap()(c, &reference, 1, &mut real),
            b.fmi2SetReal.as_ref().unwrap()(c, &reference, 1, &real),
            b.fmi2SetupExperiment.as_ref().unwrap()(c, 0, 0.0, 0.0, 0, 0.0),
            b.fmi2EnterInitializationMode.as_ref().unwrap()(c),
            b.fmi2Reset.as_ref().unwrap()(c),
            b.fmi2Terminate.as_ref().unwrap()(c),
            b.fmi2GetFMUstate.as_ref().unwrap()(c, &mut state),
            b.fmi2SetDebugLogging.as_ref().unwrap()(c, 1, 0, ptr::null()),
            b.fmi2CancelStep.as_ref().unwrap()(c),
        ]
    };
    // SAFETY: fmi2FreeInstance(NULL) must be a no-op.
    unsafe { b.fmi2FreeInstance.as_ref().unwrap()(c) };
    let first = Status::from(statuses[0]);
    assert!(
        statuses.iter().all(|s| Status::from(*s) == first),
        "all calls with a NULL instance return the same: {statuses:?}"
    );
    first
}

/// These cases by table key.
pub const CASES: &[(&str, Case)] = &[
    // ---- fmi2Instantiate
    ("wrong-guid", |fmu| {
        instantiate(
            fmu,
            InstantiateOptions {
                guid: Some("{00000000-0000-0000-0000-000000000000}".into()),
                ..InstantiateOptions::named("bad-input")
            },
        )
    }),
    ("null-guid", |fmu| {
        raw_instantiate_outcome(fmu, Some("bad-input"), None, Some(callbacks_into))
    }),
    ("unknown-fmu-type", |fmu| {
        instantiate(
            fmu,
            InstantiateOptions {
                fmu_type: 2,
                ..InstantiateOptions::named("bad-input")
            },
        )
    }),
    ("empty-instance-name", |fmu| {
        instantiate(fmu, InstantiateOptions::named(""))
    }),
    ("null-instance-name", |fmu| {
        raw_instantiate_outcome(fmu, None, Some(elastogap::GUID), Some(callbacks_into))
    }),
    ("non-file-resource-uri", |fmu| {
        instantiate(
            fmu,
            InstantiateOptions {
                resource_uri: ResourceUri::Custom("http://example.com/resources/".into()),
                ..InstantiateOptions::named("bad-input")
            },
        )
    }),
    ("null-resource-uri", |fmu| {
        instantiate(
            fmu,
            InstantiateOptions {
                resource_uri: ResourceUri::Null,
                ..InstantiateOptions::named("bad-input")
            },
        )
    }),
    ("null-callbacks", |fmu| {
        raw_instantiate_outcome(fmu, Some("bad-input"), Some(elastogap::GUID), None)
    }),
    ("null-logger", |fmu| {
        let (component, logs) = instantiate_raw(
            fmu,
            Some("bad-input"),
            Some(elastogap::GUID),
            Some(callbacks_without_logger),
        );
        assert!(!component.is_null(), "instantiated without a logger");
        let b = &fmu.binding;
        let unknown = 99;
        let mut value = 0.0;
        // SAFETY: a live component and valid arguments.
        let (refused, sequence) = unsafe {
            let refused = b.fmi2GetReal.as_ref().unwrap()(component, &unknown, 1, &mut value);
            let sequence = [
                b.fmi2Reset.as_ref().unwrap()(component),
                b.fmi2SetupExperiment.as_ref().unwrap()(component, 0, 0.0, 0.0, 0, 0.0),
                b.fmi2EnterInitializationMode.as_ref().unwrap()(component),
                b.fmi2ExitInitializationMode.as_ref().unwrap()(component),
                b.fmi2DoStep.as_ref().unwrap()(component, 0.0, STEP, 0),
            ];
            (refused, sequence)
        };
        free_raw(fmu, component);
        assert_eq!(
            Status::from(refused),
            Status::Error,
            "errors are still returned, only not reported"
        );
        assert!(
            sequence.iter().all(|s| Status::from(*s) == Status::Ok),
            "usable after fmi2Reset: {sequence:?}"
        );
        Outcome {
            returned: Returned::Instance(true),
            logs,
            after: After::Checked("Instantiated"),
        }
    }),
    // ---- the instance and pointer arguments
    ("null-instance", |fmu| {
        // A live instance alongside: nothing may reach its logger.
        let witness = fresh(fmu);
        let status = null_instance_calls(fmu);
        Outcome {
            returned: Returned::Status(status),
            logs: witness.sink().take(),
            after: After::NoInstance,
        }
    }),
    ("null-vr-array", |fmu| {
        call(fmu, running, |i| raw_get_real(i, true, false, 2))
    }),
    ("null-value-array", |fmu| {
        call(fmu, running, raw_set_real_null_values)
    }),
    ("empty-null-arrays", |fmu| {
        call(fmu, running, |i| raw_get_real(i, true, true, 0))
    }),
    ("null-state-pointer", |fmu| {
        call(fmu, running, |i| {
            let get = *i.binding().fmi2GetFMUstate.as_ref().unwrap();
            // SAFETY: deliberately NULL out pointer.
            Status::from(unsafe { get(i.component(), ptr::null_mut()) })
        })
    }),
    ("null-size-pointer", |fmu| {
        call(fmu, running, |i| {
            let state = own_state(i);
            let size = *i.binding().fmi2SerializedFMUstateSize.as_ref().unwrap();
            // SAFETY: deliberately NULL out pointer.
            Status::from(unsafe { size(i.component(), state.0, ptr::null_mut()) })
        })
    }),
    ("null-category-name", |fmu| {
        call(fmu, running, |i| {
            let set = *i.binding().fmi2SetDebugLogging.as_ref().unwrap();
            let categories: [*const c_char; 1] = [ptr::null()];
            // SAFETY: an array of one (NULL) string.
            Status::from(unsafe { set(i.component(), 1, 1, categories.as_ptr()) })
        })
    }),
    // ---- value references and causality
    ("unknown-value-reference", |fmu| {
        call(fmu, running, |i| i.get_real(&[99]).0)
    }),
    ("wrong-type", |fmu| {
        call(fmu, running, |i| i.get_real(&[vr(Var::MaxSubstepCount)]).0)
    }),
    ("string-variable", |fmu| {
        call(fmu, running, |i| i.get_string(&[vr(Var::C)]).0)
    }),
    ("set-output", |fmu| {
        call(fmu, running, |i| i.set_real(&[vr(Var::F)], &[0.0]))
    }),
    ("set-local", |fmu| {
        call(fmu, running, |i| i.set_real(&[vr(Var::FC)], &[0.0]))
    }),
    ("set-time", |fmu| {
        call(fmu, running, |i| i.set_real(&[vr(Var::Time)], &[1.0]))
    }),
    ("fixed-parameter-while-running", |fmu| {
        call(fmu, running, |i| set(i, Var::UseHeatPort, 1.0))
    }),
];
