//! What a spec describes, item by item, for the commands that judge specs to say what they
//! judged: [`diff`](crate::diff) compares the items of two specs, [`audit`](crate::audit)
//! judges those of one against the reference. A spec with no item is nothing to judge.

use std::collections::BTreeSet;
use std::fmt;

use crate::ir::Api;

/// A kind of item a spec describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ItemKind {
    /// The service (`api:`: its data path and envelope version).
    Service,
    /// An OAuth endpoint.
    OAuthEndpoint,
    /// A data method.
    Method,
    /// A method's parameter.
    Parameter,
    /// A record type.
    Type,
    /// A record's field.
    Field,
    /// An enumeration.
    Enum,
    /// A documented value of an enumeration.
    EnumValue,
    /// A documented error code.
    ErrorCode,
}

impl ItemKind {
    /// Every kind, in the order reports count them.
    pub const ALL: [ItemKind; 9] = [
        ItemKind::Service,
        ItemKind::OAuthEndpoint,
        ItemKind::Method,
        ItemKind::Parameter,
        ItemKind::Type,
        ItemKind::Field,
        ItemKind::Enum,
        ItemKind::EnumValue,
        ItemKind::ErrorCode,
    ];

    /// The stable id, as JSON reports key it (`enum-value`).
    pub fn id(self) -> &'static str {
        match self {
            ItemKind::Service => "service",
            ItemKind::OAuthEndpoint => "oauth-endpoint",
            ItemKind::Method => "method",
            ItemKind::Parameter => "parameter",
            ItemKind::Type => "type",
            ItemKind::Field => "field",
            ItemKind::Enum => "enum",
            ItemKind::EnumValue => "enum-value",
            ItemKind::ErrorCode => "error-code",
        }
    }

    /// The kind in words, for one item and for several.
    pub fn nouns(self) -> (&'static str, &'static str) {
        match self {
            ItemKind::Service => ("service description", "service descriptions"),
            ItemKind::OAuthEndpoint => ("OAuth endpoint", "OAuth endpoints"),
            ItemKind::Method => ("method", "methods"),
            ItemKind::Parameter => ("parameter", "parameters"),
            ItemKind::Type => ("type", "types"),
            ItemKind::Field => ("field", "fields"),
            ItemKind::Enum => ("enum", "enums"),
            ItemKind::EnumValue => ("enum value", "enum values"),
            ItemKind::ErrorCode => ("error code", "error codes"),
        }
    }
}

/// Items, each by its kind and its path in the spec (`Field`, `Timesheet.rate`): a set, so
/// that the items of two specs unite by name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Items(BTreeSet<(ItemKind, String)>);

impl Items {
    /// Every item `api` describes.
    pub fn of(api: &Api) -> Items {
        let mut items = Items::default();
        if api.info.is_some() {
            items.insert(ItemKind::Service, "api");
        }
        for endpoint in api.oauth.iter().flat_map(|oauth| &oauth.endpoints) {
            items.insert(ItemKind::OAuthEndpoint, &endpoint.name);
        }
        for method in &api.methods {
            items.insert(ItemKind::Method, &method.name);
            for param in &method.params {
                items.insert(
                    ItemKind::Parameter,
                    &format!("{}.{}", method.name, param.wire_name),
                );
            }
        }
        for record in &api.records {
            items.insert(ItemKind::Type, &record.name);
            for field in &record.fields {
                items.insert(
                    ItemKind::Field,
                    &format!("{}.{}", record.name, field.wire_name),
                );
            }
        }
        for enumeration in &api.enums {
            items.insert(ItemKind::Enum, &enumeration.name);
            for value in &enumeration.values {
                items.insert(
                    ItemKind::EnumValue,
                    &format!("{}.{}", enumeration.name, value.wire),
                );
            }
        }
        for error in &api.errors {
            items.insert(ItemKind::ErrorCode, &error.code);
        }
        items
    }

    /// Adds an item (once: the same kind and path again changes nothing).
    pub fn insert(&mut self, kind: ItemKind, path: &str) {
        self.0.insert((kind, path.to_owned()));
    }

    /// The items of either.
    pub fn union(&self, other: &Items) -> Items {
        Items(self.0.union(&other.0).cloned().collect())
    }

    /// How many items of `kind`.
    pub fn count(&self, kind: ItemKind) -> usize {
        self.0
            .range((kind, String::new())..)
            .take_while(|(k, _)| *k == kind)
            .count()
    }

    /// How many items in all.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Each kind with at least one item, and how many, in [`ItemKind::ALL`] order.
    pub fn counts(&self) -> Vec<(ItemKind, usize)> {
        ItemKind::ALL
            .into_iter()
            .map(|kind| (kind, self.count(kind)))
            .filter(|(_, count)| *count > 0)
            .collect()
    }
}

/// `9 methods, 40 types, 312 fields` (`nothing` when empty).
impl fmt::Display for Items {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let counts = self.counts();
        if counts.is_empty() {
            return f.write_str("nothing");
        }
        for (at, (kind, count)) in counts.into_iter().enumerate() {
            let (one, many) = kind.nouns();
            let separator = if at == 0 { "" } else { ", " };
            write!(
                f,
                "{separator}{count} {}",
                if count == 1 { one } else { many }
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_unite_by_kind_and_path_and_count_by_kind() {
        let mut base = Items::default();
        base.insert(ItemKind::Method, "pay/getInvoice");
        base.insert(ItemKind::Field, "Invoice.id");
        base.insert(ItemKind::Field, "Invoice.amount");
        let mut head = Items::default();
        head.insert(ItemKind::Method, "pay/getInvoice");
        head.insert(ItemKind::Field, "Invoice.id");
        head.insert(ItemKind::Type, "Invoice.id");
        let both = base.union(&head);
        assert_eq!(both.len(), 4);
        assert_eq!(both.count(ItemKind::Field), 2);
        assert_eq!(both.count(ItemKind::Type), 1);
        assert_eq!(both.count(ItemKind::ErrorCode), 0);
        assert_eq!(both.to_string(), "1 method, 1 type, 2 fields");
        assert_eq!(Items::default().to_string(), "nothing");
    }
}
