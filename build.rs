//! Embeds the repository's `catalog/*.json` into the binary (sorted by file name).
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

#[path = "src/text/forms.rs"]
mod forms;
#[path = "src/text/learned.rs"]
mod learned;
#[path = "src/retrieve/weak_model.rs"]
mod weak_model;

fn main() {
    let manifest =
        PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let catalog_dir = manifest.join("catalog");
    println!("cargo:rerun-if-changed={}", catalog_dir.display());
    let mut files: Vec<PathBuf> = std::fs::read_dir(&catalog_dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "json"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    let mut code = String::from("/// The repository's `catalog/*.json`, embedded at build time: (file name, text).\npub const EMBEDDED_CATALOG: &[(&str, &str)] = &[\n");
    for file in &files {
        println!("cargo:rerun-if-changed={}", file.display());
        let name = file
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("catalog.json");
        writeln!(
            code,
            "    ({name:?}, include_str!({:?})),",
            file.display().to_string()
        )
        .expect("write to String");
    }
    code.push_str("];\n");
    writeln!(
        code,
        "/// Fingerprint of every input of the prepared index (see `prepared`).\npub const EMBEDDED_FINGERPRINT: &str = {:?};",
        fingerprint(&manifest, &files)
    )
    .expect("write to String");
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(out_dir.join("embedded_catalog.rs"), code).expect("write embedded_catalog.rs");
    han_dictionary(&manifest, &out_dir);
    lexicon(&manifest, &out_dir);
    learned_pairs(&manifest, &out_dir);
    weak_tables(&manifest, &out_dir);
}

/// Compiles the learned tree models into static tables and one `retrieve::weak::TreeModel` each
/// (`weak_tables.rs`, read by `retrieve::weak`): `src/retrieve/weak_model.txt` (docs/adr/0006's learned flag, prefix `WEAK`),
/// `src/retrieve/sure_model.txt` (docs/adr/0018's sure answer, prefix `SURE`) and
/// `src/retrieve/tail_model.txt` (docs/adr/0019's tempting tail, prefix `TAIL`), each parsed by
/// `weak_model::parse`, which a test also runs on the same files at run time.
fn weak_tables(manifest: &std::path::Path, out_dir: &std::path::Path) {
    let mut code = String::new();
    for (file, prefix, features) in [
        ("weak_model.txt", "WEAK", weak_model::N_FEATURES),
        ("sure_model.txt", "SURE", weak_model::N_FEATURES),
        ("tail_model.txt", "TAIL", weak_model::N_TAIL_FEATURES),
    ] {
        let path = manifest.join("src/retrieve").join(file);
        println!("cargo:rerun-if-changed={}", path.display());
        let source = std::fs::read_to_string(&path).expect("read a tree model");
        let model = weak_model::parse(&source, features)
            .unwrap_or_else(|message| panic!("{file}: {message}"));
        writeln!(
            code,
            "/// Every tree's nodes, tree after tree.\npub static {prefix}_NODES: &[Node] = &["
        )
        .expect("write");
        for node in &model.nodes {
            writeln!(
                code,
                "    Node {{ value: {:?}, feature: {}, left: {}, right: {}, missing_left: {} }},",
                node.value, node.feature, node.left, node.right, node.missing_left
            )
            .expect("write");
        }
        code.push_str("];\n");
        table(
            &mut code,
            &format!("Where each tree starts in `{prefix}_NODES`."),
            &format!("{prefix}_TREE_STARTS"),
            1,
            &model.tree_starts,
        );
        writeln!(
            code,
            "/// The model `src/retrieve/{file}` holds.\npub static {prefix}: TreeModel = TreeModel {{ source_hash: {:?}, threshold: {:?}, baseline: {:?}, nodes: {prefix}_NODES, tree_starts: &{prefix}_TREE_STARTS }};",
            model.source_hash, model.threshold, model.baseline
        )
        .expect("write");
    }
    std::fs::write(out_dir.join("weak_tables.rs"), code).expect("write weak_tables.rs");
}

/// Compiles `src/text/han_words.txt` + `src/text/domain_words.txt` into a sorted static table
/// (`han_dictionary.rs`), so no process ever parses the dictionary at start-up.
/// A word listed twice keeps its last frequency, and the total is the sum over distinct words:
/// the loading rules of jieba, whose segmentation `text::han` reproduces.
fn han_dictionary(manifest: &std::path::Path, out_dir: &std::path::Path) {
    let mut words: BTreeMap<String, u64> = BTreeMap::new();
    for file in ["src/text/han_words.txt", "src/text/domain_words.txt"] {
        let path = manifest.join(file);
        println!("cargo:rerun-if-changed={}", path.display());
        let text = std::fs::read_to_string(&path).expect("read the Han dictionary");
        for line in text.lines() {
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            let mut parts = line.split_whitespace();
            let word = parts.next().expect("a word");
            let freq: u64 = parts
                .next()
                .map_or(0, |f| f.parse().expect("a numeric frequency"));
            words.insert(word.to_string(), freq);
        }
    }
    let total: u64 = words.values().sum();
    let max_chars = words.keys().map(|w| w.chars().count()).max().unwrap_or(1);
    let mut code = String::new();
    // One string and offsets rather than an array of `&str`: no relocation per word at start-up.
    let mut text = String::new();
    let mut offsets = Vec::with_capacity(words.len() + 1);
    for word in words.keys() {
        offsets.push(text.len());
        text.push_str(word);
    }
    offsets.push(text.len());
    writeln!(
        code,
        "/// Dictionary words, sorted by their UTF-8 bytes, concatenated."
    )
    .expect("write");
    writeln!(code, "pub static WORD_TEXT: &str = {text:?};").expect("write");
    let as_u32 = |n: u64| u32::try_from(n).expect("a dictionary figure fits in u32");
    code.push_str("#[cfg(test)]\n");
    table(
        &mut code,
        "Start of each word in `WORD_TEXT`, plus the end (tests list the words with it).",
        "WORD_OFFSETS",
        1,
        &offsets
            .iter()
            .map(|&o| as_u32(o as u64))
            .collect::<Vec<_>>(),
    );
    table(
        &mut code,
        "Frequencies, one per word.",
        "FREQS",
        1,
        &words.values().map(|&f| as_u32(f)).collect::<Vec<_>>(),
    );
    // Every word and every proper prefix of a word (at character boundaries) in an
    // open-addressing table keyed by `han_key_hash` (FNV-1a), so the DAG extends a prefix by
    // one character with one hash step and (mostly) one probe, as jieba's prefix dictionary does.
    let mut keys: BTreeMap<&str, u32> = BTreeMap::new();
    for (idx, word) in words.keys().enumerate() {
        for (end, _) in word.char_indices().skip(1) {
            keys.entry(&word[..end]).or_insert(0);
        }
        keys.insert(word, idx as u32 + 1);
    }
    let sorted: Vec<&str> = words.keys().map(String::as_str).collect();
    let slots = (keys.len() * 2).next_power_of_two();
    let mut table = vec![0u64; slots];
    for (key, word) in &keys {
        // A key's text is a prefix of some word: its first word in sorted order.
        let first = sorted.partition_point(|w| w < key);
        assert!(sorted[first].starts_with(key));
        let start = offsets[first] as u64;
        let meta = (key.len() as u64) << 24 | u64::from(*word);
        let mut slot = han_key_hash(key.as_bytes()) as usize & (slots - 1);
        while table[slot] != 0 {
            slot = (slot + 1) & (slots - 1);
        }
        table[slot] = start | meta << 32;
    }
    let mut blob = Vec::with_capacity(slots * 8);
    for entry in &table {
        blob.extend_from_slice(&entry.to_le_bytes());
    }
    std::fs::write(out_dir.join("han_keys.bin"), blob).expect("write han_keys.bin");
    writeln!(
        code,
        "/// Words and word prefixes, {slots} slots of 8 little-endian bytes (see `build.rs`)."
    )
    .expect("write");
    writeln!(
        code,
        "pub static KEYS: &[u8] = include_bytes!(concat!(env!(\"OUT_DIR\"), \"/han_keys.bin\"));"
    )
    .expect("write");
    writeln!(code, "/// Number of slots of `KEYS` (a power of two).").expect("write");
    writeln!(code, "pub const KEY_SLOTS: usize = {slots};").expect("write");
    writeln!(
        code,
        "/// Sum of all frequencies.\npub const TOTAL: u64 = {total};"
    )
    .expect("write");
    writeln!(
        code,
        "/// Length of the longest word, in characters.\npub const MAX_CHARS: usize = {max_chars};"
    )
    .expect("write");
    std::fs::write(out_dir.join("han_dictionary.rs"), code).expect("write han_dictionary.rs");
}

/// Compiles `src/text/lexicon.txt` into static tables (`lexicon.rs`, read by `text::lexicon`),
/// so no process parses the lexicon at start-up (docs/adr/0007). The file is NFKC already (a
/// test checks), so lower-casing and [`forms::form`] give each phrase's matchable form.
/// Tables, all plain integers into two strings (no relocation at start-up):
/// - `FORMS`: every distinct form once; a phrase is `[start, end, kind]` (0 text, 1 words);
/// - `PHRASES`: each group's phrases in file order, `[start, end, kind, text id]`, and
///   `GROUP_ENDS`: the end of each group there;
/// - `TEXTS` / `TEXT_ENDS`: every distinct phrase as written, in first-seen order;
/// - the cue lists of the `!` lines; `CHANGE` and `CREATE`: the phrases of the groups their
///   `!…-groups` lines name by head; and `DESTRUCTIVE_SYNONYMS`: the phrases (of two
///   characters or more) of each group headed by a destructive cue that are not cues
///   themselves;
/// - `HAN_TRIGGERS` `[first char, group, phrase]` (text phrases of two characters or more) and
///   `WORD_TRIGGERS` `[first word start, end, group, phrase]`, sorted for binary search, and
///   `HAN_TRIGGER_BITS`: one bit per BMP character that starts a Han trigger;
/// - `ALONE_TRIGGERS` `[char, group]`: the one-character Han phrases, sorted, which touch their
///   group only when the query's segmentation cuts them as a word of their own.
fn lexicon(manifest: &std::path::Path, out_dir: &std::path::Path) {
    let path = manifest.join("src/text/lexicon.txt");
    println!("cargo:rerun-if-changed={}", path.display());
    let source = std::fs::read_to_string(&path).expect("read the lexicon");
    let mut forms = Forms::default();
    let (lists, groups) = parse_lexicon(&source, &mut forms);
    let list = |name: &str| lists.get(name).cloned().unwrap_or_default();
    let synonyms = destructive_synonyms(&groups, &list("destructive"), &forms);
    let change = phrases_of_groups(&groups, &list("change-groups"));
    let create = phrases_of_groups(&groups, &list("create-groups"));

    let mut code = String::new();
    let (texts, text_ids) = texts(&groups);
    let text_ends: Vec<u32> = texts
        .iter()
        .scan(0u32, |end, text| {
            *end += text.len() as u32;
            Some(*end)
        })
        .collect();
    writeln!(
        code,
        "/// Every distinct phrase form, concatenated.\npub static FORMS: &str = {:?};",
        forms.text
    )
    .expect("write");
    writeln!(
        code,
        "/// Every distinct phrase text as written, concatenated.\npub static TEXTS: &str = {:?};",
        texts.concat()
    )
    .expect("write");
    table(
        &mut code,
        "End of each text in `TEXTS`.",
        "TEXT_ENDS",
        1,
        &text_ends,
    );

    let mut phrases: Vec<u32> = Vec::new();
    let mut group_ends: Vec<u32> = Vec::new();
    for group in &groups {
        for (p, text) in group {
            phrases.extend([p[0], p[1], p[2], text_ids[text]]);
        }
        group_ends.push((phrases.len() / 4) as u32);
    }
    table(
        &mut code,
        "Each group's phrases: `[start, end, kind, text id]`.",
        "PHRASES",
        4,
        &phrases,
    );
    table(
        &mut code,
        "End of each group in `PHRASES`.",
        "GROUP_ENDS",
        1,
        &group_ends,
    );
    for (name, cues) in [
        ("DESTRUCTIVE", list("destructive")),
        ("READ", list("read")),
        ("WRITE", list("write")),
        ("KEEP", list("keep")),
        ("CHANGE", change),
        ("CREATE", create),
        ("DESTRUCTIVE_SYNONYMS", synonyms),
    ] {
        let cues: Vec<u32> = cues.concat();
        table(
            &mut code,
            "A cue list: `[start, end, kind]`.",
            name,
            3,
            &cues,
        );
    }
    triggers(&mut code, &groups, &forms);
    let words: std::collections::BTreeSet<&str> = forms
        .interned
        .keys()
        .filter_map(|form| match form {
            forms::Form::Words(words) => Some(words.split(' ')),
            forms::Form::Text(_) => None,
        })
        .flatten()
        .collect();
    writeln!(
        code,
        "/// Every word of a word phrase (groups and cue lists), sorted.\npub static WORDS: [&str; {}] = {:?};",
        words.len(),
        words.iter().collect::<Vec<_>>()
    )
    .expect("write");
    std::fs::write(out_dir.join("lexicon.rs"), code).expect("write lexicon.rs");
}

/// Compiles `src/text/learned_pairs.txt` (docs/adr/0015) into static tables (`learned_tables.rs`,
/// read by `text::lexicon`), apart from the lexicon's groups: the tables of
/// [`learned::Tables`], parsed by the same code `eval --param learned_pairs=FILE` runs.
fn learned_pairs(manifest: &std::path::Path, out_dir: &std::path::Path) {
    let path = manifest.join("src/text/learned_pairs.txt");
    println!("cargo:rerun-if-changed={}", path.display());
    let source = std::fs::read_to_string(&path).expect("read the learned pairs");
    let tables =
        learned::parse(&source).unwrap_or_else(|message| panic!("learned_pairs.txt: {message}"));
    let mut code = String::new();
    writeln!(
        code,
        "/// Every `q`'s matchable form, concatenated.\npub static LEARNED_FORMS: &str = {:?};\n/// Every distinct `t` as written, concatenated.\npub static LEARNED_TEXTS: &str = {:?};",
        tables.forms, tables.texts
    )
    .expect("write");
    table(
        &mut code,
        "End of each form in `LEARNED_FORMS`.",
        "LEARNED_FORM_ENDS",
        1,
        &tables.form_ends,
    );
    table(
        &mut code,
        "End of each text in `LEARNED_TEXTS`.",
        "LEARNED_TEXT_ENDS",
        1,
        &tables.text_ends,
    );
    table(
        &mut code,
        "Each `q`'s `t` text ids.",
        "LEARNED_TARGETS",
        1,
        &tables.targets,
    );
    table(
        &mut code,
        "End of each `q`'s run in `LEARNED_TARGETS`.",
        "LEARNED_TARGET_ENDS",
        1,
        &tables.target_ends,
    );
    let han: Vec<u32> = tables.han.concat();
    table(
        &mut code,
        "`[first char, q]` of text forms, sorted.",
        "LEARNED_HAN",
        2,
        &han,
    );
    let words: Vec<u32> = tables.words.concat();
    table(
        &mut code,
        "`[form start, end, q]` of word forms, sorted by word.",
        "LEARNED_WORDS",
        3,
        &words,
    );
    std::fs::write(out_dir.join("learned_tables.rs"), code).expect("write learned_tables.rs");
}

/// A phrase's interned form: `[start, end, kind]` in [`Forms::text`].
type FormRef = [u32; 3];

/// Every distinct phrase form, interned into one string.
#[derive(Default)]
struct Forms {
    text: String,
    interned: BTreeMap<forms::Form, FormRef>,
}

impl Forms {
    fn intern(&mut self, phrase: &str) -> FormRef {
        let form = forms::form(&phrase.to_lowercase());
        if let Some(&at) = self.interned.get(&form) {
            return at;
        }
        let (body, kind) = match &form {
            forms::Form::Text(t) => (t, 0),
            forms::Form::Words(w) => (w, 1),
        };
        let start = self.text.len() as u32;
        self.text.push_str(body);
        let at = [start, self.text.len() as u32, kind];
        self.interned.insert(form, at);
        at
    }

    fn get(&self, at: &FormRef) -> &str {
        &self.text[at[0] as usize..at[1] as usize]
    }

    /// A text phrase of one character: it triggers its group only as a word of its own.
    fn is_short(&self, at: &FormRef) -> bool {
        at[2] == 0 && self.get(at).chars().count() < 2
    }
}

/// A lexicon group: its phrases' forms and texts as written, in file order.
type Group<'a> = Vec<(FormRef, &'a str)>;

