//! ε-SVR with RBF, polynomial or linear kernel (linfa-svm, solver tolerance 1e-3; never with
//! shrinking, which CRATES.md found broken).

use super::{positive, to_array, Fitted, Hyper, HyperParams, Learner, Training};
use anyhow::{anyhow, bail, Result};
use linfa::traits::Fit;
use ndarray::Array1;

/// The kernel of an [`Svr`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kernel {
    Rbf,
    Polynomial,
    Linear,
}

/// The `svr-rbf`, `svr-poly` and `svr-linear` learners.
pub struct Svr {
    pub kernel: Kernel,
}

pub static SVR_RBF: Svr = Svr {
    kernel: Kernel::Rbf,
};
pub static SVR_POLY: Svr = Svr {
    kernel: Kernel::Polynomial,
};
pub static SVR_LINEAR: Svr = Svr {
    kernel: Kernel::Linear,
};

impl Svr {
    fn name(&self) -> &'static str {
        match self.kernel {
            Kernel::Rbf => "svr-rbf",
            Kernel::Polynomial => "svr-poly",
            Kernel::Linear => "svr-linear",
        }
    }
}

impl Learner for Svr {
    fn flags(&self) -> &'static [&'static str] {
        match self.kernel {
            Kernel::Rbf | Kernel::Polynomial => &["--c", "--epsilon", "--kernel-param"],
            Kernel::Linear => &["--c", "--epsilon"],
        }
    }
    /// Kernel parameter: RBF width ε in exp(-‖a-b‖²/ε) (multiples of the feature count are set
    /// in `fit`), polynomial degree, unused for linear. Starts with the least shrinkage.
    fn grid(&self) -> Vec<Hyper> {
        let (cs, kernels): (&[f64], &[f64]) = match self.kernel {
            Kernel::Rbf => (&[0.1, 1.0, 10.0], &[0.5, 2.0]),
            Kernel::Polynomial => (&[0.1, 1.0], &[2.0, 3.0]),
            Kernel::Linear => (&[0.01, 0.1, 1.0], &[0.0]),
        };
        cs.iter()
            .flat_map(|&c| {
                kernels.iter().map(move |&kernel| Hyper::Svr {
                    c,
                    epsilon: 0.1,
                    kernel,
                })
            })
            .collect()
    }
    fn check(&self, given: &HyperParams) -> Result<Hyper> {
        let Some(c) = given.c else {
            bail!("--epsilon and --kernel-param need --c as well");
        };
        let default_kernel = match self.kernel {
            Kernel::Rbf => 0.5,
            Kernel::Polynomial => 2.0,
            Kernel::Linear => 0.0,
        };
        Ok(Hyper::Svr {
            c: positive("--c", c)?,
            epsilon: positive("--epsilon", given.epsilon.unwrap_or(0.1))?,
            kernel: match (given.kernel_param, self.kernel) {
                (None, _) => default_kernel,
                // A polynomial's degree is a whole number (2.5 was accepted).
                (Some(k), Kernel::Polynomial) if k.fract() != 0.0 || k < 1.0 => {
                    bail!("--kernel-param of svr-poly is the degree, a whole number of at least 1, got '{k}'")
                }
                (Some(k), _) => positive("--kernel-param", k)?,
            },
        })
    }
    fn fit(&self, hyper: Hyper, data: &Training) -> Result<Fitted> {
        let Hyper::Svr { c, epsilon, kernel } = hyper else {
            bail!(
                "hyper-parameters {hyper:?} do not fit learner {}",
                self.name()
            );
        };
        let (rows, targets) = (data.rows, data.targets);
        // Standardize the target so C and the tube width mean the same on every scale.
        let n = targets.len() as f64;
        let mean = targets.iter().sum::<f64>() / n;
        let sd = (targets.iter().map(|t| (t - mean).powi(2)).sum::<f64>() / n).sqrt();
        let sd = if sd > 1e-12 { sd } else { 1.0 };
        let y: Array1<f64> = targets.iter().map(|t| (t - mean) / sd).collect();
        let width = rows[0].len().max(1) as f64;
        // (x·y + 1)^d on tens of standardized features reaches 10^5 and the solver crawls;
        // scaling rows by 1/√width is libsvm's default γ = 1/width.
        let input_scale = if self.kernel == Kernel::Polynomial {
            1.0 / width.sqrt()
        } else {
            1.0
        };
        let ds = linfa::Dataset::new(to_array(rows)? * input_scale, y);
        let params = linfa_svm::Svm::<f64, f64>::params()
            .c_svr(c, Some(epsilon))
            .eps(1e-3);
        let params = match self.kernel {
            Kernel::Rbf => params.gaussian_kernel(kernel * width),
            Kernel::Polynomial => params.polynomial_kernel(1.0, kernel),
            Kernel::Linear => params.linear_kernel(),
        };
        let model = params.fit(&ds).map_err(|e| anyhow!("SVR fit: {e}"))?;
        Ok(Fitted::Svr {
            model: Box::new(model),
            input_scale,
            target_mean: mean,
            target_std: sd,
        })
    }
}
