//! The learned word pairs (`learned_pairs.txt`, docs/adr/0015) parsed into lookup tables.
//!
//! `build.rs` includes this file by path and compiles the shipped pairs into static tables;
//! `eval --param learned_pairs=FILE` parses another file at run time into the same tables (to
//! cross-validate the learner). One parser, so both read a file the same way.
//!
//! A file holds one pair per line, `q | t`, sorted, each `q` in one run; `#` lines and empty
//! lines are skipped. Its text is NFKC already (a test checks the shipped file), so a `q`'s
//! matchable form is `forms::form` of its lower-cased text.

use super::forms::{self, Form};

/// The pairs of a file as plain tables of integers into two strings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tables {
    /// Every distinct `q`'s matchable form, in file order, concatenated.
    pub forms: String,
    /// End of each `q`'s form in `forms`.
    pub form_ends: Vec<u32>,
    /// Every distinct `t` as written, in first-seen order, concatenated.
    pub texts: String,
    /// End of each `t` in `texts`.
    pub text_ends: Vec<u32>,
    /// Each `q`'s `t`s as text ids, `q` after `q`.
    pub targets: Vec<u32>,
    /// End of each `q`'s run in `targets`.
    pub target_ends: Vec<u32>,
    /// `[first char, q]` of every `q` with a text form (two characters or more), sorted.
    pub han: Vec<[u32; 2]>,
    /// `[form start, form end, q]` of every `q` with a word form (one word), sorted by word.
    pub words: Vec<[u32; 3]>,
}

/// Parses a pairs file.
///
/// # Errors
/// A message naming the line for a line that is not `q | t`, a `q` out of order, a text `q`
/// of one character or a word `q` of more than one word.
pub fn parse(source: &str) -> Result<Tables, String> {
    let mut queries: Vec<(&str, Vec<&str>)> = Vec::new();
    for (number, line) in source.lines().enumerate() {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((q, t)) = line.split_once(" | ") else {
            return Err(format!("line {}: not `q | t`: {line}", number + 1));
        };
        if q.is_empty() || t.is_empty() || t.contains(" | ") {
            return Err(format!("line {}: not `q | t`: {line}", number + 1));
        }
        if let Some((last, targets)) = queries.last_mut() {
            if *last == q {
                targets.push(t);
                continue;
            }
            if *last > q {
                return Err(format!("line {}: not sorted by q: {line}", number + 1));
            }
        }
        queries.push((q, vec![t]));
    }
    let mut tables = Tables::default();
    let mut text_ids: std::collections::BTreeMap<&str, u32> = std::collections::BTreeMap::new();
    let mut words: Vec<(String, [u32; 3])> = Vec::new();
    for (idx, (q, ts)) in queries.iter().enumerate() {
        let idx = idx as u32;
        let start = tables.forms.len() as u32;
        match forms::form(&q.to_lowercase()) {
            Form::Text(text) => {
                let mut chars = text.chars();
                match (chars.next(), chars.next()) {
                    (Some(first), Some(_)) => tables.han.push([first as u32, idx]),
                    _ => return Err(format!("`{q}`: a text q needs two characters or more")),
                }
                tables.forms.push_str(&text);
            }
            Form::Words(word) => {
                if word.contains(' ') {
                    return Err(format!("`{q}`: a word q is one word"));
                }
                tables.forms.push_str(&word);
                words.push((word, [start, tables.forms.len() as u32, idx]));
            }
        }
        tables.form_ends.push(tables.forms.len() as u32);
        for t in ts {
            let id = *text_ids.entry(t).or_insert_with(|| {
                tables.texts.push_str(t);
                tables.text_ends.push(tables.texts.len() as u32);
                tables.text_ends.len() as u32 - 1
            });
            tables.targets.push(id);
        }
        tables.target_ends.push(tables.targets.len() as u32);
    }
    tables.han.sort_unstable();
    words.sort();
    tables.words = words.into_iter().map(|(_, row)| row).collect();
    Ok(tables)
}
