//! The variable table's values: what each variable reads (`value`, and `read`, which is what
//! the master's reading also tells the coupling) and where each parameter and input is set.
//! These are matches over the whole variable list, so that a variable added to the table and
//! not handled here does not compile.

use super::{ElastoGap, Interface};
use crate::coupling::Prediction;
use crate::laws::spring_work;
use crate::variables::Var;

impl ElastoGap {
    /// The value of any variable as f64 (Booleans 0/1, Integers exact).
    pub fn value(&self, var: Var) -> f64 {
        let p = &self.parameters;
        let forces = || self.forces();
        let motion = || self.motion();
        match var {
            Var::Time => self.time,
            Var::IndicatorContact => self.indicators()[0],
            Var::IndicatorKink => self.indicators()[1],
            Var::IndicatorStickSlip => self.indicators()[2],
            Var::IndicatorStictionCircle => self.indicators()[3],
            Var::C => p.spring.c,
            Var::D => p.spring.d,
            Var::SRel0 => p.spring.s_rel0,
            Var::N => p.spring.n,
            Var::SRef => p.spring.s_ref,
            Var::FRef => p.spring.f_ref,
            Var::ForceLaw => f64::from(p.options.force_law),
            Var::Hysteresis => f64::from(p.options.hysteresis),
            Var::Chi => p.options.chi,
            Var::E => p.options.e,
            Var::V0Min => p.options.v0_min,
            Var::DMax => p.options.d_max,
            Var::RecurDynDamping => f64::from(p.options.recurdyn_damping),
            Var::ND => p.options.n_d,
            Var::Rdf => p.options.rdf,
            Var::NV => p.options.n_v,
            Var::Preload => p.options.preload,
            Var::RangeMin => p.options.range_min,
            Var::RangeMax => p.options.range_max,
            // Text: kept by the FMI layer; the model holds the tables read from it.
            Var::TableFile => 0.0,
            Var::FrictionLaw => f64::from(p.friction.law),
            Var::MuS => p.friction.mu_s,
            Var::MuD => p.friction.mu_d,
            Var::VS => p.friction.v_s,
            Var::VD => p.friction.v_d,
            Var::FTMax => p.friction.f_t_max,
            Var::MaxStictionDeformation => p.friction.max_stiction_deformation,
            Var::DX => p.gap_dampers.d[0],
            Var::DY => p.gap_dampers.d[1],
            Var::NX => p.gap_dampers.n[0],
            Var::NY => p.gap_dampers.n[1],
            Var::PreloadX => p.gap_dampers.preload[0],
            Var::PreloadY => p.gap_dampers.preload[1],
            Var::FrictionInterpolation => f64::from(p.friction.interpolation),
            Var::HeldForce => f64::from(p.held_force),
            Var::UseHeatPort => f64::from(u8::from(p.use_heat_port)),
            Var::MaxSubstepSize => p.max_substep_size,
            Var::MaxSubstepCount => f64::from(p.max_substep_count),
            Var::AccelerationEstimate => f64::from(p.acceleration_estimate),
            Var::MEff => p.m_eff,
            Var::RelativeTolerance => p.relative_tolerance,
            Var::FlangeAS => self.inputs.s_a,
            Var::FlangeAV => self.inputs.v_a,
            Var::FlangeBS => self.inputs.s_b,
            Var::FlangeBV => self.inputs.v_b,
            Var::VTx => self.inputs.v_t[0],
            Var::VTy => self.inputs.v_t[1],
            Var::FTx => self.tangential_force(&forces()).f_t[0],
            Var::FTy => self.tangential_force(&forces()).f_t[1],
            Var::FTxMean | Var::FTyMean => {
                let axis = usize::from(var == Var::FTyMean);
                match self.interface {
                    Interface::CoSimulation => self.co_simulation.f_t_mean[axis],
                    Interface::ModelExchange => self.tangential_force(&forces()).f_t[axis],
                }
            }
            Var::F => forces().f,
            Var::SRel => motion().s,
            Var::VRel => motion().v,
            Var::Contact => f64::from(u8::from(match self.interface {
                Interface::CoSimulation => self
                    .co_simulation
                    .contact_latch
                    .unwrap_or_else(|| forces().contact),
                Interface::ModelExchange => self.contact_at_event,
            })),
            Var::LossPower | Var::DerELoss => forces().loss_power,
            Var::HeatPortQFlow => match self.interface {
                Interface::CoSimulation => self.co_simulation.q_flow_mean,
                Interface::ModelExchange => self.heat_flow(forces().loss_power),
            },
            Var::FMean => self.f_mean,
            Var::FNext => self.f_next_value(),
            Var::MEffEstimate => self.co_simulation.coupling.latest_estimate(),
            Var::ELoss => self.e_loss,
            Var::XiX => self.stiction[0],
            Var::XiY => self.stiction[1],
            Var::DerXiX => self.stiction_rate()[0],
            Var::DerXiY => self.stiction_rate()[1],
            Var::EPort => match self.interface {
                Interface::CoSimulation => self.co_simulation.coupling.port_energy(),
                Interface::ModelExchange => {
                    self.e_loss
                        + spring_work(&self.law(), self.model_exchange.port_origin, motion().s)
                }
            },
            Var::FC => forces().f_c,
            Var::FD => forces().f_d,
        }
    }

