//! Random bytes to fmi2DeSerializeFMUstate of a co-simulation and of a Model Exchange instance,
//! then fmi2SetFMUstate and steps (co-simulation) or events and integrator steps (Model
//! Exchange). A buffer the FMU accepts must give a state it can run without crashing, returning
//! non-finite outputs as OK, or losing energy; a buffer it refuses must be refused with a logged
//! reason; only the instance kind its interface slot names may accept it. The committed seeds are
//! valid states the FMU wrote (`cargo run --example write_seeds`), so mutations start there.

#![no_main]

use elastogap::fmi2::*;
use elastogap::snapshot::{self, HEADER_SIZE, SERIALIZED_SIZE};
use elastogap::variables::{Var, EVENT_INDICATORS, STATES};
use elastogap_fuzz::{
    check_returned_array, check_step, Instance, CO_SIMULATION, MODEL_EXCHANGE, OK,
};
use fmi_sys::fmi2::{fmi2Boolean, fmi2EventInfo, fmi2FMUstate};
use libfuzzer_sys::fuzz_target;

fn serialize(instance: &Instance, state: fmi2FMUstate) -> Vec<u8> {
    let mut size = 0usize;
    let status = instance.call("fmi2SerializedFMUstateSize", |c| unsafe {
        fmi2SerializedFMUstateSize(c, state, &mut size)
    });
    assert_eq!(status, OK, "the size of a state the FMU accepted");
    let mut bytes = vec![0u8; size];
    let status = instance.call("fmi2SerializeFMUstate", |c| unsafe {
        fmi2SerializeFMUstate(c, state, bytes.as_mut_ptr().cast(), size)
    });
    assert_eq!(status, OK, "serializing a state the FMU accepted");
    bytes
}

fn deserialize(instance: &Instance, bytes: &[u8], state: &mut fmi2FMUstate) -> bool {
    let status = instance.call("fmi2DeSerializeFMUstate", |c| unsafe {
        fmi2DeSerializeFMUstate(c, bytes.as_ptr().cast(), bytes.len(), state)
    });
    status == OK
}

/// Where the serialized state keeps the interface, 1 for Model Exchange.
const INTERFACE_SLOT: usize = HEADER_SIZE + 8 * snapshot::INTERFACE_SLOT;

/// An instance after initialization and one step: in fmi2StepComplete (co-simulation) or in
/// Continuous-Time Mode after an event and an integrator step (Model Exchange).
fn running_instance(fmu_type: u32) -> Instance {
    let instance = Instance::standard_of(fmu_type);
    let ok = |s| assert_eq!(s, OK, "set-up call failed");
    ok(instance.call("fmi2SetupExperiment", |c| unsafe {
        fmi2SetupExperiment(c, 0, 0.0, 0.0, 0, 0.0)
    }));
    ok(instance.call("fmi2EnterInitializationMode", |c| unsafe {
        fmi2EnterInitializationMode(c)
    }));
    ok(instance.call("fmi2ExitInitializationMode", |c| unsafe {
        fmi2ExitInitializationMode(c)
    }));
    if fmu_type == MODEL_EXCHANGE {
        assert!(event(&instance, "set-up"), "set-up event failed");
        ok(instance.call("fmi2SetTime", |c| unsafe { fmi2SetTime(c, 1e-3) }));
        let (mut enter, mut terminate) = (0, 0);
        ok(instance.call("fmi2CompletedIntegratorStep", |c| unsafe {
            fmi2CompletedIntegratorStep(c, 1, &mut enter, &mut terminate)
        }));
    } else {
        ok(instance.call("fmi2DoStep", |c| unsafe { fmi2DoStep(c, 0.0, 1e-3, 0) }));
    }
    instance
}

/// Model Exchange: an event iteration from Event Mode back to Continuous-Time Mode, checked;
/// false if a call was refused.
fn event(instance: &Instance, context: &str) -> bool {
    let mut info = fmi2EventInfo::default();
    let status = instance.call("fmi2NewDiscreteStates", |c| unsafe {
        fmi2NewDiscreteStates(c, &mut info)
    });
    if status != OK {
        return false;
    }
    instance.check_event(context, &info);
    let status = instance.call("fmi2EnterContinuousTimeMode", |c| unsafe {
        fmi2EnterContinuousTimeMode(c)
    });
    status == OK
}

fuzz_target!(|data: &[u8]| {
    let accepted = [CO_SIMULATION, MODEL_EXCHANGE].map(|fmu_type| restore_and_run(fmu_type, data));
    assert!(
        !(accepted[0] && accepted[1]),
        "both a co-simulation and a Model Exchange instance accepted the same state"
    );
});

