//! Serialized FMU states damaged the ways the bad-input tables' rows name, the same for both FMI
//! versions (their layers share `crate::snapshot`'s format): each takes the bytes a running
//! instance serialized and returns them changed. `damaged_state_cases!` makes the table cases of
//! those both versions refuse.

/// Offset of the f64 slot of `c` in a serialized state: after the 8-byte magic and the 4-byte
/// format version, `c` is the first slot.
const C_SLOT: usize = 12;

pub fn one_byte_short(mut bytes: Vec<u8>) -> Vec<u8> {
    bytes.pop();
    bytes
}

pub fn wrong_magic(mut bytes: Vec<u8>) -> Vec<u8> {
    bytes[..8].copy_from_slice(b"NOTAGAP!");
    bytes
}

pub fn next_format_version(mut bytes: Vec<u8>) -> Vec<u8> {
    let version = u32::from_le_bytes(bytes[8..12].try_into().unwrap());
    bytes[8..12].copy_from_slice(&(version + 1).to_le_bytes());
    bytes
}

pub fn nan_in_a_slot(mut bytes: Vec<u8>) -> Vec<u8> {
    let last = bytes.len() - 8;
    bytes[last..].copy_from_slice(&f64::NAN.to_le_bytes());
    bytes
}

/// A probe's held-back impulse that pulls, under ElastoGap (which never pulls).
pub fn pulling_probe_rest(mut bytes: Vec<u8>) -> Vec<u8> {
    let at = elastogap::snapshot::HEADER_SIZE + 8 * 128;
    bytes[at..at + 8].copy_from_slice(&1e-300f64.to_le_bytes());
    bytes
}

/// The heat port's mean flow (slot 32) into the gap, of an instance without the heat port.
pub fn heat_flowing_in(mut bytes: Vec<u8>) -> Vec<u8> {
    let at = elastogap::snapshot::HEADER_SIZE + 8 * 32;
    bytes[at..at + 8].copy_from_slice(&1e-300f64.to_le_bytes());
    bytes
}

/// `contact` latched false at a switch, as only a step that returns early leaves it.
pub fn latched_contact(mut bytes: Vec<u8>) -> Vec<u8> {
    let at = elastogap::snapshot::HEADER_SIZE + 8 * elastogap::snapshot::CONTACT_LATCH_SLOT;
    bytes[at..at + 8].copy_from_slice(&1.0f64.to_le_bytes());
    bytes
}

pub fn negative_c(mut bytes: Vec<u8>) -> Vec<u8> {
    bytes[C_SLOT..C_SLOT + 8].copy_from_slice(&(-1.0f64).to_le_bytes());
    bytes
}

/// The cases, `(table key, case)`, of the damaged states both FMI versions refuse, in a bad-input
/// harness: each calls that harness's own `call`, `instantiated` and `deserialize_damaged`.
macro_rules! damaged_state_cases {
    () => {
        [
            ("deserialize-truncated", |fmu| {
                call(fmu, instantiated, |i| {
                    deserialize_damaged(i, one_byte_short)
                })
            }),
            ("deserialize-wrong-header", |fmu| {
                call(fmu, instantiated, |i| deserialize_damaged(i, wrong_magic))
            }),
            ("deserialize-wrong-version", |fmu| {
                call(fmu, instantiated, |i| {
                    deserialize_damaged(i, next_format_version)
                })
            }),
            ("deserialize-non-finite", |fmu| {
                call(fmu, instantiated, |i| deserialize_damaged(i, nan_in_a_slot))
            }),
            ("deserialize-pulling-probe-rest", |fmu| {
                call(fmu, instantiated, |i| {
                    deserialize_damaged(i, pulling_probe_rest)
                })
            }),
            ("deserialize-heat-flowing-in", |fmu| {
                call(fmu, instantiated, |i| {
                    deserialize_damaged(i, heat_flowing_in)
                })
            }),
            ("deserialize-invalid-parameter", |fmu| {
                call(fmu, instantiated, |i| deserialize_damaged(i, negative_c))
            }),
        ]
    };
}
pub(crate) use damaged_state_cases;
