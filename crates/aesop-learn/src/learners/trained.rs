//! Trained models as stored in model files: a scaler with a fitted learner ([`Trained`]), and
//! the base models of a stacked one ([`BaseModel`]). They are one recursive type (a stacked
//! [`Fitted`] holds base models, each a [`Trained`]), so they live together here, below the
//! stacking code in `learn::stack` that trains them.

use super::{Fitted, Hyper, LearnerKind};
use crate::dataset::Scaler;
use anyhow::{anyhow, Result};
use serde::{Deserialize, Serialize};

/// A scaler and a fitted learner, trained together on raw feature rows.
#[derive(Debug, Serialize, Deserialize)]
pub struct Trained {
    pub learner: LearnerKind,
    pub hyper: Hyper,
    pub scaler: Scaler,
    pub fitted: Fitted,
}

impl Trained {
    /// Predictions for raw (unstandardized, possibly missing) rows. A stacked model first turns
    /// them into its base models' predictions, which its scaler and meta learner then take.
    pub fn predict(&self, rows: &[Vec<f64>]) -> Result<Vec<f64>> {
        match &self.fitted {
            Fitted::Stacked { bases, .. } => {
                let inputs = base_predictions(bases, rows)?;
                self.fitted.predict(&self.scaler.transform_clipped(&inputs))
            }
            fitted => fitted.predict(&self.scaler.transform_clipped(rows)),
        }
    }

    /// The base models when this is a stacked model.
    pub fn stack_bases(&self) -> Option<&[BaseModel]> {
        match &self.fitted {
            Fitted::Stacked { bases, .. } => Some(bases),
            _ => None,
        }
    }
}

/// A trained base model inside a stacked model (stored in the model file).
#[derive(Debug, Serialize, Deserialize)]
pub struct BaseModel {
    pub name: String,
    pub target: String,
    pub classes: Vec<String>,
    pub feature_names: Vec<String>,
    /// Positions of `feature_names` in the stacked model's input rows.
    pub columns: Vec<usize>,
    pub model: Trained,
    /// Mean and standard deviation of this model's predictions on its own training rows; its
    /// output is the prediction standardized by them (see the module comment).
    pub output_mean: f64,
    pub output_std: f64,
}

impl BaseModel {
    /// Standardized predictions for the stacked model's raw input rows.
    pub fn predict(&self, rows: &[Vec<f64>]) -> Result<Vec<f64>> {
        let own: Vec<Vec<f64>> = rows
            .iter()
            .map(|r| {
                self.columns
                    .iter()
                    .map(|&c| {
                        r.get(c).copied().ok_or_else(|| {
                            anyhow!(
                                "base model '{}' reads column {c} of a {}-column row",
                                self.name,
                                r.len()
                            )
                        })
                    })
                    .collect::<Result<Vec<f64>>>()
            })
            .collect::<Result<_>>()?;
        Ok(self
            .model
            .predict(&own)?
            .into_iter()
            .map(|p| (p - self.output_mean) / self.output_std)
            .collect())
    }
}

/// The meta learner's input rows: one column per base model (row-major).
pub fn base_predictions(bases: &[BaseModel], rows: &[Vec<f64>]) -> Result<Vec<Vec<f64>>> {
    let columns = bases
        .iter()
        .map(|b| b.predict(rows))
        .collect::<Result<Vec<_>>>()?;
    Ok(transpose(&columns, rows.len()))
}

/// Rows of `n` values from columns.
pub(crate) fn transpose(columns: &[Vec<f64>], n: usize) -> Vec<Vec<f64>> {
    (0..n)
        .map(|r| columns.iter().map(|c| c[r]).collect())
        .collect()
}
