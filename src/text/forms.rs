//! Word forms shared by the library and `build.rs`, which includes this file by path to
//! compile the lexicon with exactly the forms the query is matched in. Standard library only.

/// Returns true if and only if `ch` is a Han ideograph (CJK unified, extension A, compatibility).
pub fn is_han(ch: char) -> bool {
    matches!(ch as u32,
        0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x2FA1F)
}

/// Harman's S-stemmer, in place: `-ies` → `-y`, `-es` → `-e` (not after a/e/o), `-s` → ``
/// (not after u/s). Plus one rule Harman lacks: a singular in `-ie` also becomes `-y`, so that
/// "movie" meets "movies" (→ "movy"), as "calorie" meets "calories" (docs/adr/0001).
pub fn stem_plural_in_place(word: &mut String) {
    let len = word.len();
    if len < 3 || !word.bytes().all(|b| b.is_ascii_alphabetic()) {
        return;
    }
    if word.ends_with("ie") {
        word.truncate(len - 2);
        word.push('y');
        return;
    }
    if len == 3 {
        return;
    }
    if word
        .strip_suffix("ies")
        .is_some_and(|stem| !stem.ends_with(['e', 'a']))
    {
        word.truncate(len - 3);
        word.push('y');
    } else if word
        .strip_suffix("es")
        .is_some_and(|stem| !stem.ends_with(['a', 'e', 'o']))
    {
        // `{stem}e`: the word without its final `s`.
        word.truncate(len - 1);
    } else if word.ends_with('s') && !word.ends_with("us") && !word.ends_with("ss") {
        word.truncate(len - 1);
    }
}

/// A crude English lemma for lexicon matching: `-ing` / `-ed` dropped (with a doubled final
/// consonant undone, `-ied` → `-y`), then plurals folded. Both the lexicon's phrases and the
/// query go through it, so `streamed` meets `stream` and `finished` meets `finish`.
pub fn lemma(word: String) -> String {
    fn undouble(stem: &str) -> String {
        let bytes = stem.as_bytes();
        let n = bytes.len();
        if n >= 3 && bytes[n - 1] == bytes[n - 2] && !matches!(bytes[n - 1], b'l' | b's' | b'z') {
            stem[..n - 1].to_string()
        } else {
            stem.to_string()
        }
    }
    if !word.bytes().all(|b| b.is_ascii_lowercase()) {
        return word;
    }
    let mut base = if let Some(stem) = word.strip_suffix("ied").filter(|s| s.len() >= 2) {
        format!("{stem}y")
    } else if let Some(stem) = word.strip_suffix("ing").filter(|s| s.len() >= 3) {
        undouble(stem)
    } else if let Some(stem) = word.strip_suffix("ed").filter(|s| s.len() >= 3) {
        undouble(stem)
    } else {
        word
    };
    stem_plural_in_place(&mut base);
    base
}

/// Lower-cased, lemmatised words of normalized text (Han runs split words), for phrase
/// matching only: index terms never go through this.
pub fn plain_words(text: &str) -> Vec<String> {
    word_pieces(text).map(|w| lemma(w.to_lowercase())).collect()
}

/// The words of normalized text before lemmatising, one per word of [`plain_words`], in
/// the same order.
pub fn word_pieces(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric() || is_han(c))
        .filter(|w| !w.is_empty())
}

/// How a phrase of the lexicon is matched.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Form {
    /// Text with Han, or without any word (a question mark): a substring of the query.
    Text(String),
    /// ASCII words, lemmatised and joined by single spaces: a word sequence of the query.
    Words(String),
}

/// The matchable form of a phrase that is already NFKC-normalized and lower-cased.
pub fn form(lowered: &str) -> Form {
    if lowered.chars().any(is_han) {
        return Form::Text(lowered.to_string());
    }
    let words = plain_words(lowered);
    if words.is_empty() {
        Form::Text(lowered.to_string())
    } else {
        Form::Words(words.join(" "))
    }
}
