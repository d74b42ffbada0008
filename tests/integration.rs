//! Every integration test, as one test binary: one link instead of one per file, which is most
//! of `cargo test`'s rebuild time after a change (docs/ARCHITECTURE.md). Each file in tests/ is
//! a module; test names are unchanged (`rouge_features::rouge155_summeval_parity`). Run one
//! file's tests with `cargo test --test integration rouge_features::`.

#[macro_use]
mod common;

mod alignment_features;
mod arcs_features;
mod cli_bad_inputs;
mod cli_features;
mod cli_generate;
mod cli_verbs;
mod cohmetrix_features;
mod consensus_features;
mod content_features;
mod continuity_features;
mod corpus_cli;
mod corpus_jsonl;
mod corpus_lines;
mod corpus_nist;
mod corpus_public;
mod corpus_rouge;
mod degenerate;
mod discourse_features;
mod entity_features;
mod eval_cli;
mod eval_features_table;
mod eval_statistics;
mod fuzz_inputs;
mod fuzz_texts;
mod graph_features;
mod learn_ablate;
mod learn_anchor;
mod learn_builtin;
mod learn_learners;
mod learn_length_pairs;
mod learn_recipe;
mod learn_score_text;
mod learn_stack;
mod learn_summeval;
mod learn_transfer;
mod learn_verbs;
mod lm_features;
mod model_card;
mod models_cli;
mod neural_bad_input;
mod neural_builtins;
mod neural_cache;
mod neural_fixture;
mod neural_hidden;
mod neural_match;
mod neural_spm;
mod neural_tokens;
mod neural_truecased;
mod nlp_conllu;
mod nlp_ewt;
mod nlp_robustness;
mod nlp_tokenize;
mod npsyntax_features;
mod output_files;
mod redundancy_features;
mod rouge_features;
mod score_large_topic;
mod score_stream;
mod sentences;
mod serve_api;
mod serve_limits;
mod surface_features;
mod syntax_features;
mod tesla_features;
mod text_profiles;
