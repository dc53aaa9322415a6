//! The inverted index of a catalog under one analyzer: which text goes into which field, the
//! sorted term table, and per field the postings (compressed sparse rows) and lengths.
//!
//! **Invariants**
//! - Built in one place ([`Index::build`]) from the immutable catalog; the same catalog and
//!   analyzer give the same index, term ids and all (terms are numbered in sorted order), on
//!   one thread or on two (chunks of consecutive tools are merged in tool order).
//! - Postings of a term list tools in `ToolId` order, so scoring sums in a fixed order.
//! - [`Index::encode`] / [`Index::decode`] round-trip exactly (the prepared snapshot of the
//!   embedded catalog is an encoded index, see `prepared`).

use std::borrow::Cow;

use crate::catalog::{Catalog, ToolEntry, ToolId};
use crate::text::{
    english_stem, fnv1a, is_english_word, is_han, Analyzer, AnalyzerConfig, Lexicon,
};

/// The indexed fields of a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Field {
    /// Canonical path, name, CLI paths, aliases, group, product id and name.
    Identity,
    /// Title, agent summary, display name.
    Summary,
    /// Description.
    Description,
    /// Parameter flags, properties, descriptions and string enums; `input_schema` likewise.
    Parameters,
    /// use_when sentences.
    UseWhen,
}

pub const N_FIELDS: usize = 5;

impl Field {
    pub const ALL: [Field; N_FIELDS] = [
        Field::Identity,
        Field::Summary,
        Field::Description,
        Field::Parameters,
        Field::UseWhen,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Field::Identity => "identity",
            Field::Summary => "summary",
            Field::Description => "description",
            Field::Parameters => "parameters",
            Field::UseWhen => "use_when",
        }
    }
}

/// All indexed terms, sorted, in one string; a term's id is its position.
#[derive(Debug, Clone)]
pub struct TermTable {
    text: Cow<'static, str>,
    /// Start of each term in `text`, plus the end.
    offsets: Vec<u32>,
    /// An optional hash table of term ids (open addressing, `text::fnv1a`), built by
    /// [`TermTable::build_lookup`] for long-running processes; lookups are the same without.
    lookup: std::sync::OnceLock<Lookup>,
}

/// [`TermTable`]'s hash table and, in front of it, a one-bit-per-hash filter of its terms.
#[derive(Debug, Clone)]
struct Lookup {
    slots: Vec<LookupSlot>,
    /// Bit [`filter_bit`] of every term's hash is set: a word the table lacks (most of a
    /// query's typo candidates, ~53 per letter) is mostly turned away here, in a few KiB that
    /// stay in cache, without a probe into the slots (16 bytes a slot, several MiB). No term is
    /// ever turned away, so the answers are the same.
    filter: Vec<u64>,
}

/// The filter bit of a term with hash `hash` in a filter of `mask + 1` bits (the hash's high
/// bits, mixed: the slots take its low bits).
fn filter_bit(hash: u32, mask: usize) -> usize {
    (hash.wrapping_mul(0x9E37_79B1).rotate_left(16) as usize) & mask
}

/// Filter bits per term (a word the table lacks passes for about 1 in 8 of them).
const FILTER_BITS_PER_TERM: usize = 8;

/// One slot of [`TermTable`]'s hash table: a term id and, for a term of at most
/// [`INLINE_TERM`] bytes, its text. A probe for a short term then reads one 16-byte slot,
/// not the slot, then the term's offsets, then its text (three cache misses apart: they were
/// most of a warm query's term lookups).
#[derive(Debug, Clone, Copy)]
struct LookupSlot {
    /// `u32::MAX` for an empty slot.
    id: u32,
    /// The term's length, or [`LONG_TERM`] when it is longer than [`INLINE_TERM`].
    len: u8,
    /// The term's bytes, zero-padded (unused for a long term).
    text: [u8; INLINE_TERM],
}

/// The longest term a [`LookupSlot`] holds.
const INLINE_TERM: usize = 11;
/// [`LookupSlot::len`] of a term longer than [`INLINE_TERM`] (compared in the term table).
const LONG_TERM: u8 = u8::MAX;

impl LookupSlot {
    const EMPTY: LookupSlot = LookupSlot {
        id: u32::MAX,
        len: 0,
        text: [0; INLINE_TERM],
    };

    fn new(id: u32, term: &str) -> LookupSlot {
        let bytes = term.as_bytes();
        let mut text = [0; INLINE_TERM];
        let len = match text.get_mut(..bytes.len()) {
            Some(prefix) => {
                prefix.copy_from_slice(bytes);
                bytes.len() as u8
            }
            None => LONG_TERM,
        };
        LookupSlot { id, len, text }
    }
}

impl PartialEq for TermTable {
    fn eq(&self, other: &TermTable) -> bool {
        self.text == other.text && self.offsets == other.offsets
    }
}

impl Eq for TermTable {}

impl TermTable {
    fn from_sorted(terms: &[&str]) -> TermTable {
        let mut text = String::new();
        let mut offsets = Vec::with_capacity(terms.len() + 1);
        for term in terms {
            offsets.push(text.len() as u32);
            text.push_str(term);
        }
        offsets.push(text.len() as u32);
        TermTable {
            text: Cow::Owned(text),
            offsets,
            lookup: std::sync::OnceLock::new(),
        }
    }

    /// Builds the hash table that makes [`TermTable::id`] one probe instead of a binary search
    /// (worth it when many queries follow; the answer is the same either way).
    pub fn build_lookup(&self) {
        self.lookup.get_or_init(|| {
            let slots = (self.len() * 2).next_power_of_two().max(2);
            let bits = (self.len() * FILTER_BITS_PER_TERM)
                .next_power_of_two()
                .max(64);
            let mut table = vec![LookupSlot::EMPTY; slots];
            let mut filter = vec![0u64; bits / 64];
            for id in 0..self.len() as u32 {
                let term = self.term(id);
                let hash = fnv1a(term.as_bytes());
                let bit = filter_bit(hash, bits - 1);
                filter[bit / 64] |= 1 << (bit % 64);
                let mut slot = hash as usize & (slots - 1);
                while table[slot].id != u32::MAX {
                    slot = (slot + 1) & (slots - 1);
                }
                table[slot] = LookupSlot::new(id, term);
            }
            Lookup {
                slots: table,
                filter,
            }
        });
    }

    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    fn encode(&self, out: &mut Vec<u8>) {
        put_u32s(out, &self.offsets);
        put_u32(out, self.text.len() as u32);
        out.extend_from_slice(self.text.as_bytes());
    }

