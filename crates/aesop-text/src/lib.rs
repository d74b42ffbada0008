//! Text analysis the classic metrics depend on: tokenization profiles (`rouge155`, `simetrix`,
//! rouge-score's), the original Porter (1980) stemmer and NLTK's, WordNet-2.0 exception lists,
//! stop lists, sentence splitting, and recasing a summary's words as its source writes them.

pub mod porter;
pub mod porter_nltk;
pub mod profile;
pub mod sentences;
pub mod stopwords;
pub mod truecase;
pub mod wordnet;

pub use profile::{rouge155_tokens, simetrix_tokens, Rouge155Options};
pub use sentences::split_sentences;

pub mod nlp;
