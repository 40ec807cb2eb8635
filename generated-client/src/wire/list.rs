//! Collections: JSON objects keyed by index strings, or plain arrays.
//!
//! The service's PHP arrays serialize as `{"0": a, "1": b}` (and `{}` when empty); after
//! server-side filtering the keys keep their old values, so gaps (`{"0": a, "2": c}`) occur.
//! Elements are ordered by numeric index. Plain arrays and `null` (as empty) are accepted too.
//! Elements are decoded in place through `next_value_seed` / `next_element_seed`, so an error
//! inside one keeps its position (`timesheets.3.rate`).

use core::fmt;
use core::marker::PhantomData;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{Lenient, LenientSeed, Normalized};

/// A collection key: a canonical non-negative integer (`"0"`, `"1"`, ..., no sign or leading
/// zero), read from the borrowed key text without allocating.
struct Index(u64);

impl<'de> Deserialize<'de> for Index {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(IndexVisitor)
    }
}

struct IndexVisitor;

impl Visitor<'_> for IndexVisitor {
    type Value = Index;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a collection index (\"0\", \"1\", ...)")
    }

    // `visit_borrowed_str` forwards here, so borrowed and escaped keys are both allocation-free.
    fn visit_str<E: de::Error>(self, key: &str) -> Result<Index, E> {
        let canonical = match key.as_bytes() {
            [b'0'] => true,
            [b'1'..=b'9', rest @ ..] => rest.iter().all(u8::is_ascii_digit),
            _ => false,
        };
        match key.parse() {
            Ok(index) if canonical => Ok(Index(index)),
            _ => Err(E::custom(format_args!(
                "invalid collection index {key:?}: expected a non-negative integer without sign or \
                 leading zeros, like \"0\", \"1\""
            ))),
        }
    }
}

/// Decodes a collection whose elements are produced by the seed `S`.
struct CollectionVisitor<S>(S);

/// Limits the up-front allocation when a format announces a (possibly hostile) length.
fn cautious_capacity(hint: Option<usize>) -> usize {
    hint.unwrap_or(0).min(4096)
}

impl<'de, S> Visitor<'de> for CollectionVisitor<S>
where
    S: DeserializeSeed<'de> + Copy,
{
    type Value = Vec<S::Value>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a collection (an object keyed by \"0\", \"1\", ..., an array, or null)")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Vec::new())
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Vec::new())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut items = Vec::with_capacity(cautious_capacity(seq.size_hint()));
        while let Some(item) = seq.next_element_seed(self.0)? {
            items.push(item);
        }
        Ok(items)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut items = Vec::with_capacity(cautious_capacity(map.size_hint()));
        // While the keys are exactly 0, 1, 2, ... (the common case) the indices are implicit;
        // they are only recorded once a gap or a step back appears, and only sorted after a step
        // back.
        let mut dense = true;
        let mut sorted = true;
        let mut indices: Vec<u64> = Vec::new();
        while let Some(Index(index)) = map.next_key()? {
            let item = map.next_value_seed(self.0)?;
            if dense {
                if index == items.len() as u64 {
                    items.push(item);
                    continue;
                }
                dense = false;
                indices.extend(0..items.len() as u64);
            }
            if indices.last().is_some_and(|&last| index <= last) {
                sorted = false;
            }
            indices.push(index);
            items.push(item);
        }
        if sorted {
            return Ok(items);
        }
        let mut pairs: Vec<(u64, S::Value)> = indices.into_iter().zip(items).collect();
        pairs.sort_by_key(|&(index, _)| index);
        let duplicate = pairs.windows(2).find_map(|pair| match pair {
            [(a, _), (b, _)] if a == b => Some(*a),
            _ => None,
        });
        if let Some(index) = duplicate {
            return Err(de::Error::custom(format_args!(
                "duplicate collection index \"{index}\""
            )));
        }
        Ok(pairs.into_iter().map(|(_, item)| item).collect())
    }
}

