//! Checked references between the items of an [`Api`](super::Api).
//!
//! An [`Id`] names a record, an enum, a method, an error code, a parameter of a method or a
//! field of a record. Only [`crate::resolve`] makes them, once it has checked that the item
//! exists, so an `Api` from `resolve` never refers to an item it lacks, and an id cannot be
//! passed where another kind of item is meant (`Id<Param>` is not `Id<Field>`). An id keeps
//! the item's spec name, so ids of two versions of a spec compare by name, which is what
//! [`crate::diff`] needs. [`Api::check`](super::Api::check) finds ids that an edited `Api` no
//! longer satisfies.

use std::borrow::Borrow;
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::marker::PhantomData;

/// A checked reference to an item of kind `T`, by its spec name: a record or enum name, a
/// `group/method`, an error code, a parameter's or field's wire name.
pub struct Id<T> {
    name: String,
    of: PhantomData<fn() -> T>,
}

impl<T> Id<T> {
    /// Only the resolver (and the spec diff, renaming a type to its new name) makes ids.
    pub(crate) fn new(name: impl Into<String>) -> Self {
        Id {
            name: name.into(),
            of: PhantomData,
        }
    }

    /// The item's spec name.
    pub fn as_str(&self) -> &str {
        &self.name
    }
}

impl<T> Clone for Id<T> {
    fn clone(&self) -> Self {
        Id::new(self.name.clone())
    }
}

impl<T> PartialEq for Id<T> {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl<T> Eq for Id<T> {}

impl<T> PartialOrd for Id<T> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<T> Ord for Id<T> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.name.cmp(&other.name)
    }
}

impl<T> Hash for Id<T> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.name.hash(state);
    }
}

impl<T> fmt::Debug for Id<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.name, f)
    }
}

impl<T> fmt::Display for Id<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}

impl<T> AsRef<str> for Id<T> {
    fn as_ref(&self) -> &str {
        &self.name
    }
}

impl<T> Borrow<str> for Id<T> {
    fn borrow(&self) -> &str {
        &self.name
    }
}

impl<T> PartialEq<str> for Id<T> {
    fn eq(&self, other: &str) -> bool {
        self.name == other
    }
}

impl<T> PartialEq<&str> for Id<T> {
    fn eq(&self, other: &&str) -> bool {
        self.name == *other
    }
}

impl<T> PartialEq<String> for Id<T> {
    fn eq(&self, other: &String) -> bool {
        self.name == *other
    }
}

impl<T> PartialEq<Id<T>> for String {
    fn eq(&self, other: &Id<T>) -> bool {
        *self == other.name
    }
}

impl<T> PartialEq<Id<T>> for str {
    fn eq(&self, other: &Id<T>) -> bool {
        self == other.name
    }
}
