//! Getting, setting and serializing the FMU state: a snapshot is a boxed copy of the model, handed
//! to the importer as its pointer; the serialized format is `crate::snapshot`'s.

use std::ffi::c_void;

use super::arguments::{slice, slice_mut};
use super::{error, interface_name, Failure, Instance, Outcome, Standard, StateMachine};
use crate::model::ElastoGap;
use crate::snapshot;

impl<S: Standard> Instance<S> {
    fn owns_snapshot(&self, snapshot: *mut ElastoGap) -> bool {
        self.snapshots.contains(&snapshot)
    }

    /// The snapshot `state` points to, if this instance handed it out and it is not freed.
    fn owned(&self, state: *mut c_void) -> Result<*mut ElastoGap, Failure> {
        let snapshot = state.cast::<ElastoGap>();
        if self.owns_snapshot(snapshot) {
            return Ok(snapshot);
        }
        Err(error(format!(
            "{} is not a state of this instance (NULL, freed or foreign)",
            S::FMU_STATE
        )))
    }

    /// Stores `model` into the importer's FMU state variable: a new snapshot for NULL, or over
    /// one this instance handed out.
    fn store(&mut self, state: *mut *mut c_void, model: ElastoGap) -> Outcome {
        if state.is_null() {
            return Err(error(format!("{} is NULL", S::FMU_STATE)));
        }
        // SAFETY: non-NULL pointer to the importer's FMU state variable.
        let existing = unsafe { *state }.cast::<ElastoGap>();
        if existing.is_null() {
            let snapshot = Box::into_raw(Box::new(model));
            self.snapshots.push(snapshot);
            // SAFETY: as above.
            unsafe { *state = snapshot.cast() };
        } else if self.owns_snapshot(existing) {
            // SAFETY: a live snapshot of this instance.
            unsafe { *existing = model };
        } else {
            return Err(error(format!(
                "*{} is neither NULL nor a state of this instance",
                S::FMU_STATE
            )));
        }
        Ok(())
    }

    pub fn get_fmu_state(&mut self, state: *mut *mut c_void) -> Outcome {
        self.store(state, self.model.clone())
    }

    pub fn set_fmu_state(&mut self, state: *mut c_void) -> Outcome {
        let snapshot = self.owned(state)?;
        // SAFETY: a live snapshot of this instance.
        let mut model = unsafe { (*snapshot).clone() };
        self.check_same_interface(&model)?;
        let resumed_state = if self.state == S::State::ERROR {
            self.state_before_error
        } else {
            self.state
        };
        // A state taken before initialization ended holds parameters that were never checked;
        // once they are in effect, restoring it must not bypass their rules.
        let parameters_in_effect =
            resumed_state != S::State::INSTANTIATED && resumed_state != S::State::INITIALIZATION;
        if parameters_in_effect {
            model.check_parameters().map_err(|violation| {
                error(format!(
                    "the state holds {violation}; it was taken before initialization checked the parameters"
                ))
            })?;
            if model.tables.is_none() {
                model.tables = self
                    .table_file
                    .load(model.parameters.options.force_law)
                    .map_err(error)?;
            }
        }
        self.model = model;
        self.state = resumed_state;
        Ok(())
    }

    pub fn free_fmu_state(&mut self, state: *mut *mut c_void) -> Outcome {
        if state.is_null() {
            return Ok(());
        }
        // SAFETY: non-NULL pointer to the importer's FMU state variable.
        let snapshot = unsafe { *state }.cast::<ElastoGap>();
        if snapshot.is_null() {
            return Ok(());
        }
        let Some(position) = self.snapshots.iter().position(|s| *s == snapshot) else {
            return Err(error(format!(
                "*{} is not a state of this instance (freed or foreign)",
                S::FMU_STATE
            )));
        };
        self.snapshots.swap_remove(position);
        // SAFETY: it was in the list, so it came from Box::into_raw and is freed only here.
        drop(unsafe { Box::from_raw(snapshot) });
        // SAFETY: as above.
        unsafe { *state = std::ptr::null_mut() };
        Ok(())
    }

    pub fn serialized_size(&self, state: *mut c_void, size: *mut usize) -> Outcome {
        self.owned(state)?;
        let size = slice_mut(size, 1, "size")?;
        size[0] = snapshot::SERIALIZED_SIZE;
        Ok(())
    }

    pub fn serialize(&self, state: *mut c_void, bytes: *mut u8, size: usize) -> Outcome {
        let state = self.owned(state)?;
        if size != snapshot::SERIALIZED_SIZE {
            return Err(error(format!(
                "size = {size}, but {} gives {}",
                S::SERIALIZED_SIZE,
                snapshot::SERIALIZED_SIZE
            )));
        }
        let target = slice_mut(bytes, size, "serializedState")?;
        let mut serialized = [0u8; snapshot::SERIALIZED_SIZE];
        // SAFETY: a live snapshot of this instance.
        snapshot::write(unsafe { &*state }, &mut serialized).map_err(error)?;
        target.copy_from_slice(&serialized);
        Ok(())
    }

    pub fn deserialize(
        &mut self,
        bytes: *const u8,
        size: usize,
        state: *mut *mut c_void,
    ) -> Outcome {
        if state.is_null() {
            return Err(error(format!("{} is NULL", S::FMU_STATE)));
        }
        let bytes = slice(bytes, size, "serializedState")?;
        let (mut model, fingerprint) = snapshot::read(bytes).map_err(error)?;
        self.check_same_interface(&model)?;
        if model.stopped_at_a_switch() && !S::RETURNS_EARLY {
            return Err(error(format!(
                "the serialized state is corrupt: it holds the contact flag latched at a switch where a step returned early, and no {} step returns early",
                S::NAME
            )));
        }
        model.tables = self.tables_for_state(&model, fingerprint)?;
        self.store(state, model)
    }

    /// A state is restored only into an instance of the interface it was taken from: the
    /// outputs mean different things in each.
    fn check_same_interface(&self, model: &ElastoGap) -> Outcome {
        if model.interface == self.interface() {
            return Ok(());
        }
        Err(error(format!(
            "the state was taken from a {} instance; this instance was instantiated for {}",
            interface_name(model.interface),
            interface_name(self.interface())
        )))
    }
}
