//! Random bytes to fmi2DeSerializeFMUstate, then fmi2SetFMUstate and steps. A buffer the FMU
//! accepts must give a state it can run without crashing, returning non-finite outputs as OK, or
//! losing energy; a buffer it refuses must be refused with a logged reason. The committed seeds
//! are valid states the FMU wrote (`cargo run --example write_seeds`), so mutations start there.

#![no_main]

use elastogap::fmi2::*;
use elastogap::snapshot::SERIALIZED_SIZE;
use elastogap::variables::Var;
use elastogap_fuzz::{check_step, Instance, OK};
use fmi_sys::fmi2::fmi2FMUstate;
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

/// An instance after initialization and one step, in fmi2StepComplete.
fn running_instance() -> Instance {
    let instance = Instance::standard();
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
    ok(instance.call("fmi2DoStep", |c| unsafe { fmi2DoStep(c, 0.0, 1e-3, 0) }));
    instance
}

fuzz_target!(|data: &[u8]| {
    let instance = running_instance();
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
        return;
    }
    assert_eq!(
        data.len(),
        SERIALIZED_SIZE,
        "a buffer of the wrong size was accepted"
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
});
