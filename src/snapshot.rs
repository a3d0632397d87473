//! The byte layout of a serialized FMU state. A fixed little-endian layout with a header, so that a
//! state written on one machine restores on another and any corrupt or foreign buffer is refused
//! instead of being trusted.

use crate::coupling::{AnswerWindow, Correction, Pace, Prediction, WINDOW};
use crate::laws::ForceLaw;
use crate::model::{ElastoGap, Interface, SuppliedAccelerations, VelocityHistory};
use crate::variables::{Var, VARIABLES};

const MAGIC: &[u8; 8] = b"EGAPFMU2";
/// 2: the interface and the contact at the last event (Model Exchange) were added.
/// 3: the effective mass, the tolerance and the co-simulation coupling (owed motion, external
/// acceleration history, contact episode, mass estimate, `f_next`) were added.
/// 4: whether the master reads `f_next` was added (the prediction is made when it is first read).
/// 5: the force law's choice and parameters, and the touch-down speed of the last contact.
/// 6: the Gap Force's parameters and the fingerprint of its tables; the friction's parameters,
/// the tangential velocity and the mean friction force of the last step.
/// 7: the port energy, the passivity controller's part of `f_next`, whether the episode's mass
/// disagreement was reported, and whether the correction is planned dead-beat; the flag of a
/// first contact to correct became that of a contact to replay with a newly adopted mass; the
/// origin of Model Exchange's port energy; whether the inputs were set, the initial motion
/// until the first step, the force the master held over the last step, and whether it reads
/// `f_mean`; whether an answer confirmed the mass, and whether the correction is robust.
/// 8: the correction's pace (in the slot of the dead-beat flag, 0 to 2), the correction plan
/// after the `f_next` made last, the probe without a mass (pending, unclear answers, the impulse
/// and dissipation it held back), the master's motion at the step before the last and the force
/// it held then, and the port energy had the master held `f_next`.
/// 9: whether `f_next` had been read before the last step, and what probes whose answer is
/// still to come held back.
/// 10: whether a clear answer told which force the master holds.
/// 11: the least mass the last probe's answer allowed (it sizes the next probe), and how far the
/// external acceleration's linear extrapolation missed the newest mean, and a probe's rough answer
/// waiting for confirmation (mass, doubt, force).
/// 12: whether the contact episode's external acceleration was measured, and an answer given
/// while none was known (force and velocity change per second), waiting for a second one.
/// 13: the master's last answers the mass is fitted to (times, positions, velocity changes per
/// second, forces, count), and the speed fuse's scale and the last free step's external
/// acceleration.
/// 14: the tangential plane: the slip velocity's and the mean tangential force's second
/// components (y; the x ones in the slots of format 13's v_t and f_t_mean), the friction's
/// stick-slip (maxStictionDeformation, Model Exchange's sticking and on-the-circle modes, the
/// deformation, the tangential port's account), and the Gap
/// Force's tangential dampers (d_x, d_y, n_x, n_y, preload_x, preload_y).
/// 15: the master's answers in the tangential plane (four windows: x and y against the step's
/// force and against the step before's; the last step's start, size and slip; the last three
/// steps' forces; the latest two velocity changes per second; the steps recorded; whether the
/// master answered the last step and the one before; the tangential mass they told, whether the
/// master holds the step before's force, a disagreeing fit waiting to be told again, the slip
/// the last step predicted, and the answers in a row that missed it).
/// 16: the mass the probes held so far take for granted, and the parameter `heldForce`.
const FORMAT_VERSION: u32 = 17;
/// Number of f64 slots after the header; `write_fields` and `read_fields` must agree on it.
const FIELD_COUNT: usize = 316;
/// The slots of the tangential answer windows' counts, of the steps recorded, of whether the
/// master answered the last step and the one before, of the last step's size, of the
/// tangential mass and of whether the master holds the step before's force.
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
/// The slots of the tables' fingerprint, its high and low 32 bits (0: no tables).
const FINGERPRINT_SLOTS: [usize; 2] = [93, 94];
/// The slot of the flag whether the master reads `f_next`.
const F_NEXT_READ_SLOT: usize = 78;
/// The slots of the law's three Enumeration choices: forceLaw, hysteresis, recurDynDamping.
const CHOICE_SLOTS: [usize; 3] = [79, 80, 85];
pub const SERIALIZED_SIZE: usize = MAGIC.len() + 4 + FIELD_COUNT * 8;
/// The bytes before the first slot: the magic and the format version.
pub const HEADER_SIZE: usize = MAGIC.len() + 4;
/// The slot that names the interface (1 for Model Exchange, 0 for co-simulation).
pub const INTERFACE_SLOT: usize = 34;

