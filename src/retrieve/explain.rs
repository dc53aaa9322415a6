//! Why a tool scored what it scored: one request's terms (with where each came from) and,
//! for chosen tools, each term's contribution per field, recomputed with the very operations,
//! in the very order, that [`FieldedBm25::search`] uses (so the parts add up to the hit's
//! `fields` and `score` bit for bit; `tests/it/why.rs` checks it on every judged request).
//! Read by `toolsearch why`. Its per-term parts come from [`FieldedBm25::for_each_part`], which
//! the learned models (`retrieve::weak`) also read on the search path.

use super::*;

/// One request as the retriever weighs it, and the scores of the tools asked about.
#[derive(Debug, Clone)]
pub struct Explanation {
    /// The terms that occur in the index, in term order (the order scores are summed in).
    pub terms: Vec<ExplainedTerm>,
    /// The idf of the user's words the catalog holds (the denominator of coverage).
    pub own_idf_total: f64,
    /// The request's words the catalog never uses.
    pub unknown_words: usize,
    /// Destructive tools were weighed down (the request states no destructive intent).
    pub penalize_destructive: bool,
    /// A lookup question: tools that change something were weighed down.
    pub read_only: bool,
    /// A request to change what exists: tools that make something new were weighed down.
    pub change: bool,
    /// The coordination factor's weight (0 = off: a request of few words).
    pub coord: f64,
    /// The product prior (docs/adr/0003's product-prior addendum): each product whose tools it
    /// lifts, with its multiplier, largest first (ties by product id); empty where it does
    /// not apply or no product scores.
    pub product_prior: Vec<(String, f64)>,
    /// The tools asked about, in the order asked.
    pub tools: Vec<ToolScore>,
}

/// One term of a request.
#[derive(Debug, Clone)]
pub struct ExplainedTerm {
    pub text: String,
    pub origin: Origin,
    /// Its query-side weight: ln(1 + qtf), times its origin's weight and any keep-clause,
    /// quoted-span, identifier-shape or word-pair factor.
    pub weight: f64,
    /// Its BM25F idf over the union of the fields.
    pub idf: f64,
    /// How many tools have it.
    pub df: usize,
    /// Whether its idf counts toward coverage (a word of the user's own).
    pub counts_for_coverage: bool,
    /// What brought a joined term: for a lexicon expansion, the first phrase of its group; for
    /// a learned pair, the request's word that triggered it.
    pub via: Option<String>,
}

/// One tool's score, term by term.
#[derive(Debug, Clone)]
pub struct ToolScore {
    pub tool: ToolId,
    /// Each term the tool has (an index into [`Explanation::terms`]) and its contribution
    /// per field, in [`Field::ALL`] order.
    pub parts: Vec<(usize, [f64; N_FIELDS])>,
    /// The parts summed per field, in term order: the hit's `fields`.
    pub fields: [f64; N_FIELDS],
    /// The intent and product multipliers.
    pub intent: f64,
    /// The coordination factor.
    pub coord_factor: f64,
    /// The idf of the user's words this tool matched.
    pub covered: f64,
    /// `fields` summed, times `intent × coord_factor`: the hit's `score`.
    pub score: f64,
}

impl FieldedBm25 {
    /// The lexicon groups `query` touches, each with the term ids its phrases bring, from the
    /// text `plan_query` expands (outside quoted spans unless `expand_quoted`).
    fn expansion_groups(&self, query: &str) -> Vec<(&'static str, Vec<u32>)> {
        let quoted = if self.config.expand_quoted {
            None
        } else {
            split_quoted(query)
        };
        let source = PreparedQuery::new(self.unexpanded_quotes(&quoted).unwrap_or(query));
        Lexicon::builtin()
            .expansion_by_group(&source)
            .into_iter()
            .map(|(head, texts)| {
                let mut terms = Vec::new();
                for text in texts {
                    terms.extend_from_slice(self.expansion_term_ids(text));
                }
                (head, terms)
            })
            .collect()
    }

    /// The learned pairs `query` triggers, each trigger's word with the term ids its catalog
    /// words bring.
    fn learned_triggers(&self, query: &str) -> Vec<(String, Vec<u32>)> {
        let learned = self.learned();
        learned
            .expansion_by_trigger(&PreparedQuery::new(query))
            .into_iter()
            .map(|(word, texts)| {
                let mut terms = Vec::new();
                for &text in texts {
                    terms.extend_from_slice(self.learned_term_ids(text));
                }
                (word.to_string(), terms)
            })
            .collect()
    }

