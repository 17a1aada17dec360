//! Keys and X.509 certificates as sprig makes them: genPrivateKey, genCA,
//! genSelfSignedCert, genSignedCert (and their `WithKey` forms) and buildCustomCert.
//! Keys print in the PEM form Go's sprig writes: "RSA PRIVATE KEY" (PKCS#1),
//! "EC PRIVATE KEY" (SEC1), "PRIVATE KEY" (PKCS#8, ed25519) or "DSA PRIVATE KEY"
//! (OpenSSL's layout, [`super::dsa`]).
use std::cell::RefCell;
use std::collections::HashMap;
use std::net::IpAddr;

use aws_lc_rs::encoding::{AsDer, EcPrivateKeyRfc5915Der, Pkcs8V1Der};
use aws_lc_rs::rsa::KeyPair as RsaKeyPair;
use aws_lc_rs::signature::{ECDSA_P256_SHA256_ASN1_SIGNING, EcdsaKeyPair};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use gotemplate::{Result, Value};
use rand_core::{OsRng, RngCore};
use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa,
    Issuer, KeyPair, KeyUsagePurpose, SanType, SerialNumber,
};

use super::args::{self, Function, call_error, exact, int, string};
use super::certificate::{Certificate, Made, pem_field};

/// A PEM block with Go's layout: 64-column base64 lines, LF endings.
fn pem_block(tag: &str, der: &[u8]) -> String {
    let config = pem::EncodeConfig::new().set_line_ending(pem::LineEnding::LF);
    pem::encode_config(&pem::Pem::new(tag, der.to_vec()), config)
}

fn is_rsa(kp: &KeyPair) -> bool {
    kp.algorithm() == &rcgen::PKCS_RSA_SHA256
}

/// One DER element at the start of `der`: (tag, contents, rest). Short and long
/// definite lengths only, which is all PKCS#8 uses.
pub(super) fn der_element(der: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let (&tag, rest) = der.split_first()?;
    let (&first, rest) = rest.split_first()?;
    let (len, rest) = if first < 0x80 {
        (usize::from(first), rest)
    } else {
        let n = usize::from(first & 0x7f);
        if n == 0 || n > 4 || rest.len() < n {
            return None;
        }
        let len = rest[..n]
            .iter()
            .fold(0usize, |acc, b| acc << 8 | usize::from(*b));
        (len, &rest[n..])
    };
    (rest.len() >= len).then(|| (tag, &rest[..len], &rest[len..]))
}

/// The PKCS#1 `RSAPrivateKey` inside a PKCS#8 `PrivateKeyInfo` (its `privateKey` OCTET STRING).
fn pkcs8_private_key(pkcs8: &[u8]) -> Option<&[u8]> {
    let (0x30, info, _) = der_element(pkcs8)? else {
        return None;
    };
    let (0x02, _, rest) = der_element(info)? else {
        return None;
    };
    let (0x30, _, rest) = der_element(rest)? else {
        return None;
    };
    let (0x04, key, _) = der_element(rest)? else {
        return None;
    };
    Some(key)
}

/// The key as sprig's pemBlockForKey writes it.
fn key_pem(kp: &KeyPair) -> std::result::Result<String, String> {
    let pkcs8 = kp.serialize_der();
    if is_rsa(kp) {
        let pkcs1 = pkcs8_private_key(&pkcs8).ok_or("malformed PKCS#8 RSA key")?;
        return Ok(pem_block("RSA PRIVATE KEY", pkcs1));
    }
    if kp.algorithm() == &rcgen::PKCS_ECDSA_P256_SHA256 {
        let key = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_ASN1_SIGNING, &pkcs8)
            .map_err(|e| e.to_string())?;
        let sec1: EcPrivateKeyRfc5915Der<'_> =
            key.private_key().as_der().map_err(|e| e.to_string())?;
        return Ok(pem_block("EC PRIVATE KEY", sec1.as_ref()));
    }
    Ok(pem_block("PRIVATE KEY", &pkcs8))
}

