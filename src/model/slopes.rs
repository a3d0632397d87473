//! The outputs' slopes: partial derivatives by an input or a continuous state at the motion now
//! (what a layer's directional derivatives are made of), and the first time derivative along the
//! extrapolated motion (a co-simulation's output derivatives). Every input but the slip enters
//! through `s_rel` or `v_rel`; the tangential force's slopes enter through the normal force's
//! magnitude, and stick-slip's through the deformation.

use super::{ElastoGap, Interface};
use crate::laws::{dot, ContactLaw, Partials};
use crate::variables::{by_var, Kind, Var};

impl ElastoGap {
    /// Partial derivative of an output, local or state derivative with respect to a known (an
    /// input, or a continuous state in Model Exchange) at the current motion; 0 for pairs without
    /// a direct dependence.
    /// Whether [`Self::partial_derivative`] knows `output`'s slopes: not those of the event
    /// indicators (a solver locates their roots, it does not differentiate them) or of time.
    pub fn has_partials(output: Var) -> bool {
        !matches!(
            output,
            Var::Time
                | Var::IndicatorContact
                | Var::IndicatorKink
                | Var::IndicatorStickSlip
                | Var::IndicatorStictionCircle
        )
    }

    pub fn partial_derivative(&self, output: Var, input: Var) -> f64 {
        let model_exchange = self.interface == Interface::ModelExchange;
        if input == Var::ELoss {
            let counts_e_loss = output == Var::ELoss || (output == Var::EPort && model_exchange);
            return if counts_e_loss { 1.0 } else { 0.0 };
        }
        if let Some(value) = self.stiction_partial(output, input) {
            return value;
        }
        let motion = self.motion();
        let law = self.law();
        let partials: Partials = law.partials(motion.s, motion.v);
        // The tangential force (the friction, or the Gap Force's dampers) and the power it
        // dissipates, with their slopes.
        let forces = law.evaluate(motion.s, motion.v);
        let f = forces.f;
        let tangential = self.tangential_force(&forces);
        let axis_of = |var: Var| match var {
            Var::FTx | Var::FTxMean => Some(0),
            Var::FTy | Var::FTyMean => Some(1),
            _ => None,
        };
        // The step means are the forces themselves in Model Exchange, constants in co-simulation.
        let friction_output = axis_of(output).filter(|_| {
            matches!(output, Var::FTx | Var::FTy) || self.interface == Interface::ModelExchange
        });
        if let Some(j) = match input {
            Var::VTx => Some(0),
            Var::VTy => Some(1),
            _ => None,
        } {
            let power_dv_t = tangential.loss_by_velocity[j];
            if let Some(i) = friction_output {
                return tangential.by_velocity[i][j];
            }
            return match output {
                Var::LossPower | Var::DerELoss => power_dv_t,
                Var::HeatPortQFlow if self.interface == Interface::ModelExchange => {
                    self.heat_flow(power_dv_t)
                }
                _ => 0.0,
            };
        }
        // Each other input enters only through s_rel or v_rel, with sign -1 at flange_a.
        let (ds, dv) = match input {
            Var::FlangeBS => (1.0, 0.0),
            Var::FlangeAS => (-1.0, 0.0),
            Var::FlangeBV => (0.0, 1.0),
            Var::FlangeAV => (0.0, -1.0),
            _ => return 0.0,
        };
        // d|f| = sign(f)*df.
        let normal_rate =
            if f < 0.0 { -1.0 } else { 1.0 } * (partials.f_ds() * ds + partials.f_dv() * dv);
        let f_t_rate = tangential.by_normal.map(|slope| slope * normal_rate);
        let power_rate = partials.loss_power_ds * ds
            + partials.loss_power_dv * dv
            + tangential.loss_by_normal * normal_rate;
        if let Some(i) = friction_output {
            return f_t_rate[i];
        }
        match output {
            Var::F => partials.f_ds() * ds + partials.f_dv() * dv,
            Var::SRel => ds,
            Var::VRel => dv,
            Var::LossPower | Var::DerELoss => power_rate,
            Var::HeatPortQFlow if self.interface == Interface::ModelExchange => {
                self.heat_flow(power_rate)
            }
            Var::FC => partials.f_c_ds * ds,
            Var::FD => partials.f_d_ds * ds + partials.f_d_dv * dv,
            // d(spring energy)/ds_rel is the spring force itself.
            Var::EPort if model_exchange => law.evaluate(motion.s, motion.v).f_c * ds,
            _ => 0.0,
        }
    }

