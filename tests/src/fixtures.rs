//! The JSON fixtures in `tests/fixtures/`: one full response envelope per file, written from
//! the reference in its exact wire shapes (see `fixtures/README.md`).

use std::path::{Path, PathBuf};

use marketplace_client::{Envelope, decode};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// The folder holding the fixtures.
pub fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// Reads a fixture, e.g. `pay/getTimesheet.json`.
pub fn read(name: &str) -> Result<Vec<u8>, String> {
    let path = dir().join(name);
    std::fs::read(&path).map_err(|error| format!("{}: {error}", path.display()))
}

/// Writes `bytes` to `path`, a file in a test's own temporary folder, exactly as given (hostile
/// fixtures: byte order marks, NULs), through `marketplace_client::files` as every writer of the
/// project writes (clippy refuses std's writing calls elsewhere).
pub fn write_file(path: impl AsRef<Path>, bytes: impl AsRef<[u8]>) -> std::io::Result<()> {
    let path = path.as_ref();
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return Err(std::io::Error::other(format!(
            "{}: not a file in a folder",
            path.display()
        )));
    };
    marketplace_client::files::OutputDir::open(dir)
        .and_then(|dir| dir.write(name, bytes))
        .map_err(|error| std::io::Error::other(error.to_string()))
}

/// Decodes a fixture into its typed envelope and checks that the typed value keeps every field
/// the fixture sends and survives its own round trip (see [`check_round_trip`]).
pub fn decode_checked<T>(name: &str) -> Result<Envelope<T>, String>
where
    T: DeserializeOwned + Serialize + PartialEq + std::fmt::Debug,
{
    let body = read(name)?;
    let envelope: Envelope<T> = decode(&body).map_err(|error| format!("{name}: {error}"))?;
    let wire: Value = serde_json::from_slice(&body).map_err(|error| format!("{name}: {error}"))?;
    check_round_trip(&wire, &envelope).map_err(|error| format!("{name}: {error}"))?;
    Ok(envelope)
}

/// The async-stripe style fidelity check, adapted to a wire format that is not the normalized one:
///
/// 1. every key the server sent is still there when the typed value is serialized (a field the
///    spec forgot would be dropped silently by serde), and
/// 2. decoding the serialized value gives the same typed value.
///
/// Errors name the JSON path of the first mismatch.
pub fn check_round_trip<T>(wire: &Value, typed: &T) -> Result<(), String>
where
    T: DeserializeOwned + Serialize + PartialEq + std::fmt::Debug,
{
    let normalized =
        serde_json::to_value(typed).map_err(|error| format!("serializing: {error}"))?;
    keys_kept(wire, &normalized, &mut Vec::new())?;
    let again: T = serde_json::from_value(normalized.clone())
        .map_err(|error| format!("decoding the serialized value: {error}"))?;
    if &again != typed {
        let again = serde_json::to_value(&again).map_err(|error| error.to_string())?;
        let path = first_difference(&normalized, &again, &mut Vec::new()).unwrap_or_default();
        return Err(format!("{path}: changes in a decode/encode round trip"));
    }
    Ok(())
}

/// Checks that every object key of `wire` exists at the same place in `typed`. Index-keyed
/// objects are matched against the arrays they decode to; scalars are not compared (their
/// encodings differ on purpose).
fn keys_kept(wire: &Value, typed: &Value, path: &mut Vec<String>) -> Result<(), String> {
    match (wire, typed) {
        (Value::Object(object), Value::Array(items)) => {
            let mut indexed: Vec<(usize, &Value)> = object
                .iter()
                .map(|(key, value)| key.parse::<usize>().map(|index| (index, value)))
                .collect::<Result<_, _>>()
                .map_err(|_| format!("{}: an object where a list was decoded", show(path)))?;
            indexed.sort_by_key(|(index, _)| *index);
            let wire_items: Vec<&Value> = indexed.into_iter().map(|(_, value)| value).collect();
            each_item(&wire_items, items, path)
        }
        (Value::Array(wire_items), Value::Array(items)) => {
            let wire_items: Vec<&Value> = wire_items.iter().collect();
            each_item(&wire_items, items, path)
        }
        (Value::Object(object), Value::Object(typed_object)) => {
            for (key, value) in object {
                path.push(key.clone());
                let kept = typed_object.get(key).ok_or_else(|| {
                    format!(
                        "{}: sent by the server but not kept by the typed value",
                        show(path)
                    )
                })?;
                keys_kept(value, kept, path)?;
                path.pop();
            }
            Ok(())
        }
        (Value::Object(_) | Value::Array(_), _) => Err(format!(
            "{}: a structured value on the wire became {typed}",
            show(path)
        )),
        _ => Ok(()),
    }
}

fn each_item(wire: &[&Value], typed: &[Value], path: &mut Vec<String>) -> Result<(), String> {
    if wire.len() != typed.len() {
        return Err(format!(
            "{}: {} items on the wire, {} decoded",
            show(path),
            wire.len(),
            typed.len()
        ));
    }
    for (index, (wire, typed)) in wire.iter().zip(typed).enumerate() {
        path.push(index.to_string());
        keys_kept(wire, typed, path)?;
        path.pop();
    }
    Ok(())
}

fn first_difference(a: &Value, b: &Value, path: &mut Vec<String>) -> Option<String> {
    match (a, b) {
        (Value::Object(a), Value::Object(b)) => a.iter().find_map(|(key, value)| {
            path.push(key.clone());
            let found = match b.get(key) {
                Some(other) => first_difference(value, other, path),
                None => Some(show(path)),
            };
            path.pop();
            found
        }),
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            a.iter().zip(b).enumerate().find_map(|(index, (x, y))| {
                path.push(index.to_string());
                let found = first_difference(x, y, path);
                path.pop();
                found
            })
        }
        _ => (a != b).then(|| show(path)),
    }
}

fn show(path: &[String]) -> String {
    if path.is_empty() {
        ".".to_owned()
    } else {
        path.join(".")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Known {
        id: u64,
    }

    #[test]
    fn names_the_path_of_a_field_the_typed_value_drops() {
        let wire = json!({"id": 1, "surprise": true});
        let typed = Known { id: 1 };
        assert_eq!(
            check_round_trip(&wire, &typed),
            Err("surprise: sent by the server but not kept by the typed value".to_owned())
        );
    }

    #[test]
    fn matches_index_keyed_objects_against_lists() {
        #[derive(Debug, PartialEq, Serialize, Deserialize)]
        struct Page {
            items: Vec<Known>,
        }
        let typed = Page {
            items: vec![Known { id: 1 }, Known { id: 2 }],
        };
        let wire = json!({"items": {"1": {"id": 2}, "0": {"id": 1, "extra": 0}}});
        assert_eq!(
            check_round_trip(&wire, &typed),
            Err("items.0.extra: sent by the server but not kept by the typed value".to_owned())
        );
        let wire = json!({"items": {"0": {"id": 1}, "1": {"id": 2}}});
        assert_eq!(check_round_trip(&wire, &typed), Ok(()));
    }
}