    /// Decodes [`TermTable::encode`]'s output; the text is borrowed, not copied.
    fn decode(reader: &mut Reader<'static>) -> Option<TermTable> {
        let offsets = read_u32s(reader)?;
        let text_len = reader.u32()? as usize;
        let text = std::str::from_utf8(reader.bytes(text_len)?).ok()?;
        if offsets.windows(2).any(|w| w[0] > w[1])
            || offsets.last().is_some_and(|&o| o as usize != text.len())
            || offsets.iter().any(|&o| !text.is_char_boundary(o as usize))
        {
            return None;
        }
        Some(TermTable {
            text: Cow::Borrowed(text),
            offsets,
            lookup: std::sync::OnceLock::new(),
        })
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn term(&self, id: u32) -> &str {
        let idx = id as usize;
        &self.text[self.offsets[idx] as usize..self.offsets[idx + 1] as usize]
    }

    /// The ids of the terms that start with `prefix`: one range, since ids follow sorted
    /// term order.
    pub fn prefix_range(&self, prefix: &str) -> std::ops::Range<u32> {
        let below = |id: u32, with_prefix: bool| {
            let term = self.term(id);
            term < prefix || (with_prefix && term.starts_with(prefix))
        };
        let first = partition_ids(self.len() as u32, |id| below(id, false));
        let end = partition_ids(self.len() as u32, |id| below(id, true));
        first..end
    }

    /// The id of `term`, if the catalog uses it (one hash probe once
    /// [`TermTable::build_lookup`] ran, else a binary search).
    pub fn id(&self, term: &str) -> Option<u32> {
        if let Some(Lookup {
            slots: table,
            filter,
        }) = self.lookup.get()
        {
            let mask = table.len() - 1;
            let bytes = term.as_bytes();
            let hash = fnv1a(bytes);
            let bit = filter_bit(hash, filter.len() * 64 - 1);
            if filter[bit / 64] & 1 << (bit % 64) == 0 {
                return None;
            }
            let mut slot = hash as usize & mask;
            loop {
                let entry = &table[slot];
                if entry.id == u32::MAX {
                    return None;
                }
                let same = match entry.text.get(..usize::from(entry.len)) {
                    Some(short) => short == bytes,
                    None => bytes.len() > INLINE_TERM && self.term(entry.id) == term,
                };
                if same {
                    return Some(entry.id);
                }
                slot = (slot + 1) & mask;
            }
        }
        let (mut lo, mut hi) = (0usize, self.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.term(mid as u32).cmp(term) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(mid as u32),
            }
        }
        None
    }
}

/// The first id below `len` for which `pred` is false (`pred` is true, then false).
fn partition_ids(len: u32, pred: impl Fn(u32) -> bool) -> u32 {
    let (mut lo, mut hi) = (0u32, len);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if pred(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// One field: postings per term id (compressed sparse rows) and the length of every tool.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldIndex {
    /// `entries[offsets[t]..offsets[t + 1]]` are the postings of term `t`.
    offsets: Vec<u32>,
    /// (tool, term frequency), in `ToolId` order within a term.
    entries: Vec<(ToolId, u32)>,
    pub doc_len: Vec<u32>,
    pub avg_len: f64,
}

impl FieldIndex {
    pub fn postings(&self, term: u32) -> &[(ToolId, u32)] {
        let idx = term as usize;
        match (self.offsets.get(idx), self.offsets.get(idx + 1)) {
            (Some(&start), Some(&end)) => &self.entries[start as usize..end as usize],
            _ => &[],
        }
    }

    /// The tool's field length relative to the average (1 when the field is empty everywhere).
    pub fn len_ratio(&self, tool: ToolId) -> f64 {
        if self.avg_len > 0.0 {
            f64::from(self.doc_len[tool as usize]) / self.avg_len
        } else {
            1.0
        }
    }
}

/// The whole index: terms, the five fields, and the English terms grouped by stem.
#[derive(Debug, Clone, PartialEq)]
pub struct Index {
    pub terms: TermTable,
    pub fields: Vec<FieldIndex>,
    pub stems: StemGroups,
}

/// The index's English word terms (`text::is_english_word`) grouped by their Snowball stem
/// (`text::english_stem`), for the retriever's stem siblings (docs/adr/0001). Derived from the
/// term table alone; stored in the prepared snapshot so a cold process does not stem the
/// vocabulary (about 0.5 ms for the embedded catalog's 1,100 English terms).
#[derive(Debug, Clone, PartialEq)]
pub struct StemGroups {
    /// The distinct stems, sorted.
    stems: TermTable,
    /// `members[offsets[g]..offsets[g + 1]]`: the term ids of stem `g`, ascending.
    offsets: Vec<u32>,
    members: Vec<u32>,
}

impl StemGroups {
    pub fn build(terms: &TermTable) -> StemGroups {
        let mut pairs: Vec<(String, u32)> = (0..terms.len() as u32)
            .filter(|&id| is_english_word(terms.term(id)))
            .map(|id| (english_stem(terms.term(id)), id))
            .collect();
        pairs.sort_unstable();
        let mut stems: Vec<&str> = Vec::new();
        let mut offsets = Vec::new();
        let mut members = Vec::with_capacity(pairs.len());
        for (stem, id) in &pairs {
            if stems.last() != Some(&stem.as_str()) {
                stems.push(stem);
                offsets.push(members.len() as u32);
            }
            members.push(*id);
        }
        offsets.push(members.len() as u32);
        StemGroups {
            stems: TermTable::from_sorted(&stems),
            offsets,
            members,
        }
    }

    /// Builds the stem table's hash table (see [`TermTable::build_lookup`]).
    pub fn build_lookup(&self) {
        self.stems.build_lookup();
    }

    /// The ids of the terms whose stem is `stem`, ascending (empty if none).
    pub fn members(&self, stem: &str) -> &[u32] {
        match self.stems.id(stem) {
            Some(group) => {
                let group = group as usize;
                &self.members[self.offsets[group] as usize..self.offsets[group + 1] as usize]
            }
            None => &[],
        }
    }

    fn encode(&self, out: &mut Vec<u8>) {
        self.stems.encode(out);
        put_u32s(out, &self.offsets);
        put_u32s(out, &self.members);
    }

    fn decode(reader: &mut Reader<'static>, n_terms: usize) -> Option<StemGroups> {
        let stems = TermTable::decode(reader)?;
        let offsets = read_u32s(reader)?;
        let members = read_u32s(reader)?;
        let well_formed = offsets.len() == stems.len() + 1
            && offsets.first() == Some(&0)
            && offsets.windows(2).all(|w| w[0] < w[1])
            && offsets.last().is_some_and(|&o| o as usize == members.len())
            && members.iter().all(|&id| (id as usize) < n_terms);
        well_formed.then_some(StemGroups {
            stems,
            offsets,
            members,
        })
    }
}

/// The mark of a synonym term: a Han word the bridge lends a tool's description field as a
/// synonym of its summary (`~撤了`), apart from the same word in the catalog's own text, so
/// that only the request's own words meet it (docs/adr/0020's synonym addendum). The analyzer
/// never makes a term starting with it.
pub const SYNONYM_MARK: char = '~';

/// What the index lends a catalog's tools at index time. A catalog that
/// [speaks one language](speaks_one_language) is lent the English bridge and its synonyms
/// (docs/adr/0020), in the description field of each tool whose summary holds a Han character;
/// any catalog may be lent the situations of its `avoid_when` clauses (docs/adr/0012).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Bridge {
    /// The English phrases of the lexicon groups the summary touches
    /// (`Lexicon::bridge_phrases`).
    pub english: bool,
    /// Their Han phrases the summary does not hold (`Lexicon::bridge_phrases`), as synonym
    /// terms ([`SYNONYM_MARK`]), outside the field's length.
    pub synonyms: bool,
    /// Each `avoid_when` clause that names tools of the catalog, those names blanked out, as
    /// one more `use_when` sentence of each tool it names other than its own
    /// ([`avoid_situations`]; docs/adr/0012's thin-catalog addendum, pre-registration 104).
    pub situations: bool,
}

