//! The state's round trip, and the refusal of corrupt states slot by slot.

use super::*;
use crate::coupling::{Coupling, Prediction};
use crate::model::{CoSimulationSerialized, Interface};

/// The co-simulation part's fields, as the layout reaches them.
fn co_simulation(model: &mut ElastoGap) -> CoSimulationSerialized<'_> {
    model.co_simulation.serialized()
}

/// The coupling, as the layout reaches it.
fn coupling(model: &mut ElastoGap) -> &mut Coupling {
    co_simulation(model).coupling
}

/// Slots the tests corrupt, pinned: `the_named_slots_hold_their_fields` checks them against the
/// layout. The tangential answer windows' counts, the steps recorded, whether the master answered
/// the last step and the one before, the last step's size, the tangential mass and whether the
/// master holds the step before's force.
const TANGENTIAL_WINDOW_COUNT_SLOTS: [usize; 4] = [213, 238, 263, 288];
const TANGENTIAL_STEPS_SLOT: usize = 303;
const TANGENTIAL_ANSWERED_SLOT: usize = 304;
const TANGENTIAL_ANSWERED_BEFORE_SLOT: usize = 305;
const TANGENTIAL_HOLDS_EARLIER_SLOT: usize = 307;
const TANGENTIAL_CANDIDATE_SLOT: usize = 308;
const TANGENTIAL_FLAG_SLOTS: [usize; 2] = [309, 310];
const TANGENTIAL_MISSES_SLOT: usize = 313;
const TANGENTIAL_LAST_H_SLOT: usize = 290;
const TANGENTIAL_MASS_SLOT: usize = 306;
/// The slots of the friction's two Enumeration choices: frictionLaw, frictionInterpolation.
const FRICTION_CHOICE_SLOTS: [usize; 2] = [96, 97];
/// The slot of the flag whether the master reads `f_next`.
const F_NEXT_READ_SLOT: usize = 78;
/// The slots of the law's three Enumeration choices: forceLaw, hysteresis, recurDynDamping.
const CHOICE_SLOTS: [usize; 3] = [79, 80, 85];

#[test]
fn round_trip_is_bit_identical_and_corruption_is_refused() {
    let mut model = ElastoGap::new(Interface::CoSimulation, 0.25);
    model.parameters.spring.c = 1e4;
    model.parameters.use_heat_port = true;
    model.inputs.s_b = 0.5;
    model.inputs.v_b = -1.0;
    model.supplied.b = Some(3.5);
    model
        .do_step(1e-3, &mut crate::model::StepReport::default())
        .expect("a finite step");
    model.inputs.v_b = -0.9;
    model.supplied.a = Some(-2.0);
    let mut bytes = [0u8; SERIALIZED_SIZE];
    write(&model, &mut bytes).expect("a finite state");
    let (back, fingerprint) = read(&bytes).expect("valid state");
    assert_eq!(fingerprint, 0, "no tables");
    // The prediction of f_next, not yet read, is written made.
    assert!(matches!(
        coupling(&mut model).f_next(),
        Prediction::Kinematic { .. }
    ));
    let limits = model.substep_limits();
    let law = model.law_with(None);
    let (least_mass, held) = (model.least_mass(), coupling(&mut model).next_held());
    coupling(&mut model).make_f_next(&law, limits, least_mass, held);
    assert_eq!(back, model);

    let mut truncated = bytes.to_vec();
    truncated.pop();
    assert!(read(&truncated).is_err());
    let mut bad_flag = bytes;
    bad_flag[12 + 7 * 8..12 + 8 * 8].copy_from_slice(&0.5f64.to_le_bytes());
    assert!(read(&bad_flag).is_err());
    let mut unpublished_candidate = model.clone();
    *coupling(&mut unpublished_candidate)
        .serialized()
        .candidate_estimate = 2.0;
    *coupling(&mut unpublished_candidate)
        .serialized()
        .last_estimate = 0.0;
    let mut candidate_bytes = [0u8; SERIALIZED_SIZE];
    write(&unpublished_candidate, &mut candidate_bytes).expect("a finite state");
    assert!(read(&candidate_bytes).is_err());
    *coupling(&mut unpublished_candidate)
        .serialized()
        .last_estimate = 2.0;
    write(&unpublished_candidate, &mut candidate_bytes).expect("a finite state");
    assert!(read(&candidate_bytes).is_ok());
    let mut negative_c = bytes;
    negative_c[12..20].copy_from_slice(&(-1.0f64).to_le_bytes());
    assert!(read(&negative_c).unwrap_err().contains("c = -1"));
}

