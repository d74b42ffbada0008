//! Model files from before calibration and before the LM options still load (or fail clearly); old
//! readers refuse the newer format.

use super::*;

#[test]
fn a_model_file_from_before_calibration_still_loads_and_scores_raw() {
    let path = common::fixture("learn/responsiveness-noref-format1.aesop");
    let bytes = std::fs::read(&path).expect("fixture");
    let version = u32::from_le_bytes(bytes[8..12].try_into().expect("4"));
    assert!(version <= 2, "the fixture predates format 3");
    let model = ModelFile::load(&path).expect("old model loads");
    assert_eq!(model.transfer.normalization, Normalization::None);
    assert!(model.transfer.calibration.is_none() && model.transfer.sets.is_empty());
    // Re-saved unchanged it stays in its old format version (older aesop builds can read it).
    let dir = tempfile::tempdir().expect("tempdir");
    let copy = dir.path().join("copy.aesop");
    model.save(&copy).expect("save");
    let again = std::fs::read(&copy).expect("read");
    assert_eq!(
        u32::from_le_bytes(again[8..12].try_into().expect("4")),
        version
    );
    // A truncated transfer trailer of a format-3 file is an error, not a silent default.
    let mut file = ModelFile::load(&path).expect("load");
    file.transfer.calibration = Some(Calibration {
        slope: 1.0,
        intercept: 0.0,
        min: 1.0,
        max: 5.0,
    });
    let mut v3 = file.to_bytes().expect("encode");
    let len_at = 8 + 4 + 2 + u16::from_le_bytes([v3[12], v3[13]]) as usize;
    let len = u64::from_le_bytes(v3[len_at..len_at + 8].try_into().expect("8"));
    v3.truncate(v3.len() - 3);
    v3[len_at..len_at + 8].copy_from_slice(&(len - 3).to_le_bytes());
    let payload_start = len_at + 16;
    let checksum = aesop::learn::model_file::fnv1a64(&v3[payload_start..]);
    v3[len_at + 8..len_at + 16].copy_from_slice(&checksum.to_le_bytes());
    let err = ModelFile::from_bytes(&v3, "v3.aesop").expect_err("truncated trailer");
    assert!(err.to_string().contains("v3.aesop"), "{err}");
}

/// Re-seal `bytes` (a model file) after its payload was changed: length and checksum.
fn reseal(bytes: &mut Vec<u8>, payload: Vec<u8>) {
    let len_at = 8 + 4 + 2 + u16::from_le_bytes([bytes[12], bytes[13]]) as usize;
    bytes.truncate(len_at);
    bytes.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&aesop::learn::model_file::fnv1a64(&payload).to_le_bytes());
    bytes.extend_from_slice(&payload);
}

#[test]
fn neural_options_are_recorded_in_format_4_and_old_readers_refuse_it() {
    use aesop::features::neural::NeuralPrompt;
    use aesop::learn::model_file::NeuralRecord;
    let path = common::fixture("learn/responsiveness-noref-format1.aesop");
    let mut model = ModelFile::load(&path).expect("old model loads");
    assert!(
        model.neural.is_none(),
        "files before format 4 have no neural options"
    );
    let record = NeuralRecord {
        source_tokens: 700,
        max_references: 0,
        max_scored_tokens: 256,
        prompt: NeuralPrompt::Plain,
    };
    model.neural = Some(record.clone());
    let bytes = model.to_bytes().expect("encode");
    assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().expect("4")), 4);
    let back = ModelFile::from_bytes(&bytes, "v4.aesop").expect("decode");
    assert_eq!(back.neural, Some(record.clone()));
    // Without calibration the (default) transfer information is still written before it.
    assert_eq!(back.transfer, model.transfer);
    // A file that claims format 3 may not carry a third value.
    let mut v3 = bytes.clone();
    v3[8..12].copy_from_slice(&3u32.to_le_bytes());
    let err = ModelFile::from_bytes(&v3, "claims-v3.aesop").expect_err("extra value");
    assert!(err.to_string().contains("claims-v3.aesop"), "{err}");
    // A truncated neural record is an error naming the file.
    let len_at = 8 + 4 + 2 + u16::from_le_bytes([bytes[12], bytes[13]]) as usize;
    let payload = bytes[len_at + 16..bytes.len() - 1].to_vec();
    let mut cut = bytes.clone();
    reseal(&mut cut, payload);
    let err = ModelFile::from_bytes(&cut, "cut.aesop").expect_err("truncated");
    assert!(err.to_string().contains("cut.aesop"), "{err}");
    // Format 5: the neural options (here present, then absent) and the feature ranges.
    model.feature_ranges = Some(aesop::learn::model_file::feature_ranges(
        &[vec![1.0; model.feature_names.len()]],
        model.feature_names.len(),
    ));
    for neural in [Some(record.clone()), None] {
        model.neural = neural.clone();
        let bytes = model.to_bytes().expect("encode");
        assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().expect("4")), 5);
        let back = ModelFile::from_bytes(&bytes, "v5.aesop").expect("decode");
        assert_eq!(back.neural, neural);
        assert_eq!(back.feature_ranges, model.feature_ranges);
    }
    // Format 6: the chat prompt, appended after the feature ranges; a plain-prompt model stays
    // at format 5, which older builds read, and every older file decodes to the plain prompt.
    let chat = NeuralRecord {
        prompt: NeuralPrompt::Chat,
        ..record.clone()
    };
    model.neural = Some(chat.clone());
    let bytes = model.to_bytes().expect("encode");
    assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().expect("4")), 6);
    let back = ModelFile::from_bytes(&bytes, "v6.aesop").expect("decode");
    assert_eq!(back.neural, Some(chat));
    // A file that claims format 5 may not carry the prompt.
    let mut v5 = bytes.clone();
    v5[8..12].copy_from_slice(&5u32.to_le_bytes());
    let err = ModelFile::from_bytes(&v5, "claims-v5.aesop").expect_err("extra value");
    assert!(err.to_string().contains("claims-v5.aesop"), "{err}");
    // An unknown prompt name is an error naming the file and the name.
    let len_at = 8 + 4 + 2 + u16::from_le_bytes([bytes[12], bytes[13]]) as usize;
    let mut payload = bytes[len_at + 16..].to_vec();
    let at = payload.len() - 4;
    payload[at..].copy_from_slice(b"chit");
    let mut odd = bytes.clone();
    reseal(&mut odd, payload);
    let err = ModelFile::from_bytes(&odd, "odd.aesop").expect_err("unknown prompt");
    let msg = err.to_string();
    assert!(msg.contains("odd.aesop") && msg.contains("chit"), "{msg}");
}