impl Bridge {
    /// Nothing lent.
    pub const OFF: Bridge = Bridge {
        english: false,
        synonyms: false,
        situations: false,
    };

    fn any(self) -> bool {
        self.english || self.synonyms
    }
}

impl Index {
    /// Indexes every tool of `catalog`: a field with weight 0 stays empty; with
    /// `single_field` every text goes into the first field. A catalog that
    /// [speaks one language](speaks_one_language) gets what `bridge` lends (docs/adr/0020).
    pub fn build(
        catalog: &Catalog,
        analyzer: &Analyzer,
        weights: &[f64; N_FIELDS],
        single_field: bool,
        bridge: Bridge,
    ) -> Index {
        let n_chunks = if catalog.tools().len() < PARALLEL_MIN_TOOLS {
            1
        } else {
            PARALLEL_CHUNKS
        };
        let bridged = if bridges(catalog, bridge, single_field) {
            bridge
        } else {
            Bridge {
                situations: bridge.situations,
                ..Bridge::OFF
            }
        };
        Index::build_in_chunks(catalog, analyzer, weights, single_field, bridged, n_chunks)
    }

    /// [`Index::build`] with the tools analysed in `n_chunks` chunks, one thread each (and, for
    /// more than one chunk, the fields merged on two threads).
    fn build_in_chunks(
        catalog: &Catalog,
        analyzer: &Analyzer,
        weights: &[f64; N_FIELDS],
        single_field: bool,
        bridged: Bridge,
        n_chunks: usize,
    ) -> Index {
        let tools = catalog.tools();
        let n_tools = tools.len();
        // Analysis, the bulk of the work, runs on consecutive chunks of tools in parallel; the
        // chunks are merged in tool order, so the index is the same for any number of chunks.
        let chunk_len = n_tools.div_ceil(n_chunks).max(1);
        let situations = if bridged.situations && !single_field {
            avoid_situations(catalog)
        } else {
            Vec::new()
        };
        let analyse = |first: usize, chunk: &[ToolEntry]| {
            let lent = situations.get(first..).unwrap_or_default();
            analyse_chunk(first, chunk, analyzer, weights, single_field, bridged, lent)
        };
        let chunks: Vec<Chunk> = std::thread::scope(|scope| {
            let mut pieces = tools.chunks(chunk_len).enumerate();
            let own = pieces.next();
            let spawned: Vec<_> = pieces
                .map(|(idx, chunk)| {
                    let first = idx * chunk_len;
                    let handle = std::thread::Builder::new()
                        .spawn_scoped(scope, move || analyse(first, chunk))
                        .ok();
                    (first, chunk, handle)
                })
                .collect();
            let mut chunks: Vec<Chunk> = own
                .map(|(_, chunk)| analyse(0, chunk))
                .into_iter()
                .collect();
            for (first, chunk, handle) in spawned {
                // A thread that could not start, or failed, is redone here.
                let result = handle.and_then(|h| h.join().ok());
                chunks.push(result.unwrap_or_else(|| analyse(first, chunk)));
            }
            chunks
        });

        // Every term once, with its id in each chunk's numbering.
        let mut chunks = chunks.into_iter();
        let mut base = chunks.next().unwrap_or_default();
        let mut remaps: Vec<Vec<u32>> = vec![(0..base.ids.len() as u32).collect()];
        let mut rest = Vec::new();
        for chunk in chunks {
            let remap = chunk
                .terms()
                .into_iter()
                .map(|term| base.intern(term))
                .collect();
            remaps.push(remap);
            rest.push(chunk);
        }
        // Number terms in sorted order.
        let mut sorted: Vec<(&str, u32)> = base
            .ids
            .terms()
            .enumerate()
            .map(|(id, t)| (t, id as u32))
            .collect();
        sorted.sort_unstable();
        let mut renumber = vec![0u32; sorted.len()];
        for (new_id, (_, old_id)) in sorted.iter().enumerate() {
            renumber[*old_id as usize] = new_id as u32;
        }
        let terms = TermTable::from_sorted(&sorted.iter().map(|(t, _)| *t).collect::<Vec<_>>());
        drop(sorted);
        for remap in &mut remaps {
            for id in remap.iter_mut() {
                *id = renumber[*id as usize];
            }
        }
        let n_terms = terms.len();
        let mut all: Vec<Chunk> = std::iter::once(base).chain(rest).collect();
        for chunk in &mut all {
            // Terms are numbered now; the interning tables are done.
            chunk.ids = Interner::default();
        }
        // Each chunk's rows and lengths, per field. A field's rows are freed as soon as its
        // postings are built, so the peak holds a field's postings beside the rows left.
        let per_field: Vec<Vec<ChunkRows>> = (0..N_FIELDS)
            .map(|field_idx| {
                all.iter_mut()
                    .map(|chunk| chunk.take_rows(field_idx))
                    .collect()
            })
            .collect();
        drop(all);
        let build_field = |parts: Vec<ChunkRows>| {
            // Counting sort by new term id; stable, and chunks in tool order, so tools stay in
            // order.
            let mut offsets = vec![0u32; n_terms + 1];
            for (part, remap) in parts.iter().zip(&remaps) {
                for &(local, _) in &part.rows {
                    offsets[remap[local as usize] as usize + 1] += 1;
                }
            }
            for idx in 0..n_terms {
                offsets[idx + 1] += offsets[idx];
            }
            let mut next = offsets.clone();
            let mut entries = vec![(0, 0); offsets[n_terms] as usize];
            for (part, remap) in parts.iter().zip(&remaps) {
                for (tool, tool_rows) in part.by_tool() {
                    for &(local, tf) in tool_rows {
                        let slot = &mut next[remap[local as usize] as usize];
                        entries[*slot as usize] = (tool, tf);
                        *slot += 1;
                    }
                }
            }
            let doc_len: Vec<u32> = parts.into_iter().flat_map(|part| part.doc_len).collect();
            let total: u64 = doc_len.iter().map(|&l| u64::from(l)).sum();
            let avg_len = if n_tools == 0 {
                0.0
            } else {
                total as f64 / n_tools as f64
            };
            FieldIndex {
                offsets,
                entries,
                doc_len,
                avg_len,
            }
        };
        // The merge runs on two threads whenever the analysis did (so the chunk-count test
        // compares it with one thread too).
        let fields = build_fields(per_field, n_chunks > 1, build_field);
        let stems = StemGroups::build(&terms);
        Index {
            terms,
            fields,
            stems,
        }
    }

    /// A compact little-endian encoding (see [`Index::decode`]).
    pub fn encode(&self, out: &mut Vec<u8>) {
        self.terms.encode(out);
        put_u32(out, self.fields.len() as u32);
        for field in &self.fields {
            out.extend_from_slice(&field.avg_len.to_bits().to_le_bytes());
            put_u32s(out, &field.doc_len);
            put_u32s(out, &field.offsets);
            put_u32(out, field.entries.len() as u32);
            for &(tool, tf) in &field.entries {
                put_u32(out, tool);
                put_u32(out, tf);
            }
        }
        self.stems.encode(out);
    }

