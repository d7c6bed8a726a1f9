//! Deserialization helpers that keep line numbers and key paths intact.
//!
//! yaml_serde can attach a line and column to an error only while it is
//! positioned on the node at fault, and serde_path_to_error records the key
//! path only as keys go by. So nothing here buffers the document (no
//! `#[serde(flatten)]`, no derived `#[serde(untagged)]`): every helper decides
//! as it reads, and errors raised inside it keep their position.

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::de::{
    self, DeserializeSeed, Deserializer, IgnoredAny, IntoDeserializer, MapAccess, SeqAccess,
    Visitor,
};
use serde::Deserialize;
use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

/// Pattern a name in `env.credentials`, `env.deliver` or
/// `env.sessionPassthrough` must match (a POSIX-portable variable name).
pub(super) const ENV_NAME_PATTERN: &str = "^[A-Za-z_][A-Za-z0-9_]*$";

/// A mapping that shares its keys with other parts of the-loop.
pub(super) trait SharedSection {
    /// Keys other components own. They are skipped unread; any other key the
    /// section does not declare is still an error (`deny_unknown_fields`).
    const FOREIGN: &'static [&'static str];
}

/// Deserializes a [`SharedSection`] strictly, after skipping its foreign keys.
/// Its schema lists the foreign keys as `true` (anything goes).
pub(super) struct Shared<T>(pub T);

impl<'de, T> Deserialize<'de> for Shared<T>
where
    T: Deserialize<'de> + SharedSection,
{
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let skipping = SkipForeign {
            inner: deserializer,
            foreign: T::FOREIGN,
        };
        T::deserialize(skipping).map(Shared)
    }
}

impl<T: JsonSchema + SharedSection> JsonSchema for Shared<T> {
    fn schema_name() -> Cow<'static, str> {
        T::schema_name()
    }

    fn schema_id() -> Cow<'static, str> {
        format!("Shared<{}>", T::schema_id()).into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let mut schema = T::json_schema(generator);
        if let Some(properties) = schema.get_mut("properties").and_then(|p| p.as_object_mut()) {
            for key in T::FOREIGN {
                properties.insert((*key).to_owned(), true.into());
            }
        }
        schema
    }
}

/// Hands the derived visitor a mapping with the foreign keys taken out.
struct SkipForeign<D> {
    inner: D,
    foreign: &'static [&'static str],
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for SkipForeign<D> {
    type Error = D::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        let foreign = self.foreign;
        self.inner.deserialize_map(SkipVisitor { visitor, foreign })
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        let foreign = self.foreign;
        self.inner
            .deserialize_struct(name, fields, SkipVisitor { visitor, foreign })
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map enum identifier ignored_any
    }
}

struct SkipVisitor<V> {
    visitor: V,
    foreign: &'static [&'static str],
}

impl<'de, V: Visitor<'de>> Visitor<'de> for SkipVisitor<V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        self.visitor.expecting(f)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        let foreign = self.foreign;
        self.visitor.visit_map(SkipMap { map, foreign })
    }
}

struct SkipMap<A> {
    map: A,
    foreign: &'static [&'static str],
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for SkipMap<A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        // The seed is consumed only by a key we keep, so it survives the
        // foreign keys skipped before it.
        let mut seed = Some(seed);
        loop {
            let filter = KeyFilter {
                seed: &mut seed,
                foreign: self.foreign,
            };
            match self.map.next_key_seed(filter)? {
                None => return Ok(None),
                Some(Some(key)) => return Ok(Some(key)),
                Some(None) => {
                    self.map.next_value::<IgnoredAny>()?;
                }
            }
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        self.map.next_value_seed(seed)
    }
}

/// Reads one key: `None` for a foreign key, else the derived field identifier.
/// The identifier is produced inside yaml_serde's read of the key, so an
/// unknown key is reported at the key's own line and column.
struct KeyFilter<'s, K> {
    seed: &'s mut Option<K>,
    foreign: &'static [&'static str],
}

impl<'de, K: DeserializeSeed<'de>> DeserializeSeed<'de> for KeyFilter<'_, K> {
    type Value = Option<K::Value>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de, K: DeserializeSeed<'de>> Visitor<'de> for KeyFilter<'_, K> {
    type Value = Option<K::Value>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a key")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Self::Value, E> {
        if self.foreign.contains(&key) {
            return Ok(None);
        }
        match self.seed.take() {
            Some(seed) => seed.deserialize(key.into_deserializer()).map(Some),
            None => Err(E::custom("a mapping key was read twice")),
        }
    }
}

/// `key: true`/`false`, or a mapping of details (the mapping's own `enabled`
/// then says on or off). Both spellings exist in deployed configs.
pub(super) enum Toggle<T> {
    Switch(bool),
    Detailed(T),
}

impl<T: JsonSchema> JsonSchema for Toggle<T> {
    fn schema_name() -> Cow<'static, str> {
        format!("{}Toggle", T::schema_name()).into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "anyOf": [{ "type": "boolean" }, generator.subschema_for::<T>()]
        })
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Toggle<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ToggleVisitor(PhantomData))
    }
}

struct ToggleVisitor<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for ToggleVisitor<T> {
    type Value = Toggle<T>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a boolean or a mapping")
    }

    fn visit_bool<E: de::Error>(self, on: bool) -> Result<Toggle<T>, E> {
        Ok(Toggle::Switch(on))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Toggle<T>, A::Error> {
        T::deserialize(de::value::MapAccessDeserializer::new(map)).map(Toggle::Detailed)
    }
}

/// A list of environment variable names. Its own type so that a wrong shape
/// is reported as "expected a list of names"; the names themselves are
/// checked after parsing (see `resolve`), where the message can leave them out.
pub(super) struct Names(pub Vec<String>);

impl<'de> Deserialize<'de> for Names {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_seq(NamesVisitor)
    }
}

struct NamesVisitor;

impl<'de> Visitor<'de> for NamesVisitor {
    type Value = Names;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of names")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Names, A::Error> {
        let mut names = Vec::new();
        while let Some(name) = seq.next_element::<String>()? {
            names.push(name);
        }
        Ok(Names(names))
    }
}

impl JsonSchema for Names {
    fn schema_name() -> Cow<'static, str> {
        "EnvNames".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "array",
            "items": { "type": "string", "pattern": ENV_NAME_PATTERN }
        })
    }
}

/// A key accepted for compatibility and never read: any value goes.
pub(super) struct Ignored;

impl<'de> Deserialize<'de> for Ignored {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        IgnoredAny::deserialize(deserializer).map(|_| Ignored)
    }
}

impl JsonSchema for Ignored {
    fn schema_name() -> Cow<'static, str> {
        "Ignored".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        true.into()
    }
}