#[test]
fn a_state_names_its_tables_by_fingerprint_and_keeps_the_gap_force_parameters() {
    let mut model = ElastoGap::new(Interface::CoSimulation, 0.0);
    let o = &mut model.parameters.options;
    o.force_law = crate::laws::ForceLaw::GapForce as i32;
    (o.n_v, o.preload, o.range_min, o.range_max) = (1.5, 2.0, -0.3, 0.2);
    let tables = crate::laws::GapTables::parse(r#"{"damping": [[-1, -2], [0, 0], [1, 2]]}"#)
        .expect("a valid table");
    let expected = tables.fingerprint;
    // Both halves of the fingerprint carry bits.
    assert!(expected >> 32 != 0 && expected & 0xffff_ffff != 0);
    model.tables = Some(std::sync::Arc::new(tables));
    let mut bytes = [0u8; SERIALIZED_SIZE];
    write(&model, &mut bytes).expect("a finite state");
    let (back, fingerprint) = read(&bytes).expect("valid state");
    assert_eq!(fingerprint, expected);
    assert_eq!(back.parameters.options, model.parameters.options);
    assert!(back.tables.is_none(), "the instance attaches its own");
    // An empty range is refused as corrupt.
    let mut empty = model.clone();
    empty.parameters.options.range_max = -0.3;
    write(&empty, &mut bytes).expect("a finite state");
    assert!(read(&bytes).unwrap_err().contains("rangeMax = -0.3"));
}

#[test]
fn a_stiction_deformation_outside_its_circle_is_refused() {
    let mut model = ElastoGap::new(Interface::ModelExchange, 0.0);
    let mut bytes = [0u8; SERIALIZED_SIZE];
    // Without stick-slip the deformation is 0 (a fuzzer can write 1e-3 there).
    model.stiction = [1e-3, 0.0];
    write(&model, &mut bytes).expect("a finite state");
    assert!(read(&bytes).unwrap_err().contains("stiction deformation"));
    // With it, inside the circle; a port that dissipated more than it received is no account.
    model.parameters.friction.law = 2;
    model.parameters.friction.max_stiction_deformation = 2e-3;
    write(&model, &mut bytes).expect("a finite state");
    assert!(read(&bytes).is_ok());
    model.stiction = [2e-3, 1e-3];
    write(&model, &mut bytes).expect("a finite state");
    assert!(read(&bytes).is_err());
    model.stiction = [0.0; 2];
    *co_simulation(&mut model).tangential_account = [1.0, 2.0];
    write(&model, &mut bytes).expect("a finite state");
    assert!(read(&bytes).is_err());
}

#[test]
fn a_heat_flow_into_the_gap_or_without_the_heat_port_is_refused() {
    let mut model = ElastoGap::new(Interface::CoSimulation, 0.0);
    let mut bytes = [0u8; SERIALIZED_SIZE];
    let verdict = |model: &ElastoGap, bytes: &mut [u8; SERIALIZED_SIZE]| {
        write(model, bytes).expect("a finite state");
        read(&bytes[..]).is_ok()
    };
    model.parameters.use_heat_port = true;
    *co_simulation(&mut model).q_flow_mean = -2.0;
    assert!(verdict(&model, &mut bytes));
    *co_simulation(&mut model).q_flow_mean = 1e-300;
    assert!(!verdict(&model, &mut bytes));
    model.parameters.use_heat_port = false;
    *co_simulation(&mut model).q_flow_mean = -2.0;
    assert!(!verdict(&model, &mut bytes));
    *co_simulation(&mut model).q_flow_mean = 0.0;
    assert!(verdict(&model, &mut bytes));
}

#[test]
fn the_tangential_answers_round_trip_and_their_counts_and_mass_are_checked() {
    let mut model = ElastoGap::new(Interface::CoSimulation, 0.0);
    let answers = co_simulation(&mut model).tangential_answers;
    for (k, window) in answers
        .against_same
        .iter_mut()
        .chain(answers.against_before.iter_mut())
        .enumerate()
    {
        for j in 0..=k {
            window.push(j as f64, 0.0, 0.5 * j as f64, 1.0 + k as f64);
        }
    }
    answers.record(0.25, 1e-3, [0.1, -0.2], [3.0, 4.0], None);
    answers.record(0.251, 1e-3, [0.3, -0.4], [5.0, 6.0], Some([0.2, 0.1]));
    answers.observe(0.252, [0.35, -0.45], 0.01);
    answers.record(0.252, 1e-3, [0.35, -0.45], [5.5, 6.5], Some([0.3, -0.5]));
    (answers.mass, answers.holds_earlier) = (1.25, true);
    let mut bytes = [0u8; SERIALIZED_SIZE];
    write(&model, &mut bytes).expect("a finite state");
    let slot = |bytes: &[u8; SERIALIZED_SIZE], index: usize| {
        let at = HEADER_SIZE + 8 * index;
        f64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
    };
    let counts = TANGENTIAL_WINDOW_COUNT_SLOTS.map(|index| slot(&bytes, index));
    // Pushed 1 to 4 answers, and observe added one to each.
    assert_eq!(counts, [2.0, 3.0, 4.0, 5.0]);
    assert_eq!(slot(&bytes, TANGENTIAL_FLAG_SLOTS[1]), 1.0);
    assert_eq!(slot(&bytes, TANGENTIAL_STEPS_SLOT), 3.0);
    assert_eq!(slot(&bytes, TANGENTIAL_HOLDS_EARLIER_SLOT), 1.0);
    assert_eq!(slot(&bytes, TANGENTIAL_ANSWERED_SLOT), 1.0);
    assert_eq!(slot(&bytes, TANGENTIAL_LAST_H_SLOT), 1e-3);
    assert_eq!(slot(&bytes, TANGENTIAL_MASS_SLOT), 1.25);
    let (mut back, _) = read(&bytes).expect("valid state");
    assert_eq!(
        *co_simulation(&mut back).tangential_answers,
        *co_simulation(&mut model).tangential_answers
    );
    for (index, bad) in [
        (TANGENTIAL_WINDOW_COUNT_SLOTS[2], 7.0),
        (TANGENTIAL_STEPS_SLOT, 1.5),
        (TANGENTIAL_STEPS_SLOT, 4.0),
        (TANGENTIAL_HOLDS_EARLIER_SLOT, -1.0),
        (TANGENTIAL_CANDIDATE_SLOT, -2.0),
        (TANGENTIAL_FLAG_SLOTS[0], 0.5),
        (TANGENTIAL_MISSES_SLOT, 4.0),
        (TANGENTIAL_ANSWERED_SLOT, 2.0),
        (TANGENTIAL_ANSWERED_BEFORE_SLOT, 0.5),
        (TANGENTIAL_MASS_SLOT, -1.0),
        (TANGENTIAL_LAST_H_SLOT, -1e-3),
    ] {
        let mut corrupt = bytes;
        let at = HEADER_SIZE + 8 * index;
        corrupt[at..at + 8].copy_from_slice(&f64::to_le_bytes(bad));
        assert!(
            read(&corrupt).unwrap_err().contains("corrupt"),
            "slot {index}"
        );
    }
}

/// The slots whose bytes differ once `change` is made to a fresh co-simulation state.
fn changed_slots(change: impl FnOnce(&mut ElastoGap)) -> Vec<usize> {
    let model = ElastoGap::new(Interface::CoSimulation, 0.0);
    let mut changed = model.clone();
    change(&mut changed);
    let (mut before, mut after) = ([0u8; SERIALIZED_SIZE], [0u8; SERIALIZED_SIZE]);
    write(&model, &mut before).expect("a finite state");
    write(&changed, &mut after).expect("a finite state");
    let at = |index: usize| HEADER_SIZE + 8 * index..HEADER_SIZE + 8 * index + 8;
    (0..FIELD_COUNT)
        .filter(|&index| before[at(index)] != after[at(index)])
        .collect()
}

#[test]
fn the_layout_takes_every_slot_and_the_named_slots_hold_their_fields() {
    let mut slots = 0;
    layout::visit(&mut ElastoGap::default(), &mut |_, _| slots += 1);
    assert_eq!(slots, FIELD_COUNT);
    let o = |change: fn(&mut ElastoGap)| changed_slots(change);
    assert_eq!(
        o(|m| m.interface = Interface::ModelExchange),
        [INTERFACE_SLOT]
    );
    assert_eq!(
        o(|m| *co_simulation(m).contact_latch = Some(false)),
        [CONTACT_LATCH_SLOT]
    );
    assert_eq!(
        o(|m| coupling(m).note_that_the_master_reads_next()),
        [F_NEXT_READ_SLOT]
    );
    let choices = [
        o(|m| m.parameters.options.force_law = 5),
        o(|m| m.parameters.options.hysteresis = 5),
        o(|m| m.parameters.options.recurdyn_damping = 5),
    ];
    assert_eq!(choices, CHOICE_SLOTS.map(|slot| vec![slot]));
    let friction = [
        o(|m| m.parameters.friction.law = 5),
        o(|m| m.parameters.friction.interpolation = 5),
    ];
    assert_eq!(friction, FRICTION_CHOICE_SLOTS.map(|slot| vec![slot]));
    let counts = [
        o(|m| co_simulation(m).tangential_answers.against_same[0].count = 1),
        o(|m| co_simulation(m).tangential_answers.against_same[1].count = 1),
        o(|m| co_simulation(m).tangential_answers.against_before[0].count = 1),
        o(|m| co_simulation(m).tangential_answers.against_before[1].count = 1),
    ];
    assert_eq!(counts, TANGENTIAL_WINDOW_COUNT_SLOTS.map(|slot| vec![slot]));
    let tangential = [
        o(|m| co_simulation(m).tangential_answers.last_h = 1.0),
        o(|m| co_simulation(m).tangential_answers.steps = 1),
        o(|m| co_simulation(m).tangential_answers.answered = true),
        o(|m| co_simulation(m).tangential_answers.answered_before = true),
        o(|m| co_simulation(m).tangential_answers.mass = 1.0),
        o(|m| co_simulation(m).tangential_answers.holds_earlier = true),
        o(|m| co_simulation(m).tangential_answers.candidate = 1.0),
        o(|m| co_simulation(m).tangential_answers.candidate_holds_earlier = true),
        o(|m| co_simulation(m).tangential_answers.misses = 1),
    ];
    let named = [
        TANGENTIAL_LAST_H_SLOT,
        TANGENTIAL_STEPS_SLOT,
        TANGENTIAL_ANSWERED_SLOT,
        TANGENTIAL_ANSWERED_BEFORE_SLOT,
        TANGENTIAL_MASS_SLOT,
        TANGENTIAL_HOLDS_EARLIER_SLOT,
        TANGENTIAL_CANDIDATE_SLOT,
        TANGENTIAL_FLAG_SLOTS[0],
        TANGENTIAL_MISSES_SLOT,
    ];
    assert_eq!(tangential, named.map(|slot| vec![slot]));
    // The prediction's presence flag comes first, then its two values.
    assert_eq!(
        o(|m| co_simulation(m).tangential_answers.predicted = Some([1.0, 2.0])),
        [TANGENTIAL_FLAG_SLOTS[1], 311, 312]
    );
}