    /// The slopes that stick–slip adds or replaces: of the deformation's rate by the slip and by
    /// the deformation, and of the sticking force and its power by the deformation. None where
    /// the pair is not one of them.
    fn stiction_partial(&self, output: Var, input: Var) -> Option<f64> {
        let by_deformation = match input {
            Var::XiX => Some(0),
            Var::XiY => Some(1),
            _ => None,
        };
        let by_slip = match input {
            Var::VTx => Some(0),
            Var::VTy => Some(1),
            _ => None,
        };
        let rate_of = match output {
            Var::DerXiX => Some(0),
            Var::DerXiY => Some(1),
            _ => None,
        };
        if by_deformation.is_none() && rate_of.is_none() {
            return None;
        }
        let motion = self.motion();
        let forces = self.law().evaluate(motion.s, motion.v);
        if !(self.sticking() && forces.contact) {
            return Some(0.0);
        }
        let v = self.inputs.v_t;
        let xi = self.stiction;
        let slide = self.stiction_sliding();
        let sliding = slide.is_some();
        let (n, outward, radius) = slide.unwrap_or(([0.0; 2], 0.0, 1.0));
        let projection = |i: usize, j: usize| f64::from(u8::from(i == j)) - n[i] * n[j];
        let friction = &self.parameters.friction;
        Some(match (rate_of, by_slip, by_deformation) {
            // d(v - (v.n)n)/dv = I - nn^T on the circle, I inside.
            (Some(i), Some(j), _) if sliding => projection(i, j),
            (Some(i), Some(j), _) => f64::from(u8::from(i == j)),
            // d(v - (v.n)n)/dxi = -(n (v^T P) + (v.n) P)/|xi| with P = I - nn^T.
            (Some(i), _, Some(j)) if sliding => {
                let v_p = v[0] * projection(0, j) + v[1] * projection(1, j);
                -(n[i] * v_p + outward * projection(i, j)) / radius
            }
            (Some(_), _, _) => 0.0,
            (None, _, Some(j)) => {
                let by = friction.stick_force_by_deformation(forces.f, xi);
                let axis = match output {
                    Var::FTx => Some(0),
                    Var::FTy => Some(1),
                    Var::FTxMean if self.interface == Interface::ModelExchange => Some(0),
                    Var::FTyMean if self.interface == Interface::ModelExchange => Some(1),
                    _ => None,
                };
                match (axis, output) {
                    (Some(i), _) => by[i][j],
                    (None, Var::LossPower | Var::DerELoss) if sliding => {
                        v[0] * by[0][j] + v[1] * by[1][j]
                    }
                    (None, Var::HeatPortQFlow)
                        if sliding && self.interface == Interface::ModelExchange =>
                    {
                        self.heat_flow(v[0] * by[0][j] + v[1] * by[1][j])
                    }
                    _ => 0.0,
                }
            }
            (None, _, None) => return None,
        })
    }

    /// First time derivative of a Real output at the end of the last step, along the extrapolated
    /// motion (the order that `maxOutputDerivativeOrder="1"` promises).
    pub fn output_time_derivative(&self, output: Var) -> Option<f64> {
        if by_var(output).kind != Kind::Real {
            return None;
        }
        let motion = self.motion();
        let law = self.law();
        let partials = law.partials(motion.s, motion.v);
        let along = |ds: f64, dv: f64| ds * motion.v + dv * motion.a;
        // v_t is held over a step: the tangential force changes with |f|, and a sticking one with
        // the deformation the slip moves too.
        let forces = law.evaluate(motion.s, motion.v);
        let tangential = self.tangential_force(&forces);
        let normal_rate =
            if forces.f < 0.0 { -1.0 } else { 1.0 } * along(partials.f_ds(), partials.f_dv());
        let mut f_t_rate = tangential.by_normal.map(|slope| slope * normal_rate);
        if self.sticking() && forces.contact {
            let by = self
                .parameters
                .friction
                .stick_force_by_deformation(forces.f, self.stiction);
            let rate = self.stiction_rate();
            for (i, row) in by.iter().enumerate() {
                f_t_rate[i] += dot(*row, rate);
            }
        }
        Some(match output {
            Var::F => along(partials.f_ds(), partials.f_dv()),
            Var::SRel => motion.v,
            Var::VRel => motion.a,
            Var::FTx => f_t_rate[0],
            Var::FTy => f_t_rate[1],
            Var::LossPower | Var::DerELoss => {
                along(partials.loss_power_ds, partials.loss_power_dv)
                    + tangential.loss_by_normal * normal_rate
            }
            Var::FC => along(partials.f_c_ds, 0.0),
            Var::FD => along(partials.f_d_ds, partials.f_d_dv),
            Var::ELoss => self.forces().loss_power,
            // Step means are constant between communication points; parameters and inputs are
            // not outputs.
            _ => 0.0,
        })
    }
}
