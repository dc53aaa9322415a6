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
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"))
        .join("embedded_catalog.rs");
    std::fs::write(out, code).expect("write embedded_catalog.rs");
}
