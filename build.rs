//! Embeds the repository's `catalog/*.json` into the binary (sorted by file name).
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

#[path = "src/text/forms.rs"]
mod forms;

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
    writeln!(
        code,
        "/// Start of each word in `WORD_TEXT`, plus the end (tests list the words with it).\n#[cfg(test)]"
    )
    .expect("write");
    writeln!(
        code,
        "pub static WORD_OFFSETS: [u32; {}] = [",
        offsets.len()
    )
    .expect("write");
    for offset in &offsets {
        writeln!(code, "    {offset},").expect("write");
    }
    code.push_str("];\n");
    writeln!(code, "/// Frequencies, one per word.").expect("write");
    writeln!(code, "pub static FREQS: [u32; {}] = [", words.len()).expect("write");
    for freq in words.values() {
        writeln!(code, "    {freq},").expect("write");
    }
    code.push_str("];\n");
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
/// - the cue lists of the `!` lines, and `DESTRUCTIVE_SYNONYMS`: the phrases (of two characters
///   or more) of each group headed by a destructive cue that are not cues themselves;
/// - `HAN_TRIGGERS` `[first char, group, phrase]` (text phrases of two characters or more) and
///   `WORD_TRIGGERS` `[first word start, end, group, phrase]`, sorted for binary search.
fn lexicon(manifest: &std::path::Path, out_dir: &std::path::Path) {
    use forms::Form;
    let path = manifest.join("src/text/lexicon.txt");
    println!("cargo:rerun-if-changed={}", path.display());
    let source = std::fs::read_to_string(&path).expect("read the lexicon");
    let mut forms = String::new();
    let mut interned: BTreeMap<Form, [u32; 3]> = BTreeMap::new();
    let mut intern = |text: &str| -> [u32; 3] {
        let form = forms::form(&text.to_lowercase());
        *interned.entry(form.clone()).or_insert_with(|| {
            let (body, kind) = match &form {
                Form::Text(t) => (t, 0),
                Form::Words(w) => (w, 1),
            };
            let start = forms.len() as u32;
            forms.push_str(body);
            [start, forms.len() as u32, kind]
        })
    };
    let mut lists: BTreeMap<&str, Vec<[u32; 3]>> = BTreeMap::new();
    let mut groups: Vec<Vec<([u32; 3], &str)>> = Vec::new();
    for line in source.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(rest) = line.strip_prefix('!') {
            let (name, cues) = rest.split_once(' ').unwrap_or((rest, ""));
            assert!(
                matches!(name, "destructive" | "read" | "write" | "keep"),
                "lexicon.txt: unknown cue list !{name}"
            );
            let list = lists.entry(name).or_default();
            for cue in cues.split('|').map(str::trim).filter(|c| !c.is_empty()) {
                list.push(intern(cue));
            }
            continue;
        }
        let group: Vec<([u32; 3], &str)> = line
            .split('|')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(|p| (intern(p), p))
            .collect();
        if group.len() > 1 {
            groups.push(group);
        }
    }
    let list = |name: &str| lists.get(name).cloned().unwrap_or_default();
    let destructive = list("destructive");
    let is_short =
        |p: &[u32; 3]| p[2] == 0 && forms[p[0] as usize..p[1] as usize].chars().count() < 2;
    let mut synonyms: Vec<[u32; 3]> = Vec::new();
    for group in groups.iter().filter(|g| destructive.contains(&g[0].0)) {
        for (p, _) in group {
            if !is_short(p) && !destructive.contains(p) && !synonyms.contains(p) {
                synonyms.push(*p);
            }
        }
    }
    let mut texts = String::new();
    let mut text_ends: Vec<u32> = Vec::new();
    let mut text_ids: BTreeMap<&str, u32> = BTreeMap::new();
    let mut phrases: Vec<[u32; 4]> = Vec::new();
    let mut group_ends: Vec<u32> = Vec::new();
    let mut han_triggers: Vec<(char, u32, u32)> = Vec::new();
    let mut word_triggers: Vec<(&str, u32, u32, u32, u32)> = Vec::new();
    for (g, group) in groups.iter().enumerate() {
        for &(p, text) in group {
            let id = *text_ids.entry(text).or_insert_with(|| {
                texts.push_str(text);
                text_ends.push(texts.len() as u32);
                text_ends.len() as u32 - 1
            });
            let idx = phrases.len() as u32;
            phrases.push([p[0], p[1], p[2], id]);
            let form = &forms[p[0] as usize..p[1] as usize];
            if p[2] == 1 {
                let first = form.split(' ').next().unwrap_or(form);
                word_triggers.push((first, p[0], p[0] + first.len() as u32, g as u32, idx));
            } else if !is_short(&p) {
                let first = form.chars().next().expect("a text phrase is not empty");
                han_triggers.push((first, g as u32, idx));
            }
        }
        group_ends.push(phrases.len() as u32);
    }
    han_triggers.sort_by_key(|&(ch, _, idx)| (ch, idx));
    word_triggers.sort_by_key(|&(word, _, _, _, idx)| (word, idx));

    let mut code = String::new();
    // A table of `width` integers per row (1: a plain list).
    let table = |code: &mut String, doc: &str, name: &str, width: usize, rows: &[Vec<u32>]| {
        writeln!(code, "/// {doc}").expect("write");
        if width == 1 {
            writeln!(code, "pub static {name}: [u32; {}] = [", rows.len()).expect("write");
        } else {
            writeln!(
                code,
                "pub static {name}: [[u32; {width}]; {}] = [",
                rows.len()
            )
            .expect("write");
        }
        for row in rows {
            if width == 1 {
                writeln!(code, "    {},", row[0]).expect("write");
            } else {
                let cells: Vec<String> = row.iter().map(u32::to_string).collect();
                writeln!(code, "    [{}],", cells.join(", ")).expect("write");
            }
        }
        code.push_str("];\n");
    };
    writeln!(
        code,
        "/// Every distinct phrase form, concatenated.\npub static FORMS: &str = {forms:?};"
    )
    .expect("write");
    writeln!(code, "/// Every distinct phrase text as written, concatenated.\npub static TEXTS: &str = {texts:?};").expect("write");
    let rows3 = |v: &[[u32; 3]]| v.iter().map(|r| r.to_vec()).collect::<Vec<_>>();
    table(
        &mut code,
        "End of each text in `TEXTS`.",
        "TEXT_ENDS",
        1,
        &text_ends.iter().map(|&e| vec![e]).collect::<Vec<_>>(),
    );
    table(
        &mut code,
        "Each group's phrases: `[start, end, kind, text id]`.",
        "PHRASES",
        4,
        &phrases.iter().map(|r| r.to_vec()).collect::<Vec<_>>(),
    );
    table(
        &mut code,
        "End of each group in `PHRASES`.",
        "GROUP_ENDS",
        1,
        &group_ends.iter().map(|&e| vec![e]).collect::<Vec<_>>(),
    );
    for (name, rows) in [
        ("DESTRUCTIVE", list("destructive")),
        ("READ", list("read")),
        ("WRITE", list("write")),
        ("KEEP", list("keep")),
        ("DESTRUCTIVE_SYNONYMS", synonyms),
    ] {
        table(
            &mut code,
            "A cue list: `[start, end, kind]`.",
            name,
            3,
            &rows3(&rows),
        );
    }
    table(
        &mut code,
        "`[first char, group, phrase]`, sorted.",
        "HAN_TRIGGERS",
        3,
        &han_triggers
            .iter()
            .map(|&(c, g, i)| vec![c as u32, g, i])
            .collect::<Vec<_>>(),
    );
    table(
        &mut code,
        "`[first word start, end, group, phrase]`, sorted by word.",
        "WORD_TRIGGERS",
        4,
        &word_triggers
            .iter()
            .map(|&(_, s, e, g, i)| vec![s, e, g, i])
            .collect::<Vec<_>>(),
    );
    // One bit per character of the Basic Multilingual Plane: set when some trigger starts with
    // it, so most query characters skip the binary search.
    let mut bits = vec![0u64; 1024];
    for &(ch, _, _) in &han_triggers {
        if let Some(slot) = bits.get_mut(ch as usize / 64) {
            *slot |= 1 << (ch as usize % 64);
        }
    }
    writeln!(
        code,
        "/// Bit `c` set: a `HAN_TRIGGERS` entry starts with BMP character `c`.\npub static HAN_TRIGGER_BITS: [u64; 1024] = {bits:?};"
    )
    .expect("write");
    std::fs::write(out_dir.join("lexicon.rs"), code).expect("write lexicon.rs");
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
    "src/text.rs",
    "src/text/forms.rs",
    "src/text/han.rs",
    "src/text/han_words.txt",
    "src/text/domain_words.txt",
];

/// FNV-1a (64 bit) over the catalog files and the index inputs, names and bytes: any edit to
/// them makes `catalog/prepared.bin` stale, and a stale snapshot is never used.
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
        feed(&std::fs::read(&path).expect("read an index input"));
        feed(&[0]);
    }
    format!("fnv64:{hash:016x}")
}