/// Deserializes `data` into an instance of `fmu_type` and, if accepted, runs the state there;
/// returns whether the buffer was accepted.
fn restore_and_run(fmu_type: u32, data: &[u8]) -> bool {
    let instance = running_instance(fmu_type);
    let mut fresh: fmi2FMUstate = std::ptr::null_mut();
    let accepted = deserialize(&instance, data, &mut fresh);

    // Into an existing state of the instance: the same verdict.
    let mut existing: fmi2FMUstate = std::ptr::null_mut();
    if !accepted {
        // A refused buffer moved the instance to fmi2Error; fmi2Reset leaves that.
        assert_eq!(instance.call("fmi2Reset", |c| unsafe { fmi2Reset(c) }), OK);
    }
    let status = instance.call("fmi2GetFMUstate", |c| unsafe {
        fmi2GetFMUstate(c, &mut existing)
    });
    assert_eq!(status, OK);
    let accepted_again = deserialize(&instance, data, &mut existing);
    assert_eq!(
        accepted, accepted_again,
        "the verdict on a buffer depends on the state it is read into"
    );
    if !accepted {
        return false;
    }
    assert_eq!(
        data.len(),
        SERIALIZED_SIZE,
        "a buffer of the wrong size was accepted"
    );
    let interface = f64::from_le_bytes(
        data[INTERFACE_SLOT..INTERFACE_SLOT + 8]
            .try_into()
            .expect("8 bytes"),
    );
    assert_eq!(
        interface,
        f64::from(u8::from(instance.model_exchange)),
        "an instance accepted a state whose interface slot names the other interface"
    );

    // What was accepted serializes to a canonical form that reads back to itself.
    let canonical = serialize(&instance, fresh);
    let mut again: fmi2FMUstate = std::ptr::null_mut();
    assert!(
        deserialize(&instance, &canonical, &mut again),
        "the FMU refuses a state it serialized itself"
    );
    assert_eq!(
        serialize(&instance, again),
        canonical,
        "serializing is not a fixed point after one round trip"
    );

    // The accepted state runs: restored, read, stepped.
    let status = instance.call("fmi2SetFMUstate", |c| unsafe { fmi2SetFMUstate(c, fresh) });
    assert_eq!(status, OK, "setting a state the FMU deserialized itself");
    if instance.model_exchange {
        run_model_exchange(&instance);
    } else {
        run_co_simulation(&instance);
    }
    true
}

fn run_co_simulation(instance: &Instance) {
    if instance.time().is_none() {
        return;
    }
    let mut before = instance.check_outputs("after restoring a deserialized state");
    for h in [1e-3, 0.25, 1e3] {
        instance.cap_substeps();
        let Some(now) = instance.time() else {
            return;
        };
        let status = instance.call("fmi2DoStep", |c| unsafe { fmi2DoStep(c, now, h, 1) });
        if status != OK {
            return;
        }
        let after = instance
            .check_outputs("after a step from a deserialized state")
            .expect("outputs are readable after an OK step");
        check_step(before, after, h);
        before = Some(after);
        // Inputs change between steps as a master's would.
        let _ = instance.set_reals(&[(Var::FlangeBV, -0.1)]);
    }
}

/// Runs a restored Model Exchange state as an importer's solver would: an event first (the
/// restored `contact` may be stale for the restored inputs), then explicit Euler steps of E_loss
/// with h = 1e-3, 0.25 and 1000, each completed and followed by an event where an indicator
/// changed sign. The solver sets E_loss itself, so it is checked to read back, not to grow.
fn run_model_exchange(instance: &Instance) {
    if !instance.running() {
        return;
    }
    instance.check_outputs("after restoring a deserialized state");
    let status = instance.call("fmi2EnterEventMode", |c| unsafe { fmi2EnterEventMode(c) });
    if status != OK || !event(instance, "at the event after restoring a state") {
        return;
    }
    let mut time = 0.0;
    let Some(mut indicators) = event_indicators(instance) else {
        return;
    };
    for h in [1e-3, 0.25, 1e3] {
        let mut x = [f64::NAN; STATES.len()];
        let status = instance.call("fmi2GetContinuousStates", |c| unsafe {
            fmi2GetContinuousStates(c, x.as_mut_ptr(), x.len())
        });
        if status != OK {
            return;
        }
        instance.check_continuous_states("fmi2GetContinuousStates", &x);
        let Some(derivatives) = instance.derivatives() else {
            return;
        };
        for (x, der) in x.iter_mut().zip(derivatives) {
            *x += h * der;
        }
        time += h;
        let status = instance.call("fmi2SetTime", |c| unsafe { fmi2SetTime(c, time) });
        if status != OK {
            return;
        }
        let status = instance.call("fmi2SetContinuousStates", |c| unsafe {
            fmi2SetContinuousStates(c, x.as_ptr(), x.len())
        });
        if status != OK {
            return;
        }
        instance.check_states_read_back("after fmi2SetContinuousStates", &x);
        // Inputs change along the solver's step as a master's would.
        let _ = instance.set_reals(&[(Var::FlangeBV, -0.1)]);
        if instance.derivatives().is_none() {
            return;
        }
        let Some(now) = event_indicators(instance) else {
            return;
        };
        let (mut enter, mut terminate): (fmi2Boolean, fmi2Boolean) = (7, 7);
        let status = instance.call("fmi2CompletedIntegratorStep", |c| unsafe {
            fmi2CompletedIntegratorStep(c, 1, &mut enter, &mut terminate)
        });
        if status != OK {
            return;
        }
        assert_eq!(
            (enter, terminate),
            (0, 0),
            "fmi2CompletedIntegratorStep returned fmi2OK with (enterEventMode, terminateSimulation)"
        );
        instance.check_outputs("after an integrator step from a deserialized state");
        let crossed = indicators
            .iter()
            .zip(&now)
            .any(|(before, after)| (*before > 0.0) != (*after > 0.0));
        indicators = now;
        if crossed {
            let status = instance.call("fmi2EnterEventMode", |c| unsafe { fmi2EnterEventMode(c) });
            if status != OK || !event(instance, "at a state event") {
                return;
            }
        }
    }
}

fn event_indicators(instance: &Instance) -> Option<[f64; EVENT_INDICATORS.len()]> {
    let mut values = [f64::NAN; EVENT_INDICATORS.len()];
    let status = instance.call("fmi2GetEventIndicators", |c| unsafe {
        fmi2GetEventIndicators(c, values.as_mut_ptr(), values.len())
    });
    (status == OK).then(|| {
        check_returned_array("fmi2GetEventIndicators", &values, false);
        values
    })
}
