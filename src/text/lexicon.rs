//! The query-expansion lexicon (`lexicon.txt`, docs/adr/0004) and the intent cues of its `!`
//! lines (docs/adr/0005, 0008), matched against a [`PreparedQuery`].
//!
//! `build.rs` compiles `lexicon.txt` into static tables (forms of [`super::forms`], interned;
//! groups; trigger indexes sorted for binary search), so no process parses it at start-up.
//! **Invariant:** the file is NFKC-normalized (a test checks), so the compiled forms equal
//! what normalizing and lower-casing each phrase at run time would give.

use super::forms::{self, Form};
use super::normalize;

/// The tables `build.rs` compiles from `lexicon.txt`. A phrase is `[start, end, kind]` (its
/// form is `FORMS[start..end]`; kind 0 = text, 1 = words); see `build.rs` for each table.
mod compiled {
    include!(concat!(env!("OUT_DIR"), "/lexicon.rs"));
}

/// The tables `build.rs` compiles from `learned_pairs.txt` (docs/adr/0015; see
/// [`super::learned::Tables`] for each).
mod learned_compiled {
    include!(concat!(env!("OUT_DIR"), "/learned_tables.rs"));
}

/// A phrase of the lexicon (or a name to look up), in matchable form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phrase<'a> {
    /// Contains Han, or no word at all (`?`): matched as a substring of the normalized,
    /// lower-cased query.
    Text(&'a str),
    /// ASCII words (lower-cased, lemmatised, joined by single spaces): matched as a
    /// contiguous word sequence.
    Words(&'a str),
}

impl Phrase<'static> {
    /// A compiled phrase (`[start, end, kind, ..]`).
    fn compiled(entry: &[u32]) -> Phrase<'static> {
        let form = &compiled::FORMS[entry[0] as usize..entry[1] as usize];
        if entry[2] == 0 {
            Phrase::Text(form)
        } else {
            Phrase::Words(form)
        }
    }
}

/// Returns true if and only if `words` starts with the words of a [`Phrase::Words`] form.
fn starts_with_words(words: &[String], form: &str) -> bool {
    let mut words = words.iter();
    form.split(' ')
        .all(|w| words.next().is_some_and(|q| q == w))
}

/// English phrases saying that something stops ([`PreparedQuery::states_cessation`]): matched
/// against the query's lemmatised words ("skipping" and "called off" match too), without the
/// negation or phrasal-verb handling of cue lines.
const STOPPING: [&str; 3] = ["no longer", "skip", "call off"];

/// The particles of English phrasal verbs whose object may stand between verb and particle
/// ("pull it back", "shut the group down").
const PARTICLES: [&str; 6] = ["back", "down", "out", "off", "away", "up"];

/// The most words that may stand between a phrasal verb and its particle: 3 ("pull that bot
/// message back"). ADR 0005's phrasal-verb addendum chose 2 (1 found fewer, 3 nothing more on a
/// smaller dev); 3 was adopted by pre-registration 95 (ADR 0005's particle-gap addendum).
const MAX_PARTICLE_GAP: usize = 3;

/// Returns true if and only if `form` is a verb and a [`PARTICLES`] word (`pull back`), and
/// `words` starts with the verb followed, after one to [`MAX_PARTICLE_GAP`] other words, by
/// the particle.
fn split_phrasal_verb(words: &[String], form: &str) -> bool {
    form.split_once(' ')
        .is_some_and(|(verb, _)| words.first().is_some_and(|w| w == verb))
        && particle_within(words, form, 2)
}

/// Returns true if and only if `form` is a verb and a [`PARTICLES`] word, and that particle is
/// `words[at]` for some `at` from `from` to [`MAX_PARTICLE_GAP`] + 1 (after the verb, which
/// `words[0]` stands for): the one reading of the gap, for [`split_phrasal_verb`] and
/// [`particle_follows`].
fn particle_within(words: &[String], form: &str, from: usize) -> bool {
    form.split_once(' ').is_some_and(|(_, particle)| {
        PARTICLES.contains(&particle)
            && (from..=MAX_PARTICLE_GAP + 1).any(|at| words.get(at).is_some_and(|w| w == particle))
    })
}

/// The irregular past forms of the verbs that start the lexicon's particle phrases (`take
/// down`, `throw away`): a closed class of English grammar. They match only as the verb of such
/// a phrase ("taken down", "threw it away"), and count as past forms.
const IRREGULAR_PAST: [(&str, &str); 17] = [
    ("blew", "blow"),
    ("blown", "blow"),
    ("brought", "bring"),
    ("drawn", "draw"),
    ("drew", "draw"),
    ("laid", "lay"),
    ("shot", "shoot"),
    ("spun", "spin"),
    ("struck", "strike"),
    ("taken", "take"),
    ("threw", "throw"),
    ("thrown", "throw"),
    ("took", "take"),
    ("tore", "tear"),
    ("torn", "tear"),
    ("woke", "wake"),
    ("woken", "wake"),
];

/// The verb `word` is an irregular past form of ([`IRREGULAR_PAST`]).
fn irregular_base(word: &str) -> Option<&'static str> {
    IRREGULAR_PAST
        .binary_search_by(|(form, _)| (*form).cmp(word))
        .ok()
        .map(|at| IRREGULAR_PAST[at].1)
}

/// Returns true if and only if `form` is a verb and a [`PARTICLES`] word, and `words`, which
/// starts with an irregular past form of that verb ([`PreparedQuery::irregular`]), holds the
/// particle next or after one to [`MAX_PARTICLE_GAP`] other words.
fn particle_follows(words: &[String], form: &str) -> bool {
    particle_within(words, form, 1)
}

/// A query prepared once for phrase matching.
pub struct PreparedQuery {
    lowered: String,
    words: Vec<String>,
    /// Per word of `words`: whether it was written in a past form (see [`is_past`]; an
    /// irregular one counts too).
    past: Vec<bool>,
    /// Per word of `words`: the verb it is an irregular past form of ([`IRREGULAR_PAST`]).
    irregular: Vec<Option<&'static str>>,
    /// Whether the query holds a question mark.
    asks: bool,
    /// A bit per hash of each character of `lowered` ([`char_bit`]): a clear bit proves the
    /// character absent (a set one may be another character's).
    chars: [u64; CHAR_WORDS],
    /// The same for each word of `words` and each verb of `irregular` ([`word_bit`]): a word
    /// phrase whose first word has a clear bit cannot occur.
    word_bits: [u64; CHAR_WORDS],
}

/// The size of [`PreparedQuery::chars`] in 64-bit words (1,024 bits: a 60-character query
/// sets ~6 % of them).
const CHAR_WORDS: usize = 16;

/// The word and bit of `ch` in [`PreparedQuery::chars`].
fn char_bit(ch: char) -> (usize, u64) {
    filter_bit((ch as u32).wrapping_mul(0x9E37_79B1))
}

/// The word and bit of `word` in [`PreparedQuery::word_bits`].
fn word_bit(word: &str) -> (usize, u64) {
    filter_bit(super::fnv1a(word.as_bytes()).wrapping_mul(0x9E37_79B1))
}

