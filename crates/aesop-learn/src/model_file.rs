//! The model file (docs/MODEL_FILE.md): a fixed header, then a bincode payload.
//!
//! Header: magic `AESOPMDL` (8 bytes), format version (u32 LE), aesop version (u16 LE length +
//! UTF-8), payload length (u64 LE), FNV-1a 64 of the payload (u64 LE). The checksum makes a
//! corrupt payload an error instead of a model that silently predicts something else.

use super::dataset::column_indices;
use super::range_tally::RangeTally;
use super::transfer::{normalize_table, TransferInfo};
use super::Trained;
use aesop_features::neural::{NeuralOptions, NeuralPrompt};
use aesop_features::run::FeatureTable;
use aesop_features::{
    consensus, content, distribution, graph, rouge, surface, tesla, FeatureOptions,
};
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::path::Path;

pub const MAGIC: &[u8; 8] = aesop_core::input::MODEL_FILE_MAGIC;
/// The newest format version this build reads and writes. Bump when the payload layout changes;
/// older readers then refuse newer files. Version 2 added stacked models (`Fitted::Stacked`, an
/// appended enum variant): a version-1 payload decodes unchanged, so one reader serves both.
///
/// Version 3 (issue 13) appends a second bincode value after the version-2 payload, a
/// [`TransferInfo`] (normalization, calibration, training sets): the main value decodes as
/// before, so files of versions 1 and 2 load with the defaults (no normalization, raw scores).
///
/// Version 4 (issue 15) appends a third value after those two, the options of the `neural`
/// class ([`NeuralRecord`]), for models that use it: the source budget and the number of
/// references change the features, so a model must be scored with the options it was trained
/// with. Version-4 files always carry the [`TransferInfo`] value before it (default if unused).
///
/// Version 5 (issue 14) writes, after the [`TransferInfo`], the neural options as an `Option`
/// and then the range of every feature column over the training rows ([`FeatureRange`]):
/// prediction clamps each feature into its training range, so a value no training summary had
/// (a 100,000-character summary's length) cannot move a linear model's score without bound.
/// Older files keep the fixed bound of the scaled features (`Scaler::transform_row_clipped`).
///
/// Version 6 appends the neural prompt's name (`"chat"`) after the feature ranges. Models of the
/// `neural` class with the plain prompt are still written as version 5, which older builds read;
/// every file before version 6 scores with the plain prompt it was trained with.
///
/// Version 7 appends the ranking SVM's anchor feature (`--anchor`, `Option<String>`) after the
/// prompt, so `--recipe` retrains an anchored built-in with its anchor. Only anchored models are
/// written as version 7 or later; the anchor plays no part in scoring (the weights hold it).
///
/// Version 8 appends the [`TrainingSettings`] (`--seed`, `--equal-set-weights`) after the
/// anchor, so the card and `--recipe` can tell how a model was trained. Only models trained with
/// a setting other than the defaults (seed 1, sets weighted by their rows) are written as
/// version 8: every file of an earlier version was trained with the defaults or by a build that
/// did not record them.
///
/// Version 9 records a stacked model's inner split as well ([`InnerFolds`]:
/// `--stack-topic-folds`, `--stack-system-folds`): the settings are written with it. Only
/// stacked models trained with an inner split other than the default are written as version 9.
///
/// Version 10 appends the ranking SVM's pair length tolerance (`--pair-length-tolerance`,
/// `Option<f64>`) after the settings, so `--recipe` retrains such a model with its pairs and
/// the card says how it learned. Only models trained with it are written as version 10; like
/// the anchor it plays no part in scoring.
///
/// Version 11 appends the identities of the training summaries after the pair length tolerance
/// ([`ModelFile::training_identities`]: per set of `transfer.sets`, the sorted FNV-1a 64 of each
/// summary's topic id and text), so `evaluate` can tell predictions judged on summaries the
/// model learned from, whatever the file they come in (a copy, a subset, topics in memory from
/// Python). Every model `train` writes now holds them; they play no part in scoring.
pub const FORMAT_VERSION: u32 = 11;
/// The version of models with a pair length tolerance and no training identities.
pub const FORMAT_VERSION_PAIRS: u32 = 10;
/// The version of models with a stacked model's inner split other than the default and no
/// pair length tolerance.
pub const FORMAT_VERSION_INNER_FOLDS: u32 = 9;
/// The version of models trained with a seed or set weighting other than the defaults and the
/// default inner split.
pub const FORMAT_VERSION_SETTINGS: u32 = 8;
/// The version of anchored models trained with the default [`TrainingSettings`].
pub const FORMAT_VERSION_ANCHOR: u32 = 7;
/// The version of models with a non-plain neural prompt and no anchor.
pub const FORMAT_VERSION_PROMPT: u32 = 6;
/// The version of models with feature ranges whose neural prompt (if any) is the plain one.
pub const FORMAT_VERSION_RANGES: u32 = 5;
/// The version of models with neural options and no feature ranges.
pub const FORMAT_VERSION_NEURAL: u32 = 4;
/// The version of models with transfer information and no neural options.
pub const FORMAT_VERSION_TRANSFER: u32 = 3;
/// The version of stacked models without transfer information.
pub const FORMAT_VERSION_STACKED: u32 = 2;
/// The version written for models that are not stacked: their payload is a valid version-1
/// payload, so aesop builds from before stacking still read them.
pub const FORMAT_VERSION_PLAIN: u32 = 1;

