//! Template data: the dynamic values a template reads, Go's way.
//!
//! Maps are shared references, as Go's are: every clone of a [`MapRef`] sees writes made
//! through any other (sprig's `set` on `.Values` is seen by later templates). Lists are
//! immutable; Go's templates cannot change a slice in place either.
use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, PoisonError, RwLock};

use crate::Error;

/// The entries of a map, sorted by key as Go's templates visit them.
pub type MapEntries = BTreeMap<Arc<str>, Value>;

/// A function value, as `call` invokes it and as a [`crate::FuncMap`] holds it.
pub type ValueFunc = Arc<dyn Fn(&[Value]) -> Result<Value, Error> + Send + Sync>;

/// Methods of a named map type (Helm's `chartutil.Values`): given the map, the method
/// name and the arguments, the result, or `None` when the type has no such method.
pub type MapMethods =
    Arc<dyn Fn(&MapRef, &str, &[Value]) -> Option<Result<Value, Error>> + Send + Sync>;

/// Go's type of each method of a named map type (`func(string) string`), by name.
pub type MethodSignatures = fn(&str) -> Option<&'static str>;

/// A template value.
#[derive(Clone, Default)]
pub enum Value {
    /// Go's untyped nil (a missing value).
    #[default]
    Nil,
    Bool(bool),
    /// Go's `int` (template constants, `len`, `atoi`, `int`).
    Int(i64),
    /// Go's `int64`, a distinct type in Go (sprig's math returns it): it prints and
    /// compares as a number but fails where a Go `int` parameter is expected.
    Int64(i64),
    /// Go's unsigned integers.
    Uint(u64),
    /// Go's `float64`, what every number in Helm's values is.
    Float(f64),
    /// Go's `complex128`: only a template's own constants (`1i`, `1+0i`) are complex.
    Complex(f64, f64),
    String(Arc<str>),
    /// Go's `[]interface{}`.
    List(Arc<[Value]>),
    /// Go's `map[string]interface{}`, shared by reference.
    Map(MapRef),
    /// A Go `func` value.
    Function(ValueFunc),
    /// A Go struct or named type with fields and methods (Helm's `.Capabilities`,
    /// `.Files`, `.Chart`).
    Object(Arc<dyn Object>),
}

/// A Go struct-like value: fields and methods reached with `.Name`.
pub trait Object: Send + Sync {
    /// Go's type name, as `%T` and errors print it (e.g. `*common.Capabilities`).
    fn type_name(&self) -> &str;
    /// The exported field `name`, if the type has one.
    fn field(&self, _name: &str) -> Option<Value> {
        None
    }
    /// [`Object::field`] for a field that is made when first read and can fail to be
    /// made (the error is the template's); templates read fields through this.
    fn field_result(&self, name: &str) -> Option<Result<Value, Error>> {
        self.field(name).map(Ok)
    }
    /// Call method `name` with `args`; `None` when the type has no such method.
    fn call_method(&self, _name: &str, _args: &[Value]) -> Option<Result<Value, Error>> {
        None
    }
    /// Whether the type has a method `name` (Go looks methods up before fields).
    fn has_method(&self, _name: &str) -> bool {
        false
    }
    /// Go's type of method `name` (`func(string) bool`), so that its arguments are
    /// checked as Go checks them; `None` takes any arguments.
    fn method_signature(&self, _name: &str) -> Option<&'static str> {
        None
    }
    /// `fmt.Sprint` of the value (Go prints a struct as `{f1 f2}`, a Stringer by its
    /// `String` method).
    fn go_string(&self) -> String;
    /// What `{{ value }}` prints: text/template also finds a `String` method declared
    /// on the pointer, which fmt does not (Helm's `KubeVersion` prints its version in a
    /// template and its fields through printf).
    fn template_string(&self) -> String {
        self.go_string()
    }
    /// Whether the value is nil (a nil pointer); struct values are always true.
    fn is_nil(&self) -> bool {
        false
    }
    /// The value as a list, for types that are slices in Go (`[]string`).
    fn as_list(&self) -> Option<Arc<[Value]>> {
        None
    }
    /// The plain data Go's `encoding/json` would marshal the value to (struct fields
    /// by their JSON names), for `toJson`, `toYaml` and friends.
    fn to_data(&self) -> Value {
        Value::Nil
    }
    /// A struct's fields as `encoding/json` writes them: in declaration order, by their
    /// JSON names (a map's keys come sorted instead). `None` for types that are not
    /// structs; `toJson` then writes [`Object::to_data`].
    fn json_fields(&self) -> Option<Vec<(&'static str, Value)>> {
        None
    }
    /// A struct's exported fields as Go's reflection lists them, by their Go names (not
    /// their JSON names) in declaration order, for encoders that walk a struct that way
    /// (BurntSushi/toml's behind Helm's `toToml`). `None` for types that are not structs.
    fn struct_fields(&self) -> Option<Vec<StructField>> {
        None
    }
    /// The bytes of a Go string that is not valid UTF-8 (a binary file's content).
    fn as_bytes(&self) -> Option<&[u8]> {
        None
    }
    /// Whether the value is a pointer to a struct without a String method (Helm's
    /// `*common.Capabilities`): fmt prints `&` and [`Object::go_string`] (the fields in
    /// braces) at the top, and the address inside lists and maps; a template prints
    /// the struct.
    fn pointer_to_struct(&self) -> bool {
        false
    }
    /// Go's reflect kind name (`kindOf`): pointers are `ptr`, slices `slice`, other
    /// named types `struct` unless they say otherwise.
    fn kind(&self) -> &str {
        if self.type_name().starts_with('*') {
            "ptr"
        } else if self.as_list().is_some() {
            "slice"
        } else {
            "struct"
        }
    }
}