/// The word and bit of a mixed 32-bit hash in a filter of [`CHAR_WORDS`] words.
fn filter_bit(mixed: u32) -> (usize, u64) {
    let hash = mixed >> 22;
    ((hash / 64) as usize % CHAR_WORDS, 1 << (hash % 64))
}

impl PreparedQuery {
    pub fn new(query: &str) -> PreparedQuery {
        let lowered = normalize(query).to_lowercase();
        // The words as `forms::plain_words` gives them, with their silent e back, and whether
        // each was written in a past form: one pass over the query's words.
        let mut words = Vec::new();
        let mut past = Vec::new();
        let mut irregular = Vec::new();
        for piece in forms::word_pieces(&lowered) {
            let mut word = forms::lemma(piece.to_lowercase());
            restore_silent_e(&mut word, piece);
            let base = irregular_base(&word);
            past.push(is_past(piece) || base.is_some());
            irregular.push(base);
            words.push(word);
        }
        let asks = lowered.contains('?');
        let mut word_bits = [0u64; CHAR_WORDS];
        for word in words
            .iter()
            .map(String::as_str)
            .chain(irregular.iter().flatten().copied())
        {
            let (at, bit) = word_bit(word);
            word_bits[at] |= bit;
        }
        let mut chars = [0u64; CHAR_WORDS];
        for ch in lowered.chars() {
            let (word, bit) = char_bit(ch);
            chars[word] |= bit;
        }
        PreparedQuery {
            lowered,
            words,
            past,
            irregular,
            asks,
            chars,
            word_bits,
        }
    }

    /// False when `ch` is certainly not in the query.
    fn may_have_char(&self, ch: char) -> bool {
        let (word, bit) = char_bit(ch);
        self.chars[word] & bit != 0
    }

    /// Returns true if and only if the query says that something stops, a way of cancelling
    /// that names no removal verb: a clause holding 不, one to three Han characters other than
    /// 不 and 了, then 了 ("no longer V": 假不休了, 用不上了, 不用再开了), or one of the English
    /// `STOPPING` phrases (docs/adr/0005's cessation addendum). It also fires on 不是很了解
    /// (了解, "understand"): the rule as measured.
    pub fn states_cessation(&self) -> bool {
        let chinese = self.may_have_char('不')
            && self.may_have_char('了')
            && clauses(&self.lowered).into_iter().any(|clause| {
                let chars: Vec<char> = clause.chars().collect();
                chars.iter().enumerate().any(|(at, &ch)| {
                    ch == '不'
                        && (1..=3).any(|len| {
                            chars.get(at + 1 + len) == Some(&'了')
                                && chars[at + 1..at + 1 + len]
                                    .iter()
                                    .all(|&c| forms::is_han(c) && c != '不' && c != '了')
                        })
                })
            });
        chinese
            || STOPPING.iter().any(|phrase| {
                (0..self.words.len()).any(|at| starts_with_words(&self.words[at..], phrase))
            })
    }

    /// The query, NFKC-normalized and lower-cased.
    pub fn lowered(&self) -> &str {
        &self.lowered
    }

    /// The Han characters that the query's dictionary segmentation (the analyzer's own,
    /// [`super::han::cut_for_search`]) cuts as words of their own, each once, in text order.
    fn alone_chars(&self) -> Vec<char> {
        let mut alone: Vec<char> = Vec::new();
        super::han::cut_for_search(&self.lowered, &mut |word| {
            let mut chars = word.chars();
            if let (Some(ch), None) = (chars.next(), chars.next()) {
                if forms::is_han(ch) && !alone.contains(&ch) {
                    alone.push(ch);
                }
            }
        });
        alone
    }

    /// False when `text` is empty or one of its characters is certainly not in the query: a
    /// cheap rejection before a substring search (most cues are absent from most queries).
    fn may_hold(&self, text: &str) -> bool {
        !text.is_empty() && text.chars().all(|c| self.may_have_char(c))
    }

    /// Returns true if and only if `phrase` occurs in the query at a place `accept` takes.
    /// The one matcher of phrases: text as a substring, words as a word sequence (a phrasal
    /// verb also split by its object, [`split_phrasal_verb`]).
    fn occurs(&self, phrase: Phrase<'_>, accept: impl Fn(Occurrence<'_>) -> bool) -> bool {
        match phrase {
            Phrase::Text(text) => {
                self.may_hold(text)
                    && self.lowered.match_indices(text).any(|(at, _)| {
                        accept(Occurrence::Text {
                            cue: text,
                            before: &self.lowered[..at],
                            after: &self.lowered[at + text.len()..],
                        })
                    })
            }
            Phrase::Words(form) => {
                // The first word alone rejects almost every position, without a word iterator.
                let first = form.split_once(' ').map_or(form, |(first, _)| first);
                let (at, bit) = word_bit(first);
                if self.word_bits[at] & bit == 0 {
                    return false;
                }
                (0..self.words.len()).any(|at| {
                    (self.words[at] == first
                        && (starts_with_words(&self.words[at..], form)
                            || split_phrasal_verb(&self.words[at..], form))
                        || self.irregular[at] == Some(first)
                            && particle_follows(&self.words[at..], form))
                        && accept(Occurrence::Words {
                            before: &self.words[..at],
                        })
                })
            }
        }
    }

    /// Returns true if and only if `phrase` occurs in the query as an order: at least one
    /// occurrence is not negated (别删, don't delete), not told as something that already
    /// happened (误删, 已经删了) and not half of an A-not-A question (开没开).
    fn contains_order(&self, phrase: Phrase<'_>) -> bool {
        self.occurs(phrase, |occurrence| match occurrence {
            Occurrence::Text { cue, before, after } => {
                !not_an_order_before(before) && !a_not_a(cue, before, after)
            }
            Occurrence::Words { before } => {
                // In a question, a past form tells what happened ("who joined?", "has anyone
                // opened it?"): not an order (docs/adr/0008's past-form addendum).
                let told_as_past = self.asks && self.past.get(before.len()) == Some(&true);
                !negated_words(before) && !told_as_past
            }
        })
    }

    /// Returns true if and only if `phrase` occurs in the query. Text phrases of a single
    /// scalar only match when `allow_single` (they are too ambiguous as expansion triggers).
    fn contains(&self, phrase: Phrase<'_>, allow_single: bool) -> bool {
        let too_short = matches!(phrase, Phrase::Text(text) if text.chars().count() < 2);
        (allow_single || !too_short) && self.occurs(phrase, |_| true)
    }
}

/// Where a phrase occurs in a query: for text (Han or a question mark) the text around it,
/// for words the words before it.
enum Occurrence<'q> {
    Text {
        cue: &'q str,
        before: &'q str,
        after: &'q str,
    },
    Words {
        before: &'q [String],
    },
}

/// Groups of equivalent phrases, and the cue lists: a handle on the compiled tables.
#[derive(Debug)]
pub struct Lexicon {
    _compiled: (),
}

/// The phrases of the groups a text touches ([`Lexicon::bridge_phrases`]), each once, in
/// lexicon order: those without a Han character and those with one.
#[derive(Debug, Default)]
pub struct BridgePhrases {
    pub english: Vec<&'static str>,
    pub han: Vec<&'static str>,
}

