//! What a co-simulation step has to say, as text: the warnings a user must read, and the notes
//! on the coupling and the contact's switches. The FMI
//! layer gives them its own statuses and log categories; the texts are the same under every layer.

use super::{ElastoGap, NonFiniteStep, Number, StepReport};
use crate::coupling::{Told, PLAIN_STEP};

impl NonFiniteStep {
    /// The message of a step refused because it would leave a value that is not finite.
    pub fn message(current_time: f64, h: f64) -> String {
        format!(
            "the step from t = {} by h = {} gives a non-finite force, motion, energy or predicted force; the inputs, parameters or step size are out of the law's numeric range",
            Number(current_time),
            Number(h)
        )
    }
}

impl ElastoGap {
    /// The warnings of a step just taken, in the order they are logged: the mass the master's
    /// answer disagrees with, once per instance a contact shorter than two steps without a mass
    /// (`short_contact_warned` keeps the once), and a sticking spring too stiff for the step.
    pub fn step_warnings(
        &self,
        current_time: f64,
        h: f64,
        report: &StepReport,
        short_contact_warned: &mut bool,
        mut warn: impl FnMut(&str),
    ) {
        self.warn_mass_disagreement(current_time, report, &mut warn);
        self.warn_short_contact_without_mass(
            current_time,
            h,
            report,
            short_contact_warned,
            &mut warn,
        );
        self.warn_stiff_stiction(current_time, h, report, &mut warn);
        if report.late_mean_found {
            warn(&late_mean_message(current_time));
        }
        if report.cut_for_want_of_a_reading {
            warn(&cut_message(current_time));
        }
        if report.prescribed_motion_found {
            warn(&prescribed_motion_message(current_time));
        }
    }

    /// The master's answer to a contact disagrees with the `m_eff` in use. A status warning in
    /// the log, not as the call's status: fmusim ends a run on a returned warning, and the step
    /// itself is right.
    fn warn_mass_disagreement(
        &self,
        current_time: f64,
        report: &StepReport,
        warn: &mut impl FnMut(&str),
    ) {
        if let Some((answered, in_use)) = report.mass_disagreement {
            warn(&mass_disagreement_message(current_time, answered, in_use));
        }
    }

    /// The sticking spring, against the tangential mass the master's answers just told, turns
    /// more than [`STIFF_STICTION_PHASE`] per step. A status warning in the log, not as the
    /// call's status (as above).
    fn warn_stiff_stiction(
        &self,
        current_time: f64,
        h: f64,
        report: &StepReport,
        warn: &mut impl FnMut(&str),
    ) {
        let told_mass = match report.tangential_told {
            Some(Told::Mass(mass)) => Some(mass),
            _ => None,
        };
        if let Some(omega) = told_mass
            .and_then(|mass| self.stiction_omega(mass))
            .filter(|omega| omega * h > STIFF_STICTION_PHASE)
        {
            let tangential_mass = self.co_simulation.tangential_answers.mass;
            warn(&stiff_stiction_message(
                current_time,
                tangential_mass,
                omega,
                h,
            ));
        }
    }

    /// The contact's starts and ends within the step, under `logEvents`.
    pub fn event_notes(current_time: f64, report: &StepReport, mut note: impl FnMut(&str)) {
        for transition in report.integral.transitions() {
            let message = format!(
                "contact {} at t = {:.17}",
                if transition.entering {
                    "starts"
                } else {
                    "ends"
                },
                current_time + transition.tau
            );
            note(&message);
        }
    }

    /// Once per instance, without `m_eff`: the contacts the master's answers tell are shorter
    /// than two steps. A status warning in the log, not the call's status (as above).
    fn warn_short_contact_without_mass(
        &self,
        time: f64,
        h: f64,
        report: &StepReport,
        warned: &mut bool,
        warn: &mut impl FnMut(&str),
    ) {
        let Some(mass) = report.new_estimate.filter(|_| !*warned) else {
            return;
        };
        let Some(duration) = self.short_contact_without_mass(mass, report.approach_speed, h) else {
            return;
        };
        *warned = true;
        warn(&short_contact_message(time, duration, mass, h));
    }