/// One exported field of a Go struct, as reflection sees it ([`Object::struct_fields`]).
pub struct StructField {
    /// The field's Go name (`APIVersions`).
    pub name: &'static str,
    /// Its index among all the struct's fields, unexported ones included: BurntSushi/toml
    /// decides where an inline table's commas go by it.
    pub index: usize,
    /// Its value, or the error of making it (a certificate is made when first read).
    pub value: Result<Value, Error>,
}

/// A Go slice of a concrete element type (`[]string` from `splitList`, `[]int` from
/// `until`): a list that keeps its Go type for `%T`, `typeOf` and error messages.
pub struct TypedSlice {
    type_name: Arc<str>,
    items: Arc<[Value]>,
    /// A nil slice: empty, but serialized as `null`.
    nil: bool,
}

impl Object for TypedSlice {
    fn type_name(&self) -> &str {
        &self.type_name
    }
    fn go_string(&self) -> String {
        crate::fmt::sprint_value(&Value::List(Arc::clone(&self.items)))
    }
    fn as_list(&self) -> Option<Arc<[Value]>> {
        Some(Arc::clone(&self.items))
    }
    fn to_data(&self) -> Value {
        if self.nil {
            Value::Nil
        } else {
            Value::List(Arc::clone(&self.items))
        }
    }
}

/// A shared, mutable map handle: clones are the same map.
#[derive(Clone, Default)]
pub struct MapRef {
    shared: Arc<MapShared>,
    methods: Option<MapMethods>,
    /// Go's type of each method (`func(string) string`), so that arguments are checked
    /// as Go checks them; a method without one takes any arguments.
    signatures: Option<MethodSignatures>,
    /// A map type other than `map[string]interface {}` (`map[string]string` from sprig's
    /// `split`), for `%T`, `typeOf` and `%!(EXTRA ...)`.
    type_name: Option<Arc<str>>,
    /// A nil map of that type (Helm's `.Chart.Annotations` when Chart.yaml has none):
    /// empty, but JSON and YAML print it as `null`.
    nil: bool,
}

#[derive(Default)]
struct MapShared {
    // Copy-on-write inside the lock: readers take a cheap snapshot, writers copy only
    // when a snapshot is still alive.
    entries: RwLock<Arc<MapEntries>>,
    /// An upper bound of how deeply values nest inside this map (it grows on insert
    /// and never shrinks), so that bounding nesting costs no walk over the map.
    depth: AtomicU32,
}

use std::sync::atomic::{AtomicU32, Ordering};

/// How deeply maps and lists nest inside `v` (a scalar is 0): maps answer from their
/// cached bound, lists are walked (lists met twice once).
pub fn depth(v: &Value) -> u32 {
    fn walk(v: &Value, seen: &mut Vec<(usize, u32)>) -> u32 {
        match v {
            Value::Map(m) => m.shared.depth.load(Ordering::Relaxed),
            Value::List(l) => {
                let key = l.as_ptr() as usize;
                if let Some((_, d)) = seen.iter().find(|(k, _)| *k == key) {
                    return *d;
                }
                let d = 1 + l.iter().map(|c| walk(c, seen)).max().unwrap_or(0);
                seen.push((key, d));
                d
            }
            _ => 0,
        }
    }
    match v {
        Value::List(l) if l.iter().all(|c| !matches!(c, Value::List(_))) => {
            1 + l
                .iter()
                .map(|c| walk(c, &mut Vec::new()))
                .max()
                .unwrap_or(0)
        }
        _ => stacker::maybe_grow(256 * 1024, 8 * 1024 * 1024, || walk(v, &mut Vec::new())),
    }
}

