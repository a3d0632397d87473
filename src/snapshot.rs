//! The byte layout of a serialized FMU state. A fixed little-endian layout with a header, so that a
//! state written on one machine restores on another and any corrupt or foreign buffer is refused
//! instead of being trusted.
//!
//! The header is the magic and the format version; the slots after it are the fields of the state
//! in the order `layout` describes. `read` trusts nothing: every slot must satisfy its layout
//! rule, the fields together the rules a running instance keeps (published masses, the force
//! law's sign, the variable table's ranges, the stiction circle), or the state is refused.

mod layout;
#[cfg(test)]
mod tests;

use crate::laws::ForceLaw;
use crate::model::ElastoGap;
use crate::variables::{Var, VARIABLES};
use layout::{visit, FIELD_COUNT, FINGERPRINT_SLOTS};
pub use layout::{CONTACT_LATCH_SLOT, INTERFACE_SLOT};

const MAGIC: &[u8; 8] = b"EGAPFMU2";
/// The version of the format `layout` describes: the header, then one `f64` per slot in its
/// order. This FMU writes and reads this format only; a buffer of any other version is refused.
const FORMAT_VERSION: u32 = 27;
pub const SERIALIZED_SIZE: usize = MAGIC.len() + 4 + FIELD_COUNT * 8;
/// The bytes before the first slot: the magic and the format version.
pub const HEADER_SIZE: usize = MAGIC.len() + 4;

/// Writes the state; a prediction of `f_next` still to be made is made for it. Refused if that
/// prediction is not finite (the state could not be read back).
pub fn write(model: &ElastoGap, out: &mut [u8; SERIALIZED_SIZE]) -> Result<(), String> {
    let mut copy = model.clone();
    let f_next = copy.make_f_next();
    if !f_next.is_finite() {
        return Err(format!(
            "the state's predicted f_next = {f_next} is not finite, so the state cannot be serialized; the parameters or the motion are out of the law's numeric range"
        ));
    }
    out[..MAGIC.len()].copy_from_slice(MAGIC);
    out[MAGIC.len()..MAGIC.len() + 4].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
    let mut offset = MAGIC.len() + 4;
    let mut count = 0;
    visit(&mut copy, &mut |value, _| {
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
    check_header(bytes)?;
    let values = slots(bytes);
    let model = restore(&values)
        .filter(coupling_is_consistent)
        .filter(heat_flow_is_a_steps)
        .ok_or("the serialized state is corrupt (a value is out of range or not finite)")?;
    check_variables(&model)?;
    check_stiction(&model)?;
    let fingerprint =
        ((values[FINGERPRINT_SLOTS[0]] as u64) << 32) | values[FINGERPRINT_SLOTS[1]] as u64;
    Ok((model, fingerprint))
}

/// The buffer's size, magic and format version.
fn check_header(bytes: &[u8]) -> Result<(), String> {
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
    Ok(())
}

/// The slots after the header of a buffer of the serialized size.
fn slots(bytes: &[u8]) -> [f64; FIELD_COUNT] {
    let mut values = [0.0f64; FIELD_COUNT];
    for (k, chunk) in bytes[HEADER_SIZE..].chunks_exact(8).enumerate() {
        values[k] = f64::from_le_bytes(chunk.try_into().expect("8 bytes"));
    }
    values
}

/// The state the slots describe, if every slot is finite and keeps its layout rule (flags,
/// counts and enumerations are exact small integers before they are cast).
fn restore(values: &[f64; FIELD_COUNT]) -> Option<ElastoGap> {
    let mut model = ElastoGap::default();
    let mut next = 0;
    let mut admitted = true;
    visit(&mut model, &mut |slot, rule| {
        let value = values[next];
        admitted &= rule.admits(value);
        *slot = value;
        next += 1;
    });
    admitted.then_some(model)
}

/// The rules between the coupling's fields that a running instance keeps
/// ([`crate::coupling::Coupling::keeps_its_rules`]). What a probe held back is the contact's own
/// impulse: a force its law can give, so whether the law may pull.
fn coupling_is_consistent(model: &ElastoGap) -> bool {
    let may_pull =
        ForceLaw::from_index(model.parameters.options.force_law).is_none_or(ForceLaw::may_pull);
    model.coupling_keeps_its_rules(may_pull)
}

/// The heat port's mean flow is what a step leaves: heat only leaves the gap, and none without
/// the heat port; it is an output from the restore on (fuzz/deserialize_state feeds `read`
/// states that break this).
fn heat_flow_is_a_steps(model: &ElastoGap) -> bool {
    let q = model.heat_flow_mean();
    q <= 0.0 && (model.parameters.use_heat_port || q == 0.0)
}

/// The inputs and parameters each keep their variable's rule, and the parameters their rules
/// between them.
fn check_variables(model: &ElastoGap) -> Result<(), String> {
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
        .map_err(|violation| format!("the serialized state is corrupt: {violation}"))
}

/// The stiction deformation lies in its circle (0 without stick-slip), and the tangential port
/// dissipated no more than it received: restored outside, the next event would move the state
/// where no motion took it (fuzz/deserialize_state feeds `read` such states).
fn check_stiction(model: &ElastoGap) -> Result<(), String> {
    let delta = model.parameters.friction.max_stiction_deformation;
    let [received, dissipated] = model.tangential_port_account();
    let deformation = crate::laws::slip_speed(model.stiction);
    if deformation > delta * (1.0 + 1e-9) || dissipated < 0.0 || dissipated > received {
        return Err(
            "the serialized state is corrupt (the stiction deformation lies outside its circle, or the tangential port's account is not one)".into(),
        );
    }
    Ok(())
}
