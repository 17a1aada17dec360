//! The draft metaschemas a values.schema.json is checked against, and which draft a
//! `$schema` names, as Helm's validator decides it.
//!
//! The documents come from the `referencing` crate. Helm's validator carries its own
//! copies, which for drafts 4, 6 and 7 differ from those in a few rules; `adjusted` makes
//! the same changes here, so that a schema is refused exactly when Helm refuses it.

use std::sync::LazyLock;

use referencing::meta;
use serde_json::{Value, json};

/// A draft Helm's validator knows: its number (4, 6, 7, 2019, 2020), the URL its errors
/// name, and its metaschema document.
#[derive(Clone, Copy)]
pub(crate) struct Draft {
    pub(crate) number: u32,
    pub(crate) url: &'static str,
}

const D4: Draft = Draft::new(4, "http://json-schema.org/draft-04/schema");
const D6: Draft = Draft::new(6, "http://json-schema.org/draft-06/schema");
const D7: Draft = Draft::new(7, "http://json-schema.org/draft-07/schema");
const D2019: Draft = Draft::new(2019, "https://json-schema.org/draft/2019-09/schema");
const D2020: Draft = Draft::new(2020, "https://json-schema.org/draft/2020-12/schema");

impl Draft {
    const fn new(number: u32, url: &'static str) -> Draft {
        Draft { number, url }
    }

    /// The metaschema this draft's schemas are checked against.
    pub(crate) fn metaschema(self) -> &'static Value {
        document(self.url).unwrap_or(&Value::Null)
    }
}

/// The draft of a schema document: the one its `$schema` names, the latest when it has
/// none (or a `$schema` that is not a string), or `Err` with the URL of a metaschema Helm
/// would have to load from elsewhere (which fails offline).
pub(crate) fn draft_of(schema: &Value) -> Result<Draft, String> {
    let Some(url) = schema.get("$schema").and_then(Value::as_str) else {
        return Ok(D2020);
    };
    if let Some(draft) = known(url) {
        return Ok(draft);
    }
    // A URL with a fragment names a part of a document: the document's own `$schema`
    // decides, when it is one of the metaschemas.
    let (doc, _) = url.split_once('#').unwrap_or((url, ""));
    match document(&canonical(doc)) {
        Some(meta) => draft_of(meta).map_err(|_| doc.to_string()),
        None => Err(doc.to_string()),
    }
}

/// The draft a metaschema URL (no fragment, or an empty one) names.
fn known(url: &str) -> Option<Draft> {
    let (url, fragment) = url.split_once('#').unwrap_or((url, ""));
    if !fragment.is_empty() {
        return None;
    }
    let path = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))
        .unwrap_or(url);
    Some(match path {
        "json-schema.org/schema" | "json-schema.org/draft/2020-12/schema" => D2020,
        "json-schema.org/draft/2019-09/schema" => D2019,
        "json-schema.org/draft-07/schema" => D7,
        "json-schema.org/draft-06/schema" => D6,
        "json-schema.org/draft-04/schema" => D4,
        _ => return None,
    })
}

/// A json-schema.org URL as the documents below are keyed: drafts 4 to 7 under http,
/// 2019-09 and 2020-12 under https (Helm's validator serves both schemes alike).
fn canonical(url: &str) -> String {
    let path = url
        .strip_prefix("http://json-schema.org/")
        .or_else(|| url.strip_prefix("https://json-schema.org/"));
    match path {
        Some("schema") => D2020.url.to_string(),
        Some(p) if p.starts_with("draft-") => format!("http://json-schema.org/{p}"),
        Some(p) => format!("https://json-schema.org/{p}"),
        None => url.to_string(),
    }
}