    /// Decodes [`Index::encode`]'s output; the term text is borrowed, not copied. `None` for
    /// anything malformed (the caller then builds the index from the catalog).
    pub fn decode(reader: &mut Reader<'static>) -> Option<Index> {
        let terms = TermTable::decode(reader)?;
        let n_fields = reader.u32()? as usize;
        if n_fields != N_FIELDS {
            return None;
        }
        let mut fields = Vec::with_capacity(N_FIELDS);
        for _ in 0..N_FIELDS {
            let avg_len = f64::from_bits(reader.u64()?);
            let doc_len = read_u32s(reader)?;
            let offsets = read_u32s(reader)?;
            let n_entries = reader.u32()? as usize;
            let entries = reader.u32_pairs(n_entries)?;
            if offsets.len() != terms.len() + 1
                || offsets.windows(2).any(|w| w[0] > w[1])
                || offsets.last().is_some_and(|&o| o as usize != entries.len())
                || entries
                    .iter()
                    .any(|&(tool, _)| tool as usize >= doc_len.len())
            {
                return None;
            }
            fields.push(FieldIndex {
                offsets,
                entries,
                doc_len,
                avg_len,
            });
        }
        let stems = StemGroups::decode(reader, terms.len())?;
        Some(Index {
            terms,
            fields,
            stems,
        })
    }
}

/// Builds each field's postings from its rows with `build`, the fields in any order but
/// returned in field order. With `parallel`, a second scoped thread takes part: both claim
/// the fields left, the most rows first (the merge of a 100,000-tool catalog took ~0.45 s on
/// one thread, its largest field half of it). Each field is a pure function of its rows, so
/// which thread builds it changes nothing but time.
fn build_fields<F>(per_field: Vec<Vec<ChunkRows>>, parallel: bool, build: F) -> Vec<FieldIndex>
where
    F: Fn(Vec<ChunkRows>) -> FieldIndex + Sync,
{
    use std::sync::Mutex;
    let size = |parts: &Vec<ChunkRows>| parts.iter().map(|part| part.rows.len()).sum::<usize>();
    let mut order: Vec<usize> = (0..per_field.len()).collect();
    order.sort_by_key(|&idx| std::cmp::Reverse(size(&per_field[idx])));
    let todo: Vec<Mutex<Option<Vec<ChunkRows>>>> = per_field
        .into_iter()
        .map(|parts| Mutex::new(Some(parts)))
        .collect();
    let done: Vec<Mutex<Option<FieldIndex>>> = todo.iter().map(|_| Mutex::new(None)).collect();
    let work = || {
        for &idx in &order {
            // Taken under the lock, built without it.
            let parts = todo[idx].lock().ok().and_then(|mut slot| slot.take());
            if let Some(parts) = parts {
                let field = build(parts);
                if let Ok(mut slot) = done[idx].lock() {
                    *slot = Some(field);
                }
            }
        }
    };
    std::thread::scope(|scope| {
        if parallel {
            // If the thread cannot start, this thread builds every field; if it panics, so
            // does the scope.
            let _ = std::thread::Builder::new().spawn_scoped(scope, work);
        }
        work();
    });
    done.into_iter()
        .filter_map(|slot| slot.into_inner().ok().flatten())
        .collect()
}

/// Below this many tools the index is built on the calling thread alone.
const PARALLEL_MIN_TOOLS: usize = 2_000;
/// From [`PARALLEL_MIN_TOOLS`] on, the tools are analysed in this many chunks, one thread
/// each (a fixed number: nothing here reads the machine).
const PARALLEL_CHUNKS: usize = 2;

/// The analysis of consecutive tools: terms numbered in order of first use, and per field the
/// postings rows and lengths of its tools, in tool order.
#[derive(Default)]
struct Chunk {
    ids: Interner,
    /// The id of the chunk's first tool.
    first: ToolId,
    /// Per field: (term id, frequency), tool by tool (a tool's rows end at its `row_ends`).
    /// The tool is implied by the position, not stored: 8 bytes a row instead of 12, and
    /// these rows are the build's largest allocation (their pages' faults and zeroing were
    /// about a sixth of a 100,000-tool build).
    rows: [Vec<(u32, u32)>; N_FIELDS],
    /// Per field, per tool of the chunk: the end of its rows in `rows`.
    row_ends: [Vec<u32>; N_FIELDS],
    doc_len: [Vec<u32>; N_FIELDS],
}

/// One field's rows of one chunk, taken out of it to be merged (see [`Chunk::take_rows`]).
struct ChunkRows {
    first: ToolId,
    rows: Vec<(u32, u32)>,
    row_ends: Vec<u32>,
    doc_len: Vec<u32>,
}

impl ChunkRows {
    /// Each tool of the chunk, in order, with its (term id, frequency) rows.
    fn by_tool(&self) -> impl Iterator<Item = (ToolId, &[(u32, u32)])> {
        let starts = std::iter::once(0).chain(self.row_ends.iter().copied());
        starts
            .zip(&self.row_ends)
            .enumerate()
            .map(|(offset, (start, &end))| {
                let rows = self.rows.get(start as usize..end as usize).unwrap_or(&[]);
                (self.first + offset as ToolId, rows)
            })
    }
}

impl Chunk {
    /// Moves one field's rows and lengths out (the merge frees them field by field).
    fn take_rows(&mut self, field_idx: usize) -> ChunkRows {
        ChunkRows {
            first: self.first,
            rows: std::mem::take(&mut self.rows[field_idx]),
            row_ends: std::mem::take(&mut self.row_ends[field_idx]),
            doc_len: std::mem::take(&mut self.doc_len[field_idx]),
        }
    }

    fn intern(&mut self, term: &str) -> u32 {
        self.ids.intern(term)
    }

    /// The terms, by id.
    fn terms(&self) -> Vec<&str> {
        self.ids.terms().collect()
    }
}

