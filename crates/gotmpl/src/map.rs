//! Maps with Go's reference semantics (rusty-sdk change, see NOTICE).
//!
//! A Go map value is a reference: `set $m "k" v` in a template (sprig, Helm) changes the
//! map every holder of `$m` sees, including `.Values` and the caller's dot of an
//! `include`. Upstream gotmpl stores maps as `Arc<BTreeMap>`, which cannot change once
//! shared. [`MapRef`] is a shared, lock-protected handle instead: cloning it (and so
//! cloning a [`Value::Map`](crate::Value::Map)) yields another handle to the same map.
//!
//! Reads take a cheap snapshot (`Arc` clone under a short read lock), so iteration never
//! holds a lock while template code runs; a write replaces entries copy-on-write, which
//! only copies the entries when a snapshot of them is still alive.
use alloc::collections::BTreeMap;
use alloc::sync::Arc;
use core::fmt;
use std::sync::{PoisonError, RwLock};

use crate::value::Value;

/// The entries of a template map: sorted by key, as Go's templates iterate maps.
pub type MapEntries = BTreeMap<Arc<str>, Value>;

/// A shared, mutable template map (see the module docs).
#[derive(Clone, Default)]
pub struct MapRef {
    entries: Arc<RwLock<Arc<MapEntries>>>,
}

impl MapRef {
    /// A new map holding `entries`, not shared with any other.
    pub fn new(entries: MapEntries) -> Self {
        Self::from(Arc::new(entries))
    }

    /// The entries as they are now; later writes to the map do not change the snapshot.
    pub fn snapshot(&self) -> Arc<MapEntries> {
        Arc::clone(&self.entries.read().unwrap_or_else(PoisonError::into_inner))
    }

    /// The value stored under `key`.
    pub fn get(&self, key: &str) -> Option<Value> {
        self.entries
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(key)
            .cloned()
    }

    /// Whether `key` is present (possibly with a nil value).
    pub fn contains_key(&self, key: &str) -> bool {
        self.entries
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .contains_key(key)
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    /// Whether the map has no entries.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Store `value` under `key`, visible to every holder of this map.
    pub fn insert(&self, key: Arc<str>, value: Value) -> Option<Value> {
        self.update(|entries| entries.insert(key, value))
    }

    /// Remove `key`, visible to every holder of this map.
    pub fn remove(&self, key: &str) -> Option<Value> {
        self.update(|entries| entries.remove(key))
    }

    /// Change the entries in place. `change` must not read this same map (take a
    /// [`snapshot`](Self::snapshot) of any source map first): the map is locked meanwhile.
    pub fn update<R>(&self, change: impl FnOnce(&mut MapEntries) -> R) -> R {
        let mut guard = self.entries.write().unwrap_or_else(PoisonError::into_inner);
        change(Arc::make_mut(&mut guard))
    }

    /// Whether both handles refer to the same map (Go's map identity).
    pub fn ptr_eq(&self, other: &MapRef) -> bool {
        Arc::ptr_eq(&self.entries, &other.entries)
    }
}

impl From<Arc<MapEntries>> for MapRef {
    fn from(entries: Arc<MapEntries>) -> Self {
        Self {
            entries: Arc::new(RwLock::new(entries)),
        }
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

/// Content equality (the same map is always equal to itself).
impl PartialEq for MapRef {
    fn eq(&self, other: &Self) -> bool {
        self.ptr_eq(other) || self.snapshot() == other.snapshot()
    }
}

impl fmt::Debug for MapRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.snapshot(), f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_share_writes_and_snapshots_do_not_change() {
        let a = MapRef::new(MapEntries::new());
        let b = a.clone();
        let before = a.snapshot();
        b.insert(Arc::from("k"), Value::Int(1));
        assert_eq!(a.get("k"), Some(Value::Int(1)));
        assert!(before.is_empty());
        assert!(a.ptr_eq(&b));
        a.remove("k");
        assert!(b.is_empty());
    }

    #[test]
    fn values_stay_send_and_sync() {
        fn shareable<T: Send + Sync>() {}
        shareable::<Value>();
        shareable::<MapRef>();
    }

    #[test]
    fn separate_maps_with_same_entries_are_equal_but_not_identical() {
        let a: MapRef = [(Arc::from("k"), Value::Bool(true))].into_iter().collect();
        let b: MapRef = [(Arc::from("k"), Value::Bool(true))].into_iter().collect();
        assert_eq!(a, b);
        assert!(!a.ptr_eq(&b));
    }
}