/// sprig's parsePrivateKeyPEM: PKCS#8, PKCS#1 RSA or SEC1 P-256 keys.
fn parse_key(text: &str) -> std::result::Result<KeyPair, String> {
    let block = pem::parse(text).map_err(|_| "no PEM data in input".to_string())?;
    let pkcs8: Vec<u8> = match block.tag() {
        "PRIVATE KEY" => block.contents().to_vec(),
        "RSA PRIVATE KEY" => {
            let key = RsaKeyPair::from_der(block.contents())
                .map_err(|e| format!("parsing RSA private key from PEM: {e}"))?;
            let pkcs8: Pkcs8V1Der<'_> = key
                .as_der()
                .map_err(|e| format!("parsing RSA private key from PEM: {e}"))?;
            pkcs8.as_ref().to_vec()
        }
        "EC PRIVATE KEY" => {
            EcdsaKeyPair::from_private_key_der(&ECDSA_P256_SHA256_ASN1_SIGNING, block.contents())
                .and_then(|k| k.to_pkcs8v1().map_err(aws_lc_rs::error::KeyRejected::from))
                .map_err(|e| format!("parsing EC private key from PEM: {e}"))?
                .as_ref()
                .to_vec()
        }
        tag if tag.ends_with(" PRIVATE KEY") => {
            return Err(format!("invalid private key type {tag}"));
        }
        tag => return Err(format!("no private key data in PEM block of type {tag}")),
    };
    let pem_text = pem_block("PRIVATE KEY", &pkcs8);
    KeyPair::from_pem(&pem_text).map_err(|e| format!("decoding PEM as PKCS#8: {e}"))
}

thread_local! {
    /// The key of each kind made so far in the current [`KeyReuse`] set.
    static POOL: RefCell<Option<HashMap<String, Vec<u8>>>> = const { RefCell::new(None) };
}

/// While alive, every key of a kind the renders on this thread ask for is the same
/// one, made once. For renders whose output only serves to list the objects a chart
/// creates (the RBAC switch renders): charts call genCA or genSignedCert dozens of times
/// (`default (genCA ...)` evaluates its argument even when unused), and RSA key
/// generation would dominate. Each set makes fresh keys.
pub struct KeyReuse(());

impl KeyReuse {
    pub fn begin() -> KeyReuse {
        POOL.with(|p| *p.borrow_mut() = Some(HashMap::new()));
        KeyReuse(())
    }
}

impl Drop for KeyReuse {
    fn drop(&mut self) {
        POOL.with(|p| *p.borrow_mut() = None);
    }
}

/// Whether an active [`KeyReuse`] set already holds a key of `kind`.
fn reusing(kind: &str) -> bool {
    POOL.with(|p| {
        p.borrow()
            .as_ref()
            .is_some_and(|pool| pool.contains_key(kind))
    })
}

/// A key of `kind`: the set's one when a [`KeyReuse`] set is active.
fn generate(kind: &str) -> std::result::Result<KeyPair, String> {
    let reused = POOL.with(|p| p.borrow().as_ref()?.get(kind).cloned());
    if let Some(der) = reused {
        return KeyPair::from_pem(&pem_block("PRIVATE KEY", &der)).map_err(|e| e.to_string());
    }
    let key = generate_fresh(kind)?;
    POOL.with(|p| {
        if let Some(pool) = p.borrow_mut().as_mut() {
            pool.insert(kind.to_string(), key.serialize_der());
        }
    });
    Ok(key)
}

fn generate_fresh(kind: &str) -> std::result::Result<KeyPair, String> {
    let made = match kind {
        // RSA keys come from the spares made ahead on another core.
        "" | "rsa" => {
            return super::spare_keys::rsa(4096)
                .map_err(|e| format!("failed to generate private key: {e}"));
        }
        "rsa2048" => {
            return super::spare_keys::rsa(2048)
                .map_err(|e| format!("failed to generate private key: {e}"));
        }
        "ecdsa" => KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256),
        "ed25519" => KeyPair::generate_for(&rcgen::PKCS_ED25519),
        other => return Err(format!("Unknown type {other}")),
    };
    made.map_err(|e| format!("failed to generate private key: {e}"))
}

