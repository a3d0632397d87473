//! FMU states: round trips, serialization into a new instance, corrupt serialized states, and
//! foreign, freed and fabricated state pointers.

use fmi_sys::fmi2;

use crate::common::{
    decode, drive, expect_error, fmu_time, initialize, ok, real_vrs, record, set, set_inputs,
    Oscillation, OSCILLATION_SETTINGS,
};
use crate::support::random::Random;
use crate::support::{Fmu, FmuState, Instance, Status, REALS};

// ---------------------------------------------------------------------------------------------
// FMU state
// ---------------------------------------------------------------------------------------------

#[test]
fn fmu_state_round_trip_continues_bit_identically() {
    let fmu = Fmu::load_default();
    let motion = Oscillation::DEFAULT;
    let h = 1e-3;
    let (n, m) = (60, 150);
    let mut inst = Instance::new(&fmu, "state");
    initialize(&mut inst, &OSCILLATION_SETTINGS);
    drive(&mut inst, &motion, h, 0..n, false);
    let at_snapshot = record(&mut inst);
    let mut state = FmuState::null();
    ok(inst.get_fmu_state(&mut state));
    assert!(!state.is_null());

    let first = drive(&mut inst, &motion, h, n..n + m, false);
    ok(inst.set_fmu_state(&state));
    // Everything the outputs are made of is back, before any input is set.
    assert_eq!(record(&mut inst), at_snapshot);
    assert!((fmu_time(&mut inst) - n as f64 * h).abs() < 1e-15);
    let second = drive(&mut inst, &motion, h, n..n + m, false);
    assert_eq!(first, second, "continuation without input derivatives");

    // The run covers contact, the damper bound, heat flow and the history-based acceleration.
    assert!(first.iter().any(|r| r[9] == 1) && first.iter().any(|r| r[9] == 0));
    let values: Vec<Vec<f64>> = first.iter().map(|r| decode(r)).collect();
    assert!(values.iter().any(|r| r[4] < 0.0), "heatPort.Q_flow flows");
    let bound = |r: &Vec<f64>| r[7] != 0.0 && (r[8].abs() - r[7].abs()).abs() <= 1e-12 * r[7].abs();
    assert!(values.iter().any(bound), "damper bound acting");
    assert!(
        values.iter().any(|r| r[7] != 0.0 && !bound(r)),
        "linear damper"
    );

    // With input derivatives supplied.
    ok(inst.set_fmu_state(&state));
    let third = drive(&mut inst, &motion, h, n..n + m, true);
    ok(inst.set_fmu_state(&state));
    let fourth = drive(&mut inst, &motion, h, n..n + m, true);
    assert_eq!(third, fourth, "continuation with input derivatives");
    assert_ne!(first, third, "input derivatives change the result");

    // The state holds inputs and input derivatives set before it was taken.
    ok(inst.set_fmu_state(&state));
    drive(&mut inst, &motion, h, n..n + 3, false);
    let k = n + 3;
    let t = k as f64 * h;
    set_inputs(&mut inst, motion.inputs(t));
    let velocity_vrs = real_vrs(&inst, &["flange_a.v", "flange_b.v"]);
    ok(inst.set_real_input_derivatives(&velocity_vrs, &[1, 1], &[0.7, -250.0]));
    ok(inst.get_fmu_state(&mut state)); // overwrites the existing state
    ok(inst.do_step(t, h, false));
    let after = record(&mut inst);
    ok(inst.set_fmu_state(&state));
    ok(inst.do_step(t, h, false));
    assert_eq!(record(&mut inst), after);

    let raw = state.0;
    ok(inst.free_fmu_state(&mut state));
    assert!(state.is_null(), "fmi2FreeFMUstate sets the pointer to NULL");
    // Freeing NULL is a no-op.
    ok(inst.free_fmu_state(&mut state));
    let stale = FmuState(raw);
    let status = inst.set_fmu_state(&stale);
    expect_error(
        &inst,
        status,
        &["fmi2SetFMUstate", "not a state of this instance"],
    );
}