/// Visits a flag as 0 or 1.
fn visit_flag(visitor: &mut dyn FnMut(&mut f64), flag: &mut bool) {
    let mut value = f64::from(u8::from(*flag));
    visitor(&mut value);
    *flag = value != 0.0;
}

/// Visits a correction plan's shifts still to apply, their count and the offsets it expects.
fn visit_plan(visitor: &mut dyn FnMut(&mut f64), plan: &mut Correction) {
    for value in plan.remaining.iter_mut() {
        visitor(value);
    }
    let mut count = f64::from(plan.count);
    visitor(&mut count);
    plan.count = count as u32;
    visitor(&mut plan.expected.0);
    visitor(&mut plan.expected.1);
}

/// Visits a correction's pace as its code.
fn visit_pace(visitor: &mut dyn FnMut(&mut f64), pace: &mut Pace) {
    let mut code = pace.code();
    visitor(&mut code);
    *pace = Pace::from_code(code);
}

/// Visits every field of the state in the one order used for both writing and reading.
fn visit(model: &mut ElastoGap, visitor: &mut dyn FnMut(&mut f64)) {
    let flag = |present: bool| f64::from(u8::from(present));
    let p = &mut model.parameters;
    for value in [
        &mut p.spring.c,
        &mut p.spring.d,
        &mut p.spring.s_rel0,
        &mut p.spring.n,
        &mut p.spring.s_ref,
        &mut p.spring.f_ref,
        &mut p.max_substep_size,
    ] {
        visitor(value);
    }
    let mut use_heat_port = flag(p.use_heat_port);
    let mut max_substep_count = f64::from(p.max_substep_count);
    let mut acceleration_estimate = f64::from(p.acceleration_estimate);
    visitor(&mut use_heat_port);
    visitor(&mut max_substep_count);
    visitor(&mut acceleration_estimate);
    p.use_heat_port = use_heat_port != 0.0;
    p.max_substep_count = max_substep_count as i32;
    p.acceleration_estimate = acceleration_estimate as i32;

    let i = &mut model.inputs;
    for value in [&mut i.s_a, &mut i.v_a, &mut i.s_b, &mut i.v_b] {
        visitor(value);
    }

    let SuppliedAccelerations { a, b } = &mut model.supplied;
    for slot in [a, b] {
        let mut present = flag(slot.is_some());
        let mut value = slot.unwrap_or(0.0);
        visitor(&mut present);
        visitor(&mut value);
        *slot = (present != 0.0).then_some(value);
    }

    let VelocityHistory {
        len,
        time,
        v_a,
        v_b,
    } = &mut model.history;
    let mut length = *len as f64;
    visitor(&mut length);
    *len = length as usize;
    for value in time.iter_mut().chain(v_a.iter_mut()).chain(v_b.iter_mut()) {
        visitor(value);
    }

    visitor(&mut model.time);
    let mut has_end = flag(model.end_of_step.is_some());
    let mut end = model.end_of_step.unwrap_or_default();
    visitor(&mut has_end);
    visitor(&mut end.s);
    visitor(&mut end.v);
    visitor(&mut end.a);
    model.end_of_step = (has_end != 0.0).then_some(end);

    for value in [
        &mut model.f_mean,
        &mut model.e_loss,
        &mut model.q_flow_mean,
        &mut model.last_step_size,
    ] {
        visitor(value);
    }

    let mut model_exchange = flag(model.interface == Interface::ModelExchange);
    let mut contact_at_event = flag(model.contact_at_event);
    visitor(&mut model_exchange);
    visitor(&mut contact_at_event);
    model.interface = if model_exchange != 0.0 {
        Interface::ModelExchange
    } else {
        Interface::CoSimulation
    };
    model.contact_at_event = contact_at_event != 0.0;

    visitor(&mut model.parameters.m_eff);
    visitor(&mut model.parameters.relative_tolerance);
    let c = &mut model.coupling;
    for value in [
        &mut c.owed_s,
        &mut c.owed_v,
        &mut c.last.time,
        &mut c.last.s,
        &mut c.last.v,
        &mut c.last_h,
        &mut c.last_force,
        &mut c.last_contact_impulse,
    ] {
        visitor(value);
    }
    for value in c.a_ext_means.iter_mut().chain(c.a_ext_times.iter_mut()) {
        visitor(value);
    }
    let mut a_ext_count = c.a_ext_count as f64;
    visitor(&mut a_ext_count);
    c.a_ext_count = a_ext_count as usize;
    visit_flag(visitor, &mut c.episode.open);
    for value in [
        &mut c.episode.start.time,
        &mut c.episode.start.s,
        &mut c.episode.start.v,
        &mut c.episode.a_ext,
        &mut c.episode.impulse_if_mean,
        &mut c.mass_estimate,
    ] {
        visitor(value);
    }
    visit_flag(visitor, &mut c.replay_pending);
    // Written made (see `write`), read back as made.
    let mut f_next = match c.f_next {
        Prediction::Known(force) => force,
        _ => f64::NAN,
    };
    visitor(&mut f_next);
    c.f_next = Prediction::Known(f_next);
    visitor(&mut c.last_next);
    // -1 unknown, 0 f_mean, 1 f_next.
    let mut holds_next = match c.master_holds_next {
        None => -1.0,
        Some(next) => flag(next),
    };
    visitor(&mut holds_next);
    c.master_holds_next = (holds_next >= 0.0).then_some(holds_next != 0.0);
    visitor(&mut c.assumed_held);
    visitor(&mut c.last_estimate);
    let mut contact_steps = f64::from(c.episode.contact_steps);
    visitor(&mut contact_steps);
    c.episode.contact_steps = contact_steps as u32;
    visitor(&mut c.episode.impulse_if_next);
    visitor(&mut c.episode.dissipated);
    visitor(&mut c.last_dissipated);
    visit_plan(visitor, &mut c.correction);
    visitor(&mut c.step_estimate);
    let candidate = &mut c.candidate;
    for value in [
        &mut candidate.estimate,
        &mut candidate.a_ext_before,
        &mut candidate.duration,
        &mut candidate.answered,
    ] {
        visitor(value);
    }
    visit_flag(visitor, &mut c.f_next_read);

    let o = &mut model.parameters.options;
    let mut force_law = f64::from(o.force_law);
    let mut hysteresis = f64::from(o.hysteresis);
    visitor(&mut force_law);
    visitor(&mut hysteresis);
    for value in [&mut o.chi, &mut o.e, &mut o.v0_min, &mut o.d_max] {
        visitor(value);
    }
    let mut recurdyn_damping = f64::from(o.recurdyn_damping);
    visitor(&mut recurdyn_damping);
    visitor(&mut o.n_d);
    visitor(&mut o.rdf);
    o.force_law = force_law as i32;
    o.hysteresis = hysteresis as i32;
    o.recurdyn_damping = recurdyn_damping as i32;
    visitor(&mut model.touchdown_speed);
    for value in [
        &mut o.n_v,
        &mut o.preload,
        &mut o.range_min,
        &mut o.range_max,
    ] {
        visitor(value);
    }
    // The tables themselves are the instance's: a state names them by their fingerprint, which
    // `read` returns for the FMI layer to match.
    let fingerprint = model.tables.as_ref().map_or(0, |tables| tables.fingerprint);
    let mut high = (fingerprint >> 32) as f64;
    let mut low = (fingerprint & 0xffff_ffff) as f64;
    visitor(&mut high);
    visitor(&mut low);
    visitor(&mut model.inputs.v_t[0]);
    let friction = &mut model.parameters.friction;
    let mut law = f64::from(friction.law);
    let mut interpolation = f64::from(friction.interpolation);
    visitor(&mut law);
    visitor(&mut interpolation);
    friction.law = law as i32;
    friction.interpolation = interpolation as i32;
    for value in [
        &mut friction.mu_s,
        &mut friction.mu_d,
        &mut friction.v_s,
        &mut friction.v_d,
        &mut friction.f_t_max,
    ] {
        visitor(value);
    }
    visitor(&mut model.f_t_mean[0]);
    let c = &mut model.coupling;
    visitor(&mut c.e_port);
    visitor(&mut c.passivity_in_next);
    visit_flag(visitor, &mut c.disagreement_reported);
    visit_pace(visitor, &mut c.correction.pace);
    visitor(&mut model.port_origin);
    visit_flag(visitor, &mut model.inputs_set);
    let c = &mut model.coupling;
    let mut initial_present = flag(c.initial.is_some());
    let mut initial = c.initial.unwrap_or_default();
    visitor(&mut initial_present);
    visitor(&mut initial.time);
    visitor(&mut initial.s);
    visitor(&mut initial.v);
    c.initial = (initial_present != 0.0).then_some(initial);
    visitor(&mut c.last_held);
    visit_flag(visitor, &mut c.f_mean_read);
    visit_flag(visitor, &mut c.mass_confirmed);
    visit_flag(visitor, &mut c.correction.robust);
    visitor(&mut c.initial_energy);
    visitor(&mut c.model_loss);
    visit_plan(visitor, &mut c.f_next_continuation);
    visit_pace(visitor, &mut c.f_next_continuation.pace);
    visit_flag(visitor, &mut c.probe_pending);
    let mut unclear = f64::from(c.unclear_probes);
    visitor(&mut unclear);
    c.unclear_probes = unclear as u32;
    visitor(&mut c.probe_rest.0);
    visitor(&mut c.probe_rest.1);
    visitor(&mut c.before_last.time);
    visitor(&mut c.before_last.s);
    visitor(&mut c.before_last.v);
    visitor(&mut c.last_held_before);
    visitor(&mut c.e_port_if_next);
    visit_flag(visitor, &mut c.next_readable);
    visitor(&mut c.probe_rest_waiting.0);
    visitor(&mut c.probe_rest_waiting.1);
    visit_flag(visitor, &mut c.holds_next_settled);
    visitor(&mut c.probe_mass_floor);
    visitor(&mut c.a_ext_miss);
    visitor(&mut c.rough_answer.mass);
    visitor(&mut c.rough_answer.doubt);
    visitor(&mut c.rough_answer.force);
    visit_flag(visitor, &mut c.episode.a_ext_known);
    visitor(&mut c.unknown_answer.0);
    visitor(&mut c.unknown_answer.1);
    visitor(&mut c.spent);
    // The other slots of a window of answers no part of the model keeps any more: written as
    // zeros, read and dropped, so that the format's size stays.
    visit_window(visitor, &mut AnswerWindow::default(), 1);
    visitor(&mut c.passive_speed);
    visitor(&mut c.a_free);
    visitor(&mut model.inputs.v_t[1]);
    visitor(&mut model.f_t_mean[1]);
    visitor(&mut model.parameters.friction.max_stiction_deformation);
    visit_flag(visitor, &mut model.sticking_at_event);
    visit_flag(visitor, &mut model.on_stiction_circle);
    for value in model
        .stiction
        .iter_mut()
        .chain(model.tangential_account.iter_mut())
    {
        visitor(value);
    }
    let dampers = &mut model.parameters.gap_dampers;
    for value in dampers
        .d
        .iter_mut()
        .chain(dampers.n.iter_mut())
        .chain(dampers.preload.iter_mut())
    {
        visitor(value);
    }
    let answers = &mut model.tangential_answers;
    for window in answers
        .against_same
        .iter_mut()
        .chain(answers.against_before.iter_mut())
    {
        visit_window(visitor, window, 0);
    }
    visitor(&mut answers.last_time);
    visitor(&mut answers.last_h);
    for value in answers
        .last_v
        .iter_mut()
        .chain(answers.forces.iter_mut().flatten())
        .chain(answers.rate.iter_mut())
        .chain(answers.rate_before.iter_mut())
    {
        visitor(value);
    }
    let mut steps = answers.steps as f64;
    visitor(&mut steps);
    answers.steps = (steps as usize).min(3);
    visit_flag(visitor, &mut answers.answered);
    visit_flag(visitor, &mut answers.answered_before);
    visitor(&mut answers.mass);
    visit_flag(visitor, &mut answers.holds_earlier);
    visitor(&mut answers.candidate);
    visit_flag(visitor, &mut answers.candidate_holds_earlier);
    let mut predicted = answers.predicted.unwrap_or([0.0; 2]);
    let mut has_prediction = answers.predicted.is_some();
    visit_flag(visitor, &mut has_prediction);
    for value in predicted.iter_mut() {
        visitor(value);
    }
    answers.predicted = has_prediction.then_some(predicted);
    let mut misses = answers.misses as f64;
    visitor(&mut misses);
    answers.misses = (misses as usize).min(3);
    visitor(&mut model.coupling.probe_assumed_mass);
    let mut held_force = f64::from(model.parameters.held_force);
    visitor(&mut held_force);
    model.parameters.held_force = held_force as i32;
}