/// The cue lists (`!name` lines) and the groups (two phrases or more) of `lexicon.txt`.
fn parse_lexicon<'a>(
    source: &'a str,
    forms: &mut Forms,
) -> (BTreeMap<&'a str, Vec<FormRef>>, Vec<Group<'a>>) {
    let mut lists: BTreeMap<&str, Vec<FormRef>> = BTreeMap::new();
    let mut groups: Vec<Group<'a>> = Vec::new();
    for line in source.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let phrases = |text: &'a str| text.split('|').map(str::trim).filter(|p| !p.is_empty());
        if let Some(rest) = line.strip_prefix('!') {
            let (name, cues) = rest.split_once(' ').unwrap_or((rest, ""));
            assert!(
                matches!(
                    name,
                    "destructive" | "read" | "write" | "keep" | "change-groups" | "create-groups"
                ),
                "lexicon.txt: unknown cue list !{name}"
            );
            let list = lists.entry(name).or_default();
            list.extend(phrases(cues).map(|cue| forms.intern(cue)));
            continue;
        }
        let group: Group<'a> = phrases(line).map(|p| (forms.intern(p), p)).collect();
        if group.len() > 1 {
            groups.push(group);
        }
    }
    (lists, groups)
}

/// The phrases (of two characters or more) of every group headed by a destructive cue that
/// are not cues themselves, each once, in file order.
fn destructive_synonyms(
    groups: &[Group<'_>],
    destructive: &[FormRef],
    forms: &Forms,
) -> Vec<FormRef> {
    let mut synonyms: Vec<FormRef> = Vec::new();
    for group in groups.iter().filter(|g| destructive.contains(&g[0].0)) {
        for (p, _) in group {
            if !forms.is_short(p) && !destructive.contains(p) && !synonyms.contains(p) {
                synonyms.push(*p);
            }
        }
    }
    synonyms
}

/// The phrases of the groups headed by `heads`, group by group in the order of `heads`, each
/// text once (a `!…-groups` line: the cues are the groups' own phrases, written once).
fn phrases_of_groups(groups: &[Group<'_>], heads: &[FormRef]) -> Vec<FormRef> {
    let mut texts: Vec<&str> = Vec::new();
    let mut phrases: Vec<FormRef> = Vec::new();
    for head in heads {
        let group = groups
            .iter()
            .find(|g| g[0].0 == *head)
            .expect("lexicon.txt: a !…-groups line names no group's head");
        for &(p, text) in group {
            if !texts.contains(&text) {
                texts.push(text);
                phrases.push(p);
            }
        }
    }
    phrases
}

/// Every distinct phrase text of the groups in first-seen order, and each one's id.
fn texts<'a>(groups: &[Group<'a>]) -> (Vec<&'a str>, BTreeMap<&'a str, u32>) {
    let mut texts: Vec<&str> = Vec::new();
    let mut ids: BTreeMap<&str, u32> = BTreeMap::new();
    for &(_, text) in groups.iter().flatten() {
        ids.entry(text).or_insert_with(|| {
            texts.push(text);
            texts.len() as u32 - 1
        });
    }
    (texts, ids)
}