/// sprig's getBaseCertTemplate: a random 128-bit serial, CN only, valid from now
/// for `days`, server and client auth.
fn base_params(
    cn: &str,
    ips: &Value,
    dns: &Value,
    days: i64,
) -> std::result::Result<CertificateParams, String> {
    let mut params = CertificateParams::default();
    let mut name = DistinguishedName::new();
    name.push(DnType::CommonName, cn);
    params.distinguished_name = name;
    let mut serial = [0u8; 16];
    OsRng.fill_bytes(&mut serial);
    serial[0] &= 0x7f;
    params.serial_number = Some(SerialNumber::from_slice(&serial));
    let now = time::OffsetDateTime::now_utc();
    params.not_before = now;
    // Go: time.Duration(daysValid) * time.Hour * 24, int64 nanoseconds that wrap, so
    // the end is within 292 years of now.
    let valid = days.wrapping_mul(3_600_000_000_000).wrapping_mul(24);
    params.not_after = now + time::Duration::nanoseconds(valid);
    params.key_usages = vec![
        KeyUsagePurpose::KeyEncipherment,
        KeyUsagePurpose::DigitalSignature,
    ];
    params.extended_key_usages = vec![
        ExtendedKeyUsagePurpose::ServerAuth,
        ExtendedKeyUsagePurpose::ClientAuth,
    ];
    params.is_ca = IsCa::ExplicitNoCa;
    for ip in list_items(ips) {
        let Value::String(text) = ip else {
            return Err(format!(
                "error parsing ip: {} is not a string",
                crate::gofmt::sprint(ip)
            ));
        };
        let addr: IpAddr = text
            .parse()
            .map_err(|_| format!("error parsing ip: {text}"))?;
        params.subject_alt_names.push(SanType::IpAddress(addr));
    }
    for name in list_items(dns) {
        let Value::String(text) = name else {
            return Err(format!(
                "error processing alternate dns name: {} is not a string",
                crate::gofmt::sprint(name)
            ));
        };
        let ia5 = text
            .as_ref()
            .try_into()
            .map_err(|_| format!("invalid DNS name {text:?}"))?;
        params.subject_alt_names.push(SanType::DnsName(ia5));
    }
    Ok(params)
}

fn list_items(v: &Value) -> &[Value] {
    match v {
        Value::List(items) => items,
        _ => &[],
    }
}

/// A Go `[]interface{}` parameter: a list or nil.
fn list_param(v: &Value) -> Result<&Value> {
    match v {
        Value::List(_) | Value::Nil => Ok(v),
        other => Err(gotemplate::TemplateError::Exec(format!(
            "wrong type for value; expected []interface {{}}; got {}",
            args::go_type(other)
        ))),
    }
}

/// `cn`, `ips`, `alternateDNS` and `daysValid`, the arguments every certificate
/// generator but genCA starts with.
fn subject_args(a: &[Value]) -> Result<(&str, &Value, &Value, i64)> {
    Ok((
        string(&a[0])?,
        list_param(&a[1])?,
        list_param(&a[2])?,
        int(&a[3])?,
    ))
}

/// What genCA signs: the base template made a CA.
fn ca_params(cn: &str, days: i64) -> std::result::Result<CertificateParams, String> {
    let mut params = base_params(cn, &Value::Nil, &Value::Nil, days)?;
    params.key_usages.push(KeyUsagePurpose::KeyCertSign);
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    Ok(params)
}

/// The certificate of `params` signed by its own `key`, and the key, in PEM.
fn self_signed(params: &CertificateParams, key: &KeyPair) -> Made {
    let cert = params
        .self_signed(key)
        .map_err(|e| format!("error creating certificate: {e}"))?;
    Ok((cert.pem(), key_pem(key)?))
}