/// One window of the master's answers: its columns, then its count, less the first `skip`
/// slots (taken by fields that came after the window).
fn visit_window(visitor: &mut dyn FnMut(&mut f64), window: &mut AnswerWindow, skip: usize) {
    let columns = [
        &mut window.times,
        &mut window.positions,
        &mut window.rates,
        &mut window.forces,
    ];
    for value in columns
        .into_iter()
        .flat_map(|column| column.iter_mut())
        .skip(skip)
    {
        visitor(value);
    }
    let mut count = window.count as f64;
    visitor(&mut count);
    window.count = (count as usize).min(WINDOW);
}

/// Writes the state; a prediction of `f_next` still to be made is made for it. Refused if that
/// prediction is not finite (the state could not be read back).
pub fn write(model: &ElastoGap, out: &mut [u8; SERIALIZED_SIZE]) -> Result<(), String> {
    let mut copy = model.clone();
    let limits = copy.substep_limits();
    let tables = copy.tables.clone();
    let law = copy.law_with(tables.as_deref());
    copy.tell_held_force();
    let (least_mass, held) = (copy.least_mass(), copy.coupling.next_held());
    let f_next = copy.coupling.make_f_next(&law, limits, least_mass, held);
    if !f_next.is_finite() {
        return Err(format!(
            "the state's predicted f_next = {f_next} is not finite, so the state cannot be serialized; the parameters or the motion are out of the law's numeric range"
        ));
    }
    out[..MAGIC.len()].copy_from_slice(MAGIC);
    out[MAGIC.len()..MAGIC.len() + 4].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
    let mut offset = MAGIC.len() + 4;
    let mut count = 0;
    visit(&mut copy, &mut |value| {
        out[offset..offset + 8].copy_from_slice(&value.to_le_bytes());
        offset += 8;
        count += 1;
    });
    debug_assert_eq!(count, FIELD_COUNT);
    Ok(())
}