/// The most memory a model's payload may claim while decoding (256 MiB; the built-ins are
/// under 100 kB, most of it their training summaries' identities).
pub const MAX_DECODED_BYTES: usize = 256 << 20;

/// Why a model file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ModelFileError {
    #[error("{file}: not an aesop model file (wrong magic bytes{what_it_holds})")]
    WrongMagic {
        file: String,
        /// What the file seems to be instead, as `; it holds …`, or empty.
        what_it_holds: String,
    },
    /// Said apart from wrong magic bytes: a file left empty by a failed copy or a full disk is
    /// a different problem from a file of another kind.
    #[error("{file}: the model file is empty (0 bytes)")]
    Empty { file: String },
    #[error("{file}: model format version {found} is newer than this aesop supports ({supported}); upgrade aesop (file written by aesop {writer})")]
    NewerVersion {
        file: String,
        found: u32,
        supported: u32,
        writer: String,
    },
    #[error("{file}: truncated model file ({what})")]
    Truncated { file: String, what: &'static str },
    #[error("{file}: corrupt model file ({what})")]
    Corrupt { file: String, what: String },
}

/// What a file that is no model seems to hold, for [`ModelFileError::WrongMagic`]: aesop's other
/// files are text (a judgment set, predictions, features, a saved service answer, the card
/// `aesop models FILE --json` prints), which `--model` is easily given by mistake.
fn what_it_holds(bytes: &[u8]) -> String {
    let start = aesop_core::input::without_bom_bytes(&bytes[..bytes.len().min(4096)]);
    let valid = match std::str::from_utf8(start) {
        Ok(_) => start.len(),
        // A character cut at the 4 KiB boundary is still text; a bad byte before it is not.
        Err(e) if start.len() - e.valid_up_to() < 4 && e.error_len().is_none() => e.valid_up_to(),
        Err(_) => return String::new(),
    };
    let text = String::from_utf8_lossy(&start[..valid]);
    let first = text.trim_start().chars().next();
    if matches!(first, Some('{' | '[')) {
        "; it holds JSON text, as a judgment set, predictions, features or a model's card do: \
         give a file `aesop train` wrote"
            .to_string()
    } else if text.chars().all(|c| !c.is_control() || c.is_whitespace()) && first.is_some() {
        "; it holds plain text, as a table of features or scores does: give a file `aesop train` \
         wrote"
            .to_string()
    } else {
        String::new()
    }
}

/// Where the training rows came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrainingSet {
    /// File name of the judgment set.
    pub name: String,
    /// FNV-1a 64 of the set's bytes, hex.
    pub content_hash: String,
    pub topics: usize,
    pub summaries: usize,
    /// Summaries with the target (the training rows).
    pub rows: usize,
}

/// Everything `score` needs to reproduce the training features and predict.
#[derive(Debug, Serialize, Deserialize)]
pub struct ModelFile {
    pub target: String,
    /// Feature classes to compute, in order.
    pub classes: Vec<String>,
    /// The model's columns, in order (a subset of the classes' features with --no-references).
    pub feature_names: Vec<String>,
    pub feature_options: FeatureOptionsRecord,
    /// Trained on reference-free features only.
    pub reference_free: bool,
    pub model: Trained,
    pub training: TrainingSet,
    /// Evaluation report (JSON), e.g. protocol-1 scores.
    pub report: Option<String>,
    /// Normalization, calibration and training sets (format version 3). Not part of the main
    /// bincode value: written after it, so older files decode unchanged.
    #[serde(skip)]
    pub transfer: TransferInfo,
    /// Options of the `neural` class, for models that use it (format version 4; written after
    /// the transfer information). `None` for models without the class and older files, which
    /// score with the class's defaults.
    #[serde(skip)]
    pub neural: Option<NeuralRecord>,
    /// Per column of `feature_names`, the smallest and largest finite value in the training
    /// rows (format version 5; `None` in older files). Written after the neural options.
    #[serde(skip)]
    pub feature_ranges: Option<Vec<FeatureRange>>,
    /// The feature the ranking SVM was anchored on (`--anchor`; format version 7), for
    /// `--recipe` and the card. `None` for unanchored models and older files.
    #[serde(skip)]
    pub anchor: Option<String>,
    /// The seed and set weighting of the training run (format version 8; the defaults in older
    /// files). Written after the anchor.
    #[serde(skip)]
    pub settings: TrainingSettings,
    /// The ranking SVM learned only from pairs of summaries whose word counts were within this
    /// share of the longer one's (`--pair-length-tolerance`; format version 10). `None` for
    /// models trained on every pair and older files. Written after the settings.
    #[serde(skip)]
    pub pair_length_tolerance: Option<f64>,
    /// Per set of `transfer.sets`, the identities of the summaries the model learned from
    /// ([`aesop_corpus::summary_identity`]), sorted without repeats (format version 11; `None`
    /// in older files). `evaluate` warns when predictions are judged on them
    /// ([`crate::in_sample`]). Written after the pair length tolerance.
    #[serde(skip)]
    pub training_identities: Option<Vec<Vec<u64>>>,
}

