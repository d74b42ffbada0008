//! WordNet-2.0 morphological exception lists (ROUGE-1.5.5 `-m`). STUB.

/// The base form for an inflected form, if the exception lists hold one.
pub fn exception_base(_word: &str) -> Option<&'static str> {
    None
}