#[test]
fn serialized_state_continues_identically_in_a_new_instance() {
    let fmu = Fmu::load_default();
    let motion = Oscillation::DEFAULT;
    let h = 1e-3;
    let (n, m) = (75, 120);
    let mut source = Instance::new(&fmu, "source");
    initialize(&mut source, &OSCILLATION_SETTINGS);
    drive(&mut source, &motion, h, 0..n, true);
    let mut state = FmuState::null();
    ok(source.get_fmu_state(&mut state));
    let (status, size) = source.serialized_fmu_state_size(&state);
    ok(status);
    let (status, bytes) = source.serialize_fmu_state(&state);
    ok(status);
    assert_eq!(bytes.len(), size);
    let (status, again) = source.serialize_fmu_state(&state);
    ok(status);
    assert_eq!(bytes, again, "serialization is deterministic");
    let expected = drive(&mut source, &motion, h, n..n + m, false);

    // A new instance with other parameters (and useHeatPort off) takes everything from the state.
    let mut target = Instance::new(&fmu, "target");
    initialize(&mut target, &[("c", 5.0), ("accelerationEstimate", 0.0)]);
    let mut restored = FmuState::null();
    ok(target.deserialize_fmu_state(&bytes, &mut restored));
    assert!(!restored.is_null());
    ok(target.set_fmu_state(&restored));
    let continued = drive(&mut target, &motion, h, n..n + m, false);
    assert_eq!(expected, continued);
    assert!(target.boolean("useHeatPort"));

    // Deserializing into an existing state of the instance overwrites it.
    ok(target.deserialize_fmu_state(&bytes, &mut restored));
    ok(target.set_fmu_state(&restored));
    assert_eq!(drive(&mut target, &motion, h, n..n + m, false), expected);

    // A new instance that is only instantiated accepts the state too (restored in
    // fmi2Instantiated, it then needs initialization before stepping).
    let mut fresh = Instance::new(&fmu, "fresh");
    let mut early = FmuState::null();
    ok(fresh.deserialize_fmu_state(&bytes, &mut early));
    ok(fresh.set_fmu_state(&early));
    ok(fresh.free_fmu_state(&mut early));
    assert!(early.is_null());

    ok(source.free_fmu_state(&mut state));
    ok(target.free_fmu_state(&mut restored));
}

const SERIALIZED_C: f64 = 1_234.567_890_123;

#[test]
fn corrupt_serialized_states_are_refused_without_a_crash() {
    let fmu = Fmu::load_default();
    let motion = Oscillation::DEFAULT;
    let mut source = Instance::new(&fmu, "serializer");
    initialize(&mut source, &OSCILLATION_SETTINGS);
    ok(set(&mut source, "c", SERIALIZED_C));
    drive(&mut source, &motion, 1e-3, 0..40, false);
    let mut state = FmuState::null();
    ok(source.get_fmu_state(&mut state));
    let (status, bytes) = source.serialize_fmu_state(&state);
    ok(status);
    let mut random = Random(0x9e37_79b9_7f4a_7c15);

    let f64_at = |bytes: &[u8], slot: usize, value: f64| {
        // The layout of src/snapshot.rs: a 12-byte header (magic, format version), then f64
        // slots; every slot must hold a finite number.
        let mut copy = bytes.to_vec();
        copy[12 + 8 * slot..20 + 8 * slot].copy_from_slice(&value.to_le_bytes());
        copy
    };
    let mut corrupt: Vec<(String, Vec<u8>)> = vec![
        ("empty".into(), Vec::new()),
        ("truncated by one".into(), bytes[..bytes.len() - 1].to_vec()),
        ("half".into(), bytes[..bytes.len() / 2].to_vec()),
        ("header only".into(), bytes[..12].to_vec()),
        (
            "one byte too long".into(),
            [bytes.clone(), vec![0]].concat(),
        ),
        ("wrong header".into(), {
            let mut b = bytes.clone();
            b[0] ^= 0xff;
            b
        }),
        ("wrong format version".into(), {
            let mut b = bytes.clone();
            b[8] = b[8].wrapping_add(1);
            b
        }),
        ("zeros".into(), vec![0; bytes.len()]),
        (
            "random bytes".into(),
            (0..bytes.len()).map(|_| random.next_u64() as u8).collect(),
        ),
        ("random bytes behind the header".into(), {
            let mut b = bytes.clone();
            for x in &mut b[12..] {
                *x = random.next_u64() as u8;
            }
            b
        }),
    ];
    for slot in 0..(bytes.len() - 12) / 8 {
        corrupt.push((
            format!("NaN in slot {slot}"),
            f64_at(&bytes, slot, f64::NAN),
        ));
    }
    // c was set to a value that appears once in the buffer: make it negative wherever it is.
    let c_bytes = SERIALIZED_C.to_le_bytes();
    let at = bytes
        .windows(8)
        .position(|w| w == c_bytes)
        .expect("c is in the serialized state");
    let mut negative_c = bytes.clone();
    negative_c[at..at + 8].copy_from_slice(&(-SERIALIZED_C).to_le_bytes());
    corrupt.push(("negative c".into(), negative_c));

    let mut deserializer = Instance::new(&fmu, "deserializer");
    initialize(&mut deserializer, &[]);
    for (what, buffer) in &corrupt {
        let mut target = FmuState::null();
        let status = deserializer.deserialize_fmu_state(buffer, &mut target);
        expect_error(&deserializer, status, &["fmi2DeSerializeFMUstate"]);
        assert!(target.is_null(), "{what}: no state handed out");
        ok(deserializer.reset());
        initialize(&mut deserializer, &[]);
    }

    // Random damage: refused, or accepted and then usable without a crash or fmi2Fatal.
    let mut accepted = 0;
    for round in 0..400 {
        let mut buffer = bytes.clone();
        for _ in 0..1 + round % 3 {
            let at = (random.next_u64() as usize) % buffer.len();
            buffer[at] = random.next_u64() as u8;
        }
        let mut target = FmuState::null();
        let status = deserializer.deserialize_fmu_state(&buffer, &mut target);
        match status {
            Status::Ok => {
                accepted += 1;
                ok(deserializer.set_fmu_state(&target));
                let (_, time) =
                    deserializer.get_real_status(fmi2::fmi2StatusKind_fmi2LastSuccessfulTime);
                let stepped = deserializer.do_step(time, 1e-3, false);
                assert!(
                    matches!(stepped, Status::Ok | Status::Error),
                    "round {round}: {stepped:?}"
                );
                read_if_running(&mut deserializer, stepped);
                ok(deserializer.free_fmu_state(&mut target));
            }
            Status::Error => assert!(target.is_null()),
            other => panic!("round {round}: fmi2DeSerializeFMUstate returned {other:?}"),
        }
        deserializer.sink().take();
        ok(deserializer.reset());
        initialize(&mut deserializer, &[]);
    }
    assert!(accepted > 0, "some single-byte changes are harmless values");
    ok(source.free_fmu_state(&mut state));
}