impl MapRef {
    /// A new map holding `entries`, shared with no other.
    pub fn new(entries: MapEntries) -> Self {
        let d = 1 + entries.values().map(depth).max().unwrap_or(0);
        Self {
            shared: Arc::new(MapShared {
                entries: RwLock::new(Arc::new(entries)),
                depth: AtomicU32::new(d),
            }),
            methods: None,
            signatures: None,
            type_name: None,
            nil: false,
        }
    }

    /// The same map seen as Go type `name` (`map[string]string`).
    #[must_use]
    pub fn with_type_name(&self, name: &str) -> Self {
        Self {
            shared: Arc::clone(&self.shared),
            methods: None,
            signatures: None,
            type_name: Some(name.into()),
            nil: false,
        }
    }

    /// The same map seen as a named type with `methods` (Go's `chartutil.Values`).
    #[must_use]
    pub fn with_methods(&self, methods: MapMethods) -> Self {
        Self {
            shared: Arc::clone(&self.shared),
            methods: Some(methods),
            signatures: None,
            type_name: None,
            nil: false,
        }
    }

    /// The same named map with Go's type of each method, for checking arguments.
    #[must_use]
    pub fn with_method_signatures(&self, signatures: MethodSignatures) -> Self {
        Self {
            signatures: Some(signatures),
            ..self.clone()
        }
    }

    /// Go's type of method `name`, when the map's type declares one.
    pub fn method_signature(&self, name: &str) -> Option<&'static str> {
        self.signatures.and_then(|s| s(name))
    }

    /// The same map seen as the named type `name` with `methods`, whose underlying type is
    /// not `map[string]interface {}` (Helm's `engine.files`, a `map[string][]byte`): it is
    /// not assignable to a function's map parameter.
    #[must_use]
    pub fn with_methods_of_type(&self, methods: MapMethods, name: &str) -> Self {
        Self {
            type_name: Some(name.into()),
            ..self.with_methods(methods)
        }
    }

    /// The same map as a plain `map[string]interface{}`.
    #[must_use]
    pub fn plain(&self) -> Self {
        Self {
            shared: Arc::clone(&self.shared),
            methods: None,
            signatures: None,
            type_name: None,
            nil: false,
        }
    }

    /// A nil map of Go type `name`, holding nothing.
    pub fn nil_of_type(name: &str) -> Self {
        Self {
            nil: true,
            ..MapRef::new(MapEntries::default()).with_type_name(name)
        }
    }

    /// Whether this is a nil map (see [`MapRef::nil_of_type`]) that nothing has been
    /// put into.
    pub fn is_nil(&self) -> bool {
        self.nil && self.is_empty()
    }

    /// The Go type given with [`MapRef::with_type_name`] (`map[string]string`), if any.
    pub fn go_type_name(&self) -> Option<&str> {
        self.type_name.as_deref()
    }

    /// Whether the map's type has methods.
    pub fn is_named(&self) -> bool {
        self.methods.is_some()
    }

    pub(crate) fn call_method(&self, name: &str, args: &[Value]) -> Option<Result<Value, Error>> {
        self.methods.as_ref().and_then(|m| m(self, name, args))
    }

    /// The entries as they are now; later writes do not change the snapshot.
    pub fn snapshot(&self) -> Arc<MapEntries> {
        Arc::clone(
            &self
                .shared
                .entries
                .read()
                .unwrap_or_else(PoisonError::into_inner),
        )
    }

    pub fn get(&self, key: &str) -> Option<Value> {
        self.shared
            .entries
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(key)
            .cloned()
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.shared
            .entries
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .contains_key(key)
    }

    pub fn len(&self) -> usize {
        self.shared
            .entries
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Set `key`, seen by every holder of the map.
    pub fn insert(&self, key: Arc<str>, value: Value) -> Option<Value> {
        let d = depth(&value).saturating_add(1);
        self.shared.depth.fetch_max(d, Ordering::Relaxed);
        let mut guard = self
            .shared
            .entries
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        Arc::make_mut(&mut guard).insert(key, value)
    }

    pub fn remove(&self, key: &str) -> Option<Value> {
        let mut guard = self
            .shared
            .entries
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        Arc::make_mut(&mut guard).remove(key)
    }

    /// Change the entries in place.
    pub fn update<R>(&self, change: impl FnOnce(&mut MapEntries) -> R) -> R {
        let mut guard = self
            .shared
            .entries
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        let entries = Arc::make_mut(&mut guard);
        let result = change(entries);
        let d = 1 + entries.values().map(depth).max().unwrap_or(0);
        drop(guard);
        self.shared.depth.fetch_max(d, Ordering::Relaxed);
        result
    }

    /// Whether both handles are the same map.
    pub fn ptr_eq(&self, other: &MapRef) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }
}

