//! Hard filters, applied before any scoring, in contract order:
//! excluded → product_mismatch → effect_mismatch → unavailable (the first failing reason wins).
//!
//! **Invariant:** a retriever only ever sees tools for which [`Filters::check`] is `None`.

use std::borrow::Cow;

use crate::catalog::{Catalog, ToolEntry};
use crate::wire::Effect;

/// The validated hard filters of a request (lists trimmed, deduplicated, sorted).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filters {
    pub product_ids: Vec<String>,
    pub effects: Vec<Effect>,
    pub exclude_canonical: Vec<String>,
}

/// Why a tool is not eligible.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FilterReason {
    Excluded,
    ProductMismatch,
    EffectMismatch,
    Unavailable,
}

impl FilterReason {
    pub fn as_str(self) -> &'static str {
        match self {
            FilterReason::Excluded => "excluded",
            FilterReason::ProductMismatch => "product_mismatch",
            FilterReason::EffectMismatch => "effect_mismatch",
            FilterReason::Unavailable => "unavailable",
        }
    }
}

impl Filters {
    /// The first filter `tool` fails, or `None` if it is eligible.
    pub fn check(&self, tool: &ToolEntry) -> Option<FilterReason> {
        if self
            .exclude_canonical
            .binary_search(&tool.def.canonical_path)
            .is_ok()
        {
            return Some(FilterReason::Excluded);
        }
        if !self.product_ids.is_empty() && self.product_ids.binary_search(&tool.product_id).is_err()
        {
            return Some(FilterReason::ProductMismatch);
        }
        if !self.effects.is_empty() && !tool.effect().is_some_and(|e| self.effects.contains(&e)) {
            return Some(FilterReason::EffectMismatch);
        }
        if !tool.is_available() {
            return Some(FilterReason::Unavailable);
        }
        None
    }

    /// One flag per tool (by `ToolId`): true if and only if the tool is eligible. Without
    /// filters that is the catalog's availability, borrowed rather than recomputed.
    pub fn eligible<'a>(&self, catalog: &'a Catalog) -> Cow<'a, [bool]> {
        if self.product_ids.is_empty()
            && self.effects.is_empty()
            && self.exclude_canonical.is_empty()
        {
            return Cow::Borrowed(catalog.availability());
        }
        catalog
            .tools()
            .iter()
            .map(|tool| self.check(tool).is_none())
            .collect()
    }
}
