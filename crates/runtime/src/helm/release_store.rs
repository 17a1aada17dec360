//! What Helm's storage drivers keep under `release` (pkg/storage/driver/util.go): base64
//! of (optionally gzipped) release JSON, read within a bound against gzip bombs.
use std::io::Read;

use base64::Engine;
use flate2::read::GzDecoder;

/// A release JSON larger than this once decompressed is refused (Secrets hold 1 MiB
/// compressed; this bounds memory against a gzip bomb).
const MAX_RELEASE_BYTES: u64 = 64 * 1024 * 1024;
const GZIP_MAGIC: [u8; 3] = [0x1f, 0x8b, 0x08];

/// The release JSON in what a storage driver keeps under `release`: base64 text of the
/// JSON, gzipped or not, refused past [`MAX_RELEASE_BYTES`] once decompressed.
pub(crate) fn unpack(stored: &[u8]) -> Result<Vec<u8>, String> {
    let raw = base64::engine::general_purpose::STANDARD
        .decode(stored)
        .map_err(|e| format!("release is not base64: {e}"))?;
    if !raw.starts_with(&GZIP_MAGIC) {
        return Ok(raw);
    }
    let mut out = Vec::new();
    GzDecoder::new(raw.as_slice())
        .take(MAX_RELEASE_BYTES + 1)
        .read_to_end(&mut out)
        .map_err(|e| format!("release is not valid gzip: {e}"))?;
    if out.len() as u64 > MAX_RELEASE_BYTES {
        return Err(format!(
            "release is larger than {MAX_RELEASE_BYTES} bytes uncompressed"
        ));
    }
    Ok(out)
}

#[cfg(test)]
pub(crate) mod tests {
    use std::io::Write;

    use flate2::Compression;
    use flate2::write::GzEncoder;

    use super::*;

    /// What Helm's `encodeRelease` stores: base64(gzip(json)).
    pub(crate) fn encode(json: &str) -> String {
        let mut gz = GzEncoder::new(Vec::new(), Compression::best());
        gz.write_all(json.as_bytes()).unwrap();
        base64::engine::general_purpose::STANDARD.encode(gz.finish().unwrap())
    }

    #[test]
    fn gzipped_and_plain_records_unpack_and_garbage_is_named() {
        let json = r#"{"name":"mc"}"#;
        for stored in [
            encode(json),
            base64::engine::general_purpose::STANDARD.encode(json),
        ] {
            assert_eq!(unpack(stored.as_bytes()).unwrap(), json.as_bytes());
        }
        assert!(unpack(b"%%%").unwrap_err().contains("not base64"));
    }
}
