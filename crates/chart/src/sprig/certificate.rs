//! sprig's `certificate` struct, read as `.Cert` and `.Key`, made when first read.
//!
//! genCA, genSelfSignedCert and genSignedCert spend nearly all their time generating an
//! RSA key. Charts often call them for a value they then drop: Go evaluates every
//! argument, so `.ca | default (genCA "ca" 365)` makes a CA on each call even when `.ca`
//! is set, and some charts make a CA "to have it in scope" and never read it. A
//! certificate whose text nobody reads cannot show in the output, so the key and the
//! signature wait until `.Cert` or `.Key` (or printing, or toJson and friends) first
//! asks for them. Everything that can fail for a reason of the arguments (types, names,
//! addresses, the signing CA) is still checked when the function is called, so errors
//! come at the same place as in Helm; the validity period starts at the call.
use std::sync::LazyLock;

use gotemplate::{Object, Result, Value};

use super::args::{self, Dict, call_error};

/// PEM certificate and key, or why they could not be made.
pub(crate) type Made = std::result::Result<(String, String), String>;
type Recipe = Box<dyn FnOnce() -> Made + Send>;

pub(crate) struct Certificate {
    /// The function that made it, for the error of a failed generation.
    func: &'static str,
    made: LazyLock<Made, Recipe>,
}

impl Certificate {
    /// A certificate made by `recipe` when first read.
    pub(crate) fn lazy(
        func: &'static str,
        recipe: impl FnOnce() -> Made + Send + 'static,
    ) -> Value {
        Value::Object(std::sync::Arc::new(Certificate {
            func,
            made: LazyLock::new(Box::new(recipe)),
        }))
    }

    /// A certificate already made.
    pub(crate) fn ready(func: &'static str, cert: String, key: String) -> Value {
        Self::lazy(func, move || Ok((cert, key)))
    }

    fn pems(&self) -> Option<&(String, String)> {
        self.made.as_ref().ok()
    }
}

/// The PEM text of field `name` ("Cert" or "Key") of a certificate value, making it if
/// it is not made yet; `None` when `value` is no certificate.
pub(crate) fn pem_field(value: &Value, name: &str) -> Option<Result<String>> {
    match value {
        Value::Object(o) if o.type_name() == "sprig.certificate" => o
            .field_result(name)
            .map(|r| r.map(|v| v.as_str().map(str::to_string).unwrap_or_default())),
        _ => None,
    }
}

impl Object for Certificate {
    fn type_name(&self) -> &'static str {
        "sprig.certificate"
    }
    fn field(&self, name: &str) -> Option<Value> {
        let (cert, key) = self.pems()?;
        match name {
            "Cert" => Some(args::s(cert.as_str())),
            "Key" => Some(args::s(key.as_str())),
            _ => None,
        }
    }
    fn field_result(&self, name: &str) -> Option<Result<Value>> {
        if !matches!(name, "Cert" | "Key") {
            return None;
        }
        match &*self.made {
            Ok(_) => self.field(name).map(Ok),
            Err(message) => Some(Err(call_error(self.func, message))),
        }
    }
    fn struct_fields(&self) -> Option<Vec<gotemplate::StructField>> {
        let field = |index, name| gotemplate::StructField {
            name,
            index,
            value: self.field_result(name).unwrap_or(Ok(Value::Nil)),
        };
        Some(vec![field(0, "Cert"), field(1, "Key")])
    }
    /// Go prints a struct as its fields in braces.
    fn go_string(&self) -> String {
        let (cert, key) = self
            .pems()
            .map_or(("", ""), |(c, k)| (c.as_str(), k.as_str()));
        format!("{{{cert} {key}}}")
    }
    fn to_data(&self) -> Value {
        let (cert, key) = self
            .pems()
            .map_or(("", ""), |(c, k)| (c.as_str(), k.as_str()));
        let mut m = Dict::new();
        m.insert("Cert".into(), args::s(cert));
        m.insert("Key".into(), args::s(key));
        args::map(m)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    #[test]
    fn a_certificate_is_made_once_and_only_when_read() {
        let made = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&made);
        let value = Certificate::lazy("genCA", move || {
            counter.fetch_add(1, Ordering::SeqCst);
            Ok(("C".into(), "K".into()))
        });
        let copy = value.clone();
        assert_eq!(made.load(Ordering::SeqCst), 0);
        assert_eq!(pem_field(&copy, "Cert").unwrap().unwrap(), "C");
        assert_eq!(pem_field(&value, "Key").unwrap().unwrap(), "K");
        assert_eq!(made.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn a_failed_generation_is_an_error_of_the_function() {
        let value = Certificate::lazy("genCA", || Err("no entropy".into()));
        let err = pem_field(&value, "Cert").unwrap().unwrap_err().to_string();
        assert_eq!(err, "error calling genCA: no entropy");
        assert!(pem_field(&value, "Other").is_none());
        assert!(pem_field(&Value::from("x"), "Cert").is_none());
    }
}