/// Item `index` of a table stored as a list of end offsets (`ends[index - 1]..ends[index]`,
/// the first item starting at 0); `index` must be below `ends.len()`.
fn span(ends: &[u32], index: usize) -> std::ops::Range<usize> {
    let start = index.checked_sub(1).map_or(0, |prev| ends[prev] as usize);
    start..ends[index] as usize
}

/// The learned word pairs (docs/adr/0015): the shipped ones compiled into the binary, or a
/// file parsed at run time ([`super::learned::parse`], for `eval --param learned_pairs=FILE`).
#[derive(Debug, Clone, Copy)]
pub struct LearnedPairs<'a> {
    forms: &'a str,
    form_ends: &'a [u32],
    texts: &'a str,
    text_ends: &'a [u32],
    targets: &'a [u32],
    target_ends: &'a [u32],
    han: &'a [[u32; 2]],
    words: &'a [[u32; 3]],
}

impl LearnedPairs<'static> {
    /// The pairs of `src/text/learned_pairs.txt`, compiled in.
    pub fn builtin() -> LearnedPairs<'static> {
        LearnedPairs {
            forms: learned_compiled::LEARNED_FORMS,
            form_ends: &learned_compiled::LEARNED_FORM_ENDS,
            texts: learned_compiled::LEARNED_TEXTS,
            text_ends: &learned_compiled::LEARNED_TEXT_ENDS,
            targets: &learned_compiled::LEARNED_TARGETS,
            target_ends: &learned_compiled::LEARNED_TARGET_ENDS,
            han: &learned_compiled::LEARNED_HAN,
            words: &learned_compiled::LEARNED_WORDS,
        }
    }
}

impl<'a> LearnedPairs<'a> {
    /// The pairs of tables parsed at run time.
    pub fn of(tables: &'a super::learned::Tables) -> LearnedPairs<'a> {
        LearnedPairs {
            forms: &tables.forms,
            form_ends: &tables.form_ends,
            texts: &tables.texts,
            text_ends: &tables.text_ends,
            targets: &tables.targets,
            target_ends: &tables.target_ends,
            han: &tables.han,
            words: &tables.words,
        }
    }

    /// The catalog words `t` of every pair whose query word `q` the query contains (matched
    /// like a lexicon phrase: a text `q` as a substring, a word `q` as a word), as text ids
    /// (see [`LearnedPairs::text`]), sorted, each once. Only `q` triggers.
    pub fn expansion(&self, query: &PreparedQuery) -> Vec<u32> {
        let mut out: Vec<u32> = self
            .triggered(query)
            .into_iter()
            .flat_map(|q| self.targets_of(q).iter().copied())
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The pairs `query` triggers, trigger by trigger, for `toolsearch why`: each query word
    /// found (as written in the pairs file) and its catalog words' text ids, in the order
    /// [`LearnedPairs::expansion`] meets them; their union is that expansion
    /// (`tests/properties.rs` checks it).
    pub fn expansion_by_trigger(&self, query: &PreparedQuery) -> Vec<(&'a str, &'a [u32])> {
        self.triggered(query)
            .into_iter()
            .map(|q| (self.form_of(q), self.targets_of(q)))
            .collect()
    }

    /// The query words `q` (by index) that `query` contains: Han texts as substrings in text
    /// order, then words in word order.
    fn triggered(&self, query: &PreparedQuery) -> Vec<u32> {
        let mut matched: Vec<u32> = Vec::new();
        for (idx, ch) in query.lowered.char_indices() {
            let first = self.han.partition_point(|t| t[0] < ch as u32);
            for trigger in self.han[first..].iter().take_while(|t| t[0] == ch as u32) {
                if query.lowered[idx..].starts_with(self.form_of(trigger[1])) {
                    matched.push(trigger[1]);
                }
            }
        }
        let word_of = |t: &[u32; 3]| self.forms.get(t[0] as usize..t[1] as usize).unwrap_or("");
        for word in &query.words {
            let first = self.words.partition_point(|t| word_of(t) < word.as_str());
            for trigger in self.words[first..]
                .iter()
                .take_while(|t| word_of(t) == word.as_str())
            {
                matched.push(trigger[2]);
            }
        }
        matched
    }

    /// Query word `q` as written in the pairs file.
    fn form_of(&self, q: u32) -> &'a str {
        self.forms
            .get(span_checked(self.form_ends, q))
            .unwrap_or("")
    }

    /// The catalog words (text ids) of query word `q`.
    fn targets_of(&self, q: u32) -> &'a [u32] {
        self.targets
            .get(span_checked(self.target_ends, q))
            .unwrap_or(&[])
    }

    /// How many distinct catalog words there are (text ids run below this).
    pub fn text_count(&self) -> usize {
        self.text_ends.len()
    }

    /// The catalog word of a text id, as written in the pairs file.
    pub fn text(&self, id: u32) -> &'a str {
        self.texts
            .get(span_checked(self.text_ends, id))
            .unwrap_or("")
    }
}

/// [`span`] for an index that may lie past the end (then an empty range).
fn span_checked(ends: &[u32], index: u32) -> std::ops::Range<usize> {
    let index = index as usize;
    if index < ends.len() {
        span(ends, index)
    } else {
        0..0
    }
}

