//! SHA-256 digests as lower-case hex, the one spelling every digest rusty-sdk compares or
//! records takes: a chart archive's against its repository index or OCI manifest, the
//! stamp of a chart template `edit --plugins=helm/v2-alpha` owns, the RBAC objects
//! cache's keys.
use std::fmt::Write as _;

/// The lower-case hex SHA-256 of `bytes` (what Helm indexes and OCI digests record).
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, bytes).as_ref())
}

/// `bytes` as lower-case hex, two digits each.
pub fn hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .fold(String::with_capacity(2 * bytes.len()), |mut out, b| {
            let _ = write!(out, "{b:02x}");
            out
        })
}

#[cfg(test)]
mod tests {
    #[test]
    fn sha256_is_lower_case_hex() {
        assert_eq!(
            super::sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(super::hex(&[0x00, 0x0f, 0xa0]), "000fa0");
    }
}
