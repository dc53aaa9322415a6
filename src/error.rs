//! One error value for the whole engine: a contract reason code, its category, and a message.
//!
//! Exit codes are derived from the category (validation 3, internal 5, discovery 6) in one
//! place, [`Category::exit_code`]; the error JSON's `code` is that same number.
//! Reason strings exist only here, as the snake_case names of [`Reason`].

use std::fmt;

/// Which side of the contract failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Category {
    /// The request (or command line) is wrong; exit 3.
    Validation,
    /// The catalog the agent saw is not the loaded one; exit 6.
    Discovery,
    /// The catalog or configuration is corrupt; the program fails closed; exit 5.
    Internal,
}

impl Category {
    pub fn as_str(self) -> &'static str {
        match self {
            Category::Validation => "validation",
            Category::Discovery => "discovery",
            Category::Internal => "internal",
        }
    }

    /// The process exit code (and the error JSON's `code`) for this category.
    pub fn exit_code(self) -> u8 {
        match self {
            Category::Validation => 3,
            Category::Internal => 5,
            Category::Discovery => 6,
        }
    }
}

macro_rules! reasons {
    ($($variant:ident => $text:literal, $category:ident;)*) => {
        /// Every contract reason code. The string form is the wire form.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Reason { $($variant,)* }

        impl Reason {
            pub fn as_str(self) -> &'static str {
                match self { $(Reason::$variant => $text,)* }
            }
            pub fn category(self) -> Category {
                match self { $(Reason::$variant => Category::$category,)* }
            }
            /// All reasons, in contract precedence order for the validation ones.
            pub const ALL: &'static [Reason] = &[$(Reason::$variant,)*];
        }
    };
}

reasons! {
    InvalidTransport => "invalid_transport", Validation;
    AmbiguousInput => "ambiguous_input", Validation;
    ReadRequestFailed => "read_request_failed", Validation;
    RequestTooLarge => "request_too_large", Validation;
    InvalidRequestJson => "invalid_request_json", Validation;
    UnsupportedVersion => "unsupported_version", Validation;
    SubqueryRequired => "subquery_required", Validation;
    TooManySubqueries => "too_many_subqueries", Validation;
    SubqueriesTooLarge => "subqueries_too_large", Validation;
    QueryRequired => "query_required", Validation;
    QueryTooLong => "query_too_long", Validation;
    DangerousQueryUnicode => "dangerous_query_unicode", Validation;
    InvalidLimit => "invalid_limit", Validation;
    InvalidCandidateLimit => "invalid_candidate_limit", Validation;
    DangerousFilterUnicode => "dangerous_filter_unicode", Validation;
    InvalidEffect => "invalid_effect", Validation;
    UnknownProduct => "unknown_product", Validation;
    IncompleteCatalogVersion => "incomplete_catalog_version", Validation;
    InvalidCatalogVersion => "invalid_catalog_version", Validation;
    UnknownTool => "unknown_tool", Validation;
    UnknownRetriever => "unknown_retriever", Validation;
    InvalidQrels => "invalid_qrels", Validation;
    InvalidImport => "invalid_import", Validation;
    LintBelowThreshold => "lint_below_threshold", Validation;
    CatalogChanged => "catalog_changed", Discovery;
    InvalidCatalog => "invalid_catalog", Internal;
    CatalogUnreadable => "catalog_unreadable", Internal;
    OutputFailed => "output_failed", Internal;
}

/// An engine error: what failed (the reason code) and a human message with context.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct Error {
    pub reason: Reason,
    pub message: String,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.reason.as_str(), self.message)
    }
}

impl Error {
    pub fn new(reason: Reason, message: impl Into<String>) -> Self {
        Error {
            reason,
            message: message.into(),
        }
    }

    pub fn category(&self) -> Category {
        self.reason.category()
    }

    pub fn exit_code(&self) -> u8 {
        self.category().exit_code()
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
