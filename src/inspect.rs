//! `schema-inspect.v1`: check both catalog hashes, then resolve the path, then print the
//! tool's full contract.
//!
//! **Invariant:** a stale hash never yields a tool spec (`catalog_changed`, exit 6), and the
//! hashes are compared before the path is resolved.

use crate::catalog::Catalog;
use crate::error::{Error, Reason, Result};
use crate::request::InspectRequest;
use crate::search::resolve_identity;
use crate::wire::{self, InspectResponse, ToolSpec};

/// Answers a validated inspect request.
///
/// # Errors
/// `catalog_changed` (discovery) when a hash differs; `unknown_tool` when the path names
/// no tool.
pub fn inspect(catalog: &Catalog, request: &InspectRequest) -> Result<InspectResponse> {
    if request.expected_source_hash != catalog.source_hash()
        || request.expected_surface_hash != catalog.surface_hash()
    {
        return Err(Error::new(
            Reason::CatalogChanged,
            format!(
                "the catalog changed since the search (loaded source_hash {}, surface_hash {}); search again",
                catalog.source_hash(),
                catalog.surface_hash()
            ),
        ));
    }
    let tool_id = resolve_identity(catalog, &request.path).ok_or_else(|| {
        Error::new(
            Reason::UnknownTool,
            format!(
                "`{}` is not a canonical path, CLI path or alias of this catalog",
                request.path
            ),
        )
    })?;
    let tool = catalog.tool(tool_id);
    let def = &tool.def;
    Ok(InspectResponse {
        version: wire::INSPECT_VERSION.to_string(),
        catalog: catalog.version(),
        tool_spec: ToolSpec {
            product_id: tool.product_id.clone(),
            canonical_path: def.canonical_path.clone(),
            name: def.name.clone(),
            cli_path: def.cli_path.clone(),
            primary_cli_path: tool.primary_cli_path().map(str::to_string),
            aliases: def.aliases.clone(),
            group: def.group.clone(),
            title: def.title.clone(),
            display: def.display.clone(),
            agent_summary: def.agent_summary.clone(),
            description: def.description.clone(),
            parameters: def
                .parameters
                .iter()
                .map(|(flag, parameter)| (flag.clone(), wire::Parameter::clone(parameter)))
                .collect(),
            input_schema: def.input_schema.clone(),
            effect: def.effect,
            risk: def.risk,
            confirmation: def.confirmation,
            idempotency: def.idempotency,
            availability: def
                .availability
                .clone()
                .unwrap_or_else(|| "available".to_string()),
            use_when: def.use_when.clone(),
            avoid_when: def.avoid_when.clone(),
            examples: def.examples.clone(),
        },
    })
}