/// Training choices that shape a model without being part of its recipe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrainingSettings {
    /// `--seed`: inner cross-validation folds, a forest's bootstrap, a stacked model's folds.
    pub seed: u64,
    /// `--equal-set-weights`: every training set weighed the same whatever its size.
    pub equal_set_weights: bool,
    /// A stacked model's inner split (format version 9; the default in older files and in
    /// models that are not stacked).
    pub stack_folds: InnerFolds,
}

/// The topic and system folds of the split that gives a stacked model's meta learner its
/// out-of-fold base predictions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct InnerFolds {
    pub topic_folds: usize,
    pub system_folds: usize,
}

impl Default for InnerFolds {
    fn default() -> InnerFolds {
        InnerFolds {
            topic_folds: crate::stack::DEFAULT_INNER_TOPIC_FOLDS,
            system_folds: crate::stack::DEFAULT_INNER_SYSTEM_FOLDS,
        }
    }
}

impl Default for TrainingSettings {
    /// `aesop train`'s defaults.
    fn default() -> TrainingSettings {
        TrainingSettings {
            seed: 1,
            equal_set_weights: false,
            stack_folds: InnerFolds::default(),
        }
    }
}

/// The settings as format version 8 holds them (without the inner split).
#[derive(Serialize, Deserialize)]
struct SettingsV8 {
    seed: u64,
    equal_set_weights: bool,
}

/// The smallest and largest finite training value of one feature column (infinite bounds when
/// the column had no finite value: nothing to clamp to).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct FeatureRange {
    pub min: f64,
    pub max: f64,
}

impl FeatureRange {
    /// `v` clamped into the range; a missing value (NaN) stays missing.
    pub fn clamp(&self, v: f64) -> f64 {
        if v.is_nan() {
            v
        } else {
            v.clamp(self.min, self.max)
        }
    }
}

/// Predictions of `model` for held-out `rows` as the model file `train` writes would make them:
/// each feature first clamped into its range over `training_rows` (format 5). Protocols 1 and 2
/// predict through this, so their figures are those of the model a user saves and scores with.
/// The tally counts the rows whose features were clamped, as `aesop score` counts them for its
/// warning (every row: a held-out row has a target, so it was a summary the humans scored).
pub fn predict_held_out(
    model: &Trained,
    training_rows: &[Vec<f64>],
    rows: &[Vec<f64>],
) -> Result<(Vec<f64>, RangeTally)> {
    let columns = training_rows.first().map_or(0, Vec::len);
    let ranges = feature_ranges(training_rows, columns);
    let mut tally = RangeTally::new(columns);
    let clamped: Vec<Vec<f64>> = rows
        .iter()
        .map(|row| {
            tally.summaries += 1;
            row.iter()
                .enumerate()
                .map(|(k, &v)| match ranges.get(k) {
                    Some(range) => {
                        tally.count_value(k, v, range);
                        range.clamp(v)
                    }
                    None => v,
                })
                .collect()
        })
        .collect();
    Ok((model.predict(&clamped)?, tally))
}

/// The [`FeatureRange`] of every column of `rows` (`columns` of them).
pub fn feature_ranges(rows: &[Vec<f64>], columns: usize) -> Vec<FeatureRange> {
    let mut ranges = vec![
        FeatureRange {
            min: f64::INFINITY,
            max: f64::NEG_INFINITY,
        };
        columns
    ];
    for row in rows {
        for (range, &v) in ranges.iter_mut().zip(row) {
            if v.is_finite() {
                range.min = range.min.min(v);
                range.max = range.max.max(v);
            }
        }
    }
    for range in &mut ranges {
        if range.min > range.max {
            (range.min, range.max) = (f64::NEG_INFINITY, f64::INFINITY);
        }
    }
    ranges
}

