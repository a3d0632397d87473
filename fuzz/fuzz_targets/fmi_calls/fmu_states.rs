//! FMU states: got, set and freed through the harness's state variables (valid, freed, foreign
//! or NULL), their serialized size, serialization, and deserialization of damaged buffers.

use elastogap::fmi2::*;
use elastogap_fuzz::OK;
use fmi_sys::fmi2::fmi2Byte;

use super::{Call, Harness, Serialized, StateSlot};

impl Harness {
    /// Runs fmi2GetFMUstate, fmi2SetFMUstate, fmi2FreeFMUstate, fmi2SerializedFMUstateSize or
    /// fmi2SerializeFMUstate.
    pub(super) fn fmu_state(&mut self, call: &Call) {
        let instance = self.instance().expect("checked by the caller");
        match call {
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
            _ => unreachable!("not an FMU state call"),
        }
    }

    /// [`Call::DeSerializeFMUstate`]: deserializes `source` into the state variable `slot`.
    pub(super) fn deserialize_fmu_state(&mut self, source: &Serialized, slot: StateSlot) {
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
        let p = self.state_pointer(slot);
        let instance = self.instance().expect("checked");
        instance.call("fmi2DeSerializeFMUstate", |c| unsafe {
            fmi2DeSerializeFMUstate(c, data, size, p)
        });
    }
}