/// The signer that a certificate value `ca` stands for (genSignedCert's last argument).
fn issuer_of(ca: &Value) -> Result<std::result::Result<Issuer<'static, KeyPair>, String>> {
    let (Some(cert), Some(key)) = (pem_field(ca, "Cert"), pem_field(ca, "Key")) else {
        return Ok(Err(
            "wrong type for value; expected sprig.certificate; got ".to_string()
                + &args::go_type(ca),
        ));
    };
    let (cert, key) = (cert?, key?);
    Ok((|| {
        let signer = parse_key(&key).map_err(|e| format!("error parsing private key: {e}"))?;
        Issuer::from_ca_cert_pem(&cert, signer)
            .map_err(|e| format!("error parsing certificate: decodedSignerCert.Bytes: {e}"))
    })())
}

/// The certificate of `params` signed by `issuer`, with `key` as its key, in PEM.
fn signed(mut params: CertificateParams, issuer: &Issuer<'static, KeyPair>, key: &KeyPair) -> Made {
    params.use_authority_key_identifier_extension = true;
    let cert = params
        .signed_by(key, issuer)
        .map_err(|e| format!("error creating certificate: {e}"))?;
    Ok((cert.pem(), key_pem(key)?))
}

/// A certificate value made now from `made` (a key the chart gave).
fn now(func: &'static str, made: Made) -> Result<Value> {
    let (cert, key) = made.map_err(|e| call_error(func, e))?;
    Ok(Certificate::ready(func, cert, key))
}

/// A certificate value whose RSA key and signature are made when it is first read.
fn later(func: &'static str, sign: impl FnOnce(&KeyPair) -> Made + Send + 'static) -> Value {
    if !reusing("rsa2048") {
        super::spare_keys::expect(2048);
    }
    Certificate::lazy(func, move || sign(&rsa2048()?))
}

fn rsa2048() -> std::result::Result<KeyPair, String> {
    generate("rsa2048").map_err(|e| format!("error generating rsa key: {e}"))
}

fn provided(text: &str) -> std::result::Result<KeyPair, String> {
    parse_key(text).map_err(|e| format!("parsing private key: {e}"))
}

fn build_custom(b64cert: &str, b64key: &str) -> Made {
    let cert = STANDARD
        .decode(b64cert)
        .map_err(|_| "unable to decode base64 certificate".to_string())?;
    let key = STANDARD
        .decode(b64key)
        .map_err(|_| "unable to decode base64 private key".to_string())?;
    let cert = String::from_utf8(cert).map_err(|_| "unable to decode certificate".to_string())?;
    let key =
        String::from_utf8(key).map_err(|_| "unable to decode base64 private key".to_string())?;
    let block = pem::parse(&cert).map_err(|_| "unable to decode certificate".to_string())?;
    if block.tag() != "CERTIFICATE" {
        return Err("error parsing certificate: decodedCert.Bytes: not a certificate".into());
    }
    parse_key(&key).map_err(|e| format!("error parsing private key: {e}"))?;
    Ok((cert, key))
}

fn wrap<T>(name: &str, r: std::result::Result<T, String>) -> Result<T> {
    r.map_err(|e| call_error(name, e))
}

/// The family's template functions. Those that generate a key return a certificate
/// made when first read (see `certificate`); those given a key make it now.
pub(crate) const FUNCTIONS: &[Function] = &[
    Function::string("genPrivateKey", gen_private_key),
    Function::new(
        "genCA",
        "func(string, int) (sprig.certificate, error)",
        gen_ca,
    ),
    Function::new(
        "genCAWithKey",
        "func(string, int, string) (sprig.certificate, error)",
        gen_ca_with_key,
    ),
    Function::new(
        "genSelfSignedCert",
        "func(string, []interface {}, []interface {}, int) (sprig.certificate, error)",
        gen_self_signed_cert,
    ),
    Function::new(
        "genSelfSignedCertWithKey",
        "func(string, []interface {}, []interface {}, int, string) (sprig.certificate, error)",
        gen_self_signed_cert_with_key,
    ),
    Function::new(
        "genSignedCert",
        "func(string, []interface {}, []interface {}, int, sprig.certificate) (sprig.certificate, error)",
        gen_signed_cert,
    ),
    Function::new(
        "genSignedCertWithKey",
        "func(string, []interface {}, []interface {}, int, sprig.certificate, string) (sprig.certificate, error)",
        gen_signed_cert_with_key,
    ),
    Function::new(
        "buildCustomCert",
        "func(string, string) (sprig.certificate, error)",
        build_custom_cert,
    ),
];