impl From<MapEntries> for MapRef {
    fn from(entries: MapEntries) -> Self {
        Self::new(entries)
    }
}

impl FromIterator<(Arc<str>, Value)> for MapRef {
    fn from_iter<I: IntoIterator<Item = (Arc<str>, Value)>>(iter: I) -> Self {
        Self::new(iter.into_iter().collect())
    }
}

impl fmt::Debug for MapRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.snapshot().iter()).finish()
    }
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Nil => f.write_str("nil"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(i) => write!(f, "{i}"),
            Value::Int64(i) => write!(f, "{i}i64"),
            Value::Uint(u) => write!(f, "{u}u"),
            Value::Float(x) => write!(f, "{x:?}"),
            Value::Complex(re, im) => f.write_str(&crate::text::complex(*re, *im)),
            Value::String(s) => write!(f, "{s:?}"),
            Value::List(l) => f.debug_list().entries(l.iter()).finish(),
            Value::Map(m) => m.fmt(f),
            Value::Function(_) => f.write_str("func"),
            Value::Object(o) => write!(f, "{}({})", o.type_name(), o.go_string()),
        }
    }
}

impl fmt::Display for Value {
    /// Go's `fmt.Sprint` of the value.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&crate::fmt::sprint_value(self))
    }
}

impl Value {
    /// A string value.
    pub fn string(s: impl AsRef<str>) -> Self {
        Value::String(Arc::from(s.as_ref()))
    }

    /// Go's truth: false, 0, nil and empty strings, lists and maps are false.
    pub fn is_truthy(&self) -> bool {
        match self {
            Value::Nil => false,
            Value::Bool(b) => *b,
            Value::Int(i) | Value::Int64(i) => *i != 0,
            Value::Uint(u) => *u != 0,
            Value::Float(x) => *x != 0.0,
            Value::Complex(re, im) => *re != 0.0 || *im != 0.0,
            Value::String(s) => !s.is_empty(),
            Value::List(l) => !l.is_empty(),
            Value::Map(m) => !m.is_empty(),
            Value::Function(_) => true,
            Value::Object(o) => match o.as_list() {
                Some(l) => !l.is_empty(),
                None => !o.is_nil(),
            },
        }
    }

    /// Go's type name, as `%T` and type errors print it.
    pub fn type_name(&self) -> String {
        match self {
            Value::Nil => "<nil>".into(),
            Value::Bool(_) => "bool".into(),
            Value::Int(_) => "int".into(),
            Value::Int64(_) => "int64".into(),
            Value::Uint(_) => "uint64".into(),
            Value::Float(_) => "float64".into(),
            Value::Complex(..) => "complex128".into(),
            Value::String(_) => "string".into(),
            Value::List(_) => "[]interface {}".into(),
            Value::Map(m) => match (&m.type_name, m.is_named()) {
                (Some(name), _) => name.to_string(),
                (None, true) => "common.Values".into(),
                (None, false) => "map[string]interface {}".into(),
            },
            Value::Function(_) => "func(...interface {}) (interface {}, error)".into(),
            Value::Object(o) => o.type_name().to_string(),
        }
    }

    /// A slice of Go type `type_name` (`[]string`) holding `items`.
    pub fn typed_slice(type_name: &str, items: Arc<[Value]>) -> Value {
        Value::Object(Arc::new(TypedSlice {
            type_name: type_name.into(),
            items,
            nil: false,
        }))
    }

    /// A nil slice of Go type `type_name`.
    pub fn nil_slice(type_name: &str) -> Value {
        Value::Object(Arc::new(TypedSlice {
            type_name: type_name.into(),
            items: Arc::from([]),
            nil: true,
        }))
    }

