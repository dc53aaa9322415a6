//! Strict JSON reading shared by every input format: exactly one value, no duplicate keys.
//!
//! serde's derived structs already reject duplicate *fields*, but maps (`parameters`,
//! `input_schema`) would silently keep the last value. A first pass over the text with
//! [`NoDuplicateKeys`] rejects a duplicate key at any depth before the typed parse.

use std::collections::BTreeSet;
use std::fmt;

use serde::de::{self, DeserializeOwned, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

/// Parses `text` as exactly one JSON value of type `T`, rejecting duplicate keys anywhere.
/// The error is serde_json's message (with line and column).
pub fn parse_strict<T: DeserializeOwned>(text: &str) -> Result<T, String> {
    serde_json::from_str::<NoDuplicateKeys>(text).map_err(|e| e.to_string())?;
    serde_json::from_str::<T>(text).map_err(|e| e.to_string())
}

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
        let mut seen = BTreeSet::new();
        while let Some(key) = map.next_key::<String>()? {
            if !seen.insert(key.clone()) {
                return Err(de::Error::custom(format!("duplicate key `{key}`")));
            }
            map.next_value::<NoDuplicateKeys>()?;
        }
        Ok(NoDuplicateKeys)
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
