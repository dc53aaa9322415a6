//! Embeds the repository's `catalog/*.json` into the binary (sorted by file name).
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
    let mut words: std::collections::BTreeMap<String, u64> = std::collections::BTreeMap::new();
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
    writeln!(code, "/// Start of each word in `WORD_TEXT`, plus the end.").expect("write");
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
    // Where the words of each first character start and end in `WORDS`.
    let mut first: Vec<(char, usize, usize)> = Vec::new();
    for (idx, word) in words.keys().enumerate() {
        let ch = word.chars().next().expect("non-empty word");
        match first.last_mut() {
            Some(last) if last.0 == ch => last.2 = idx + 1,
            _ => first.push((ch, idx, idx + 1)),
        }
    }
    writeln!(
        code,
        "/// (first character, start, end) of the words starting with it, sorted."
    )
    .expect("write");
    writeln!(
        code,
        "pub static FIRST: [(char, u32, u32); {}] = [",
        first.len()
    )
    .expect("write");
    for (ch, start, end) in &first {
        writeln!(code, "    ({ch:?}, {start}, {end}),").expect("write");
    }
    code.push_str("];\n");
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