/// The options of the `neural` class a model was trained with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NeuralRecord {
    pub source_tokens: usize,
    pub max_references: usize,
    pub max_scored_tokens: usize,
    /// Not part of the record's bincode value (files of versions 4 and 5 have three fields):
    /// written after the feature ranges in version 6; older files decode to the plain prompt.
    #[serde(skip, default = "plain_prompt")]
    pub prompt: NeuralPrompt,
}

fn plain_prompt() -> NeuralPrompt {
    NeuralPrompt::Plain
}

impl From<&NeuralOptions> for NeuralRecord {
    fn from(o: &NeuralOptions) -> NeuralRecord {
        let NeuralOptions {
            source_tokens,
            max_references,
            max_scored_tokens,
            prompt,
        } = o.clone();
        NeuralRecord {
            source_tokens,
            max_references,
            max_scored_tokens,
            prompt,
        }
    }
}

impl From<&NeuralRecord> for NeuralOptions {
    fn from(r: &NeuralRecord) -> NeuralOptions {
        NeuralOptions {
            source_tokens: r.source_tokens,
            max_references: r.max_references,
            max_scored_tokens: r.max_scored_tokens,
            prompt: r.prompt,
        }
    }
}

/// The bytes of the model file at `path`, decompressed when its name ends in `.gz` (as `train -o
/// m.json.gz` writes it); errors name the file.
pub fn read_model_bytes(path: &Path) -> Result<Vec<u8>> {
    // `read_bytes`'s error names the path already.
    aesop_core::input::read_bytes(path).context("reading a model file")
}

/// A model file's format version and the aesop version that wrote it, read from its header;
/// `None` when the bytes do not start with a whole header.
pub fn header_of(bytes: &[u8]) -> Option<(u32, String)> {
    let rest = bytes.strip_prefix(MAGIC.as_slice())?;
    let version = u32::from_le_bytes(rest.get(..4)?.try_into().ok()?);
    let len = u16::from_le_bytes(rest.get(4..6)?.try_into().ok()?) as usize;
    let writer = rest.get(6..6 + len)?;
    Some((version, String::from_utf8_lossy(writer).into_owned()))
}