fn read_if_running(inst: &mut Instance, stepped: Status) {
    if stepped == Status::Ok {
        let vrs = real_vrs(inst, &REALS);
        let (status, _) = inst.get_real(&vrs);
        ok(status);
    }
}

#[test]
fn foreign_freed_and_fabricated_state_pointers_are_refused() {
    let fmu = Fmu::load_default();
    let mut a = Instance::new(&fmu, "owner");
    let mut b = Instance::new(&fmu, "stranger");
    initialize(&mut a, &[]);
    initialize(&mut b, &[]);
    let mut state = FmuState::null();
    ok(a.get_fmu_state(&mut state));

    let needles = &["not a state of this instance"];
    let status = b.set_fmu_state(&state);
    expect_error(&b, status, needles);
    ok(b.reset());
    initialize(&mut b, &[]);
    let status = b.serialized_fmu_state_size(&state).0;
    expect_error(&b, status, needles);
    ok(b.reset());
    initialize(&mut b, &[]);
    let mut foreign = FmuState(state.0);
    let status = b.free_fmu_state(&mut foreign);
    expect_error(&b, status, needles);
    assert!(!foreign.is_null(), "a refused free leaves the pointer");
    ok(b.reset());
    initialize(&mut b, &[]);
    let (status, bytes) = a.serialize_fmu_state(&state);
    ok(status);
    let mut foreign = FmuState(state.0);
    let status = b.deserialize_fmu_state(&bytes, &mut foreign);
    expect_error(&b, status, &["neither NULL nor a state of this instance"]);
    ok(b.reset());
    initialize(&mut b, &[]);
    let mut local = 0u64;
    let fabricated = FmuState((&mut local as *mut u64).cast());
    let status = b.set_fmu_state(&fabricated);
    expect_error(&b, status, needles);
    ok(b.reset());
    initialize(&mut b, &[]);
    let status = b.set_fmu_state(&FmuState::null());
    expect_error(&b, status, &["fmi2SetFMUstate", "NULL"]);

    // The owner still uses its state after all that.
    ok(a.do_step(0.0, 0.01, false));
    ok(a.set_fmu_state(&state));
    assert_eq!(fmu_time(&mut a), 0.0);
    let raw = state.0;
    ok(a.free_fmu_state(&mut state));
    assert!(state.is_null());
    let status = a.serialize_fmu_state(&FmuState(raw)).0;
    expect_error(&a, status, needles);
    ok(a.reset());
    let mut stale = FmuState(raw);
    let status = a.free_fmu_state(&mut stale);
    expect_error(&a, status, needles);

    // States outlive fmi2Reset: the importer owns them until it frees them.
    ok(a.reset());
    initialize(&mut a, &[("c", 3e4), ("s_rel0", 0.1)]);
    set_inputs(&mut a, [0.0, 0.0, 0.09, -1.0]);
    ok(a.do_step(0.0, 1e-3, false));
    let mut before_reset = FmuState::null();
    ok(a.get_fmu_state(&mut before_reset));
    let f_mean = a.real("f_mean");
    assert!(f_mean < 0.0, "in contact: f_mean = {f_mean}");
    ok(a.reset());
    initialize(&mut a, &[]);
    ok(a.set_fmu_state(&before_reset));
    assert_eq!(
        (a.real("c"), a.real("f_mean"), fmu_time(&mut a)),
        (3e4, f_mean, 1e-3)
    );
    ok(a.free_fmu_state(&mut before_reset));
}
