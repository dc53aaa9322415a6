//! The canonical JSON of catalog.v1 products, written directly: object keys in sorted order,
//! no whitespace, fields skipped exactly when their serde attributes skip them.
//!
//! **Invariant:** [`write_product`] produces the same bytes as
//! `serde_json::to_vec(&serde_json::to_value(product))` (serde_json's `Value` maps are sorted),
//! without building a `Value` tree for every product; `source_hash` is sha256 of these bytes.
//! The test below holds the two routes equal on a product that sets every field, and every
//! struct is destructured exhaustively, so a new wire field fails to compile here until it is
//! written.

use serde::Serialize;

use crate::wire::{Parameter, Product, Tool};

/// Appends the canonical JSON of `product` to `out`.
///
/// # Errors
/// serde_json's, for a value it cannot encode (none in practice: every key is a string).
pub fn write_product(out: &mut Vec<u8>, product: &Product) -> serde_json::Result<()> {
    let Product {
        id,
        name,
        description,
        agent_summary,
        use_when,
        avoid_when,
        tools,
    } = product;
    let mut object = Object::open(out);
    object.option("agent_summary", agent_summary)?;
    object.list("avoid_when", avoid_when)?;
    object.option("description", description)?;
    object.field("id", id)?;
    object.option("name", name)?;
    // `tools` is never skipped (no `skip_serializing_if`).
    object.key("tools")?;
    object.out.push(b'[');
    for (idx, tool) in tools.iter().enumerate() {
        if idx > 0 {
            object.out.push(b',');
        }
        write_tool(object.out, tool)?;
    }
    object.out.push(b']');
    object.list("use_when", use_when)?;
    object.close();
    Ok(())
}

fn write_tool(out: &mut Vec<u8>, tool: &Tool) -> serde_json::Result<()> {
    let Tool {
        canonical_path,
        name,
        cli_path,
        primary_cli_path,
        aliases,
        group,
        title,
        display,
        agent_summary,
        description,
        parameters,
        input_schema,
        effect,
        risk,
        confirmation,
        idempotency,
        availability,
        use_when,
        avoid_when,
        examples,
    } = tool;
    let mut object = Object::open(out);
    object.option("agent_summary", agent_summary)?;
    object.list("aliases", aliases)?;
    object.option("availability", availability)?;
    object.list("avoid_when", avoid_when)?;
    object.field("canonical_path", canonical_path)?;
    object.option("cli_path", cli_path)?;
    object.option("confirmation", confirmation)?;
    object.option("description", description)?;
    object.option("display", display)?;
    object.option("effect", effect)?;
    object.list("examples", examples)?;
    object.option("group", group)?;
    object.option("idempotency", idempotency)?;
    object.option("input_schema", input_schema)?;
    object.field("name", name)?;
    if !parameters.is_empty() {
        // A BTreeMap: flags already in sorted order.
        object.key("parameters")?;
        let mut flags = Object::open(object.out);
        for (flag, parameter) in parameters {
            flags.key(flag)?;
            write_parameter(flags.out, parameter)?;
        }
        flags.close();
    }
    object.option("primary_cli_path", primary_cli_path)?;
    object.option("risk", risk)?;
    object.option("title", title)?;
    object.list("use_when", use_when)?;
    object.close();
    Ok(())
}

fn write_parameter(out: &mut Vec<u8>, parameter: &Parameter) -> serde_json::Result<()> {
    let Parameter {
        kind,
        description,
        required,
        enum_values,
        default,
        example,
        format,
        property,
    } = parameter;
    let mut object = Object::open(out);
    object.option("default", default)?;
    object.option("description", description)?;
    object.option("enum", enum_values)?;
    object.option("example", example)?;
    object.option("format", format)?;
    object.option("property", property)?;
    object.option("required", required)?;
    object.option("type", kind)?;
    object.close();
    Ok(())
}

/// A JSON object being written: keys must come in sorted order (the callers' job).
struct Object<'a> {
    out: &'a mut Vec<u8>,
    first: bool,
}

impl<'a> Object<'a> {
    fn open(out: &'a mut Vec<u8>) -> Object<'a> {
        out.push(b'{');
        Object { out, first: true }
    }

    fn key(&mut self, key: &str) -> serde_json::Result<()> {
        if !self.first {
            self.out.push(b',');
        }
        self.first = false;
        serde_json::to_writer(&mut *self.out, key)?;
        self.out.push(b':');
        Ok(())
    }

    fn field<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> serde_json::Result<()> {
        self.key(key)?;
        serde_json::to_writer(&mut *self.out, value)
    }

    /// Skipped when `None` (`skip_serializing_if = "Option::is_none"`).
    fn option<T: Serialize>(&mut self, key: &str, value: &Option<T>) -> serde_json::Result<()> {
        match value {
            Some(value) => self.field(key, value),
            None => Ok(()),
        }
    }

    /// Skipped when empty (`skip_serializing_if = "Vec::is_empty"`).
    fn list(&mut self, key: &str, values: &[String]) -> serde_json::Result<()> {
        if values.is_empty() {
            return Ok(());
        }
        self.field(key, values)
    }

    fn close(self) {
        self.out.push(b'}');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slow(product: &Product) -> Vec<u8> {
        serde_json::to_vec(&serde_json::to_value(product).unwrap()).unwrap()
    }

    fn fast(product: &Product) -> Vec<u8> {
        let mut out = Vec::new();
        write_product(&mut out, product).unwrap();
        out
    }

    /// Every field of every struct set (and each optional one also absent), escapes, nested
    /// values with unsorted keys, floats: the direct writer and the `Value` route agree.
    #[test]
    fn invariant_direct_writer_equals_the_value_route() {
        let full = r#"{"id":"p","name":"P \"q\"","description":"d\n","agent_summary":"s",
            "use_when":["u"],"avoid_when":["a"],"tools":[
            {"canonical_path":"p.t","name":"t","cli_path":"p t","primary_cli_path":"p t",
             "aliases":["p x","p y"],"group":"g","title":"标题","display":"d","agent_summary":"s",
             "description":"é \u0001 \\","parameters":{"z-flag":{"type":"string","description":"d",
             "required":true,"enum":["b","a",1,null],"default":{"y":1,"x":[2.5e300,-0.0]},
             "example":"ex","format":"date","property":"zFlag"},"a":{},"q\"\u00e9\\":{},"\u0007":{}},
             "input_schema":{"type":"object","properties":{"b":{},"a":{"enum":[1e-7]}}},
             "effect":"destructive","risk":"high","confirmation":"user_required",
             "idempotency":"non_idempotent","availability":"deprecated","use_when":["u"],
             "avoid_when":["a"],"examples":["p t --z-flag x"]},
            {"canonical_path":"p.u","name":"u"}]}"#;
        let product: Product = serde_json::from_str(full).unwrap();
        assert_eq!(
            String::from_utf8(fast(&product)).unwrap(),
            String::from_utf8(slow(&product)).unwrap()
        );
        let bare: Product = serde_json::from_str(r#"{"id":"p"}"#).unwrap();
        assert_eq!(fast(&bare), slow(&bare));
        assert_eq!(fast(&bare), br#"{"id":"p","tools":[]}"#);
    }
}