/// The phrases of a cue list.
fn cues(list: &'static [[u32; 3]]) -> impl Iterator<Item = Phrase<'static>> {
    list.iter().map(|entry| Phrase::compiled(entry))
}

impl Lexicon {
    /// The lexicon compiled into the binary.
    pub fn builtin() -> &'static Lexicon {
        static BUILTIN: Lexicon = Lexicon { _compiled: () };
        &BUILTIN
    }

    /// The phrases of group `group`: `[start, end, kind, text id]` each.
    fn group(&self, group: usize) -> &'static [[u32; 4]] {
        &compiled::PHRASES[span(&compiled::GROUP_ENDS, group)]
    }

    fn group_count(&self) -> usize {
        compiled::GROUP_ENDS.len()
    }

    /// Which groups the query touches: a group is touched when one of its phrases occurs in
    /// the query, a text phrase of one character only as a word of its own in the query's Han
    /// segmentation (建个文件夹, not 建议; see [`PreparedQuery::alone_chars`]).
    fn touched_groups(&self, query: &PreparedQuery) -> Vec<bool> {
        let mut touched = vec![false; self.group_count()];
        let alone = &compiled::ALONE_TRIGGERS;
        if alone.iter().any(|t| {
            char::from_u32(t[0])
                .is_some_and(|c| query.may_have_char(c) && query.lowered.contains(c))
        }) {
            for ch in query.alone_chars() {
                let first = alone.partition_point(|t| t[0] < ch as u32);
                for trigger in alone[first..].iter().take_while(|t| t[0] == ch as u32) {
                    touched[trigger[1] as usize] = true;
                }
            }
        }
        let triggers = &compiled::HAN_TRIGGERS;
        for (idx, ch) in query.lowered.char_indices() {
            let code = ch as usize;
            if code < 0x10000 && compiled::HAN_TRIGGER_BITS[code / 64] & (1 << (code % 64)) == 0 {
                continue;
            }
            let first = triggers.partition_point(|t| t[0] < ch as u32);
            for trigger in triggers[first..].iter().take_while(|t| t[0] == ch as u32) {
                let phrase = &compiled::PHRASES[trigger[2] as usize];
                if let Phrase::Text(text) = Phrase::compiled(phrase) {
                    if query.lowered[idx..].starts_with(text) {
                        touched[trigger[1] as usize] = true;
                    }
                }
            }
        }
        let triggers = &compiled::WORD_TRIGGERS;
        let word_of = |t: &[u32; 4]| &compiled::FORMS[t[0] as usize..t[1] as usize];
        for (idx, word) in query.words.iter().enumerate() {
            let first = triggers.partition_point(|t| word_of(t) < word.as_str());
            for trigger in triggers[first..]
                .iter()
                .take_while(|t| word_of(t) == word.as_str())
            {
                let phrase = &compiled::PHRASES[trigger[3] as usize];
                if let Phrase::Words(form) = Phrase::compiled(phrase) {
                    if starts_with_words(&query.words[idx..], form) {
                        touched[trigger[2] as usize] = true;
                    }
                }
            }
        }
        touched
    }

    /// The phrases of every group the query touches, other than those it already contains
    /// (in lexicon order, each phrase once), as text ids (see [`Lexicon::text`]). A retriever
    /// analyses each text on its own: the same terms as analysing them joined by spaces,
    /// since a space ends every run.
    pub fn expansion(&self, query: &PreparedQuery) -> Vec<u32> {
        self.scan_expansion(query, |_, _| {})
    }

    /// [`Lexicon::expansion`] group by group, for `toolsearch why`: the first phrase of each
    /// group that adds a text, and the texts it adds (those an earlier group added are not
    /// repeated), in the same order, so the lists joined are the expansion
    /// (`tests/properties.rs` checks it).
    pub fn expansion_by_group(&self, query: &PreparedQuery) -> Vec<(&'static str, Vec<u32>)> {
        let mut groups: Vec<(usize, Vec<u32>)> = Vec::new();
        self.scan_expansion(query, |group, id| match groups.last_mut() {
            Some((last, texts)) if *last == group => texts.push(id),
            _ => groups.push((group, vec![id])),
        });
        groups
            .into_iter()
            .map(|(group, texts)| {
                let head = self
                    .group(group)
                    .first()
                    .map_or("", |entry| self.text(entry[3]));
                (head, texts)
            })
            .collect()
    }

    /// The phrases of every group `text` touches, each once, in lexicon order, split by
    /// whether they hold a Han character (one match of `text` for both, the same phrase
    /// matching as a request's; docs/adr/0020). For a tool summary written in Han characters,
    /// the English ones say it in the words an English request uses.
    pub fn bridge_phrases(&self, text: &str) -> BridgePhrases {
        let prepared = PreparedQuery::new(text);
        let touched = self.touched_groups(&prepared);
        let mut out = BridgePhrases::default();
        for group in (0..self.group_count()).filter(|&g| touched[g]) {
            for entry in self.group(group) {
                let phrase = self.text(entry[3]);
                let list = if phrase.chars().any(forms::is_han) {
                    &mut out.han
                } else {
                    &mut out.english
                };
                if !list.contains(&phrase) {
                    list.push(phrase);
                }
            }
        }
        out
    }

    /// The expansion's text ids, each once, in lexicon order, with `added` told each one's
    /// group as it is added.
    fn scan_expansion(&self, query: &PreparedQuery, mut added: impl FnMut(usize, u32)) -> Vec<u32> {
        let mut out: Vec<u32> = Vec::new();
        let touched = self.touched_groups(query);
        for group in (0..self.group_count()).filter(|&g| touched[g]) {
            for entry in self.group(group) {
                let id = entry[3];
                if !out.contains(&id) && !query.contains(Phrase::compiled(entry), true) {
                    out.push(id);
                    added(group, id);
                }
            }
        }
        out
    }

    /// How many distinct phrase texts the lexicon has (text ids run below this).
    pub fn text_count(&self) -> usize {
        compiled::TEXT_ENDS.len()
    }

    /// The phrase text of a text id (as written in `lexicon.txt`).
    pub fn text(&self, id: u32) -> &'static str {
        compiled::TEXTS
            .get(span_checked(&compiled::TEXT_ENDS, id))
            .unwrap_or("")
    }

    /// Returns true if and only if the query mentions `name` or a phrase of a group that
    /// contains `name` (so `网盘` mentions the product named `钉盘`).
    pub fn mentions(&self, query: &PreparedQuery, name: &str) -> bool {
        let form = forms::form(&normalize(name).to_lowercase());
        let target = match &form {
            Form::Text(text) => Phrase::Text(text),
            Form::Words(words) => Phrase::Words(words),
        };
        if query.contains(target, false) {
            return true;
        }
        (0..self.group_count())
            .map(|g| self.group(g))
            .filter(|group| group.iter().any(|e| Phrase::compiled(e) == target))
            .any(|group| {
                group
                    .iter()
                    .any(|e| query.contains(Phrase::compiled(e), false))
            })
    }

    /// Splits a query into the text of its clauses that name what must stay untouched
    /// ("文字纪要留着", "but keep the event") and the text of all other clauses. Clauses end
    /// at sentence punctuation and before 但 / but.
    pub fn split_keep_clauses(&self, query: &str) -> (String, String) {
        let mut rest = String::new();
        let mut keep = String::new();
        for clause in clauses(query) {
            let target = if self.has_keep_cue(&PreparedQuery::new(clause)) {
                &mut keep
            } else {
                &mut rest
            };
            target.push_str(clause);
            target.push('\n');
        }
        (rest, keep)
    }

    /// Returns true if and only if the query holds a cue of a clause naming what must stay
    /// untouched (a cheap test before [`Lexicon::split_keep_clauses`]).
    pub fn has_keep_cue(&self, query: &PreparedQuery) -> bool {
        cues(&compiled::KEEP).any(|p| query.contains(p, true))
    }

    /// Returns true if and only if the query contains a cue of destructive intent: a phrase of
    /// the `!destructive` line, or any phrase (of two characters or more) of a lexicon group
    /// whose first phrase is one (取消 | … | scrap | kill: its synonyms destroy too).
    pub fn has_destructive_intent(&self, query: &PreparedQuery) -> bool {
        cues(&compiled::DESTRUCTIVE)
            .chain(cues(&compiled::DESTRUCTIVE_SYNONYMS))
            .any(|p| query.contains_order(p))
    }

    /// Returns true if and only if the query asks to change something that exists: it holds an
    /// order from the groups of the `!change-groups` line and none from those of the
    /// `!create-groups` line (docs/adr/0008).
    pub fn has_change_intent(&self, query: &PreparedQuery) -> bool {
        cues(&compiled::CHANGE).any(|p| query.contains_order(p))
            && !cues(&compiled::CREATE).any(|p| query.contains_order(p))
    }

    /// Returns true if and only if the query only asks to look something up: it holds a cue
    /// of reading (a question, a lookup verb) and none of writing or destroying.
    pub fn has_read_only_intent(&self, query: &PreparedQuery) -> bool {
        self.has_read_only_intent_with(query, || self.has_destructive_intent(query))
    }

    /// [`Lexicon::has_read_only_intent`], asking `has_destructive_intent` (the answer of
    /// [`Lexicon::has_destructive_intent`] for `query`, perhaps known already) only when the
    /// other cues leave it open.
    pub fn has_read_only_intent_with(
        &self,
        query: &PreparedQuery,
        has_destructive_intent: impl FnOnce() -> bool,
    ) -> bool {
        cues(&compiled::READ).any(|p| query.contains(p, true))
            && !cues(&compiled::WRITE).any(|p| query.contains_order(p))
            && !has_destructive_intent()
    }
}

