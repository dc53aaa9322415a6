//! Quoted spans of a request: the names and message texts a user puts in quotes
//! ('Q3 budget review', “新建文件夹(3)”, 「用印申请」). Their words name a thing or carry a
//! content; they rarely say what the user wants done.

/// Opening and closing marks of a span. ASCII `'` is handled apart (it is also an apostrophe).
const PAIRS: [(char, char); 6] = [
    ('“', '”'),
    ('‘', '’'),
    ('「', '」'),
    ('『', '』'),
    ('《', '》'),
    ('"', '"'),
];

/// The longest span, in characters; a longer "span" is an unclosed quote and stays text.
const MAX_SPAN_CHARS: usize = 60;

/// The text outside a query's quoted spans and the text inside them (each span on its own
/// line), or `None` when the query quotes nothing.
///
/// A span opens at a mark of `PAIRS` and closes at its partner within `MAX_SPAN_CHARS`
/// characters on the same line; an ASCII `'` opens only after a character that is not an
/// ASCII letter or digit (or at the start), and closes only before one (or at the end), so
/// `what's` and `Rahul's` hold apostrophes, not quotes. An unclosed or empty quote is text.
pub fn split_quoted(query: &str) -> Option<(String, String)> {
    if !query.contains(|c| c == '\'' || PAIRS.iter().any(|(open, _)| *open == c)) {
        return None;
    }
    let chars: Vec<char> = query.chars().collect();
    let word = |at: Option<&char>| at.is_some_and(char::is_ascii_alphanumeric);
    let mut outside = String::with_capacity(query.len());
    let mut inside = String::new();
    let mut at = 0;
    while at < chars.len() {
        let open = chars[at];
        let close = match open {
            '\'' if !word(at.checked_sub(1).and_then(|i| chars.get(i))) => Some('\''),
            _ => PAIRS.iter().find(|(o, _)| *o == open).map(|(_, c)| *c),
        };
        let end = close.and_then(|close| {
            chars[at + 1..]
                .iter()
                .take(MAX_SPAN_CHARS + 1)
                .take_while(|c| **c != '\n')
                .enumerate()
                .position(|(offset, c)| {
                    *c == close && (close != '\'' || !word(chars.get(at + offset + 2)))
                })
                .map(|offset| at + 1 + offset)
        });
        match end {
            Some(end) if end > at + 1 => {
                inside.extend(&chars[at + 1..end]);
                inside.push('\n');
                outside.push(' ');
                at = end + 1;
            }
            _ => {
                outside.push(open);
                at += 1;
            }
        }
    }
    (!inside.is_empty()).then_some((outside, inside))
}

#[cfg(test)]
mod tests {
    use super::split_quoted as split;

    #[test]
    fn paired_marks_make_spans() {
        assert_eq!(
            split("把“新建文件夹(3)”改成“2024年报素材”"),
            Some((
                "把 改成 ".to_string(),
                "新建文件夹(3)\n2024年报素材\n".to_string()
            ))
        );
        assert_eq!(
            split("走「用印申请」流程"),
            Some(("走 流程".to_string(), "用印申请\n".to_string()))
        );
        assert_eq!(
            split(r#"rename "Sheet1" please"#),
            Some(("rename   please".to_string(), "Sheet1\n".to_string()))
        );
    }

    #[test]
    fn apostrophes_are_not_quotes() {
        assert_eq!(split("what's Rahul's claim"), None);
        assert_eq!(split("don't"), None);
        assert_eq!(
            split("check off 'submit VAT filing' - it's done"),
            Some((
                "check off   - it's done".to_string(),
                "submit VAT filing\n".to_string()
            ))
        );
        assert_eq!(
            split("'Q3 budget review' moved"),
            Some(("  moved".to_string(), "Q3 budget review\n".to_string()))
        );
        assert_eq!(
            split("把'构建'改名"),
            Some(("把 改名".to_string(), "构建\n".to_string()))
        );
    }

    #[test]
    fn unclosed_empty_long_and_multiline_quotes_stay_text() {
        assert_eq!(split("他说“明天再说"), None);
        assert_eq!(split("an empty \"\" quote"), None);
        assert_eq!(split(&format!("“{}”", "长".repeat(61))), None);
        assert!(split(&format!("“{}”", "长".repeat(60))).is_some());
        assert_eq!(split("“第一行\n第二行”"), None);
    }
}
