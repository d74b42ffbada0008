//! A random-forest regressor (smartcore 0.7, through its own dense matrix).

use super::{Fitted, Hyper, HyperParams, Learner, Training};
use anyhow::{anyhow, bail, Result};
use smartcore::ensemble::random_forest_regressor::{
    RandomForestRegressor, RandomForestRegressorParameters,
};
use smartcore::linalg::basic::matrix::DenseMatrix;

/// smartcore's forest on its dense matrix, as stored in [`Fitted::Forest`].
pub type ForestModel = RandomForestRegressor<f64, f64, DenseMatrix<f64>, Vec<f64>>;

/// The `forest` learner.
pub struct Forest;

/// The most trees `--trees` takes. A forest's predictions settle within a few hundred trees,
/// and every tree is kept in the model: 100,000 trees of 48 summaries made a 31 MB model file,
/// and `--trees 1000000000000` grew until killed (audit stop 93).
pub const MAX_TREES: usize = 10_000;

impl Learner for Forest {
    fn flags(&self) -> &'static [&'static str] {
        &["--trees", "--max-depth", "--min-leaf"]
    }
    fn grid(&self) -> Vec<Hyper> {
        [Some(6u16), None]
            .iter()
            .flat_map(|&max_depth| {
                [5usize, 15].map(|min_samples_leaf| Hyper::Forest {
                    n_trees: 100,
                    max_depth,
                    min_samples_leaf,
                })
            })
            .collect()
    }
    fn check(&self, given: &HyperParams) -> Result<Hyper> {
        let n_trees = given.trees.unwrap_or(100);
        let min_samples_leaf = given.min_leaf.unwrap_or(5);
        if n_trees == 0 || min_samples_leaf == 0 || given.max_depth == Some(0) {
            bail!("--trees, --max-depth and --min-leaf must be at least 1");
        }
        if n_trees > MAX_TREES {
            bail!("--trees: at most {MAX_TREES}, got {n_trees} (a forest's predictions settle within a few hundred trees)");
        }
        Ok(Hyper::Forest {
            n_trees,
            max_depth: given.max_depth,
            min_samples_leaf,
        })
    }
    fn fit(&self, hyper: Hyper, data: &Training) -> Result<Fitted> {
        let Hyper::Forest {
            n_trees,
            max_depth,
            min_samples_leaf,
        } = hyper
        else {
            bail!("hyper-parameters {hyper:?} do not fit learner forest");
        };
        let x = DenseMatrix::from_2d_vec(&data.rows.to_vec())
            .map_err(|e| anyhow!("forest input: {e}"))?;
        let mut params = RandomForestRegressorParameters::default()
            .with_n_trees(n_trees)
            .with_min_samples_leaf(min_samples_leaf)
            .with_seed(data.seed);
        if let Some(depth) = max_depth {
            params = params.with_max_depth(depth);
        }
        let forest = ForestModel::fit(&x, &data.targets.to_vec(), params)
            .map_err(|e| anyhow!("forest fit: {e}"))?;
        Ok(Fitted::Forest(Box::new(forest)))
    }
}