/// The clauses of a text (blank ones left out): split at sentence punctuation, and before 但
/// and the words "but" and "and" ("delete the March rows and leave the rest untouched" names what
/// to spare in its second clause; ADR 0008's keep-clause addenda).
fn clauses(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for (at, ch) in text.char_indices() {
        let boundary = matches!(
            ch,
            '，' | ',' | '。' | '；' | ';' | '！' | '!' | '？' | '?' | '\n' | '—'
        );
        let before_conjunction = ch == '但'
            || (["but ", "and "].iter().any(|word| {
                text[at..]
                    .get(..word.len())
                    .is_some_and(|w| w.eq_ignore_ascii_case(word))
            }) && text[..at].ends_with(' '));
        if boundary || before_conjunction {
            if !text[start..at].trim().is_empty() {
                out.push(&text[start..at]);
            }
            start = if boundary { at + ch.len_utf8() } else { at };
        }
    }
    if !text[start..].trim().is_empty() {
        out.push(&text[start..]);
    }
    out
}

/// What, right before a Han cue, makes it no order: a negation (别删, 不要发) or a past
/// mishap or fact (误删, 不小心删了, 已经删了, 已撤销).
const NOT_AN_ORDER_HAN: &[&str] = &[
    "别",
    "不要",
    "不用",
    "无需",
    "不必",
    "误",
    "不小心",
    "已经",
    "已",
];

/// Words that end like a marker of [`NOT_AN_ORDER_HAN`] but are none (分别发 = send to each).
const NOT_A_MARKER_HAN: &[&str] = &[
    "分别", "特别", "区别", "类别", "级别", "个别", "告别", "识别", "差别", "性别", "错误", "无误",
];

/// Returns true if and only if the text right before a Han cue makes it no order.
fn not_an_order_before(before: &str) -> bool {
    NOT_AN_ORDER_HAN.iter().any(|m| before.ends_with(m))
        && !NOT_A_MARKER_HAN.iter().any(|w| before.ends_with(w))
}

/// Returns true if and only if a Han cue is half of an A-not-A question (开没开, 发没发,
/// 删不删): asking whether, not ordering.
fn a_not_a(cue: &str, before: &str, after: &str) -> bool {
    ["没", "不"].iter().any(|not| {
        after
            .strip_prefix(not)
            .is_some_and(|rest| rest.starts_with(cue))
            || before
                .strip_suffix(not)
                .is_some_and(|rest| rest.ends_with(cue))
    })
}

/// Gives back the silent e that [`forms::lemma`] drops with -ed / -ing ("deleting" → delet →
/// delete): when `word` lost a suffix of `piece`, is no word of a lexicon phrase, and `word` +
/// e is one (docs/adr/0004's silent-e addendum). The index's terms never pass through here.
fn restore_silent_e(word: &mut String, piece: &str) {
    let is_lexicon_word = |w: &str| compiled::WORDS.binary_search(&w).is_ok();
    let stripped = piece.len() > word.len() && (piece.ends_with("ed") || piece.ends_with("ing"));
    if stripped && !is_lexicon_word(word) {
        word.push('e');
        if !is_lexicon_word(word) {
            word.pop();
        }
    }
}

/// Returns true if and only if `piece` (a word of the lower-cased query, before lemmatising)
/// is a regular past form: five ASCII letters or more ending in -ed, which [`forms::lemma`]
/// strips ("joined" → join, "acked" → ack).
fn is_past(piece: &str) -> bool {
    piece.len() >= 5 && piece.ends_with("ed") && piece.bytes().all(|b| b.is_ascii_lowercase())
}