/// The state, and the fingerprint of the Gap Force tables it was taken with (0: none); the
/// caller attaches the tables.
pub fn read(bytes: &[u8]) -> Result<(ElastoGap, u64), String> {
    if bytes.len() != SERIALIZED_SIZE {
        return Err(format!(
            "the buffer holds {} bytes; a serialized ElastoGap state has {SERIALIZED_SIZE}",
            bytes.len()
        ));
    }
    if &bytes[..MAGIC.len()] != MAGIC {
        return Err("the buffer is not a serialized ElastoGap state (wrong header)".into());
    }
    let version = u32::from_le_bytes(
        bytes[MAGIC.len()..MAGIC.len() + 4]
            .try_into()
            .expect("4 bytes"),
    );
    if version != FORMAT_VERSION {
        return Err(format!(
            "serialized state format {version} is not supported (this FMU writes and reads format {FORMAT_VERSION} only; a state from another version of the FMU cannot be restored)"
        ));
    }
    let mut values = [0.0f64; FIELD_COUNT];
    for (k, chunk) in bytes[MAGIC.len() + 4..].chunks_exact(8).enumerate() {
        values[k] = f64::from_le_bytes(chunk.try_into().expect("8 bytes"));
    }
    // Flags, counts and enumerations must be exact small integers before they are cast.
    let mut model = ElastoGap::default();
    let mut next = 0;
    let mut malformed = false;
    visit(&mut model, &mut |slot| {
        *slot = values[next];
        next += 1;
    });
    let mut check_integer_slot = |index: usize, lo: f64, hi: f64| {
        let v = values[index];
        if !(v >= lo && v <= hi && v.fract() == 0.0) {
            malformed = true;
        }
    };
    check_integer_slot(7, 0.0, 1.0); // useHeatPort
                                     // Integer parameters: only integrality here; their range is the table's rule, checked below.
    let any_i32 = (f64::from(i32::MIN), f64::from(i32::MAX));
    check_integer_slot(8, any_i32.0, any_i32.1); // maxSubstepCount
    check_integer_slot(9, any_i32.0, any_i32.1); // accelerationEstimate
    check_integer_slot(FIELD_COUNT - 1, any_i32.0, any_i32.1); // heldForce
    check_integer_slot(14, 0.0, 1.0); // supplied a present
    check_integer_slot(16, 0.0, 1.0); // supplied b present
    check_integer_slot(18, 0.0, 2.0); // history length
    check_integer_slot(26, 0.0, 1.0); // end-of-step present
    check_integer_slot(INTERFACE_SLOT, 0.0, 1.0);
    check_integer_slot(35, 0.0, 1.0); // contact at the last event
    check_integer_slot(50, 0.0, 2.0); // external accelerations known
    check_integer_slot(51, 0.0, 1.0); // contact episode open
    check_integer_slot(58, 0.0, 1.0); // a contact to replay with a new mass
    check_integer_slot(106, 0.0, 1.0); // the episode's mass disagreement reported
    check_integer_slot(107, 0.0, 2.0); // the correction's pace
    check_integer_slot(109, 0.0, 1.0); // flange inputs set
    check_integer_slot(110, 0.0, 1.0); // initial motion present
    check_integer_slot(115, 0.0, 1.0); // f_mean read
    check_integer_slot(116, 0.0, 1.0); // mass confirmed
    check_integer_slot(117, 0.0, 1.0); // robust correction
    check_integer_slot(122, 0.0, 2.0); // steps of the correction after f_next
    check_integer_slot(125, 0.0, 2.0); // its pace
    check_integer_slot(126, 0.0, 1.0); // a probe's answer pending
    check_integer_slot(127, 0.0, f64::from(u32::MAX)); // unclear probes
    check_integer_slot(135, 0.0, 1.0); // f_next read before the last step
    check_integer_slot(138, 0.0, 1.0); // which force the master holds, settled
    check_integer_slot(144, 0.0, 1.0); // the episode's external acceleration measured
    check_integer_slot(61, -1.0, 1.0); // which force the master holds
    check_integer_slot(64, 0.0, f64::from(u32::MAX)); // steps of the contact episode
    check_integer_slot(70, 0.0, 2.0); // correction steps remaining
    check_integer_slot(F_NEXT_READ_SLOT, 0.0, 1.0);
    for slot in CHOICE_SLOTS {
        check_integer_slot(slot, any_i32.0, any_i32.1);
    }
    for slot in FRICTION_CHOICE_SLOTS {
        check_integer_slot(slot, any_i32.0, any_i32.1);
    }
    for slot in FINGERPRINT_SLOTS {
        check_integer_slot(slot, 0.0, f64::from(u32::MAX));
    }
    for slot in TANGENTIAL_WINDOW_COUNT_SLOTS {
        check_integer_slot(slot, 0.0, WINDOW as f64);
    }
    check_integer_slot(TANGENTIAL_STEPS_SLOT, 0.0, 3.0);
    check_integer_slot(TANGENTIAL_HOLDS_EARLIER_SLOT, 0.0, 1.0);
    for slot in TANGENTIAL_FLAG_SLOTS {
        check_integer_slot(slot, 0.0, 1.0);
    }
    check_integer_slot(TANGENTIAL_MISSES_SLOT, 0.0, 3.0);
    check_integer_slot(TANGENTIAL_ANSWERED_SLOT, 0.0, 1.0);
    check_integer_slot(TANGENTIAL_ANSWERED_BEFORE_SLOT, 0.0, 1.0);
    // A step's size and a mass are never negative.
    if values[TANGENTIAL_LAST_H_SLOT] < 0.0
        || values[TANGENTIAL_MASS_SLOT] < 0.0
        || values[TANGENTIAL_CANDIDATE_SLOT] < 0.0
    {
        malformed = true;
    }
    // Mass estimates are never negative, and an adopted one (57) was published (63) first.
    if !(values[57] >= 0.0 && values[63] >= 0.0) || (values[57] > 0.0 && values[63] == 0.0) {
        malformed = true;
    }
    // So are a single step's estimate (73) and one waiting to be adopted (74), and the latter
    // was published (63) when it was made: adopted from a corrupt state, an unpublished one
    // would couple the step through a mass no output shows (found by fuzz/deserialize_state).
    if !(values[73] >= 0.0 && values[74] >= 0.0) || (values[74] > 0.0 && values[63] == 0.0) {
        malformed = true;
    }
    // What a probe held back is the contact's own impulse and dissipation: a force its law can
    // give, and energy dissipated, not returned (found by fuzz/deserialize_state: a pulling
    // rest under ElastoGap was delivered as a pulling f_mean).
    let may_pull =
        ForceLaw::from_index(values[CHOICE_SLOTS[0]] as i32).is_none_or(ForceLaw::may_pull);
    for (impulse, dissipated) in [(values[128], values[129]), (values[136], values[137])] {
        if dissipated < 0.0 || (impulse > 0.0 && !may_pull) {
            malformed = true;
        }
    }
    // A least mass is a mass, and a miss a distance: never negative.
    if values[139] < 0.0 || values[140] < 0.0 || values[141] < 0.0 || values[142] < 0.0 {
        malformed = true;
    }
    if malformed || values.iter().any(|v| !v.is_finite()) {
        return Err(
            "the serialized state is corrupt (a value is out of range or not finite)".into(),
        );
    }
    for variable in VARIABLES {
        if matches!(
            variable.var,
            Var::FlangeAS | Var::FlangeAV | Var::FlangeBS | Var::FlangeBV | Var::VTx | Var::VTy
        ) || variable.causality == crate::variables::Causality::Parameter
        {
            model
                .check(variable.var)
                .map_err(|violation| format!("the serialized state is corrupt: {violation}"))?;
        }
    }
    model
        .check_parameter_relations()
        .map_err(|violation| format!("the serialized state is corrupt: {violation}"))?;
    // The stiction deformation lies in its circle (0 without stick-slip), and the tangential
    // port dissipated no more than it received: restored outside, the next event would move the
    // state where no motion took it (found by fuzz/deserialize_state).
    let delta = model.parameters.friction.max_stiction_deformation;
    let [received, dissipated] = model.tangential_account;
    let deformation = crate::laws::slip_speed(model.stiction);
    if deformation > delta * (1.0 + 1e-9) || dissipated < 0.0 || dissipated > received {
        return Err(
            "the serialized state is corrupt (the stiction deformation lies outside its circle, or the tangential port's account is not one)".into(),
        );
    }
    let fingerprint =
        ((values[FINGERPRINT_SLOTS[0]] as u64) << 32) | values[FINGERPRINT_SLOTS[1]] as u64;
    Ok((model, fingerprint))
}

