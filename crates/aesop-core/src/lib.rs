//! Utilities every layer of aesop shares: safe output files ([`output`]), whether to draw progress ([`progress`]), the seeded random
//! generator ([`rng`]) and the varint coding of the compact binary files ([`varint`]).

pub mod output;
pub mod progress;
pub mod rng;
pub mod varint;