/// Returns true if and only if the words right before an English cue negate it or tell it
/// as past (don't, didn't, do not, never, no need to).
fn negated_words(before: &[String]) -> bool {
    match before {
        [.., a, b] if (a == "don" || a == "didn") && b == "t" => true,
        [.., a, b] if a == "do" && b == "not" => true,
        [.., a, b, c] if a == "no" && b == "need" && c == "to" => true,
        [.., a] => a == "never",
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The word filter only rejects: every word of a query, and every verb one of its
    /// irregular past forms stands for, passes it. Checked on queries made of each word cue of
    /// every cue list (its first word is then a word of the query), and on irregular forms.
    #[test]
    fn word_filter_never_rejects_a_present_word() {
        let lists: [&[[u32; 3]]; 7] = [
            &compiled::DESTRUCTIVE,
            &compiled::DESTRUCTIVE_SYNONYMS,
            &compiled::READ,
            &compiled::WRITE,
            &compiled::KEEP,
            &compiled::CHANGE,
            &compiled::CREATE,
        ];
        let mut checked = 0;
        for phrase in lists.into_iter().flat_map(cues) {
            if let Phrase::Words(form) = phrase {
                let query = PreparedQuery::new(&format!("please {form} today"));
                for word in query.words.iter().map(String::as_str) {
                    let (at, bit) = word_bit(word);
                    assert_ne!(query.word_bits[at] & bit, 0, "{word} in {form}");
                }
                checked += 1;
            }
        }
        assert!(checked > 100, "{checked}");
        let query = PreparedQuery::new("has it been taken down? they threw it out");
        for verb in ["take", "throw", "down", "has"] {
            let (at, bit) = word_bit(verb);
            assert_ne!(query.word_bits[at] & bit, 0, "{verb}");
        }
        assert!(query.contains(Phrase::Words("take down"), false));
        assert!(query.contains(Phrase::Words("throw out"), false));
    }

    /// The character filter only rejects: every character of the query passes it, and a cue
    /// it rejects is one a substring search does not find either.
    #[test]
    fn char_filter_never_rejects_a_present_character() {
        let query = PreparedQuery::new("把「周报.xlsx」发到项目群，Who hasn't READ it? 🙂 ａｂｃ");
        assert!(query.lowered.chars().all(|c| query.may_have_char(c)));
        for cue in ["项目群", "who", "ｂ", "abc", "周报.x", "没读", "delete", ""] {
            if !query.may_hold(cue) {
                assert!(cue.is_empty() || !query.lowered.contains(cue), "{cue}");
            }
        }
        assert!(query.may_hold("项目群") && query.may_hold("abc"));
    }

    /// The trigger index must find exactly the groups a scan of every phrase finds.
    #[test]
    fn invariant_trigger_index_equals_full_scan() {
        let lexicon = Lexicon::builtin();
        for text in [
            "帮我看看这条群消息谁还没读",
            "Which of my tasks are overdue?",
            "把日程推迟到明天，再发个通知",
            "get rid of the Fax column",
            "clock in clock out",
            "撤回 recall 钉盘 drive",
            "建个文件夹，给我的建议改成四点",
            "",
        ] {
            let query = PreparedQuery::new(text);
            let alone = query.alone_chars();
            let scanned: Vec<bool> = (0..lexicon.group_count())
                .map(|g| {
                    lexicon.group(g).iter().any(|e| {
                        let phrase = Phrase::compiled(e);
                        query.contains(phrase, false)
                            || matches!(phrase, Phrase::Text(t)
                                if t.chars().count() == 1 && t.chars().all(|c| alone.contains(&c)))
                    })
                })
                .collect();
            assert_eq!(lexicon.touched_groups(&query), scanned, "{text}");
        }
    }

    impl Lexicon {
        /// [`Lexicon::expansion`] as text, joined by spaces.
        fn expand(&self, query: &PreparedQuery) -> String {
            self.expansion(query)
                .into_iter()
                .map(|id| self.text(id))
                .collect::<Vec<_>>()
                .join(" ")
        }
    }

    #[test]
    fn lexicon_expands_across_languages_and_detects_destructive_intent() {
        let lexicon = Lexicon::builtin();
        let query = PreparedQuery::new("Which of my tasks are overdue?");
        let expansion = lexicon.expand(&query);
        assert!(
            expansion.contains("待办") && expansion.contains("逾期"),
            "{expansion}"
        );
        assert!(!lexicon.has_destructive_intent(&query));
        assert!(lexicon.has_destructive_intent(&PreparedQuery::new("把刚才那条撤回")));
        assert!(lexicon.has_destructive_intent(&PreparedQuery::new("get rid of the Fax column")));
        // Inflections meet their base forms on both sides.
        assert!(lexicon
            .expand(&PreparedQuery::new("it was streamed"))
            .contains("直播"));
        assert_eq!(forms::lemma("finished".into()), "finish");
        assert_eq!(forms::lemma("planning".into()), "plan");
        assert_eq!(forms::lemma("copied".into()), "copy");
        // A single Han character triggers only as a word of its own (docs/adr/0004).
        assert!(lexicon
            .expand(&PreparedQuery::new("文件发了没"))
            .contains("send"));
        assert!(lexicon
            .expand(&PreparedQuery::new("建个文件夹"))
            .contains("创建"));
        assert!(!lexicon.expand(&PreparedQuery::new("发票")).contains("send"));
        assert!(!lexicon
            .expand(&PreparedQuery::new("提个建议"))
            .contains("创建"));
    }

    #[test]
    fn change_intent_needs_a_change_order_and_no_creation() {
        let lexicon = Lexicon::builtin();
        let change = |q: &str| lexicon.has_change_intent(&PreparedQuery::new(q));
        assert!(change("rename the onboarding page to 'Welcome'"));
        assert!(change("任务标题改成“季度复盘”"));
        assert!(change("把周会挪到周五"));
        // A creation order in the same request, or a change that is not ordered, is not one.
        assert!(!change("建个待办，优先级调整到最高"));
        assert!(!change("create a page and rename the old one"));
        assert!(!change("推送地址千万别改"));
    }

    #[test]
    fn cessation_is_a_stopping_phrase_or_a_chinese_no_longer() {
        let stops = |q: &str| PreparedQuery::new(q).states_cessation();
        assert!(stops("下周三那天的假不休了"));
        assert!(stops("明天那间会议室用不上了，退了吧"));
        assert!(stops("每周四的一对一从十一月起就不用再开了"));
        assert!(stops("skip just next Thursday's curriculum sync"));
        assert!(stops("the Friday slot is no longer needed"));
        assert!(stops("we're skipping Thursday's sync"));
        assert!(stops("the offsite got called off"));
        // 不 and 了 in different clauses, too far apart, or with no Han between them.
        assert!(!stops("不急，明天看了再说"));
        assert!(!stops("我不太清楚这个流程怎么走了"));
        assert!(!stops("不了"));
        assert!(!stops("别删，留着"));
        assert!(!stops("move the sync to Friday"));
    }

    #[test]
    fn a_past_form_in_a_question_is_not_an_order() {
        let lexicon = Lexicon::builtin();
        let read_only = |q: &str| lexicon.has_read_only_intent(&PreparedQuery::new(q));
        let destructive = |q: &str| lexicon.has_destructive_intent(&PreparedQuery::new(q));
        // join, ack, mark and kick are cues of an order; told as past in a question, they ask.
        assert!(read_only("who joined sales-east this week?"));
        assert!(read_only("who hasn't acked my DING?"));
        assert!(read_only("which volunteers got marked as done?"));
        assert!(!destructive("who kicked Tom out of the group?"));
        // The present form still orders, and without a question a past participle may carry
        // the order ("get their status marked as done").
        assert!(!read_only("can you join me to sales-east?"));
        assert!(destructive("kick Tom out of the group?"));
        assert!(!read_only(
            "list the volunteers and get their status marked as done"
        ));
        assert!(destructive("Tom has to be kicked out of the group"));
    }

    #[test]
    fn a_stripped_silent_e_is_given_back_for_lexicon_words() {
        let words = |q: &str| PreparedQuery::new(q).words;
        // "mov", "revok" and "renam" are no words of a lexicon phrase; the words with -e are.
        assert_eq!(words("moving it to Friday"), ["move", "it", "to", "friday"]);
        assert_eq!(words("revoked"), ["revoke"]);
        assert_eq!(words("renaming"), ["rename"]);
        // A stem that is a lexicon word itself stays ("remov": phrases written "removed"),
        // and a word that lost no suffix is never touched.
        assert_eq!(words("removing"), ["remov"]);
        assert_eq!(words("joined"), ["join"]);
        assert_eq!(words("the pin"), ["the", "pin"]);
        let lexicon = Lexicon::builtin();
        assert!(lexicon.has_destructive_intent(&PreparedQuery::new("revoking her access")));
    }

    #[test]
    fn read_only_intent_needs_a_question_and_no_order() {
        let lexicon = Lexicon::builtin();
        let read_only = |q: &str| lexicon.has_read_only_intent(&PreparedQuery::new(q));
        assert!(read_only("Which of my tasks are overdue?"));
        assert!(read_only("审批单现在卡在谁那儿了？"));
        assert!(read_only("看看钉盘项目资料文件夹下面都放了些啥"));
        // An order, even phrased as a question, is not a lookup.
        assert!(!read_only("can you move the meeting to 3pm?"));
        assert!(!read_only("能帮我把会议改到三点吗"));
        assert!(!read_only("Stop showing that calendar in my view"));
        // Destroying is never a lookup, and a bare statement asks nothing.
        assert!(!read_only("which drafts should I delete?"));
        assert!(!read_only("季度预算表"));
        // A question mark alone asks (it has no word, so it matches as text).
        assert!(read_only("季度预算表？"));
        assert!(read_only("Q3 budget sheet?"));
    }

    #[test]
    fn keep_clauses_are_split_from_the_request() {
        let lexicon = Lexicon::builtin();
        let split = |q: &str| lexicon.split_keep_clauses(q);
        assert_eq!(
            split("录像彻底删掉，文字纪要留着"),
            ("录像彻底删掉\n".to_string(), "文字纪要留着\n".to_string())
        );
        assert_eq!(
            split("Cancel the room I reserved, but keep the interview itself on the calendar"),
            (
                "Cancel the room I reserved\n".to_string(),
                "but keep the interview itself on the calendar\n".to_string()
            )
        );
        // "keeps" (goes on) and a clause without a cue keep nothing.
        assert_eq!(split("something keeps posting alerts").1, "");
        assert_eq!(split("把预算表删掉").1, "");
        assert_eq!(
            split("Delete the March rows and leave the rest untouched"),
            (
                "Delete the March rows \n".to_string(),
                "and leave the rest untouched\n".to_string()
            )
        );
        assert_eq!(clauses("a,,b — c but d"), ["a", "b ", " c ", "but d"]);
        assert_eq!(
            clauses("x and y AND z band"),
            ["x ", "and y ", "AND z band"]
        );
        assert_eq!(clauses("但"), ["但"]);
        assert!(clauses("").is_empty());
    }

    #[test]
    fn a_negated_or_past_cue_is_no_order() {
        let lexicon = Lexicon::builtin();
        let destructive = |q: &str| lexicon.has_destructive_intent(&PreparedQuery::new(q));
        let read_only = |q: &str| lexicon.has_read_only_intent(&PreparedQuery::new(q));
        // A mishap or a fact told, and a negated order, ask to destroy nothing.
        assert!(!destructive("我好像误删了一个文件"));
        assert!(!destructive("不小心删了"));
        assert!(!destructive("已撤销的审批"));
        assert!(!destructive("别删，先留着"));
        assert!(!destructive("don't delete it, just archive"));
        assert!(!destructive("do not remove anyone"));
        assert!(read_only("回收站里都有哪些文件？我好像误删了一个"));
        assert!(read_only("周报已经发了吗？"));
        // An A-not-A question asks whether; it orders nothing.
        assert!(read_only("群主是谁，开没开入群验证？"));
        assert!(!read_only("把入群验证开了，群主是谁？"));
        // A word that merely ends like a marker masks nothing (分别 = to each).
        assert!(!read_only("分别发给张三和李四，谁还没读？"));
        assert!(destructive("识别删除"));
        // One unmasked occurrence is enough, and "can't" does not negate a wish.
        assert!(destructive("误删的那个不管，把这个删了"));
        assert!(destructive("I can't delete this file, do it for me"));
        assert!(destructive("把刚才那条撤回"));
        // The synonyms of a group headed by a destructive cue are cues too; a group that
        // merely contains one (an object group with "trash") lends nothing.
        assert!(destructive("scrap my half-written draft"));
        assert!(destructive("周二例会从下个月起就不开了"));
        assert!(!destructive("回收站里都有哪些文件？"));
    }

    #[test]
    fn a_phrasal_verb_matches_around_its_object() {
        let lexicon = Lexicon::builtin();
        let destructive = |q: &str| lexicon.has_destructive_intent(&PreparedQuery::new(q));
        assert!(destructive("pull back the DING"));
        assert!(destructive("pull it back so nobody sees it"));
        assert!(destructive("pull those messages back"));
        assert!(destructive("pull that bot message back"));
        // Four words between verb and particle are no longer one phrase.
        assert!(!destructive("pull the three new messages back"));
        // Negation still reads the words before the verb.
        assert!(!destructive("don't pull it back"));
        // Only particles split: "get rid" stays a word sequence.
        assert!(!destructive("get the rid"));
        let words = forms::plain_words;
        // An irregular past form is the verb of a particle phrase, split or not, and a past
        // form: in a question it tells what happened.
        assert!(destructive("get that message taken down"));
        assert!(destructive("get the bot's post taken back"));
        assert!(!destructive("has it been taken down?"));
        let phrase =
            |q: &str, form: &str| PreparedQuery::new(q).occurs(Phrase::Words(form), |_| true);
        assert!(phrase("threw it away", "throw away"));
        assert!(phrase("it was thrown away", "throw away"));
        assert!(!phrase("threw it", "throw away"));
        // Only as the verb of a particle phrase: a form alone is not its verb.
        assert!(!phrase("thrown", "throw"));
        assert!(!phrase("the file was taken", "take"));
        // `irregular_base` searches the table by halves.
        assert!(IRREGULAR_PAST.windows(2).all(|pair| pair[0].0 < pair[1].0));
        assert!(IRREGULAR_PAST
            .iter()
            .all(|&(form, base)| irregular_base(form) == Some(base)));
        assert!(split_phrasal_verb(&words("pull it back"), "pull back"));
        assert!(!split_phrasal_verb(&words("pull back"), "pull back"));
        assert!(!split_phrasal_verb(&words("get it rid"), "get rid"));
    }

    const SOURCE: &str = include_str!("lexicon.txt");

    /// `build.rs` only lower-cases: the file itself must already be NFKC.
    #[test]
    fn invariant_lexicon_file_is_nfkc() {
        for line in SOURCE.lines() {
            assert_eq!(normalize(line), line, "not NFKC: {line}");
        }
    }

    const LEARNED_SOURCE: &str = include_str!("learned_pairs.txt");

    /// The learned pairs of `learned_pairs.txt` as (q, t), in file order.
    fn learned_pairs() -> Vec<(&'static str, &'static str)> {
        LEARNED_SOURCE
            .lines()
            .filter(|line| !line.is_empty() && !line.starts_with('#'))
            .map(|line| line.split_once(" | ").expect("q | t"))
            .collect()
    }

    /// `build.rs` only lower-cases the learned pairs too, and groups each `q`'s run.
    #[test]
    fn invariant_learned_pairs_are_nfkc_lower_case_and_sorted() {
        let pairs = learned_pairs();
        assert!(pairs.len() > 1000, "{} pairs", pairs.len());
        for (q, t) in &pairs {
            for text in [q, t] {
                assert_eq!(normalize(text), *text, "not NFKC: {text}");
                assert_eq!(text.to_lowercase(), *text, "not lower case: {text}");
                assert_ne!(text.trim(), "", "empty phrase");
            }
        }
        assert!(pairs.windows(2).all(|w| w[0] < w[1]), "sorted, no repeats");
    }

    /// The trigger index finds exactly the pairs whose `q` a full scan finds (matched like a
    /// lexicon phrase), and offers their `t`s, never a `t` as a trigger.
    #[test]
    fn invariant_learned_trigger_index_equals_full_scan() {
        let pairs = LearnedPairs::builtin();
        let listed = learned_pairs();
        for text in [
            "帮我看看这条群消息谁还没读",
            "Which of my tasks are overdue?",
            "把日程推迟到明天，再发个通知",
            "tell the warehouse group the stock count is finished",
            "accepted offers: who starts next week?",
            "撤回 recall 钉盘 drive",
            "",
        ] {
            let query = PreparedQuery::new(text);
            let mut scanned: Vec<&str> = listed
                .iter()
                .filter(|(q, _)| {
                    let form = owned_form(q);
                    let phrase = match &form {
                        Form::Text(t) => Phrase::Text(t),
                        Form::Words(w) => Phrase::Words(w),
                    };
                    query.contains(phrase, false)
                })
                .map(|(_, t)| *t)
                .collect();
            scanned.sort_unstable();
            scanned.dedup();
            let mut found: Vec<&str> = pairs
                .expansion(&query)
                .into_iter()
                .map(|id| pairs.text(id))
                .collect();
            found.sort_unstable();
            assert_eq!(found, scanned, "{text}");
            if !text.is_empty() && text.is_ascii() {
                assert!(!found.is_empty(), "{text}: no learned pair fired");
            }
        }
    }

    /// Only `q` triggers: a request holding only a pair's `t` gets nothing from that pair.
    #[test]
    fn learned_pairs_are_one_way() {
        let pairs = LearnedPairs::builtin();
        let (q, t) = learned_pairs()
            .into_iter()
            .find(|(q, t)| {
                q.is_ascii() && t.is_ascii() && !learned_pairs().iter().any(|(q2, _)| q2 == t)
            })
            .expect("an English pair whose t is no q");
        let found = |text: &str| -> Vec<&str> {
            pairs
                .expansion(&PreparedQuery::new(text))
                .into_iter()
                .map(|id| pairs.text(id))
                .collect()
        };
        assert!(found(q).contains(&t), "{q} -> {t}");
        assert!(!found(t).contains(&q), "{t} must not bring {q}");
    }

    /// `build.rs` and `eval --param learned_pairs=FILE` read a pairs file with one parser: the
    /// compiled tables equal a parse of the shipped file at run time.
    #[test]
    fn invariant_compiled_learned_pairs_equal_a_parse_of_the_file() {
        let parsed = super::super::learned::parse(LEARNED_SOURCE).expect("the shipped file parses");
        assert_eq!(
            format!("{:?}", LearnedPairs::builtin()),
            format!("{:?}", LearnedPairs::of(&parsed))
        );
    }

    #[test]
    fn a_bad_pairs_file_is_an_error_naming_the_line() {
        let parse = super::super::learned::parse;
        assert!(parse("b | x\na | y\n").unwrap_err().contains("line 2"));
        assert!(parse("# note\nq t\n").unwrap_err().contains("line 2"));
        assert!(parse("群 | 会话\n").unwrap_err().contains("two characters"));
        let tables = parse("# note\n\nbot | 机器人\nbot | robot\n群聊 | 会话\n").expect("parses");
        let pairs = LearnedPairs::of(&tables);
        let found: Vec<&str> = pairs
            .expansion(&PreparedQuery::new("add the bot to 群聊"))
            .into_iter()
            .map(|id| pairs.text(id))
            .collect();
        assert_eq!(found, ["机器人", "robot", "会话"]);
    }

    fn owned_form(text: &str) -> Form {
        forms::form(&normalize(text).to_lowercase())
    }

    fn owned(phrase: Phrase<'_>) -> Form {
        match phrase {
            Phrase::Text(text) => Form::Text(text.to_string()),
            Phrase::Words(words) => Form::Words(words.to_string()),
        }
    }

    /// The compiled tables hold exactly what parsing `lexicon.txt` at run time gives: every
    /// group's phrases (form and text as written) in file order, every cue list, the change
    /// and creation cues (the phrases of the groups their `!…-groups` lines name), and the
    /// destructive synonyms (the longer phrases of a group headed by a destructive cue).
    #[test]
    fn invariant_compiled_lexicon_equals_a_parse_of_the_file() {
        let form = |p: &str| forms::form(&normalize(p).to_lowercase());
        let mut groups: Vec<Vec<(Form, String)>> = Vec::new();
        let mut lists: std::collections::BTreeMap<&str, Vec<Form>> = Default::default();
        for line in SOURCE.lines().map(str::trim) {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if let Some((name, cues)) = line.strip_prefix('!').and_then(|l| l.split_once(' ')) {
                let list = lists.entry(name).or_default();
                list.extend(
                    cues.split('|')
                        .map(str::trim)
                        .filter(|c| !c.is_empty())
                        .map(form),
                );
                continue;
            }
            let group: Vec<(Form, String)> = line
                .split('|')
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .map(|p| (form(p), p.to_string()))
                .collect();
            if group.len() > 1 {
                groups.push(group);
            }
        }
        let lexicon = Lexicon::builtin();
        let compiled: Vec<Vec<(Form, String)>> = (0..lexicon.group_count())
            .map(|g| {
                lexicon
                    .group(g)
                    .iter()
                    .map(|e| (owned(Phrase::compiled(e)), lexicon.text(e[3]).to_string()))
                    .collect()
            })
            .collect();
        assert_eq!(compiled, groups);
        let list = |table: &'static [[u32; 3]]| cues(table).map(owned).collect::<Vec<_>>();
        assert_eq!(list(&compiled::DESTRUCTIVE), lists["destructive"]);
        assert_eq!(list(&compiled::READ), lists["read"]);
        assert_eq!(list(&compiled::WRITE), lists["write"]);
        assert_eq!(list(&compiled::KEEP), lists["keep"]);
        // A `!…-groups` line names group heads; its cues are those groups' phrases, group by
        // group in the line's order, each text once.
        let phrases_of_groups = |name: &str| {
            let mut texts: Vec<&str> = Vec::new();
            let mut forms: Vec<Form> = Vec::new();
            for head in &lists[name] {
                let group = groups
                    .iter()
                    .find(|g| g[0].0 == *head)
                    .unwrap_or_else(|| panic!("!{name}: no group headed {head:?}"));
                for (form, text) in group {
                    if !texts.contains(&text.as_str()) {
                        texts.push(text);
                        forms.push(form.clone());
                    }
                }
            }
            forms
        };
        assert_eq!(list(&compiled::CHANGE), phrases_of_groups("change-groups"));
        assert_eq!(list(&compiled::CREATE), phrases_of_groups("create-groups"));
        assert_eq!(lists["change-groups"].len(), 3);
        assert_eq!(lists["create-groups"].len(), 5);
        assert_eq!(lists.len(), 6, "an unknown cue list: {:?}", lists.keys());
        let destructive = &lists["destructive"];
        let mut synonyms: Vec<Form> = Vec::new();
        for group in groups.iter().filter(|g| destructive.contains(&g[0].0)) {
            for (p, _) in group {
                let long = !matches!(p, Form::Text(t) if t.chars().count() < 2);
                if long && !destructive.contains(p) && !synonyms.contains(p) {
                    synonyms.push(p.clone());
                }
            }
        }
        assert!(!synonyms.is_empty());
        assert_eq!(list(&compiled::DESTRUCTIVE_SYNONYMS), synonyms);
        // Every word of a word phrase, of the groups and the cue lists, sorted and unique.
        let mut words: Vec<&str> = groups
            .iter()
            .flatten()
            .map(|(form, _)| form)
            .chain(lists.values().flatten())
            .filter_map(|form| match form {
                Form::Words(words) => Some(words.split(' ')),
                Form::Text(_) => None,
            })
            .flatten()
            .collect();
        words.sort_unstable();
        words.dedup();
        assert_eq!(compiled::WORDS.to_vec(), words);
        // Text ids: each distinct text once, in first-seen order.
        let mut texts: Vec<&str> = Vec::new();
        for (_, text) in groups.iter().flatten() {
            if !texts.contains(&text.as_str()) {
                texts.push(text);
            }
        }
        let ids: Vec<&str> = (0..lexicon.text_count() as u32)
            .map(|id| lexicon.text(id))
            .collect();
        assert_eq!(ids, texts);
        assert_eq!(lexicon.text(u32::MAX), "");
    }
}