    /// [`Self::value`] as read by the master: a prediction of `f_next` still to be made is made
    /// and kept, and the master is known to read `f_next` from then on.
    pub fn read(&mut self, var: Var) -> f64 {
        self.evaluate_inputs_now();
        if var == Var::FMean && self.interface == Interface::CoSimulation {
            self.co_simulation
                .coupling
                .note_that_the_master_reads_the_mean();
        }
        if var == Var::FNext && self.interface == Interface::CoSimulation {
            self.make_f_next();
            self.co_simulation
                .coupling
                .note_that_the_master_reads_next();
        }
        self.value(var)
    }

    /// Makes the prediction of `f_next` where it is still to be made, and keeps it; returns it.
    #[inline]
    pub(crate) fn make_f_next(&mut self) -> f64 {
        self.tell_held_force();
        let limits = self.substep_limits();
        let tables = self.tables.clone();
        let law = self.law_with(tables.as_deref());
        let (least_mass, held) = (self.least_mass(), self.co_simulation.coupling.next_held());
        self.co_simulation
            .coupling
            .make_f_next(&law, limits, least_mass, held)
    }

    /// Sets a parameter or input; the caller has checked causality and variability. Integers and
    /// Booleans arrive as exact f64.
    pub fn set_value(&mut self, var: Var, value: f64) {
        self.store_value(var, value);
        if matches!(
            var,
            Var::FlangeAS | Var::FlangeAV | Var::FlangeBS | Var::FlangeBV
        ) {
            self.co_simulation.end_of_step = None;
            self.inputs_set = true;
        }
    }