/// Writes `HAN_TRIGGERS`, `WORD_TRIGGERS`, `HAN_TRIGGER_BITS` and `ALONE_TRIGGERS`: which
/// phrases can start a match at a query character or word.
fn triggers(code: &mut String, groups: &[Group<'_>], forms: &Forms) {
    let mut han: Vec<(char, u32, u32)> = Vec::new();
    let mut alone: Vec<(char, u32)> = Vec::new();
    let mut words: Vec<(&str, u32, u32, u32, u32)> = Vec::new();
    let mut phrase = 0u32;
    for (g, group) in groups.iter().enumerate() {
        for (p, _) in group {
            let form = forms.get(p);
            if p[2] == 1 {
                let first = form.split(' ').next().unwrap_or(form);
                words.push((first, p[0], p[0] + first.len() as u32, g as u32, phrase));
            } else if !forms.is_short(p) {
                let first = form.chars().next().expect("a text phrase is not empty");
                han.push((first, g as u32, phrase));
            } else if let Some(ch) = form.chars().next().filter(|&c| forms::is_han(c)) {
                alone.push((ch, g as u32));
            }
            phrase += 1;
        }
    }
    han.sort_by_key(|&(ch, _, idx)| (ch, idx));
    words.sort_by_key(|&(word, _, _, _, idx)| (word, idx));
    let han_rows: Vec<u32> = han.iter().flat_map(|&(c, g, i)| [c as u32, g, i]).collect();
    let word_rows: Vec<u32> = words
        .iter()
        .flat_map(|&(_, s, e, g, i)| [s, e, g, i])
        .collect();
    table(
        code,
        "`[first char, group, phrase]`, sorted.",
        "HAN_TRIGGERS",
        3,
        &han_rows,
    );
    table(
        code,
        "`[first word start, end, group, phrase]`, sorted by word.",
        "WORD_TRIGGERS",
        4,
        &word_rows,
    );
    alone.sort_unstable();
    alone.dedup();
    let alone_rows: Vec<u32> = alone.iter().flat_map(|&(c, g)| [c as u32, g]).collect();
    table(
        code,
        "`[char, group]`: one-character Han phrases, sorted.",
        "ALONE_TRIGGERS",
        2,
        &alone_rows,
    );
    // One bit per character of the Basic Multilingual Plane: set when some trigger starts with
    // it, so most query characters skip the binary search.
    let mut bits = vec![0u64; 1024];
    for &(ch, _, _) in &han {
        if let Some(slot) = bits.get_mut(ch as usize / 64) {
            *slot |= 1 << (ch as usize % 64);
        }
    }
    writeln!(
        code,
        "/// Bit `c` set: a `HAN_TRIGGERS` entry starts with BMP character `c`.\npub static HAN_TRIGGER_BITS: [u64; 1024] = {bits:?};"
    )
    .expect("write");
}

/// Writes a static table of `cells`, `width` integers per row (1: a plain list of `u32`).
fn table(code: &mut String, doc: &str, name: &str, width: usize, cells: &[u32]) {
    assert_eq!(cells.len() % width, 0, "{name}: rows of {width}");
    writeln!(code, "/// {doc}").expect("write");
    let rows = cells.len() / width;
    if width == 1 {
        writeln!(code, "pub static {name}: [u32; {rows}] = [").expect("write");
    } else {
        writeln!(code, "pub static {name}: [[u32; {width}]; {rows}] = [").expect("write");
    }
    for row in cells.chunks(width) {
        let row: Vec<String> = row.iter().map(u32::to_string).collect();
        if width == 1 {
            writeln!(code, "    {},", row.join(", ")).expect("write");
        } else {
            writeln!(code, "    [{}],", row.join(", ")).expect("write");
        }
    }
    code.push_str("];\n");
}

/// FNV-1a (32 bit) of a dictionary key; `text::fnv1a` (`text::han`) must compute the same.
fn han_key_hash(bytes: &[u8]) -> u32 {
    let mut hash: u32 = 0x811c_9dc5;
    for &byte in bytes {
        hash ^= u32::from(byte);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    hash
}

/// The sources the prepared index of the embedded catalog depends on, besides the catalog.
const INDEX_INPUTS: &[&str] = &[
    "src/index.rs",
    "src/retrieve.rs",
    "src/retrieve/config.rs",
    "src/text.rs",
    "src/text/forms.rs",
    "src/text/han.rs",
    "src/text/han_words.txt",
    "src/text/domain_words.txt",
];

/// FNV-1a (64 bit) over the catalog files and the index inputs, names and bytes: any edit to
/// them makes `catalog/prepared.bin` stale, and a stale snapshot is never used. Whole-line
/// `//` comments of the Rust inputs are left out (they cannot change an index), so editing a
/// doc comment does not force a new snapshot.
fn fingerprint(manifest: &std::path::Path, catalog_files: &[PathBuf]) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |bytes: &[u8]| {
        for &byte in bytes {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    };
    let inputs = catalog_files
        .iter()
        .cloned()
        .chain(INDEX_INPUTS.iter().map(|p| manifest.join(p)));
    for path in inputs {
        println!("cargo:rerun-if-changed={}", path.display());
        let name = path
            .strip_prefix(manifest)
            .unwrap_or(&path)
            .display()
            .to_string();
        feed(name.as_bytes());
        feed(&[0]);
        let bytes = std::fs::read(&path).expect("read an index input");
        if path.extension().is_some_and(|e| e == "rs") {
            for line in bytes.split(|&b| b == b'\n') {
                if !line.trim_ascii_start().starts_with(b"//") {
                    feed(line);
                    feed(b"\n");
                }
            }
        } else {
            feed(&bytes);
        }
        feed(&[0]);
    }
    format!("fnv64:{hash:016x}")
}
