//! The coupling's fields as the FMU state's layout names them (`src/snapshot/layout.rs`): the
//! one way to them past the coupling's methods, so that the layout's single list of the
//! instance's fields can write and read them where it places them. Nothing but the serialized
//! state takes this view; a step asks and tells the coupling through its methods.

use super::{Correction, Coupling, Observed, Prediction};

/// Generates the view `$view` of an owner's fields for the serialized state, one mutable
/// reference per line `name: type = place` (a path of fields in the owner), and the owner's
/// method `serialized`, which borrows each from its place. The instance's parts
/// (`src/model/parts.rs`) give their views the same way.
macro_rules! serialized_view {
    (
        $(#[$doc:meta])*
        $view:ident for $owner:ty {
            $($name:ident: $type:ty = $($place:ident).+,)*
        }
    ) => {
        $(#[$doc])*
        pub struct $view<'c> {
            $(pub $name: &'c mut $type,)*
        }

        impl $owner {
            /// The view of the fields the serialized state keeps, for `src/snapshot/layout.rs`
            /// only.
            pub(crate) fn serialized(&mut self) -> $view<'_> {
                $view {
                    $($name: &mut self.$($place).+,)*
                }
            }
        }
    };
}
pub(crate) use serialized_view;

serialized_view! {
    /// Every field of the coupling the serialized state keeps (the contact episode's, the
    /// candidate's, the rough answer's and the last answers' flattened), for the layout to visit
    /// in its order. Not kept: `held_told`, set from the parameter `heldForce` before every use,
    /// and `ignore_answers`, told before every step.
    Serialized for Coupling {
        owed_s: f64 = owed_s,
        owed_v: f64 = owed_v,
        correction: Correction = correction,
        last: Observed = last,
        last_h: f64 = last_h,
        last_force: f64 = last_force,
        last_contact_impulse: f64 = last_contact_impulse,
        last_dissipated: f64 = last_dissipated,
        last_next: f64 = last_next,
        master_holds_next: Option<bool> = master_holds_next,
        holds_next_settled: bool = holds_next_settled,
        assumed_held: f64 = assumed_held,
        step_estimate: f64 = step_estimate,
        candidate_estimate: f64 = candidate.estimate,
        candidate_a_ext_before: f64 = candidate.a_ext_before,
        candidate_duration: f64 = candidate.duration,
        candidate_answered: f64 = candidate.answered,
        a_ext_means: [f64; 2] = a_ext_means,
        a_ext_times: [f64; 2] = a_ext_times,
        a_ext_count: usize = a_ext_count,
        episode_open: bool = episode.open,
        episode_start: Observed = episode.start,
        episode_a_ext: f64 = episode.a_ext,
        episode_impulse_if_mean: f64 = episode.impulse_if_mean,
        episode_impulse_if_next: f64 = episode.impulse_if_next,
        episode_dissipated: f64 = episode.dissipated,
        episode_contact_steps: u32 = episode.contact_steps,
        episode_a_ext_known: bool = episode.a_ext_known,
        episode_a_ext_trend: f64 = episode.a_ext_trend,
        episode_a_ext_trend_known: bool = episode.a_ext_trend_known,
        mass_estimate: f64 = mass_estimate,
        last_estimate: f64 = last_estimate,
        replay_pending: bool = replay_pending,
        e_port: f64 = e_port,
        e_port_if_next: f64 = e_port_if_next,
        e_port_if_late: f64 = e_port_if_late,
        mean_held_late: bool = mean_held_late,
        passivity_in_next: f64 = passivity_in_next,
        last_held: f64 = last_held,
        initial_energy: f64 = initial_energy,
        spent: f64 = spent,
        model_loss: f64 = model_loss,
        initial: Option<Observed> = initial,
        mass_confirmed: bool = mass_confirmed,
        disagreement_reported: bool = disagreement_reported,
        f_next: Prediction = f_next,
        f_next_read: bool = f_next_read,
        f_mean_read: bool = f_mean_read,
        f_next_continuation: Correction = f_next_continuation,
        probe_pending: bool = probe_pending,
        unclear_probes: u32 = unclear_probes,
        before_last: Observed = before_last,
        last_held_before: f64 = last_held_before,
        probe_rest: (f64, f64) = probe_rest,
        probe_rest_waiting: (f64, f64) = probe_rest_waiting,
        next_readable: bool = next_readable,
        probe_mass_floor: f64 = probe_mass_floor,
        probe_assumed_mass: f64 = probe_assumed_mass,
        grazed: bool = grazed,
        grazed_before_last: bool = grazed_before_last,
        motion_prescribed: bool = motion_prescribed,
        last_probed: Option<f64> = last_probed,
        mean_before_last: f64 = mean_before_last,
        silently_answered: f64 = silently_answered,
        late_or_next_undecided: bool = late_or_next_undecided,
        late_suspected: bool = late_suspected,
        last_answers: [[f64; 4]; 3] = last_answers.answers,
        last_answers_count: u32 = last_answers.count,
        port_work_held_back: f64 = port_work_held_back,
        a_ext_miss: f64 = a_ext_miss,
        a_ext_positions: [f64; 2] = a_ext_positions,
        a_ext_miss_position: f64 = a_ext_miss_position,
        rough_answer_mass: f64 = rough_answer.mass,
        rough_answer_doubt: f64 = rough_answer.doubt,
        rough_answer_force: f64 = rough_answer.force,
        unknown_answer: (f64, f64) = unknown_answer,
        passive_speed: f64 = passive_speed,
        a_free: f64 = a_free,
        a_free_known: bool = a_free_known,
        cut_unread: bool = cut_unread,
        told_which_force_to_name: bool = told_which_force_to_name,
        a_doubt: f64 = a_doubt,
    }
}

impl Coupling {
    /// The rules between the fields that a running instance keeps, for a state read back
    /// (`may_pull`: the force law may pull).
    pub fn keeps_its_rules(&self, may_pull: bool) -> bool {
        // An adopted mass estimate was published first.
        let unpublished_adopted = self.mass_estimate > 0.0 && self.last_estimate == 0.0;
        // So was one waiting to be adopted, when it was made: adopted from a corrupt state, an
        // unpublished one would couple the step through a mass no output shows
        // (fuzz/deserialize_state feeds `read` such states).
        let unpublished_candidate = self.candidate.estimate > 0.0 && self.last_estimate == 0.0;
        // What a probe held back is the contact's own impulse: a force its law can give (a
        // pulling rest under ElastoGap would be delivered as a pulling f_mean;
        // fuzz/deserialize_state feeds `read` such states).
        let pulling_rest = [self.probe_rest.0, self.probe_rest_waiting.0]
            .into_iter()
            .any(|impulse| impulse > 0.0 && !may_pull);
        !(unpublished_adopted || unpublished_candidate || pulling_rest)
    }
}