impl ModelFile {
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let payload = bincode::serde::encode_to_vec(self, bincode::config::standard())
            .context("encoding the model")?;
        let writer = aesop_core::version::version();
        let version = writer.as_bytes();
        let mut out = Vec::with_capacity(payload.len() + 64);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&self.format_version().to_le_bytes());
        out.extend_from_slice(&(version.len() as u16).to_le_bytes());
        out.extend_from_slice(version);
        let mut payload = payload;
        let version = self.format_version();
        if version >= FORMAT_VERSION_TRANSFER {
            append(
                &mut payload,
                &self.transfer,
                "the model's transfer information",
            )?;
        }
        if version == FORMAT_VERSION_NEURAL {
            if let Some(neural) = &self.neural {
                append(&mut payload, neural, "the model's neural options")?;
            }
        }
        if version >= FORMAT_VERSION_RANGES {
            append(&mut payload, &self.neural, "the model's neural options")?;
            append(
                &mut payload,
                &self.feature_ranges,
                "the model's feature ranges",
            )?;
        }
        if version >= FORMAT_VERSION_PROMPT {
            let prompt = self
                .neural
                .as_ref()
                .map_or(NeuralPrompt::Plain, |n| n.prompt);
            append(&mut payload, &prompt.name(), "the model's neural prompt")?;
        }
        if version >= FORMAT_VERSION_ANCHOR {
            append(&mut payload, &self.anchor, "the model's anchor")?;
        }
        if version >= FORMAT_VERSION_INNER_FOLDS {
            append(
                &mut payload,
                &self.settings,
                "the model's training settings",
            )?;
        } else if version == FORMAT_VERSION_SETTINGS {
            let settings = SettingsV8 {
                seed: self.settings.seed,
                equal_set_weights: self.settings.equal_set_weights,
            };
            append(&mut payload, &settings, "the model's training settings")?;
        }
        if version >= FORMAT_VERSION_PAIRS {
            append(
                &mut payload,
                &self.pair_length_tolerance,
                "the model's pair length tolerance",
            )?;
        }
        if version >= FORMAT_VERSION {
            append(
                &mut payload,
                &self.training_identities,
                "the identities of the model's training summaries",
            )?;
        }
        out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        out.extend_from_slice(&fnv1a64(&payload).to_le_bytes());
        out.extend_from_slice(&payload);
        Ok(out)
    }

    /// Parse a model file's bytes; `file` names the source in errors.
    pub fn from_bytes(bytes: &[u8], file: &str) -> std::result::Result<ModelFile, ModelFileError> {
        let mut cur = Cursor {
            bytes,
            pos: 0,
            file,
        };
        if bytes.is_empty() {
            return Err(ModelFileError::Empty {
                file: file.to_string(),
            });
        }
        if bytes.len() < MAGIC.len() || &bytes[..MAGIC.len()] != MAGIC {
            return Err(ModelFileError::WrongMagic {
                file: file.to_string(),
                what_it_holds: what_it_holds(bytes),
            });
        }
        cur.pos = MAGIC.len();
        let version = u32::from_le_bytes(cur.take::<4>("format version")?);
        let writer_len = u16::from_le_bytes(cur.take::<2>("aesop version")?) as usize;
        let writer = String::from_utf8_lossy(cur.slice(writer_len, "aesop version")?).into_owned();
        if version > FORMAT_VERSION {
            return Err(ModelFileError::NewerVersion {
                file: file.to_string(),
                found: version,
                supported: FORMAT_VERSION,
                writer,
            });
        }
        let len = u64::from_le_bytes(cur.take::<8>("payload length")?);
        let checksum = u64::from_le_bytes(cur.take::<8>("checksum")?);
        let len = usize::try_from(len).map_err(|_| corrupt(file, "payload length out of range"))?;
        let payload = cur.slice(len, "payload")?;
        if cur.pos != bytes.len() {
            return Err(corrupt(file, "trailing bytes after the payload"));
        }
        if fnv1a64(payload) != checksum {
            return Err(corrupt(file, "checksum mismatch"));
        }
        // The limit bounds what a length field may claim: without it a corrupt (or crafted) file
        // with a valid checksum made the decoder allocate 7 exabytes and abort (found by
        // tests/fuzz_inputs.rs).
        // The payload is a sequence of bincode values: the model, then (version 3) its transfer
        // information, then (version 4) its neural options; each must end where the next begins.
        let mut rest = payload;
        let mut model: ModelFile = decode_next(&mut rest, file, "payload")?;
        if !rest.is_empty() {
            if version < 3 {
                return Err(corrupt(file, "payload longer than the model"));
            }
            model.transfer = decode_next(&mut rest, file, "transfer information")?;
        }
        if version >= FORMAT_VERSION_RANGES {
            model.neural = decode_next(&mut rest, file, "neural options")?;
            model.feature_ranges = decode_next(&mut rest, file, "feature ranges")?;
            if model
                .feature_ranges
                .as_ref()
                .is_some_and(|r| r.len() != model.feature_names.len())
            {
                return Err(corrupt(file, "feature ranges do not match the features"));
            }
        } else if !rest.is_empty() {
            if version < FORMAT_VERSION_NEURAL {
                return Err(corrupt(file, "payload longer than the model"));
            }
            model.neural = Some(decode_next(&mut rest, file, "neural options")?);
        }
        if version >= FORMAT_VERSION_PROMPT {
            let name: String = decode_next(&mut rest, file, "neural prompt")?;
            let prompt = NeuralPrompt::from_name(&name)
                .ok_or_else(|| corrupt(file, &format!("unknown neural prompt {name:?}")))?;
            match &mut model.neural {
                Some(n) => n.prompt = prompt,
                // A model of version 7 or later without the class records the plain prompt.
                None if prompt == NeuralPrompt::Plain && version >= FORMAT_VERSION_ANCHOR => {}
                None => return Err(corrupt(file, "a neural prompt without neural options")),
            }
        }
        if version >= FORMAT_VERSION_ANCHOR {
            model.anchor = decode_next(&mut rest, file, "anchor")?;
            if model
                .anchor
                .as_ref()
                .is_some_and(|a| !model.feature_names.contains(a))
            {
                return Err(corrupt(file, "the anchor is not among the features"));
            }
        }
        if version >= FORMAT_VERSION_INNER_FOLDS {
            model.settings = decode_next(&mut rest, file, "training settings")?;
            let folds = model.settings.stack_folds;
            if folds.topic_folds == 0 || folds.system_folds == 0 {
                return Err(corrupt(file, "a stacked model's inner split has no folds"));
            }
        } else if version == FORMAT_VERSION_SETTINGS {
            let settings: SettingsV8 = decode_next(&mut rest, file, "training settings")?;
            model.settings = TrainingSettings {
                seed: settings.seed,
                equal_set_weights: settings.equal_set_weights,
                stack_folds: InnerFolds::default(),
            };
        }
        if version >= FORMAT_VERSION_PAIRS {
            model.pair_length_tolerance = decode_next(&mut rest, file, "pair length tolerance")?;
            if model
                .pair_length_tolerance
                .is_some_and(|t| !(t > 0.0 && t < 1.0))
            {
                return Err(corrupt(
                    file,
                    "the pair length tolerance is not a share above 0 and below 1",
                ));
            }
        }
        if version >= FORMAT_VERSION {
            model.training_identities =
                decode_next(&mut rest, file, "training summaries' identities")?;
            if let Some(sets) = &model.training_identities {
                // One list per training set, sorted for the binary search of `in_sample`.
                if sets.len() != model.transfer.sets.len() {
                    return Err(corrupt(
                        file,
                        "the training summaries' identities do not match the training sets",
                    ));
                }
                if sets.iter().any(|ids| ids.windows(2).any(|w| w[0] >= w[1])) {
                    return Err(corrupt(
                        file,
                        "the training summaries' identities are not sorted",
                    ));
                }
            }
        }
        if !rest.is_empty() {
            return Err(corrupt(file, "payload longer than the model"));
        }
        Ok(model)
    }

    /// Whether the model learned from the summary of this identity
    /// ([`aesop_corpus::summary_identity`]): it is in one of its training sets. False when the
    /// file records no identities (older than format 11).
    pub fn learned_from(&self, identity: u64) -> bool {
        self.training_identities
            .as_ref()
            .is_some_and(|sets| sets.iter().any(|set| set.binary_search(&identity).is_ok()))
    }

    /// The lowest format version that holds this model (see [`FORMAT_VERSION`]).
    pub fn format_version(&self) -> u32 {
        let chat = self
            .neural
            .as_ref()
            .is_some_and(|n| n.prompt != NeuralPrompt::Plain);
        let defaults = TrainingSettings::default();
        if self.training_identities.is_some() {
            FORMAT_VERSION
        } else if self.pair_length_tolerance.is_some() {
            FORMAT_VERSION_PAIRS
        } else if self.settings.stack_folds != defaults.stack_folds {
            FORMAT_VERSION_INNER_FOLDS
        } else if self.settings != defaults {
            FORMAT_VERSION_SETTINGS
        } else if self.anchor.is_some() {
            FORMAT_VERSION_ANCHOR
        } else if chat {
            FORMAT_VERSION_PROMPT
        } else if self.feature_ranges.is_some() {
            FORMAT_VERSION_RANGES
        } else if self.neural.is_some() {
            FORMAT_VERSION_NEURAL
        } else if !self.transfer.is_default() {
            FORMAT_VERSION_TRANSFER
        } else if self.model.stack_bases().is_some() {
            FORMAT_VERSION_STACKED
        } else {
            FORMAT_VERSION_PLAIN
        }
    }

    pub fn save(&self, path: &Path) -> Result<()> {
        self.save_checked(path, &[])
    }

    /// Save through [`aesop_core::output::OutputFile`], refusing to overwrite any of `inputs`.
    pub fn save_checked(&self, path: &Path, inputs: &[&Path]) -> Result<()> {
        let bytes = self.to_bytes()?;
        aesop_core::output::OutputFile::write_all_to(path, inputs, &bytes)
            .context("writing the model")
    }

    pub fn load(path: &Path) -> Result<ModelFile> {
        let bytes = read_model_bytes(path)?;
        Ok(ModelFile::from_bytes(&bytes, &path.display().to_string())?)
    }

    /// True when some feature of the model needs references. Read from the columns as well as
    /// the stored flag, so files written before `train` derived the flag from them (the
    /// built-in `readability`, whose 518 columns all work without references) score topics
    /// without references too.
    pub fn needs_references(&self) -> bool {
        !self.reference_free
            && !aesop_features::all_reference_free(
                &self.classes,
                &self.feature_names,
                &FeatureOptions::from(&self.feature_options),
            )
    }

    /// Predictions for every record of `table` (whose columns must include the model's): the
    /// calibrated score where the model has a calibration, else the raw output.
    pub fn predict_table(&self, table: &FeatureTable) -> Result<Vec<f64>> {
        Ok(self.predict_table_calibrated(table, |_| false)?.score)
    }

    /// The calibrated and raw predictions for every record of `table`, and how many of the
    /// records `counted` picks had features outside the model's training ranges. The model's
    /// within-topic normalization, if any, is applied to `table` first.
    pub fn predict_table_calibrated(
        &self,
        table: &FeatureTable,
        counted: impl Fn(usize) -> bool,
    ) -> Result<Predicted> {
        let (raw, outside) = self.predict_raw(table, counted)?;
        let score = match &self.transfer.calibration {
            Some(c) => raw.iter().map(|&r| c.apply(r)).collect(),
            None => raw.clone(),
        };
        Ok(Predicted {
            score,
            raw,
            outside,
        })
    }

    /// The model's raw output for every record of `table`, each feature clamped into its
    /// training range, and the tally of the records `counted` picks whose features were
    /// clamped (`None` for a file without ranges, format < 5).
    fn predict_raw(
        &self,
        table: &FeatureTable,
        counted: impl Fn(usize) -> bool,
    ) -> Result<(Vec<f64>, Option<RangeTally>)> {
        let normalized;
        let table = if self.transfer.normalization.batch_dependent() {
            normalized = normalize_table(table, self.transfer.normalization);
            &normalized
        } else {
            table
        };
        let columns = column_indices(&table.names, &self.feature_names)?;
        let ranges = self.feature_ranges.as_deref();
        let mut tally = ranges.map(|_| RangeTally::new(columns.len()));
        let mut rows = Vec::with_capacity(table.records.len());
        for (r, record) in table.records.iter().enumerate() {
            let count = counted(r);
            let mut row = Vec::with_capacity(columns.len());
            let mut counts = tally.as_mut().filter(|_| count);
            for (k, &c) in columns.iter().enumerate() {
                let v = record.values[c]
                    .filter(|v| v.is_finite())
                    .unwrap_or(f64::NAN);
                // Into the training range (format 5).
                let Some(range) = ranges.and_then(|ranges| ranges.get(k)) else {
                    row.push(v);
                    continue;
                };
                if let Some(tally) = counts.as_mut() {
                    tally.count_value(k, v, range);
                }
                row.push(range.clamp(v));
            }
            if let Some(tally) = counts {
                tally.summaries += 1;
            }
            rows.push(row);
        }
        Ok((self.model.predict(&rows)?, tally))
    }
}

