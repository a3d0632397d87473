use super::StepIntegral;
pub type DynamicStep = StepIntegral;
pub fn integrate_dynamics() {}