/// Analyses consecutive tools into their fields' rows. A tool whose summary field holds a Han
/// character also gets, in its description field, what `bridged` lends: the English phrases of
/// the lexicon groups that summary touches ([`crate::text::Lexicon::bridge_phrases`]), each
/// analysed like a description text and counted in its length, and their Han phrases it does
/// not hold as synonym terms (the words of each, [`SYNONYM_MARK`] before them; no n-grams),
/// which leave the length alone: a request without synonym twins scores as without them.
fn analyse_chunk(
    first: usize,
    tools: &[ToolEntry],
    analyzer: &Analyzer,
    weights: &[f64; N_FIELDS],
    single_field: bool,
    bridged: Bridge,
    situations: &[Vec<String>],
) -> Chunk {
    let mut chunk = Chunk {
        first: first as ToolId,
        ..Chunk::default()
    };
    for lens in chunk.doc_len.iter_mut().chain(&mut chunk.row_ends) {
        lens.reserve_exact(tools.len());
    }
    // A field's distinct terms in order of first use, and per term id its count in the field
    // (zero again once the field's rows are written). A tool's rows need no order: each term
    // gets one entry per tool, and the merge places entries by term, then by tool.
    let mut doc_terms: Vec<u32> = Vec::new();
    let mut counts: Vec<u32> = Vec::new();
    // Pairs of a stop word and its neighbour only for use_when, the catalog's text in users'
    // words: API prose in the other fields is full of "of the" and "to a" (docs/adr/0001).
    let plain = Analyzer::new(AnalyzerConfig {
        stop_pairs: false,
        ..analyzer.config()
    });
    let field_analyzer = |field: Field| match field {
        Field::UseWhen => analyzer,
        _ => &plain,
    };
    for (at, tool) in tools.iter().enumerate() {
        let texts = field_texts(tool);
        let examples = example_texts(tool);
        for field_idx in 0..N_FIELDS {
            let mut n_terms = 0u32;
            // Pair terms are extra evidence, not length: they leave length norms alone.
            let mut pairs = 0u32;
            // Synonym terms are extra evidence too (docs/adr/0020's synonym addendum), and so are
            // lent situations (docs/adr/0012's thin-catalog addendum).
            let mut synonyms = 0u32;
            let mut situated = 0u32;
            let mut intern = |term: &str| {
                pairs += u32::from(crate::text::is_pair_term(term));
                let id = chunk.intern(term) as usize;
                if id >= counts.len() {
                    counts.resize((id + 1).max(counts.len() * 2), 0);
                }
                if counts[id] == 0 {
                    doc_terms.push(id as u32);
                }
                counts[id] += 1;
                n_terms += 1;
            };
            if single_field {
                if field_idx == 0 {
                    for text in texts.iter().flatten() {
                        plain.each_term(text, &mut intern);
                    }
                    for text in &examples {
                        analyzer.each_id_shape(text, &mut intern);
                    }
                }
            } else if weights[field_idx] > 0.0 {
                for text in &texts[field_idx] {
                    field_analyzer(Field::ALL[field_idx]).each_term(text, &mut intern);
                }
                if Field::ALL[field_idx] == Field::UseWhen {
                    // Lent situations, like the bridge's synonyms, count in no length.
                    for clause in situations.get(at).into_iter().flatten() {
                        analyzer.each_term(clause, &mut |term: &str| {
                            intern(term);
                            situated += u32::from(!crate::text::is_pair_term(term));
                        });
                    }
                }
                if bridged.any() && Field::ALL[field_idx] == Field::Description {
                    let lent = Lent::of(&tool.def, bridged);
                    for phrase in lent.english {
                        plain.each_term(phrase, &mut intern);
                    }
                    let mut marked = String::new();
                    for phrase in lent.synonyms {
                        plain.each_term(phrase, &mut |term: &str| {
                            if !term.starts_with('#') {
                                marked.clear();
                                marked.push(SYNONYM_MARK);
                                marked.push_str(term);
                                intern(&marked);
                                synonyms += 1;
                            }
                        });
                    }
                }
                if Field::ALL[field_idx] == Field::Parameters {
                    for text in &examples {
                        analyzer.each_id_shape(text, &mut intern);
                    }
                }
            }
            chunk.doc_len[field_idx].push(n_terms - pairs - synonyms - situated);
            for id in doc_terms.drain(..) {
                let count = std::mem::take(&mut counts[id as usize]);
                chunk.rows[field_idx].push((id, count));
            }
            chunk.row_ends[field_idx].push(chunk.rows[field_idx].len() as u32);
        }
    }
    chunk
}

/// Terms numbered in order of first use: an open-addressing table of 16-byte slots holding
/// a term's hash and length, id and first [`INLINE`] bytes, so a lookup of a short term
/// (nearly every term: Han unigrams and bigrams, most words) reads one slot and no heap
/// string; longer terms are compared in the text arena. Only ids leave it, and nothing
/// depends on its slot order (terms are numbered by sorted text afterwards).
#[derive(Default)]
struct Interner {
    /// A power of two long (or empty), at most half full.
    slots: Vec<Slot>,
    /// Every term's text, one after another.
    text: String,
    /// Per id: the term's end in `text` (its start is the previous end).
    ends: Vec<u32>,
}

/// Bytes of a term kept in its slot.
const INLINE: usize = 8;

#[derive(Clone, Copy)]
struct Slot {
    /// The hash's upper 24 bits, then the term's length (255 for 255 bytes or more).
    tag: u32,
    /// `u32::MAX` for an empty slot.
    id: u32,
    /// The term's first bytes, zero-padded.
    head: [u8; INLINE],
}

const EMPTY_SLOT: Slot = Slot {
    tag: 0,
    id: u32::MAX,
    head: [0; INLINE],
};

impl Interner {
    fn len(&self) -> usize {
        self.ends.len()
    }

    fn term(&self, id: usize) -> &str {
        let start = if id == 0 {
            0
        } else {
            self.ends[id - 1] as usize
        };
        &self.text[start..self.ends[id] as usize]
    }

    /// The terms, by id.
    fn terms(&self) -> impl Iterator<Item = &str> {
        (0..self.len()).map(|id| self.term(id))
    }

    /// FxHash (rustc's hasher) of the bytes, the high half kept: a multiply mixes upwards.
    fn hash(bytes: &[u8]) -> u32 {
        const K: u64 = 0x517c_c1b7_2722_0a95;
        let mut h = 0u64;
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            h = (h.rotate_left(5) ^ u64::from_le_bytes(word)).wrapping_mul(K);
        }
        for &byte in chunks.remainder() {
            h = (h.rotate_left(5) ^ u64::from(byte)).wrapping_mul(K);
        }
        h = (h.rotate_left(5) ^ 0xff).wrapping_mul(K);
        (h >> 32) as u32
    }

    fn intern(&mut self, term: &str) -> u32 {
        if (self.len() + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let bytes = term.as_bytes();
        let hash = Interner::hash(bytes);
        let tag = (hash & !0xff) | bytes.len().min(255) as u32;
        let mask = self.slots.len() - 1;
        let mut head = [0u8; INLINE];
        let n = bytes.len().min(INLINE);
        head[..n].copy_from_slice(&bytes[..n]);
        let mut idx = hash as usize & mask;
        loop {
            let slot = &self.slots[idx];
            if slot.id == u32::MAX {
                break;
            }
            if slot.tag == tag
                && slot.head == head
                && (bytes.len() <= INLINE || self.term(slot.id as usize) == term)
            {
                return slot.id;
            }
            idx = (idx + 1) & mask;
        }
        let id = self.len() as u32;
        self.text.push_str(term);
        self.ends.push(self.text.len() as u32);
        self.slots[idx] = Slot { tag, id, head };
        id
    }

    /// Doubles the table (from 1,024 slots) and places every term again.
    fn grow(&mut self) {
        let size = (self.slots.len() * 2).max(1024);
        let mut slots = vec![EMPTY_SLOT; size];
        for slot in self.slots.iter().filter(|slot| slot.id != u32::MAX) {
            let hash = Interner::hash(self.term(slot.id as usize).as_bytes());
            let mut idx = hash as usize & (size - 1);
            while slots[idx].id != u32::MAX {
                idx = (idx + 1) & (size - 1);
            }
            slots[idx] = *slot;
        }
        self.slots = slots;
    }
}

/// A length, then the values.
fn put_u32s(out: &mut Vec<u8>, values: &[u32]) {
    put_u32(out, values.len() as u32);
    for &value in values {
        put_u32(out, value);
    }
}

/// Reads [`put_u32s`]'s output.
fn read_u32s(reader: &mut Reader<'_>) -> Option<Vec<u32>> {
    let len = reader.u32()? as usize;
    reader.u32s(len)
}

fn put_u32(out: &mut Vec<u8>, value: u32) {
    out.extend_from_slice(&value.to_le_bytes());
}