/// What [`ModelFile::predict_table_calibrated`] gives for a table.
#[derive(Debug, Clone)]
pub struct Predicted {
    /// The calibrated score of each record (the raw output for a model without a calibration).
    pub score: Vec<f64>,
    /// The model's raw output for each record.
    pub raw: Vec<f64>,
    /// The counted records' features outside the training ranges; `None` for a model file
    /// without ranges.
    pub outside: Option<RangeTally>,
}

/// Decode the next bincode value of `rest` and advance past it; `what` names it in errors.
fn decode_next<T: serde::de::DeserializeOwned>(
    rest: &mut &[u8],
    file: &str,
    what: &str,
) -> std::result::Result<T, ModelFileError> {
    // The limit bounds what a length field may claim: without it a corrupt (or crafted) file
    // with a valid checksum made the decoder allocate 7 exabytes and abort (found by
    // tests/fuzz_inputs.rs).
    let config = bincode::config::standard().with_limit::<MAX_DECODED_BYTES>();
    let (value, used) = bincode::serde::decode_from_slice::<T, _>(rest, config)
        .map_err(|e| corrupt(file, &format!("{what} cannot be decoded: {e}")))?;
    *rest = &rest[used..];
    Ok(value)
}

fn corrupt(file: &str, what: &str) -> ModelFileError {
    ModelFileError::Corrupt {
        file: file.to_string(),
        what: what.to_string(),
    }
}

struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
    file: &'a str,
}

impl<'a> Cursor<'a> {
    fn slice(
        &mut self,
        n: usize,
        what: &'static str,
    ) -> std::result::Result<&'a [u8], ModelFileError> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or_else(|| ModelFileError::Truncated {
                file: self.file.to_string(),
                what,
            })?;
        let out = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(out)
    }

    fn take<const N: usize>(
        &mut self,
        what: &'static str,
    ) -> std::result::Result<[u8; N], ModelFileError> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.slice(N, what)?);
        Ok(out)
    }
}

/// The model file's payload checksum (FNV-1a 64, as every content hash of aesop).
pub use aesop_core::hash::fnv1a64;

/// A serializable copy of [`FeatureOptions`] (the feature modules do not derive serde). The
/// conversions destructure every field, so adding an option breaks the build here until the
/// model file records it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FeatureOptionsRecord {
    pub content_delta: f64,
    pub content_bins_factor: f64,
    pub content_llr_cutoff: f64,
    pub content_log_base_ten: bool,
    pub content_require_higher_input_rate: bool,
    pub content_smooth_likelihood: bool,
    pub rouge: RougeRecord,
    pub graph_rank: usize,
    pub graph_window: usize,
    pub tesla_alpha: f64,
    pub tesla_function_word_weight: f64,
    pub tesla_closed_share_threshold: f64,
    pub tesla_max_skip: usize,
    pub tesla_stem_similarity: f64,
    pub consensus_delta: f64,
    pub consensus_bins_factor: f64,
    pub consensus_include_human: bool,
    pub consensus_rouge: RougeRecord,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RougeRecord {
    pub best_reference: bool,
    pub jackknife: bool,
    pub stem: bool,
    pub remove_stopwords: bool,
}

