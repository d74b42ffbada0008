//! Elastic net (linfa): the fitted weights and intercept are kept as a plain linear model, so
//! reload and prediction need no linfa state.

use super::{positive, to_array, Fitted, Hyper, HyperParams, Learner, LinearModel, Training};
use anyhow::{anyhow, bail, Result};
use linfa::traits::Fit;
use ndarray::Array1;

/// The `elastic-net` learner.
pub struct ElasticNet;

impl Learner for ElasticNet {
    fn flags(&self) -> &'static [&'static str] {
        &["--penalty", "--l1-ratio"]
    }
    /// Starts with the least shrinkage: τ cannot see shrinkage, but predicted scores are on the
    /// target's scale, and exact ties go to the earlier grid point.
    fn grid(&self) -> Vec<Hyper> {
        [0.001, 0.01, 0.1]
            .iter()
            .flat_map(|&penalty| {
                [0.1, 0.5, 0.9].map(|l1_ratio| Hyper::ElasticNet { penalty, l1_ratio })
            })
            .collect()
    }
    fn check(&self, given: &HyperParams) -> Result<Hyper> {
        let Some(penalty) = given.penalty else {
            bail!("--l1-ratio needs --penalty as well");
        };
        let l1_ratio = given.l1_ratio.unwrap_or(0.5);
        if !(0.0..=1.0).contains(&l1_ratio) {
            bail!("--l1-ratio must be in [0, 1], got {l1_ratio}");
        }
        Ok(Hyper::ElasticNet {
            penalty: positive("--penalty", penalty)?,
            l1_ratio,
        })
    }
    fn fit(&self, hyper: Hyper, data: &Training) -> Result<Fitted> {
        let Hyper::ElasticNet { penalty, l1_ratio } = hyper else {
            bail!("hyper-parameters {hyper:?} do not fit learner elastic-net");
        };
        let ds = linfa::Dataset::new(to_array(data.rows)?, Array1::from(data.targets.to_vec()));
        let model = linfa_elasticnet::ElasticNet::params()
            .penalty(penalty)
            .l1_ratio(l1_ratio)
            .fit(&ds)
            .map_err(|e| anyhow!("elastic net fit: {e}"))?;
        Ok(Fitted::Linear(LinearModel {
            weights: model.hyperplane().to_vec(),
            intercept: model.intercept(),
        }))
    }
}