/// A bounds-checked little-endian cursor over static bytes.
pub struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes, pos: 0 }
    }

    pub fn bytes(&mut self, len: usize) -> Option<&'a [u8]> {
        let end = self.pos.checked_add(len)?;
        let slice = self.bytes.get(self.pos..end)?;
        self.pos = end;
        Some(slice)
    }

    pub fn u32(&mut self) -> Option<u32> {
        self.bytes(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub fn u64(&mut self) -> Option<u64> {
        let b = self.bytes(8)?;
        let mut array = [0u8; 8];
        array.copy_from_slice(b);
        Some(u64::from_le_bytes(array))
    }

    pub fn u32s(&mut self, count: usize) -> Option<Vec<u32>> {
        let raw = self.bytes(count.checked_mul(4)?)?;
        Some(
            raw.chunks_exact(4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect(),
        )
    }

    /// `count` pairs of little-endian u32s, decoded straight into pairs (one allocation).
    pub fn u32_pairs(&mut self, count: usize) -> Option<Vec<(u32, u32)>> {
        let raw = self.bytes(count.checked_mul(8)?)?;
        Some(
            raw.chunks_exact(8)
                .map(|b| {
                    (
                        u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
                        u32::from_le_bytes([b[4], b[5], b[6], b[7]]),
                    )
                })
                .collect(),
        )
    }

    pub fn is_at_end(&self) -> bool {
        self.pos == self.bytes.len()
    }
}

/// The string example values of `tool`'s parameters (and the strings inside array examples),
/// in parameter order: they only lend the parameters field the shapes of their identifiers.
fn example_texts(tool: &ToolEntry) -> Vec<&str> {
    fn strings<'a>(value: &'a serde_json::Value, out: &mut Vec<&'a str>) {
        match value {
            serde_json::Value::String(text) => out.push(text),
            serde_json::Value::Array(items) => items.iter().for_each(|item| strings(item, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    for parameter in tool.def.parameters.values() {
        if let Some(example) = &parameter.example {
            strings(example, &mut out);
        }
    }
    out
}

/// Whether an index of `catalog` built with `bridge` and `single_field` holds anything the
/// bridge lends ([`Index::build`]; docs/adr/0020): the catalog speaks one language and at
/// least one Han summary touches a lexicon group. An English catalog speaks one language too,
/// but nothing would be lent to it: its index is the same without the bridge, so it needs no
/// judge.
pub fn bridges(catalog: &Catalog, bridge: Bridge, single_field: bool) -> bool {
    bridge.any()
        && !single_field
        && speaks_one_language(catalog)
        && catalog
            .tools()
            .iter()
            .any(|tool| !Lent::of(&tool.def, bridge).is_empty())
}

/// Per tool, the `avoid_when` clauses it is lent as `use_when` situations (docs/adr/0012's
/// thin-catalog addendum, pre-registration 104; session 12's rule 57): each `avoid_when`
/// sentence is cut into clauses at ， ； 。 , ; and ". ", and a clause that names canonical
/// paths of the catalog goes, with those names blanked out, to each tool it names other than
/// its own ("按条件查找记录时用 base.record.search" lends `base.record.search` "按条件查找记录时用").
pub fn avoid_situations(catalog: &Catalog) -> Vec<Vec<String>> {
    let mut lent = vec![Vec::new(); catalog.tools().len()];
    let is_path_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-');
    for (source, tool) in catalog.tools().iter().enumerate() {
        for sentence in &tool.def.avoid_when {
            for clause in clauses(sentence) {
                let mut named: Vec<ToolId> = Vec::new();
                let mut text = String::with_capacity(clause.len());
                let mut rest = clause;
                while let Some(start) = rest.find(is_path_char) {
                    text.push_str(&rest[..start]);
                    let run = &rest[start..];
                    let len = run.find(|c: char| !is_path_char(c)).unwrap_or(run.len());
                    let word = run[..len].trim_end_matches(['.', '-']);
                    match catalog.by_canonical(word) {
                        Some(id) => {
                            named.push(id);
                            text.push(' ');
                            text.push_str(&run[word.len()..len]);
                        }
                        None => text.push_str(&run[..len]),
                    }
                    rest = &run[len..];
                }
                text.push_str(rest);
                named.sort_unstable();
                named.dedup();
                for id in named {
                    if id as usize != source {
                        lent[id as usize].push(text.clone());
                    }
                }
            }
        }
    }
    lent
}

/// The clauses of an `avoid_when` sentence: cut at ， ； 。 , ; and at a full stop followed by
/// a space, the separators dropped.
fn clauses(sentence: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = sentence.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let cut = matches!(c, '，' | '；' | '。' | ',' | ';')
            || (c == '.' && chars.peek().is_some_and(|&(_, next)| next.is_whitespace()));
        if cut {
            out.push(&sentence[start..at]);
            start = at + c.len_utf8();
        }
    }
    out.push(&sentence[start..]);
    out.retain(|clause| !clause.trim().is_empty());
    out
}

/// What the bridge lends one tool's description field (docs/adr/0020).
struct Lent {
    english: Vec<&'static str>,
    synonyms: Vec<&'static str>,
}

impl Lent {
    /// What `bridge` lends `def`: nothing unless its summary holds a Han character.
    fn of(def: &crate::wire::Tool, bridge: Bridge) -> Lent {
        let mut lent = Lent {
            english: Vec::new(),
            synonyms: Vec::new(),
        };
        let summary = summary_texts(def).collect::<Vec<_>>().join("\n");
        if bridge.any() && summary.chars().any(is_han) {
            let phrases = Lexicon::builtin().bridge_phrases(&summary);
            if bridge.english {
                lent.english = phrases.english;
            }
            if bridge.synonyms {
                lent.synonyms = phrases.han;
                lent.synonyms.retain(|phrase| !summary.contains(phrase));
            }
        }
        lent
    }

    fn is_empty(&self) -> bool {
        self.english.is_empty() && self.synonyms.is_empty()
    }
}

/// Whether `catalog` speaks one language: fewer than half of its tools have a summary field
/// (title, agent summary, display) that holds both a Han character and a Latin word of three
/// letters or more. Such a catalog gets the lexicon's English bridge (docs/adr/0020); ours,
/// whose summaries carry an English gloss, does not.
pub fn speaks_one_language(catalog: &Catalog) -> bool {
    let tools = catalog.tools();
    let mut bilingual = 0;
    for (seen, tool) in tools.iter().enumerate() {
        let texts = || summary_texts(&tool.def);
        if texts().any(|text| text.chars().any(is_han)) && texts().any(has_latin_word) {
            bilingual += 1;
        }
        // Decided as soon as the tools left cannot change it.
        let left = tools.len() - seen - 1;
        if 2 * bilingual >= tools.len() {
            return false;
        }
        if 2 * (bilingual + left) < tools.len() {
            return true;
        }
    }
    2 * bilingual < tools.len()
}

/// Whether `text` holds a run of three or more ASCII letters.
fn has_latin_word(text: &str) -> bool {
    let mut run = 0;
    for ch in text.chars() {
        run = if ch.is_ascii_alphabetic() { run + 1 } else { 0 };
        if run >= 3 {
            return true;
        }
    }
    false
}

/// The texts of a tool's summary field: its title, agent summary and display, those it has.
fn summary_texts(def: &crate::wire::Tool) -> impl Iterator<Item = &str> {
    [&def.title, &def.agent_summary, &def.display]
        .into_iter()
        .filter_map(|text| text.as_deref())
}

/// The texts of each field of `tool`, in [`Field::ALL`] order.
fn field_texts(tool: &ToolEntry) -> [Vec<&str>; N_FIELDS] {
    let def = &tool.def;
    let mut identity: Vec<&str> = vec![
        def.canonical_path.as_str(),
        def.name.as_str(),
        tool.product_id.as_str(),
    ];
    identity.extend(def.cli_path.as_deref());
    if def.primary_cli_path != def.cli_path {
        identity.extend(def.primary_cli_path.as_deref());
    }
    identity.extend(def.aliases.iter().map(String::as_str));
    identity.extend(def.group.as_deref());
    identity.extend(tool.product_name.as_deref());

    let summary: Vec<&str> = summary_texts(def).collect();

    let description: Vec<&str> = def.description.as_deref().into_iter().collect();

    let mut parameters: Vec<&str> = Vec::new();
    for (flag, parameter) in &def.parameters {
        parameters.push(flag.as_str());
        parameters.extend(parameter.property.as_deref());
        parameters.extend(parameter.description.as_deref());
        if let Some(values) = &parameter.enum_values {
            parameters.extend(values.iter().filter_map(|v| v.as_str()));
        }
    }
    if let Some(schema) = &def.input_schema {
        schema_texts(schema, 0, &mut parameters);
    }

    let use_when: Vec<&str> = def.use_when.iter().map(String::as_str).collect();
    [identity, summary, description, parameters, use_when]
}

/// Property names, descriptions, titles and string enums of a JSON Schema, recursively
/// through `properties`, `items`, `additionalProperties` and the `*Of` combinators.
/// `$ref` is never followed, so a cyclic schema cannot loop.
fn schema_texts<'a>(schema: &'a serde_json::Value, depth: usize, out: &mut Vec<&'a str>) {
    const MAX_DEPTH: usize = 32;
    let Some(object) = schema.as_object() else {
        return;
    };
    if depth > MAX_DEPTH {
        return;
    }
    for key in ["description", "title"] {
        if let Some(text) = object.get(key).and_then(|v| v.as_str()) {
            out.push(text);
        }
    }
    if let Some(values) = object.get("enum").and_then(|v| v.as_array()) {
        out.extend(values.iter().filter_map(|v| v.as_str()));
    }
    if let Some(properties) = object.get("properties").and_then(|v| v.as_object()) {
        for (name, property) in properties {
            out.push(name.as_str());
            schema_texts(property, depth + 1, out);
        }
    }
    for key in ["items", "additionalProperties"] {
        if let Some(child) = object.get(key) {
            schema_texts(child, depth + 1, out);
        }
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(children) = object.get(key).and_then(|v| v.as_array()) {
            for child in children {
                schema_texts(child, depth + 1, out);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::one_product;
    use crate::text::AnalyzerConfig;

    /// Two tools, `p.recall` (撤回消息) and `p.list` titled `list_title`, numbered 1 and 0 (in
    /// canonical-path order): the catalog the bridge tests lend to.
    fn recall_and_list(list_title: &str) -> Catalog {
        one_product(
            "p",
            &format!(
                r#"{{"canonical_path":"p.recall","name":"recall","title":"撤回消息","description":"撤回一条已发送的消息"}},
                {{"canonical_path":"p.list","name":"list","title":"{list_title}","description":"列出群"}}"#
            ),
        )
    }
    const LIST: ToolId = 0;
    const RECALL: ToolId = 1;

    /// `catalog`'s index under the default analyzer and equal field weights, with `bridge`.
    fn index_of(catalog: &Catalog, bridge: Bridge) -> Index {
        Index::build(
            catalog,
            &Analyzer::new(AnalyzerConfig::DEFAULT),
            &[1.0; N_FIELDS],
            false,
            bridge,
        )
    }

    /// Whether `index`'s description field holds `term` for `tool`.
    fn description_holds(index: &Index, tool: ToolId, term: &str) -> bool {
        index.terms.id(term).is_some_and(|id| {
            index.fields[Field::Description as usize]
                .postings(id)
                .iter()
                .any(|&(t, _)| t == tool)
        })
    }

    /// With or without the hash table, every term (and every non-term) gets the same answer.
    #[test]
    fn invariant_term_lookup_table_agrees_with_binary_search() {
        // Terms shorter than, as long as and longer than a lookup slot holds (11 bytes).
        let words = [
            "",
            "#发",
            "#发送",
            "#发送消息",
            "a",
            "ab",
            "send",
            "send_messag",
            "send_message",
            "send_message_to_group",
            "发送",
            "发送消息给群",
            "消息",
            "群",
        ];
        let table = TermTable::from_sorted(&words);
        let probes = [
            "",
            "#发",
            "b",
            "sen",
            "send",
            "sendx",
            "send_messa",
            "send_messag",
            "send_message",
            "send_messagf",
            "send_message_to",
            "send_message_to_group",
            "send_message_to_groups",
            "发送消息",
            "发送消息给群",
            "消",
            "消息",
            "群聊",
            "zzz",
            "#",
        ];
        let before: Vec<Option<u32>> = probes.iter().map(|p| table.id(p)).collect();
        table.build_lookup();
        let after: Vec<Option<u32>> = probes.iter().map(|p| table.id(p)).collect();
        assert_eq!(before, after);
        for (id, word) in words.iter().enumerate() {
            assert_eq!(table.id(word), Some(id as u32), "{word}");
        }
        assert_eq!(table.id("b"), None);
    }

    /// Word pairs add terms but no length: every field's length ratio is the same with and
    /// without them (so queries without pairs score as before).
    #[test]
    fn invariant_word_pairs_leave_field_lengths_alone() {
        let catalog = one_product(
            "p",
            r#"{"canonical_path":"p.send_message","name":"send_message","title":"Send a chat message","description":"Send the message to groups, fast"},
            {"canonical_path":"p.list","name":"list","title":"列出 messages","description":"list all messages in one group"}"#,
        );
        let weights = [1.0; N_FIELDS];
        let build = |shingles: bool| {
            let config = AnalyzerConfig {
                shingles,
                ..AnalyzerConfig::DEFAULT
            };
            Index::build(
                &catalog,
                &Analyzer::new(config),
                &weights,
                false,
                Bridge::OFF,
            )
        };
        let (with, without) = (build(true), build(false));
        assert!(with.terms.len() > without.terms.len(), "pairs were indexed");
        for (a, b) in with.fields.iter().zip(&without.fields) {
            for tool in 0..2 {
                assert_eq!(a.len_ratio(tool).to_bits(), b.len_ratio(tool).to_bits());
            }
        }
    }

    /// A catalog whose summaries speak one language gets the lexicon's English bridge in the
    /// description field of each tool with a Han summary (docs/adr/0020); one whose summaries
    /// are mostly bilingual does not, nor does an English summary, nor `bridge` off.
    #[test]
    fn a_catalog_speaking_one_language_gets_the_english_bridge() {
        const ENGLISH: Bridge = Bridge {
            english: true,
            ..Bridge::OFF
        };
        const BOTH: Bridge = Bridge {
            english: true,
            synonyms: true,
            ..Bridge::OFF
        };
        let in_description = |catalog: &Catalog, english: bool, tool: ToolId, term: &str| {
            let bridge = if english { ENGLISH } else { Bridge::OFF };
            description_holds(&index_of(catalog, bridge), tool, term)
        };
        let han_only = recall_and_list("列出群聊");
        assert!(speaks_one_language(&han_only));
        assert!(bridges(&han_only, ENGLISH, false));
        assert!(!bridges(&han_only, Bridge::OFF, false));
        assert!(!bridges(&han_only, ENGLISH, true));
        assert!(in_description(&han_only, true, RECALL, "unsend"));
        assert!(in_description(&han_only, true, LIST, "conversation"));
        assert!(!in_description(&han_only, false, RECALL, "unsend"));
        // One bilingual summary of two is not fewer than half: no bridge.
        let bilingual = recall_and_list("列出群聊 List chats");
        assert!(!speaks_one_language(&bilingual));
        assert!(!bridges(&bilingual, ENGLISH, false));
        assert!(!in_description(&bilingual, true, RECALL, "unsend"));
        // An English summary gets no bridge in a catalog that does.
        let english = recall_and_list("List chats");
        assert!(speaks_one_language(&english));
        assert!(in_description(&english, true, RECALL, "unsend"));
        assert!(!in_description(&english, true, LIST, "conversation"));
        // A catalog with no Han summary speaks one language, but nothing is lent to it.
        let all_english = one_product(
            "p",
            r#"{"canonical_path":"p.recall","name":"recall","title":"Recall a message","description":"撤回一条已发送的消息"}"#,
        );
        assert!(speaks_one_language(&all_english));
        assert!(!bridges(&all_english, BOTH, false));
        assert!(!in_description(&all_english, true, 0, "unsend"));
    }

    /// With synonyms, a Han summary also lends its touched groups' Han phrases it does not
    /// hold, marked, to the description field, outside its length (docs/adr/0020's synonym
    /// addendum): 撤回消息 lends 收回 as `~收回`, never unmarked, and not 撤回, which it holds.
    #[test]
    fn a_han_summary_lends_its_synonyms_marked() {
        let catalog = recall_and_list("列出群聊");
        let description = |synonyms: bool| {
            let index = index_of(
                &catalog,
                Bridge {
                    english: true,
                    synonyms,
                    ..Bridge::OFF
                },
            );
            let holds = |term: &str| description_holds(&index, RECALL, term);
            let len = index.fields[Field::Description as usize]
                .len_ratio(RECALL)
                .to_bits();
            (
                (
                    holds("~收回"),
                    holds("收回"),
                    holds("~撤回"),
                    holds("unsend"),
                ),
                len,
            )
        };
        let (with, without) = (description(true), description(false));
        assert_eq!(with.0, (true, false, false, true));
        assert_eq!(without.0, (false, false, false, true));
        // Synonyms leave the field's length alone.
        assert_eq!(with.1, without.1);
    }

    /// Pairs of a stop word and its neighbour are indexed for use_when only: the same sentence
    /// in the description gives today's pairs and no more.
    /// An `avoid_when` clause that names a tool of the catalog is lent to that tool as a
    /// `use_when` situation, the name blanked out, outside the field's length; the tool it came
    /// from, a clause naming no tool and a name the catalog lacks lend nothing (docs/adr/0012's
    /// thin-catalog addendum, pre-registration 104).
    #[test]
    fn avoid_when_clauses_are_situations_of_the_tools_they_name() {
        let catalog = one_product(
            "p",
            r#"{"canonical_path":"p.get","name":"get","title":"查看记录","avoid_when":["按条件查找记录时用 p.search；已知多条 ID 时用 p.batch_get。","never for invoices"]},
            {"canonical_path":"p.search","name":"search","title":"搜索记录","use_when":["找记录"],"avoid_when":["see p.missing, or p.get. Only by id"]}"#,
        );
        let lent = avoid_situations(&catalog);
        let (get, search): (ToolId, ToolId) = (0, 1);
        assert_eq!(
            lent[search as usize],
            vec!["按条件查找记录时用  ".to_string()]
        );
        assert_eq!(lent[get as usize], vec![" or  ".to_string()]);
        let in_use_when = |index: &Index, tool: ToolId, term: &str| {
            index.terms.id(term).is_some_and(|id| {
                index.fields[Field::UseWhen as usize]
                    .postings(id)
                    .iter()
                    .any(|&(t, _)| t == tool)
            })
        };
        let plain = index_of(&catalog, Bridge::OFF);
        let situated = index_of(
            &catalog,
            Bridge {
                situations: true,
                ..Bridge::OFF
            },
        );
        assert!(!in_use_when(&plain, search, "条件"));
        assert!(in_use_when(&situated, search, "条件"));
        assert!(!in_use_when(&situated, get, "条件"));
        assert!(!in_use_when(&situated, search, "p.search"));
        let use_when = &situated.fields[Field::UseWhen as usize];
        let before = &plain.fields[Field::UseWhen as usize];
        assert_eq!(use_when.doc_len, before.doc_len);
    }

    #[test]
    fn stop_pairs_are_indexed_for_use_when_only() {
        let catalog = one_product(
            "p",
            r#"{"canonical_path":"p.remove","name":"remove","title":"Remove","description":"take her off the invite","use_when":["take him off the list"]}"#,
        );
        let index = index_of(&catalog, Bridge::OFF);
        let in_field = |field: Field, term: &str| {
            index.terms.id(term).is_some_and(|id| {
                let postings = index.fields[field as usize].postings(id);
                !postings.is_empty()
            })
        };
        for term in [
            "#take him",
            "#him off",
            "#the list",
            "#take off",
            "#off list",
        ] {
            assert!(in_field(Field::UseWhen, term), "{term} in use_when");
        }
        for term in ["#take off", "#off invite"] {
            assert!(in_field(Field::Description, term), "{term} in description");
        }
        for term in ["#take her", "#her off", "#the invite"] {
            assert!(
                !in_field(Field::Description, term),
                "{term} not in description"
            );
        }
    }

    /// The index is the same, byte for byte, however many chunks analysed the tools.
    #[test]
    fn invariant_index_does_not_depend_on_chunks() {
        let words = [
            "发送",
            "消息",
            "send",
            "Message",
            "群聊",
            "getWeather",
            "审批",
            "ｆｕｌｌ",
        ];
        let tools: Vec<String> = (0..300)
            .map(|t| {
                let text: Vec<&str> = (0..6).map(|k| words[(t * 7 + k * k) % words.len()]).collect();
                format!(
                    r#"{{"canonical_path":"p.t{t}","name":"t{t}","title":"{}","description":"{} {t}","use_when":["{}"]}}"#,
                    text[..3].join(""),
                    text.join(" "),
                    text[2..].join("，")
                )
            })
            .collect();
        let catalog = one_product("p", &tools.join(","));
        let analyzer = Analyzer::new(AnalyzerConfig::DEFAULT);
        let both = Bridge {
            english: true,
            synonyms: true,
            situations: true,
        };
        for (single_field, bridged) in [(false, Bridge::OFF), (true, Bridge::OFF), (false, both)] {
            let weights = [1.0, 0.5, 0.3, 0.3, 0.2];
            let mut one = Vec::new();
            Index::build_in_chunks(&catalog, &analyzer, &weights, single_field, bridged, 1)
                .encode(&mut one);
            for n_chunks in [2, 3, 7, 300, 1000] {
                let mut many = Vec::new();
                Index::build_in_chunks(
                    &catalog,
                    &analyzer,
                    &weights,
                    single_field,
                    bridged,
                    n_chunks,
                )
                .encode(&mut many);
                assert!(
                    one == many,
                    "{n_chunks} chunks, single_field {single_field}, bridged {bridged:?}"
                );
            }
        }
    }
}