    /// Go's reflect kind name, as sprig's `kindOf` and its errors print it.
    pub fn kind_name(&self) -> &str {
        match self {
            Value::Nil => "invalid",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Int64(_) => "int64",
            Value::Uint(_) => "uint64",
            Value::Float(_) => "float64",
            Value::Complex(..) => "complex128",
            Value::String(_) => "string",
            Value::List(_) => "slice",
            Value::Map(_) => "map",
            Value::Function(_) => "func",
            Value::Object(o) => o.kind(),
        }
    }

    /// The entry or field `name` of a map or object.
    pub fn field(&self, name: &str) -> Option<Value> {
        match self {
            Value::Map(m) => m.get(name),
            Value::Object(o) => o.field(name),
            _ => None,
        }
    }

    /// Length of a string (bytes), list or map.
    pub fn len(&self) -> Option<usize> {
        match self {
            Value::String(s) => Some(s.len()),
            Value::List(l) => Some(l.len()),
            Value::Map(m) => Some(m.len()),
            Value::Object(o) => o.as_list().map(|l| l.len()),
            _ => None,
        }
    }

    pub fn is_empty(&self) -> Option<bool> {
        self.len().map(|n| n == 0)
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The value of any Go signed or unsigned integer that fits an `i64`.
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Value::Int(i) | Value::Int64(i) => Some(*i),
            Value::Uint(u) => i64::try_from(*u).ok(),
            _ => None,
        }
    }

    pub fn as_float(&self) -> Option<f64> {
        match self {
            Value::Float(x) => Some(*x),
            _ => None,
        }
    }

    pub fn is_function(&self) -> bool {
        matches!(self, Value::Function(_))
    }

    /// The list a value is, for lists and slice-typed objects.
    pub fn as_list(&self) -> Option<Arc<[Value]>> {
        match self {
            Value::List(l) => Some(Arc::clone(l)),
            Value::Object(o) => o.as_list(),
            _ => None,
        }
    }
}

impl PartialEq for Value {
    /// Structural equality (maps compare by content), for tests and `deepEqual`-style
    /// checks; the template `eq` has Go's own rules (the crate's `builtins`).
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Value::Nil, Value::Nil) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Int(a), Value::Int(b)) | (Value::Int64(a), Value::Int64(b)) => a == b,
            (Value::Uint(a), Value::Uint(b)) => a == b,
            (Value::Float(a), Value::Float(b)) => a == b,
            (Value::String(a), Value::String(b)) => a == b,
            (Value::List(a), Value::List(b)) => a == b,
            (Value::Map(a), Value::Map(b)) => a.ptr_eq(b) || *a.snapshot() == *b.snapshot(),
            (Value::Function(a), Value::Function(b)) => Arc::ptr_eq(a, b),
            (Value::Object(a), Value::Object(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

macro_rules! from_int {
    ($($t:ty),*) => {$(
        impl From<$t> for Value {
            fn from(v: $t) -> Self {
                Value::Int(i64::from(v))
            }
        }
    )*};
}
from_int!(i8, i16, i32, i64, u8, u16, u32);

impl From<u64> for Value {
    fn from(v: u64) -> Self {
        Value::Uint(v)
    }
}

impl From<usize> for Value {
    fn from(v: usize) -> Self {
        i64::try_from(v).map_or(Value::Uint(v as u64), Value::Int)
    }
}

impl From<f64> for Value {
    fn from(v: f64) -> Self {
        Value::Float(v)
    }
}

impl From<bool> for Value {
    fn from(v: bool) -> Self {
        Value::Bool(v)
    }
}

impl From<&str> for Value {
    fn from(v: &str) -> Self {
        Value::String(Arc::from(v))
    }
}

impl From<String> for Value {
    fn from(v: String) -> Self {
        Value::String(Arc::from(v))
    }
}

impl From<Arc<str>> for Value {
    fn from(v: Arc<str>) -> Self {
        Value::String(v)
    }
}

impl From<Vec<Value>> for Value {
    fn from(v: Vec<Value>) -> Self {
        Value::List(v.into())
    }
}

impl From<Arc<[Value]>> for Value {
    fn from(v: Arc<[Value]>) -> Self {
        Value::List(v)
    }
}

impl From<MapEntries> for Value {
    fn from(v: MapEntries) -> Self {
        Value::Map(MapRef::new(v))
    }
}

impl From<MapRef> for Value {
    fn from(v: MapRef) -> Self {
        Value::Map(v)
    }
}

impl From<BTreeMap<String, Value>> for Value {
    fn from(v: BTreeMap<String, Value>) -> Self {
        Value::Map(v.into_iter().map(|(k, v)| (Arc::from(k), v)).collect())
    }
}