/// `genPrivateKey kind`: a new key's PEM, or sprig's message naming what failed.
fn gen_private_key(kind: &str) -> String {
    let made = if kind == "dsa" {
        super::dsa::private_key_der()
            .map(|der| pem_block("DSA PRIVATE KEY", &der))
            .map_err(|e| format!("failed to generate private key: {e}"))
    } else {
        generate(kind).and_then(|k| key_pem(&k))
    };
    match made {
        Ok(pem) | Err(pem) => pem,
    }
}

fn gen_ca(a: &[Value]) -> Result<Value> {
    let a = exact("genCA", a, 2)?;
    let (cn, days) = (string(&a[0])?, int(&a[1])?);
    let params = wrap("genCA", ca_params(cn, days))?;
    Ok(later("genCA", move |k| self_signed(&params, k)))
}

fn gen_ca_with_key(a: &[Value]) -> Result<Value> {
    let a = exact("genCAWithKey", a, 3)?;
    let (cn, days, key) = (string(&a[0])?, int(&a[1])?, string(&a[2])?);
    let made = provided(key).and_then(|k| self_signed(&ca_params(cn, days)?, &k));
    now("genCAWithKey", made)
}

fn gen_self_signed_cert(a: &[Value]) -> Result<Value> {
    let a = exact("genSelfSignedCert", a, 4)?;
    let (cn, ips, dns, days) = subject_args(a)?;
    let params = wrap("genSelfSignedCert", base_params(cn, ips, dns, days))?;
    Ok(later("genSelfSignedCert", move |k| self_signed(&params, k)))
}

fn gen_self_signed_cert_with_key(a: &[Value]) -> Result<Value> {
    let a = exact("genSelfSignedCertWithKey", a, 5)?;
    let (cn, ips, dns, days) = subject_args(a)?;
    let key = string(&a[4])?;
    let made = provided(key).and_then(|k| self_signed(&base_params(cn, ips, dns, days)?, &k));
    now("genSelfSignedCertWithKey", made)
}

fn gen_signed_cert(a: &[Value]) -> Result<Value> {
    let a = exact("genSignedCert", a, 5)?;
    let (cn, ips, dns, days) = subject_args(a)?;
    let issuer = wrap("genSignedCert", issuer_of(&a[4])?)?;
    let params = wrap("genSignedCert", base_params(cn, ips, dns, days))?;
    Ok(later("genSignedCert", move |k| signed(params, &issuer, k)))
}

fn gen_signed_cert_with_key(a: &[Value]) -> Result<Value> {
    let a = exact("genSignedCertWithKey", a, 6)?;
    let (cn, ips, dns, days) = subject_args(a)?;
    let key = string(&a[5])?;
    let made = match provided(key) {
        Ok(k) => issuer_of(&a[4])?
            .and_then(|issuer| signed(base_params(cn, ips, dns, days)?, &issuer, &k)),
        Err(e) => Err(e),
    };
    now("genSignedCertWithKey", made)
}