    /// What a step says about how the contact meets the master's step size, under `logCoupling`.
    /// Messages only: the step's status stays OK (fmusim ends a run on a returned warning).
    pub fn coupling_notes(
        &self,
        time: f64,
        h: f64,
        report: &StepReport,
        mut note: impl FnMut(&str),
    ) {
        if let Some(estimate) = report.new_estimate {
            let message = format!(
                "t = {}: the master's answer to the last contact gives an effective mass of {} kg (output m_eff_estimate){}",
                Number(time),
                Number(estimate),
                if self.parameters.m_eff > 0.0 {
                    format!("; the parameter m_eff = {} kg is used", Number(self.parameters.m_eff))
                } else {
                    "; the following steps integrate the contact's own dynamics with it".to_string()
                }
            );
            note(&message);
        }
        match report.tangential_told {
            Some(Told::Mass(mass)) => {
                let message = format!(
                    "t = {}: the master's answers in the tangential plane tell a mass of {} kg behind the slip, {}; the friction is integrated through it from this step on (a slip held over the step couples a sticking contact's spring explicitly)",
                    Number(time),
                    Number(mass),
                    if self.co_simulation.tangential_answers.holds_earlier { "the master holding the force of the step before (Jacobi)" } else { "the master holding the step's own force" }
                );
                note(&message);
            }
            Some(Told::Contradicted(mass)) => {
                let message = format!(
                    "t = {}: the master's answers in the tangential plane missed three times in a row the slip a mass of {} kg predicts (a slip the master prescribes looks like a body on the stiction spring while it sticks); the slip is held over the step again until the answers tell a mass anew",
                    Number(time),
                    Number(mass)
                );
                note(&message);
            }
            None => {}
        }
        if let Some((owed_s, owed_v)) = report.replayed_owed {
            let message = format!(
                "t = {}: the contact, replayed with the adopted mass, leaves the master {} m and {} m/s off; the next two steps remove that. E_loss takes back {} J it had reported dissipated along the contact as first integrated",
                Number(time),
                Number(owed_s),
                Number(owed_v),
                Number(report.replayed_e_loss_excess)
            );
            note(&message);
        }
        if report.passivity_force != 0.0 {
            let message = format!(
                "t = {}: the port has returned {} J more than the contact dissipated (E_port {} J, E_loss {} J); the passivity controller damps the relative motion with {} N over this step",
                Number(time),
                Number(report.passivity_deficit),
                Number(self.co_simulation.coupling.port_energy()),
                Number(self.e_loss),
                Number(report.passivity_force)
            );
            note(&message);
        }
        if let Some(duration) = report.contact_within_step {
            let message = format!(
                "t = {}: a contact started and ended inside one step: it lasted {} s, shorter than the step h = {} s. Without the effective mass the impulse is integrated along the motion extrapolated from the inputs, which overestimates it at such steps; set m_eff (the reduced mass m_a*m_b/(m_a + m_b), or the body's mass on a fixed housing) for the exact impulse, or the FMU uses its own estimate after this contact",
                Number(time),
                Number(duration),
                Number(h)
            );
            note(&message);
        }
    }
}

/// The phase per communication step of the sticking spring beyond which the steps before the
/// tangential mass was known (the slip held over each) are reported: a held slip couples the
/// spring explicitly, and tests/stick_slip.rs holds to its onsets only below a phase of this
/// order.
const STIFF_STICTION_PHASE: f64 = 2.0;

#[cold]
fn late_mean_message(current_time: f64) -> String {
    format!(
        "t = {}: the bodies felt over the contact's first step the force given for the step before it, not that step's f_mean: the master steps every unit at once and holds f_mean one step late (or holds f as sampled at the step's start). f_mean gives from this step on the force predicted for the step the master holds it over, as f_next does. Connect f_next",
        Number(current_time)
    )
}

#[cold]
fn cut_message(current_time: f64) -> String {
    format!(
        "t = {}: the master reads both f_mean and f_next, and its answers have not told which one it holds: the port's bound cut this step's force to what the smaller of the two forces' accounts allows, which the force it holds may not need. Set heldForce = FMean (2) for a master that steps this FMU first and holds f_mean, FNext (3) for one that steps every unit at once and holds f_next, or None (4) for one that prescribes the motion (an input file)",
        Number(current_time)
    )
}

#[cold]
fn prescribed_motion_message(current_time: f64) -> String {
    format!(
        "t = {}: the master's motion did not answer the force held over the last step (a motion from an input file or a test bench moves the same whatever force the FMU gives): the steps are the law's integral along it from this one on; the contact's steps before it held probes instead. Set heldForce = None (4) for a master that prescribes the motion, and every step is the law's integral along it",
        Number(current_time)
    )
}

#[cold]
fn mass_disagreement_message(current_time: f64, answered: f64, in_use: f64) -> String {
    format!(
        "t = {}: the master's answer to the contact gives an effective mass of {} kg, {} than the m_eff = {} kg in use; the FMU continues with {} kg (output m_eff_estimate) and corrects what the contact gave wrong. Set m_eff to the reduced mass of the bodies the contact separates",
        Number(current_time),
        Number(answered),
        if answered > in_use { format!("{:.0} % more", 100.0 * (answered / in_use - 1.0)) } else { format!("{:.0} % less", 100.0 * (1.0 - answered / in_use)) },
        Number(in_use),
        Number(answered)
    )
}

#[cold]
fn stiff_stiction_message(current_time: f64, tangential_mass: f64, omega: f64, h: f64) -> String {
    format!(
        "t = {}: the sticking contact's spring against the {} kg the master's answers tell turns {} rad per communication step (omega*h, above {}): until those answers came (six steps of contact), the slip was held over each step, and a master's explicit coupling of so stiff a spring may have gained energy and broken the stick. A step below {} s, or a larger maxStictionDeformation, keeps it below",
        Number(current_time),
        Number(tangential_mass),
        Number(omega * h),
        Number(STIFF_STICTION_PHASE),
        Number(STIFF_STICTION_PHASE / omega)
    )
}

#[cold]
fn short_contact_message(time: f64, duration: f64, mass: f64, h: f64) -> String {
    format!(
        "t = {}: m_eff = 0, and a contact lasts about {} s through the mass the master's answers give so far ({} kg, output m_eff_estimate), less than two communication steps (h = {} s). Without a mass, steps up to a hundredth of a contact ({} s here) are right along the master's motion; at longer steps the FMU only keeps the contact's impulse within what the least mass the answers allow can take without gaining energy, and a body that is not alone (on a spring, driven, another body behind it) may get a wrong impulse. Set m_eff to the reduced mass of the bodies the contact separates (the body's mass on a fixed housing)",
        Number(time),
        Number(duration),
        Number(mass),
        Number(h),
        Number(PLAIN_STEP * duration)
    )
}