/// A metaschema document (or one of the vocabulary documents the 2019-09 and 2020-12
/// metaschemas are made of) by its URL without fragment.
pub(crate) fn document(url: &str) -> Option<&'static Value> {
    static DRAFT4: LazyLock<Value> = LazyLock::new(|| adjusted(&meta::DRAFT4, 4));
    static DRAFT6: LazyLock<Value> = LazyLock::new(|| adjusted(&meta::DRAFT6, 6));
    static DRAFT7: LazyLock<Value> = LazyLock::new(|| adjusted(&meta::DRAFT7, 7));
    let url = canonical(url);
    let (draft, name) = match url.rsplit_once("/meta/") {
        Some((draft, name)) => (draft, Some(name)),
        None => (url.as_str(), None),
    };
    let doc: &'static Value = match (draft, name) {
        ("http://json-schema.org/draft-04/schema", None) => &DRAFT4,
        ("http://json-schema.org/draft-06/schema", None) => &DRAFT6,
        ("http://json-schema.org/draft-07/schema", None) => &DRAFT7,
        ("https://json-schema.org/draft/2019-09/schema", None) => &meta::DRAFT201909,
        ("https://json-schema.org/draft/2019-09", Some(name)) => return vocabulary(2019, name),
        ("https://json-schema.org/draft/2020-12/schema", None) => &meta::DRAFT202012,
        ("https://json-schema.org/draft/2020-12", Some(name)) => return vocabulary(2020, name),
        _ => return None,
    };
    Some(doc)
}

/// A document named relative to a metaschema document's `$id` (`meta/core` in the
/// 2020-12 schema), found without building its URL.
pub(crate) fn sibling(id: &str, path: &str) -> Option<&'static Value> {
    let dir = &id[..=id.rfind('/')?];
    match (dir, path.strip_prefix("meta/")) {
        ("https://json-schema.org/draft/2019-09/", Some(name)) => vocabulary(2019, name),
        ("https://json-schema.org/draft/2020-12/", Some(name)) => vocabulary(2020, name),
        _ => document(&format!("{dir}{path}")),
    }
}

/// One of the vocabulary documents the 2019-09 and 2020-12 metaschemas are made of.
fn vocabulary(draft: u32, name: &str) -> Option<&'static Value> {
    let doc: &'static Value = match (draft, name) {
        (2019, "core") => &meta::DRAFT201909_CORE,
        (2019, "applicator") => &meta::DRAFT201909_APPLICATOR,
        (2019, "validation") => &meta::DRAFT201909_VALIDATION,
        (2019, "meta-data") => &meta::DRAFT201909_META_DATA,
        (2019, "format") => &meta::DRAFT201909_FORMAT,
        (2019, "content") => &meta::DRAFT201909_CONTENT,
        (2020, "core") => &meta::DRAFT202012_CORE,
        (2020, "applicator") => &meta::DRAFT202012_APPLICATOR,
        (2020, "unevaluated") => &meta::DRAFT202012_UNEVALUATED,
        (2020, "validation") => &meta::DRAFT202012_VALIDATION,
        (2020, "meta-data") => &meta::DRAFT202012_META_DATA,
        (2020, "format-annotation") => &meta::DRAFT202012_FORMAT_ANNOTATION,
        (2020, "format-assertion") => &meta::DRAFT202012_FORMAT_ASSERTION,
        (2020, "content") => &meta::DRAFT202012_CONTENT,
        _ => return None,
    };
    Some(doc)
}

/// A draft 4, 6 or 7 metaschema with the rules Helm's validator has in its copy: `enum`
/// needs at least one value and no two alike; draft 4 types `$ref` and asserts `$schema`
/// as a URI; draft 6 neither types `examples` nor checks `patternProperties` names as
/// regular expressions (its compiler refuses a bad one later).
fn adjusted(doc: &Value, draft: u32) -> Value {
    let mut doc = doc.clone();
    let Some(props) = doc.get_mut("properties").and_then(Value::as_object_mut) else {
        return doc;
    };
    if let Some(Value::Object(e)) = props.get_mut("enum") {
        e.insert("minItems".into(), json!(1));
        e.insert("uniqueItems".into(), json!(true));
    }
    match draft {
        4 => {
            props.insert("$ref".into(), json!({"type": "string"}));
            if let Some(Value::Object(s)) = props.get_mut("$schema") {
                s.insert("format".into(), json!("uri"));
            }
        }
        6 => {
            props.remove("examples");
            if let Some(Value::Object(p)) = props.get_mut("patternProperties") {
                p.remove("propertyNames");
            }
        }
        _ => {}
    }
    doc
}