/// Decodes `null` as `None` and anything else as a collection.
struct OptionVisitor<S>(S);

impl<'de, S> Visitor<'de> for OptionVisitor<S>
where
    S: DeserializeSeed<'de> + Copy,
{
    type Value = Option<Vec<S::Value>>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("null or a collection")
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer
            .deserialize_any(CollectionVisitor(self.0))
            .map(Some)
    }
}

/// `#[serde(with = "wire::collection")]` for a `Vec<T>` whose elements use their own
/// `Deserialize` (records, enums).
pub mod collection {
    use super::*;

    /// Decodes an index-keyed object, an array, or `null` (empty).
    pub fn deserialize<'de, D, T>(deserializer: D) -> Result<Vec<T>, D::Error>
    where
        D: Deserializer<'de>,
        T: Deserialize<'de>,
    {
        deserializer.deserialize_any(CollectionVisitor(PhantomData::<T>))
    }

    /// Writes a JSON array.
    pub fn serialize<T: Serialize, S: Serializer>(
        value: &[T],
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(value)
    }
}

/// `#[serde(default, with = "wire::collection_opt")]` for an `Option<Vec<T>>`: absent (through
/// `default`) or `null` is `None`, `{}` and `[]` are `Some(vec![])`.
pub mod collection_opt {
    use super::*;

    /// Decodes `null` as `None`, anything else like [`collection`](super::collection).
    pub fn deserialize<'de, D, T>(deserializer: D) -> Result<Option<Vec<T>>, D::Error>
    where
        D: Deserializer<'de>,
        T: Deserialize<'de>,
    {
        deserializer.deserialize_option(OptionVisitor(PhantomData::<T>))
    }

    /// Writes `null` for `None`, else a JSON array.
    pub fn serialize<T: Serialize, S: Serializer>(
        value: &Option<Vec<T>>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        value.serialize(serializer)
    }
}

/// `#[serde(with = "wire::lenient_list")]` for a `Vec<T>` with `T:`
/// [`Lenient`](crate::wire::Lenient) elements, such as `[1, 2]` or `{"0": "1"}` for `Vec<u64>`.
pub mod lenient_list {
    use super::*;

    /// Decodes an index-keyed object, an array, or `null` (empty), each element with
    /// [`Lenient::deserialize_lenient`].
    pub fn deserialize<'de, D: Deserializer<'de>, T: Lenient>(
        deserializer: D,
    ) -> Result<Vec<T>, D::Error> {
        deserializer.deserialize_any(CollectionVisitor(LenientSeed::<T>::NEW))
    }

    /// Writes a JSON array of normalized elements.
    pub fn serialize<T: Lenient, S: Serializer>(
        value: &[T],
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(value.iter().map(Normalized))
    }
}

#[cfg(test)]
mod tests {
    use crate::wire;
    use crate::wire::testing::{decode, decode_err, round_trip};
    use rust_decimal::Decimal;
    use serde::{Deserialize, Serialize};

    #[derive(Debug, PartialEq, Deserialize, Serialize)]
    struct Item {
        #[serde(with = "wire::lenient")]
        id: u64,
    }

    #[derive(Debug, PartialEq, Deserialize, Serialize)]
    struct Items {
        #[serde(with = "wire::collection")]
        items: Vec<Item>,
    }

    #[derive(Debug, PartialEq, Deserialize, Serialize)]
    struct MaybeItems {
        #[serde(default, with = "wire::collection_opt")]
        items: Option<Vec<Item>>,
    }

    #[derive(Debug, PartialEq, Deserialize, Serialize)]
    struct Ids {
        #[serde(with = "wire::lenient_list")]
        ids: Vec<u64>,
    }

    #[derive(Debug, PartialEq, Deserialize, Serialize)]
    struct Rates {
        #[serde(with = "wire::lenient_list")]
        rates: Vec<Decimal>,
    }