fn build_custom_cert(a: &[Value]) -> Result<Value> {
    let a = exact("buildCustomCert", a, 2)?;
    let made = build_custom(string(&a[0])?, string(&a[1])?);
    now("buildCustomCert", made)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A function of the chart library, called with `args`.
    fn call(name: &str, args: &[Value]) -> Result<Value> {
        let mut m = gotemplate::FuncMap::new();
        args::add_all(&mut m, FUNCTIONS);
        m[name](args)
    }

    fn pem(v: &Value, field: &str) -> String {
        pem_field(v, field).unwrap().unwrap()
    }

    #[test]
    fn ca_signs_a_server_certificate() {
        let ca_value = call("genCA", &[Value::from("my-ca"), Value::Int(365)]).unwrap();
        let (cert, key) = (pem(&ca_value, "Cert"), pem(&ca_value, "Key"));
        assert!(
            cert.starts_with("-----BEGIN CERTIFICATE-----\n")
                && cert.ends_with("-----END CERTIFICATE-----\n")
        );
        assert!(key.starts_with("-----BEGIN RSA PRIVATE KEY-----\n"));
        let ips = Value::from(vec![Value::from("10.0.0.1")]);
        let dns = Value::from(vec![Value::from("svc.default.svc")]);
        let leaf = call(
            "genSignedCert",
            &[Value::from("svc"), ips, dns, Value::Int(30), ca_value],
        )
        .unwrap();
        assert_eq!(leaf.type_name(), "sprig.certificate");
        assert!(pem(&leaf, "Cert").starts_with("-----BEGIN CERTIFICATE-----"));
        // Read once, the same text ever after.
        assert_eq!(pem(&leaf, "Key"), pem(&leaf, "Key"));
    }

    #[test]
    fn argument_errors_come_at_the_call() {
        let bad_ip = Value::from(vec![Value::from("not-an-ip")]);
        let err = call(
            "genSelfSignedCert",
            &[Value::from("x"), bad_ip, Value::Nil, Value::Int(1)],
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "error calling genSelfSignedCert: error parsing ip: not-an-ip"
        );
    }

    #[test]
    fn huge_validity_wraps_as_go_duration_does() {
        // Go's time.Duration arithmetic wraps instead of failing (and Helm renders).
        let ca_value = call("genCA", &[Value::from("x"), Value::Int(3_000_000)]).unwrap();
        assert!(pem(&ca_value, "Cert").starts_with("-----BEGIN CERTIFICATE-----"));
        let ca_value = call("genCA", &[Value::from("x"), Value::Int(i64::MAX)]).unwrap();
        assert!(pem(&ca_value, "Cert").starts_with("-----BEGIN CERTIFICATE-----"));
    }

    #[test]
    fn keys_round_trip_through_go_pem_forms() {
        for kind in ["ecdsa", "ed25519"] {
            let pem_text = key_pem(&generate(kind).unwrap()).unwrap();
            let again = key_pem(&parse_key(&pem_text).unwrap()).unwrap();
            assert_eq!(pem_text, again, "{kind}");
        }
        assert!(
            key_pem(&generate("ecdsa").unwrap())
                .unwrap()
                .starts_with("-----BEGIN EC PRIVATE KEY-----")
        );
        assert!(generate("dsa2").is_err());
    }

    #[test]
    fn a_key_reuse_set_makes_one_key_per_kind() {
        let pem_of = |kind: &str| key_pem(&generate(kind).unwrap()).unwrap();
        assert_ne!(pem_of("ecdsa"), pem_of("ecdsa"));
        let keys = KeyReuse::begin();
        let a = pem_of("ecdsa");
        assert_eq!(pem_of("ecdsa"), a);
        assert_ne!(pem_of("ed25519"), a);
        drop(keys);
        assert_ne!(pem_of("ecdsa"), a);
    }

    #[test]
    fn rsa_keys_round_trip_through_pkcs1() {
        let pem_text = key_pem(&generate("rsa2048").unwrap()).unwrap();
        assert!(pem_text.starts_with("-----BEGIN RSA PRIVATE KEY-----\n"));
        let again = key_pem(&parse_key(&pem_text).unwrap()).unwrap();
        assert_eq!(pem_text, again);
    }

    #[test]
    fn signing_needs_a_certificate_value() {
        let err = call(
            "genSignedCert",
            &[
                Value::from("x"),
                Value::Nil,
                Value::Nil,
                Value::Int(1),
                Value::from("nope"),
            ],
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("expected sprig.certificate"), "{err}");
    }
}