impl From<&rouge::RougeOptions> for RougeRecord {
    fn from(o: &rouge::RougeOptions) -> RougeRecord {
        let rouge::RougeOptions {
            mode,
            jackknife,
            stem,
            remove_stopwords,
            // ROUGE-1.5.5's -l / -b reproduce its published numbers in `aesop features`; no
            // model learns from cut texts (the learning verbs refuse the flags), so a model
            // file has no field for them.
            limit: _,
        } = o.clone();
        RougeRecord {
            best_reference: mode == rouge::MultiRefMode::Best,
            jackknife,
            stem,
            remove_stopwords,
        }
    }
}

impl From<&RougeRecord> for rouge::RougeOptions {
    fn from(r: &RougeRecord) -> rouge::RougeOptions {
        rouge::RougeOptions {
            mode: if r.best_reference {
                rouge::MultiRefMode::Best
            } else {
                rouge::MultiRefMode::Average
            },
            jackknife: r.jackknife,
            stem: r.stem,
            remove_stopwords: r.remove_stopwords,
            limit: None,
        }
    }
}

impl From<&FeatureOptions> for FeatureOptionsRecord {
    fn from(o: &FeatureOptions) -> FeatureOptionsRecord {
        let FeatureOptions {
            content,
            rouge,
            graph,
            tesla,
            consensus,
            surface,
            // Not recorded: a model file loads the neural class with its defaults.
            neural: _,
        } = o;
        let content::ContentOptions {
            delta,
            bins_factor,
            llr_cutoff,
            log_base,
            require_higher_input_rate,
            smooth_likelihood,
        } = content.clone();
        let graph::GraphOptions { rank, window } = graph.clone();
        let tesla::TeslaOptions {
            alpha,
            function_word_weight,
            closed_share_threshold,
            max_skip,
            stem_similarity,
        } = tesla.clone();
        let consensus::ConsensusOptions {
            delta: c_delta,
            bins_factor: c_bins,
            include_human,
            rouge: c_rouge,
        } = consensus.clone();
        let surface::SurfaceOptions {} = surface.clone();
        FeatureOptionsRecord {
            content_delta: delta,
            content_bins_factor: bins_factor,
            content_llr_cutoff: llr_cutoff,
            content_log_base_ten: log_base == distribution::LogBase::Ten,
            content_require_higher_input_rate: require_higher_input_rate,
            content_smooth_likelihood: smooth_likelihood,
            rouge: rouge.into(),
            graph_rank: rank,
            graph_window: window,
            tesla_alpha: alpha,
            tesla_function_word_weight: function_word_weight,
            tesla_closed_share_threshold: closed_share_threshold,
            tesla_max_skip: max_skip,
            tesla_stem_similarity: stem_similarity,
            consensus_delta: c_delta,
            consensus_bins_factor: c_bins,
            consensus_include_human: include_human,
            consensus_rouge: (&c_rouge).into(),
        }
    }
}

impl From<&FeatureOptionsRecord> for FeatureOptions {
    fn from(r: &FeatureOptionsRecord) -> FeatureOptions {
        FeatureOptions {
            content: content::ContentOptions {
                delta: r.content_delta,
                bins_factor: r.content_bins_factor,
                llr_cutoff: r.content_llr_cutoff,
                log_base: if r.content_log_base_ten {
                    distribution::LogBase::Ten
                } else {
                    distribution::LogBase::E
                },
                require_higher_input_rate: r.content_require_higher_input_rate,
                smooth_likelihood: r.content_smooth_likelihood,
            },
            neural: Default::default(),
            rouge: (&r.rouge).into(),
            graph: graph::GraphOptions {
                rank: r.graph_rank,
                window: r.graph_window,
            },
            tesla: tesla::TeslaOptions {
                alpha: r.tesla_alpha,
                function_word_weight: r.tesla_function_word_weight,
                closed_share_threshold: r.tesla_closed_share_threshold,
                max_skip: r.tesla_max_skip,
                stem_similarity: r.tesla_stem_similarity,
            },
            consensus: consensus::ConsensusOptions {
                delta: r.consensus_delta,
                bins_factor: r.consensus_bins_factor,
                include_human: r.consensus_include_human,
                rouge: (&r.consensus_rouge).into(),
            },
            surface: surface::SurfaceOptions {},
        }
    }
}

/// Append one trailing bincode value to a model payload; `what` names it in errors.
fn append<T: Serialize>(payload: &mut Vec<u8>, value: &T, what: &str) -> Result<()> {
    let bytes = bincode::serde::encode_to_vec(value, bincode::config::standard())
        .with_context(|| format!("encoding {what}"))?;
    payload.extend_from_slice(&bytes);
    Ok(())
}