#[cfg(test)]
mod tests {
    use super::*;

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
            model.coupling.f_next,
            Prediction::Kinematic { .. }
        ));
        let limits = model.substep_limits();
        let law = model.law_with(None);
        let (least_mass, held) = (model.least_mass(), model.coupling.next_held());
        model.coupling.make_f_next(&law, limits, least_mass, held);
        assert_eq!(back, model);

        let mut truncated = bytes.to_vec();
        truncated.pop();
        assert!(read(&truncated).is_err());
        let mut bad_flag = bytes;
        bad_flag[12 + 7 * 8..12 + 8 * 8].copy_from_slice(&0.5f64.to_le_bytes());
        assert!(read(&bad_flag).is_err());
        let mut unpublished_candidate = model.clone();
        unpublished_candidate.coupling.candidate.estimate = 2.0;
        unpublished_candidate.coupling.last_estimate = 0.0;
        let mut candidate_bytes = [0u8; SERIALIZED_SIZE];
        write(&unpublished_candidate, &mut candidate_bytes).expect("a finite state");
        assert!(read(&candidate_bytes).is_err());
        unpublished_candidate.coupling.last_estimate = 2.0;
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
        // Without stick-slip the deformation is 0 (a state the fuzzer wrote had 1e-3).
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
        model.tangential_account = [1.0, 2.0];
        write(&model, &mut bytes).expect("a finite state");
        assert!(read(&bytes).is_err());
    }

    #[test]
    fn the_tangential_answers_round_trip_and_their_counts_and_mass_are_checked() {
        let mut model = ElastoGap::new(Interface::CoSimulation, 0.0);
        let answers = &mut model.tangential_answers;
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
        let (back, _) = read(&bytes).expect("valid state");
        assert_eq!(back.tangential_answers, model.tangential_answers);
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
}
