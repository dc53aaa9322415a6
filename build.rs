//! Embeds the repository's `catalog/*.json` into the binary (sorted by file name).
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

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
