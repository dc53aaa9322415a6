//! Strict JSON reading shared by every input format: exactly one value, no duplicate keys.
//!
//! serde's derived structs already reject duplicate *fields*, but maps (`parameters`,
//! `input_schema`) would silently keep the last value. A first pass over the text with
//! `NoDuplicateKeys` rejects a duplicate key at any depth before the typed parse (for a large
//! text the two passes run on two threads; the duplicate-key error still wins).

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::fmt;

use serde::de::{self, DeserializeOwned, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

/// Parses `text` as exactly one JSON value of type `T`, rejecting duplicate keys anywhere.
/// The error is serde_json's message (with line and column).
pub fn parse_strict<T: DeserializeOwned>(text: &str) -> Result<T, String> {
    let check = || {
        serde_json::from_str::<NoDuplicateKeys>(text)
            .map(|_| ())
            .map_err(|e| e.to_string())
    };
    let parse = || serde_json::from_str::<T>(text).map_err(|e| e.to_string());
    if text.len() < PARALLEL_MIN_BYTES {
        check()?;
        return parse();
    }
    std::thread::scope(|scope| {
        let checking = std::thread::Builder::new().spawn_scoped(scope, check).ok();
        let parsed = parse();
        // A thread that could not start, or failed, is redone here.
        let checked = checking
            .and_then(|handle| handle.join().ok())
            .unwrap_or_else(check);
        checked?;
        parsed
    })
}

/// From this many bytes on, the duplicate-key pass runs on its own thread.
const PARALLEL_MIN_BYTES: usize = 1 << 20;

/// A value that deserializes from any JSON and fails on a repeated object key.
struct NoDuplicateKeys;

impl<'de> Deserialize<'de> for NoDuplicateKeys {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(NoDuplicateKeysVisitor)
    }
}

struct NoDuplicateKeysVisitor;

impl<'de> Visitor<'de> for NoDuplicateKeysVisitor {
    type Value = NoDuplicateKeys;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(NoDuplicateKeys)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(NoDuplicateKeys)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(NoDuplicateKeys)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(NoDuplicateKeys)
    }
    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(NoDuplicateKeys)
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(NoDuplicateKeys)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<NoDuplicateKeys>()?.is_some() {}
        Ok(NoDuplicateKeys)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        // Keys borrowed from the text where they have no escapes; a short list is searched
        // linearly, a long one through a set.
        let mut seen: Vec<Key<'de>> = Vec::new();
        let mut many: BTreeSet<Key<'de>> = BTreeSet::new();
        while let Some(key) = map.next_key::<Key<'de>>()? {
            let repeated = if many.is_empty() && seen.len() < 16 {
                seen.contains(&key)
            } else {
                if many.is_empty() {
                    many.extend(seen.drain(..));
                }
                many.contains(&key)
            };
            if repeated {
                return Err(de::Error::custom(format!("duplicate key `{}`", key.0)));
            }
            if many.is_empty() {
                seen.push(key);
            } else {
                many.insert(key);
            }
            map.next_value::<NoDuplicateKeys>()?;
        }
        Ok(NoDuplicateKeys)
    }
}

/// An object key: borrowed from the text unless it had to be unescaped.
#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct Key<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(KeyVisitor)
    }
}

struct KeyVisitor;

impl<'de> Visitor<'de> for KeyVisitor {
    type Value = Key<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string key")
    }

    fn visit_borrowed_str<E>(self, key: &'de str) -> Result<Self::Value, E> {
        Ok(Key(Cow::Borrowed(key)))
    }

    fn visit_str<E>(self, key: &str) -> Result<Self::Value, E> {
        Ok(Key(Cow::Owned(key.to_string())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_duplicates_at_any_depth() {
        let nested = r#"{"a":{"b":[{"c":1,"c":2}]}}"#;
        assert!(parse_strict::<serde_json::Value>(nested)
            .unwrap_err()
            .contains("duplicate key `c`"));
        assert!(parse_strict::<serde_json::Value>(r#"{"a":1,"b":{"a":2}}"#).is_ok());
    }

    #[test]
    fn rejects_trailing_values_and_deep_nesting() {
        assert!(parse_strict::<serde_json::Value>("{} {}").is_err());
        let deep = "[".repeat(10_000) + &"]".repeat(10_000);
        assert!(parse_strict::<serde_json::Value>(&deep).is_err());
    }
}