    fn ids(json: &str) -> Vec<u64> {
        decode::<Items>(&format!(r#"{{"items":{json}}}"#))
            .items
            .into_iter()
            .map(|item| item.id)
            .collect()
    }

    fn items_err(json: &str) -> String {
        decode_err::<Items>(&format!(r#"{{"items":{json}}}"#))
    }

    #[test]
    fn index_keyed_objects_in_order() {
        assert_eq!(
            ids(r#"{"0":{"id":10},"1":{"id":"11"},"2":{"id":12}}"#),
            [10, 11, 12]
        );
        assert_eq!(ids("{}"), Vec::<u64>::new());
    }

    #[test]
    fn index_keyed_objects_out_of_order_are_sorted() {
        assert_eq!(
            ids(r#"{"2":{"id":12},"0":{"id":10},"1":{"id":11}}"#),
            [10, 11, 12]
        );
        assert_eq!(ids(r#"{"1":{"id":11},"0":{"id":10}}"#), [10, 11]);
        assert_eq!(
            ids(r#"{"0":{"id":10},"10":{"id":20},"9":{"id":19},"2":{"id":12}}"#),
            [10, 12, 19, 20]
        );
    }

    #[test]
    fn gaps_are_allowed() {
        assert_eq!(
            ids(r#"{"0":{"id":10},"2":{"id":12},"5":{"id":15}}"#),
            [10, 12, 15]
        );
        assert_eq!(ids(r#"{"3":{"id":13}}"#), [13]);
        assert_eq!(
            ids(r#"{"18446744073709551615":{"id":1},"7":{"id":0}}"#),
            [0, 1]
        );
    }

    #[test]
    fn arrays_and_null() {
        assert_eq!(ids(r#"[{"id":1},{"id":"2"}]"#), [1, 2]);
        assert_eq!(ids("[]"), Vec::<u64>::new());
        assert_eq!(ids("null"), Vec::<u64>::new());
    }

    #[test]
    fn bad_keys_are_named() {
        for key in [
            "a",
            "-1",
            "01",
            "00",
            " 1",
            "1 ",
            "+1",
            "",
            "1.0",
            "18446744073709551616",
        ] {
            let error = items_err(&format!(r#"{{{key:?}:{{"id":1}}}}"#));
            assert!(
                error.starts_with(&format!(
                    "invalid collection index {key:?}: expected a non-negative integer"
                )),
                "{key:?}: {error}"
            );
        }
    }

    #[test]
    fn duplicate_keys_are_named() {
        for json in [
            r#"{"0":{"id":1},"0":{"id":2}}"#,
            r#"{"0":{"id":1},"1":{"id":2},"0":{"id":3}}"#,
            r#"{"2":{"id":1},"0":{"id":2},"2":{"id":3}}"#,
            r#"{"0":{"id":1},"3":{"id":2},"3":{"id":3}}"#,
        ] {
            let error = items_err(json);
            assert!(
                error.starts_with("duplicate collection index"),
                "{json}: {error}"
            );
        }
        assert!(
            items_err(r#"{"0":{"id":1},"1":{"id":2},"1":{"id":3}}"#)
                .starts_with(r#"duplicate collection index "1""#)
        );
    }

    #[test]
    fn other_shapes_are_rejected() {
        for json in ["1", r#""[]""#, "true"] {
            let error = items_err(json);
            assert!(error.contains("expected a collection"), "{json}: {error}");
        }
    }

    #[test]
    fn element_errors_keep_their_position() {
        // The error is raised while the parser stands inside the bad element (column 37 is
        // its closing brace, right after `"x"`), which shows elements are decoded in place
        // through `next_value_seed`, the hook path-tracking wrappers use.
        let json = r#"{"items":{"0":{"id":1},"1":{"id":"x"}}}"#;
        let error = serde_json::from_str::<Items>(json).unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with(r#"invalid integer "x": expected only digits"#),
            "{error}"
        );
        assert_eq!((error.line(), error.column()), (1, 37));
        let error =
            serde_json::from_str::<Items>("{\"items\":[{\"id\":1},\n{\"id\":-1}]}").unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("integer -1 is too small for u64"),
            "{error}"
        );
        assert_eq!((error.line(), error.column()), (2, 9));
    }

    #[test]
    fn decoding_from_a_json_value_works_too() {
        let value = serde_json::json!({"items": {"1": {"id": "2"}, "0": {"id": 1}}});
        let items: Items = serde_json::from_value(value).unwrap();
        assert_eq!(items.items, [Item { id: 1 }, Item { id: 2 }]);
        let value = serde_json::json!({"items": {"01": {"id": 1}}});
        let error = serde_json::from_value::<Items>(value)
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with(r#"invalid collection index "01""#),
            "{error}"
        );
    }

    #[test]
    fn collection_opt() {
        assert_eq!(decode::<MaybeItems>("{}").items, None);
        assert_eq!(decode::<MaybeItems>(r#"{"items":null}"#).items, None);
        assert_eq!(decode::<MaybeItems>(r#"{"items":{}}"#).items, Some(vec![]));
        assert_eq!(decode::<MaybeItems>(r#"{"items":[]}"#).items, Some(vec![]));
        assert_eq!(
            decode::<MaybeItems>(r#"{"items":{"1":{"id":2},"0":{"id":1}}}"#).items,
            Some(vec![Item { id: 1 }, Item { id: 2 }])
        );
        let error = decode_err::<MaybeItems>(r#"{"items":{"x":{"id":1}}}"#);
        assert!(
            error.starts_with(r#"invalid collection index "x""#),
            "{error}"
        );
    }

    #[test]
    fn lenient_list_decodes_each_element_leniently() {
        assert_eq!(decode::<Ids>(r#"{"ids":[1,2]}"#).ids, [1, 2]);
        assert_eq!(decode::<Ids>(r#"{"ids":{"0":"1","1":2}}"#).ids, [1, 2]);
        assert_eq!(decode::<Ids>(r#"{"ids":{"1":"2","0":"1"}}"#).ids, [1, 2]);
        assert_eq!(decode::<Ids>(r#"{"ids":{}}"#).ids, Vec::<u64>::new());
        assert_eq!(decode::<Ids>(r#"{"ids":null}"#).ids, Vec::<u64>::new());
        let error = decode_err::<Ids>(r#"{"ids":["1","1,000"]}"#);
        assert!(
            error.starts_with(r#"invalid integer "1,000": expected only digits"#),
            "{error}"
        );
        let rates = decode::<Rates>(r#"{"rates":{"0":"30.00","1":30.1}}"#).rates;
        assert_eq!(
            rates.iter().map(ToString::to_string).collect::<Vec<_>>(),
            ["30.00", "30.1"]
        );
    }

    #[test]
    fn collections_round_trip_as_arrays() {
        assert_eq!(
            round_trip::<Items>(r#"{"items":{"1":{"id":"2"},"0":{"id":1}}}"#),
            r#"{"items":[{"id":1},{"id":2}]}"#
        );
        assert_eq!(round_trip::<Items>(r#"{"items":{}}"#), r#"{"items":[]}"#);
        assert_eq!(
            round_trip::<MaybeItems>(r#"{"items":null}"#),
            r#"{"items":null}"#
        );
        assert_eq!(
            round_trip::<MaybeItems>(r#"{"items":{"0":{"id":3}}}"#),
            r#"{"items":[{"id":3}]}"#
        );
        assert_eq!(
            round_trip::<Ids>(r#"{"ids":{"0":"1","1":"2"}}"#),
            r#"{"ids":[1,2]}"#
        );
        assert_eq!(
            round_trip::<Rates>(r#"{"rates":{"0":"30.00"}}"#),
            r#"{"rates":["30.00"]}"#
        );
    }
}