    /// The explanation of `query` for `tools`; `None` for a configuration that does not
    /// score with BM25F (`bm25f = false`), whose arithmetic this does not reproduce.
    pub(super) fn explain_terms(
        &self,
        query: &str,
        tools: &[ToolId],
        role: Role,
    ) -> Option<Explanation> {
        if !self.config.bm25f {
            return None;
        }
        let plan = self.plan_query(query, role);
        let groups = self.expansion_groups(query);
        let triggers = self.learned_triggers(query);
        // The very plans `search` scores with: the terms the index holds, in term order.
        let plans = self.bm25f_plans(&plan.terms, &|term| {
            self.counts_for_coverage(term, plan.has_word_terms)
        });
        let own_idf_total = own_idf_total(&plans);
        let terms: Vec<ExplainedTerm> = plans
            .iter()
            .map(|p| {
                let origin = plan.origin_of(p.term);
                ExplainedTerm {
                    text: self.index.terms.term(p.term).to_string(),
                    origin,
                    weight: p.query_weight,
                    idf: p.idf,
                    df: p.postings.df,
                    counts_for_coverage: p.counts_for_coverage,
                    via: match origin {
                        Origin::Lexicon => groups
                            .iter()
                            .find(|(_, terms)| terms.contains(&p.term))
                            .map(|(head, _)| head.to_string()),
                        Origin::Learned => triggers
                            .iter()
                            .find(|(_, terms)| terms.contains(&p.term))
                            .map(|(word, _)| word.clone()),
                        Origin::Synonym => self
                            .index
                            .terms
                            .term(p.term)
                            .strip_prefix(crate::index::SYNONYM_MARK)
                            .map(str::to_string),
                        _ => None,
                    },
                }
            })
            .collect();
        let scores = tools
            .iter()
            .map(|&tool| self.tool_score(&plan, &plans, own_idf_total, tool))
            .collect();
        Some(Explanation {
            terms,
            own_idf_total,
            unknown_words: plan.unknown_words,
            penalize_destructive: plan.penalize_destructive,
            read_only: plan.read_only,
            change: plan.change,
            coord: plan.coord,
            product_prior: self.lifted_products(&plan),
            tools: scores,
        })
    }

    /// The products `plan`'s product prior lifts, with their multipliers, largest first.
    fn lifted_products(&self, plan: &QueryPlan) -> Vec<(String, f64)> {
        let mut lifted: Vec<(String, f64)> = plan
            .product_prior
            .iter()
            .zip(&self.product_names)
            .filter(|(&prior, _)| prior > 1.0)
            .filter_map(|(&prior, names)| Some((names.last()?.clone(), prior)))
            .collect();
        lifted.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        lifted
    }

    /// `tool`'s score from a request's `plans` (its [`FieldedBm25::bm25f_plans`]), term by term:
    /// each term's row and part in term order, as scoring sums them. `toolsearch why` reads it.
    pub(super) fn tool_score(
        &self,
        plan: &QueryPlan,
        plans: &[TermPlan<'_>],
        own_idf_total: f64,
        tool: ToolId,
    ) -> ToolScore {
        let mut parts = Vec::new();
        let mut fields = [0.0; N_FIELDS];
        let mut covered = 0.0;
        self.for_each_part(plans, &[tool], |at, _, part| {
            // A field the term lacks adds exactly +0.0, as `accumulate` skipping it would.
            for (sum, value) in fields.iter_mut().zip(part) {
                *sum += value;
            }
            if plans[at].counts_for_coverage {
                covered += plans[at].idf;
            }
            parts.push((at, part));
        });
        let intent = self.multiplier(plan, tool);
        let coord_factor = coord_factor(plan.coord, covered, own_idf_total);
        let sum: f64 = fields.iter().sum();
        ToolScore {
            tool,
            parts,
            fields,
            intent,
            coord_factor,
            covered,
            score: sum * (intent * coord_factor),
        }
    }
}

/// The idf of the user's words the index holds, summed in term order: the denominator of
/// coverage, as scoring sums it.
pub(super) fn own_idf_total(plans: &[TermPlan<'_>]) -> f64 {
    plans
        .iter()
        .filter(|p| p.counts_for_coverage)
        .map(|p| p.idf)
        .fold(0.0, |total, idf| total + idf)
}