    /// Where [`Self::set_value`] keeps each parameter and input.
    fn store_value(&mut self, var: Var, value: f64) {
        let p = &mut self.parameters;
        match var {
            Var::C => p.spring.c = value,
            Var::D => p.spring.d = value,
            Var::SRel0 => p.spring.s_rel0 = value,
            Var::N => p.spring.n = value,
            Var::SRef => p.spring.s_ref = value,
            Var::FRef => p.spring.f_ref = value,
            Var::ForceLaw => p.options.force_law = value as i32,
            Var::Hysteresis => p.options.hysteresis = value as i32,
            Var::Chi => p.options.chi = value,
            Var::E => p.options.e = value,
            Var::V0Min => p.options.v0_min = value,
            Var::DMax => p.options.d_max = value,
            Var::RecurDynDamping => p.options.recurdyn_damping = value as i32,
            Var::ND => p.options.n_d = value,
            Var::Rdf => p.options.rdf = value,
            Var::NV => p.options.n_v = value,
            Var::Preload => p.options.preload = value,
            Var::RangeMin => p.options.range_min = value,
            Var::RangeMax => p.options.range_max = value,
            Var::TableFile => unreachable!("tableFile is text, set through the FMI layer"),
            Var::FrictionLaw => p.friction.law = value as i32,
            Var::MuS => p.friction.mu_s = value,
            Var::MuD => p.friction.mu_d = value,
            Var::VS => p.friction.v_s = value,
            Var::VD => p.friction.v_d = value,
            Var::FTMax => p.friction.f_t_max = value,
            Var::MaxStictionDeformation => p.friction.max_stiction_deformation = value,
            Var::DX => p.gap_dampers.d[0] = value,
            Var::DY => p.gap_dampers.d[1] = value,
            Var::NX => p.gap_dampers.n[0] = value,
            Var::NY => p.gap_dampers.n[1] = value,
            Var::PreloadX => p.gap_dampers.preload[0] = value,
            Var::PreloadY => p.gap_dampers.preload[1] = value,
            Var::FrictionInterpolation => p.friction.interpolation = value as i32,
            Var::HeldForce => p.held_force = value as i32,
            Var::UseHeatPort => p.use_heat_port = value != 0.0,
            Var::MaxSubstepSize => p.max_substep_size = value,
            Var::MaxSubstepCount => p.max_substep_count = value as i32,
            Var::AccelerationEstimate => p.acceleration_estimate = value as i32,
            Var::MEff => p.m_eff = value,
            Var::RelativeTolerance => p.relative_tolerance = value,
            Var::FlangeAS | Var::FlangeAV | Var::FlangeBS | Var::FlangeBV | Var::VTx | Var::VTy => {
                self.store_input(var, value)
            }
            Var::F
            | Var::SRel
            | Var::VRel
            | Var::Contact
            | Var::LossPower
            | Var::HeatPortQFlow
            | Var::FMean
            | Var::FNext
            | Var::MEffEstimate
            | Var::ELoss
            | Var::DerELoss
            | Var::FC
            | Var::FD
            | Var::FTx
            | Var::FTy
            | Var::FTxMean
            | Var::FTyMean
            | Var::EPort
            | Var::XiX
            | Var::XiY
            | Var::DerXiX
            | Var::DerXiY
            | Var::Time
            | Var::IndicatorContact
            | Var::IndicatorKink
            | Var::IndicatorStickSlip
            | Var::IndicatorStictionCircle => {
                unreachable!("the FMI layer sets only parameters and inputs")
            }
        }
    }

    /// Where [`Self::store_value`] keeps each input (inlined: every input a master sets comes here).
    #[inline(always)]
    fn store_input(&mut self, var: Var, value: f64) {
        let inputs = &mut self.inputs;
        match var {
            Var::FlangeAS => (inputs.s_a, inputs.given_at[0]) = (value, None),
            Var::FlangeAV => inputs.v_a = value,
            Var::FlangeBS => (inputs.s_b, inputs.given_at[1]) = (value, None),
            Var::FlangeBV => inputs.v_b = value,
            Var::VTx => inputs.v_t[0] = value,
            Var::VTy => inputs.v_t[1] = value,
            _ => unreachable!("{var:?} is not an input"),
        }
    }

    /// `f_next` as the master reads it: in co-simulation the prediction the last step made, made
    /// now if it was not yet (without keeping it: [`Self::read`] keeps it). Inlined: a call of
    /// its own would cost every read of a variable, a restored state's parameter check included.
    #[inline(always)]
    fn f_next_value(&self) -> f64 {
        match self.interface {
            // Before the first step there is no step length to predict over: the force now
            // is the best a master that steps all units at once can hold over its first step.
            Interface::CoSimulation if self.co_simulation.coupling.last_step_length() == 0.0 => {
                self.forces().f
            }
            // Made, it was bounded then, against a port that stays as it is until the next
            // step (read back through the bound, it is the same bit for bit).
            Interface::CoSimulation => match *self.co_simulation.coupling.f_next() {
                Prediction::Known(force) => force,
                _ => {
                    let (least_mass, held) =
                        (self.least_mass(), self.co_simulation.coupling.next_held());
                    let law = self.law();
                    let limits = self.substep_limits();
                    self.co_simulation
                        .coupling
                        .predicted_next(&law, limits, least_mass, held)
                        .0
                }
            },
            Interface::ModelExchange => self.f_mean,
        }
    }
}
