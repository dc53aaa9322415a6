//! Values a request names: a calendar date ("on March 8th", 2023-03-08, 3月8日, 明天), a phone
//! number, an amount of money, a time of day. A request that names such a value wants a tool
//! that takes one (ADR 0011's addenda). Detection only; the retriever decides what a value adds
//! to the query. Every detector reads the NFKC, lower-cased request through one small token
//! scanner (digit runs, letter runs, spaces, single characters); there is no regex engine.

/// A token of the lowered text: a run of ASCII digits, a run of ASCII letters, a run of
/// whitespace, or any other single character.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Token<'a> {
    Digits(&'a str),
    Letters(&'a str),
    Space,
    Char(char),
}

fn tokens(text: &str) -> Vec<Token<'_>> {
    let mut out = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some((start, ch)) = chars.next() {
        let run = |chars: &mut std::iter::Peekable<std::str::CharIndices<'_>>,
                   same: fn(&char) -> bool| {
            let mut end = start + ch.len_utf8();
            while let Some(&(at, next)) = chars.peek() {
                if !same(&next) {
                    break;
                }
                end = at + next.len_utf8();
                chars.next();
            }
            end
        };
        if ch.is_ascii_digit() {
            let end = run(&mut chars, char::is_ascii_digit);
            out.push(Token::Digits(&text[start..end]));
        } else if ch.is_ascii_alphabetic() {
            let end = run(&mut chars, char::is_ascii_alphabetic);
            out.push(Token::Letters(&text[start..end]));
        } else if ch.is_whitespace() {
            run(&mut chars, |c| c.is_whitespace());
            out.push(Token::Space);
        } else {
            out.push(Token::Char(ch));
        }
    }
    out
}

/// Month names and their abbreviations.
const MONTHS: [&str; 24] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
    "jan",
    "feb",
    "mar",
    "apr",
    "jun",
    "jul",
    "aug",
    "sep",
    "sept",
    "oct",
    "nov",
    "dec",
];

fn is_month(word: &str) -> bool {
    MONTHS.contains(&word)
}

const ORDINAL_SUFFIXES: [&str; 4] = ["st", "nd", "rd", "th"];

const RELATIVE_WORDS: [&str; 9] = [
    "tomorrow",
    "yesterday",
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
];

const RELATIVE_HAN: [&str; 6] = ["明天", "后天", "昨天", "前天", "明日", "昨日"];

const WEEK_HEADS: [&str; 3] = ["周", "星期", "礼拜"];

const HAN_NUMERALS: &str = "一二三四五六七八九十";

fn number_in(digits: &str, max_len: usize, range: std::ops::RangeInclusive<u32>) -> bool {
    digits.len() <= max_len && digits.parse::<u32>().is_ok_and(|n| range.contains(&n))
}

/// A cursor over the tokens, for the patterns below.
struct At<'t, 'a> {
    tokens: &'t [Token<'a>],
    pos: usize,
}

impl<'a> At<'_, 'a> {
    fn peek(&self) -> Option<Token<'a>> {
        self.tokens.get(self.pos).copied()
    }

    fn skip_space(&mut self) {
        if self.peek() == Some(Token::Space) {
            self.pos += 1;
        }
    }

    fn digits(&mut self, max_len: usize, range: std::ops::RangeInclusive<u32>) -> bool {
        match self.peek() {
            Some(Token::Digits(d)) if number_in(d, max_len, range) => {
                self.pos += 1;
                true
            }
            _ => false,
        }
    }

    fn char_in(&mut self, set: &str) -> bool {
        match self.peek() {
            Some(Token::Char(c)) if set.contains(c) => {
                self.pos += 1;
                true
            }
            _ => false,
        }
    }

    fn word(&mut self, accept: impl Fn(&str) -> bool) -> bool {
        match self.peek() {
            Some(Token::Letters(w)) if accept(w) => {
                self.pos += 1;
                true
            }
            _ => false,
        }
    }

    /// 1–2 ASCII digits up to `max`, or one to three Han numerals.
    fn han_or_digits(&mut self, max: u32) -> bool {
        if self.digits(2, 1..=max) {
            return true;
        }
        let start = self.pos;
        while self.pos - start < 3 && self.char_in(HAN_NUMERALS) {}
        self.pos > start
    }

    /// A day of the month in English: `8`, `08`, `8th`, `31st`.
    fn english_day(&mut self) -> bool {
        if !self.digits(2, 1..=31) {
            return false;
        }
        if !self.word(|w| ORDINAL_SUFFIXES.contains(&w))
            && matches!(self.peek(), Some(Token::Letters(_)))
        {
            return false; // 3pm, 5x: not a day
        }
        true
    }
}

/// `2023-03-08`, `2023/3/8`, `2023.3.8`, `2023年3月8日` (spaces allowed around the marks).
fn year_first(at: &mut At<'_, '_>) -> bool {
    at.digits(4, 1900..=2099)
        && {
            at.skip_space();
            at.char_in("-/.年")
        }
        && {
            at.skip_space();
            at.digits(2, 1..=12)
        }
        && {
            at.skip_space();
            at.char_in("-/.月")
        }
        && {
            at.skip_space();
            at.digits(2, 1..=31)
        }
}

/// `3/8/2023`, `08/03/23`.
fn year_last(at: &mut At<'_, '_>) -> bool {
    at.digits(2, 1..=31)
        && at.char_in("/")
        && at.digits(2, 1..=31)
        && at.char_in("/")
        && matches!(at.peek(), Some(Token::Digits(d)) if d.len() == 2 || d.len() == 4)
}

/// `3月8日`, `6 月 15 号`, `七月一号`.
fn han_month_day(at: &mut At<'_, '_>) -> bool {
    at.han_or_digits(12)
        && {
            at.skip_space();
            at.char_in("月")
        }
        && {
            at.skip_space();
            at.han_or_digits(31)
        }
        && {
            at.skip_space();
            at.char_in("日号")
        }
}

/// `March 8th`, `mar. 8`, `June the 5th`.
fn month_day(at: &mut At<'_, '_>) -> bool {
    if !at.word(is_month) {
        return false;
    }
    at.char_in(".");
    if at.peek() != Some(Token::Space) {
        return false;
    }
    at.skip_space();
    if at.word(|w| w == "the") {
        at.skip_space();
    }
    at.english_day()
}

/// `8th March`, `the 5th of march`, `6 january`.
fn day_month(at: &mut At<'_, '_>) -> bool {
    if !at.english_day() || at.peek() != Some(Token::Space) {
        return false;
    }
    at.skip_space();
    if at.word(|w| w == "of") {
        at.skip_space();
    }
    at.word(is_month)
}

/// Which values a request names (see [`named_values`]).
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct NamedValues {
    /// A calendar date: an explicit one, or with `relative_dates` also tomorrow, yesterday, a
    /// weekday, 明天, 周三 … ("today" and 今天 never count: a tool for current conditions takes
    /// no date).
    pub date: bool,
    /// A phone number: a Chinese mobile number (`13912345678`, `139 1234 5678`, `+86 139…`), a
    /// number opened by `+` with 8 to 15 digits, a North American `(415) 555-0199` /
    /// `415-555-0199`, or a Chinese landline `0571-88886666`; never a number inside a word or an
    /// identifier (`u_13800001111`).
    pub phone: bool,
    /// An amount of money: a currency sign before digits (`$120`, `¥ 350`), or digits before a
    /// currency word (`350元`, `80 块`, `200 usd`).
    pub money: bool,
    /// A time of day: `9:30`, `14:00`, `3pm`, `10 am`, or a part of the day followed by a number
    /// and 点 (`下午三点`, `上午 10 点`).
    pub time: bool,
}

/// The values the (NFKC, lower-cased) text names. The text is scanned into tokens once, and only
/// when a detector can use them: every explicit form holds a digit or 月, and most requests hold
/// neither.
pub fn named_values(lowered: &str, relative_dates: bool) -> NamedValues {
    let has_digit = lowered.bytes().any(|b| b.is_ascii_digit());
    let tokens = if has_digit || relative_dates || lowered.contains('月') {
        tokens(lowered)
    } else {
        Vec::new()
    };
    NamedValues {
        date: date_in(&tokens, lowered, relative_dates),
        phone: has_digit && phone_in(&tokens, lowered),
        money: has_digit && money_in(&tokens),
        time: time_in(&tokens, lowered),
    }
}

fn date_in(tokens: &[Token<'_>], lowered: &str, relative: bool) -> bool {
    let patterns: [fn(&mut At<'_, '_>) -> bool; 5] =
        [year_first, year_last, han_month_day, month_day, day_month];
    for start in 0..tokens.len() {
        // A pattern starts at a token boundary that is not inside a word or a number.
        let after_word = start > 0
            && matches!(
                (tokens[start - 1], tokens[start]),
                (Token::Letters(_), Token::Letters(_) | Token::Digits(_))
                    | (Token::Digits(_), Token::Letters(_) | Token::Digits(_))
            );
        if after_word {
            continue;
        }
        for pattern in patterns {
            let mut at = At { tokens, pos: start };
            if pattern(&mut at) && !ends_inside_a_word(tokens, at.pos) {
                return true;
            }
        }
        if relative {
            if let Token::Letters(w) = tokens[start] {
                if RELATIVE_WORDS.contains(&w) {
                    return true;
                }
            }
        }
    }
    relative && relative_han(lowered)
}

/// A match must not stop inside a run of letters (`mar 3` is a date, `mar 3x` is not).
fn ends_inside_a_word(tokens: &[Token<'_>], end: usize) -> bool {
    matches!(
        (
            end.checked_sub(1).and_then(|i| tokens.get(i)),
            tokens.get(end)
        ),
        (Some(Token::Letters(_)), Some(Token::Letters(_)))
    )
}

fn relative_han(lowered: &str) -> bool {
    if RELATIVE_HAN.iter().any(|w| lowered.contains(w)) {
        return true;
    }
    WEEK_HEADS.iter().any(|head| {
        lowered.match_indices(head).any(|(at, _)| {
            lowered[at + head.len()..]
                .chars()
                .next()
                .is_some_and(|c| "一二三四五六日天".contains(c))
        })
    })
}

/// The digit groups of a number written in groups (`138 1234 9907`, `+1 415 555 0199`,
/// `(415) 555-0199`, `0571-88886666`) starting at `start`: the groups' lengths, their digits
/// run together, whether it opened with `+`, and the position after it. Groups are joined by
/// one space, `-` or `.`.
fn digit_groups(tokens: &[Token<'_>], start: usize) -> Option<(Vec<usize>, String, bool, usize)> {
    let mut at = start;
    let plus = tokens.get(at) == Some(&Token::Char('+'));
    let paren = tokens.get(at) == Some(&Token::Char('('));
    if plus || paren {
        at += 1;
    }
    let mut groups = Vec::new();
    let mut digits = String::new();
    while let Some(Token::Digits(d)) = tokens.get(at) {
        groups.push(d.len());
        digits.push_str(d);
        at += 1;
        if paren && groups.len() == 1 {
            if tokens.get(at) != Some(&Token::Char(')')) {
                return None;
            }
            at += 1;
        }
        let joined = matches!(
            tokens.get(at),
            Some(Token::Space | Token::Char('-') | Token::Char('.'))
        ) && matches!(tokens.get(at + 1), Some(Token::Digits(_)));
        if !joined {
            break;
        }
        at += 1;
    }
    (!groups.is_empty()).then_some((groups, digits, plus, at))
}

fn is_phone(groups: &[usize], digits: &str, plus: bool) -> bool {
    let mobile = |d: &str| {
        d.len() == 11
            && d.starts_with('1')
            && d.as_bytes()
                .get(1)
                .is_some_and(|b| (b'3'..=b'9').contains(b))
    };
    let local = if plus {
        digits.strip_prefix("86").unwrap_or(digits)
    } else {
        digits
    };
    if mobile(local) && matches!(groups, [11] | [3, 4, 4] | [2, 11] | [2, 3, 4, 4]) {
        return true;
    }
    if plus {
        return (8..=15).contains(&digits.len()) && (groups.len() >= 2 || digits.len() >= 10);
    }
    matches!(groups, [3, 3, 4]) || (matches!(groups, [3 | 4, 7 | 8]) && digits.starts_with('0'))
}

fn phone_in(tokens: &[Token<'_>], lowered: &str) -> bool {
    if lowered.bytes().filter(u8::is_ascii_digit).count() < 8 {
        return false;
    }
    (0..tokens.len()).any(|start| {
        let glued_before = start > 0
            && matches!(
                tokens[start - 1],
                Token::Letters(_) | Token::Digits(_) | Token::Char('_' | '-' | '.' | '/')
            );
        if glued_before {
            return false;
        }
        let Some((groups, digits, plus, end)) = digit_groups(tokens, start) else {
            return false;
        };
        let glued_after = matches!(tokens.get(end), Some(Token::Letters(_) | Token::Char('_')));
        !glued_after && is_phone(&groups, &digits, plus)
    })
}

const CURRENCY_SIGNS: &str = "$¥€£";
const CURRENCY_WORDS: [&str; 9] = [
    "dollars", "dollar", "bucks", "usd", "rmb", "cny", "eur", "yuan", "euros",
];
const CURRENCY_HAN: [&str; 4] = ["万元", "美元", "元", "块"];

fn money_in(tokens: &[Token<'_>]) -> bool {
    (0..tokens.len()).any(|i| {
        let sign_before = matches!(tokens[i], Token::Char(c) if CURRENCY_SIGNS.contains(c)) && {
            let next = if tokens.get(i + 1) == Some(&Token::Space) {
                i + 2
            } else {
                i + 1
            };
            matches!(tokens.get(next), Some(Token::Digits(_)))
        };
        let word_after = matches!(tokens[i], Token::Digits(_)) && {
            let mut next = i + 1;
            // Thousands and decimals: 1,200.50
            while matches!(tokens.get(next), Some(Token::Char(',' | '.')))
                && matches!(tokens.get(next + 1), Some(Token::Digits(_)))
            {
                next += 2;
            }
            if tokens.get(next) == Some(&Token::Space) {
                next += 1;
            }
            match tokens.get(next) {
                Some(Token::Letters(w)) => CURRENCY_WORDS.contains(w),
                Some(Token::Char(_)) => {
                    let rest = tokens[next..]
                        .iter()
                        .take(2)
                        .map_while(|t| match t {
                            Token::Char(c) => Some(*c),
                            _ => None,
                        })
                        .collect::<String>();
                    CURRENCY_HAN.iter().any(|w| rest.starts_with(w))
                }
                _ => false,
            }
        };
        sign_before || word_after
    })
}

const DAY_PARTS: [&str; 7] = ["上午", "下午", "晚上", "早上", "中午", "凌晨", "傍晚"];

/// `9:30`, `14:00`, `3pm`, `10 am`.
fn clock_time_in(tokens: &[Token<'_>]) -> bool {
    (0..tokens.len()).any(|i| {
        let mut at = At { tokens, pos: i };
        let glued = i > 0 && matches!(tokens[i - 1], Token::Digits(_) | Token::Char(':'));
        if glued || !at.digits(2, 0..=23) {
            return false;
        }
        let hh_mm = at.char_in(":")
            && matches!(at.peek(), Some(Token::Digits(m)) if m.len() == 2 && number_in(m, 2, 0..=59))
            && {
                at.pos += 1;
                !matches!(at.peek(), Some(Token::Char(':')) | Some(Token::Digits(_)))
            };
        if hh_mm {
            return true;
        }
        let mut at = At { tokens, pos: i + 1 };
        at.skip_space();
        at.word(|w| w == "am" || w == "pm") && !matches!(at.peek(), Some(Token::Letters(_)))
    })
}

fn time_in(tokens: &[Token<'_>], lowered: &str) -> bool {
    clock_time_in(tokens)
        || DAY_PARTS.iter().any(|part| {
            lowered.match_indices(part).any(|(at, _)| {
                let rest = lowered[at + part.len()..].trim_start();
                let number = rest
                    .chars()
                    .take_while(|c| c.is_ascii_digit() || HAN_NUMERALS.contains(*c) || *c == '两')
                    .count();
                number > 0
                    && rest
                        .chars()
                        .skip(number)
                        .find(|c| !c.is_whitespace())
                        .is_some_and(|c| c == '点')
            })
        })
}

#[cfg(test)]
mod tests {
    use super::named_values;

    fn has_date(text: &str, relative: bool) -> bool {
        named_values(text, relative).date
    }

    fn has_phone(text: &str) -> bool {
        named_values(text, false).phone
    }

    fn has_money(text: &str) -> bool {
        named_values(text, false).money
    }

    fn has_time_of_day(text: &str) -> bool {
        named_values(text, false).time
    }

    #[test]
    fn explicit_dates_are_found_in_every_form() {
        for text in [
            "invoice due 2024-11-05?",
            "payroll cut-off 2025/2/7 please",
            "the 2022.12.9 minutes",
            "2026 年 1 月 19 日的培训",
            "deliver by 11/02/2025",
            "押金4月3日前退",
            "从十月八号到十一月二号",
            "audit on february 21st 2026",
            "kickoff on aug. 4",
            "by the 17th of october",
            "returns 9 july",
            "april the 2nd",
        ] {
            assert!(has_date(text, false), "{text}");
        }
    }

    #[test]
    fn numbers_and_words_that_are_not_dates_are_not() {
        for text in [
            "weather in london today",
            "room 2023-15",
            "version 1.2.3",
            "march the team to room 5",
            "mar 3pm",
            "may i see 2 files",
            "20023-04-02",
            "5号会议室",
            "今天天气",
            "3/4 of the budget",
            "remind me tomorrow",
            "周报",
        ] {
            assert!(!has_date(text, false), "{text}");
        }
    }

    #[test]
    fn relative_days_count_only_when_asked() {
        for text in [
            "remind me tomorrow",
            "明天下午开会",
            "下周三交",
            "星期天值班",
            "friday standup",
        ] {
            assert!(!has_date(text, false), "{text}");
            assert!(has_date(text, true), "{text}");
        }
        for text in ["周报", "今天天气", "this weekend", "周末"] {
            assert!(!has_date(text, true), "{text}");
        }
    }

    #[test]
    fn phone_numbers_are_found_in_their_usual_groupings() {
        for text in [
            "这个号 15011112222 是哪位",
            "he rang from 150 1111 2222 twice",
            "+86 150-1111-2222",
            "call +44 20 7946 0958",
            "(212) 555-0143 left a voicemail",
            "212-555-0143",
            "座机 0755-66667777",
        ] {
            assert!(has_phone(text), "{text}");
        }
        for text in [
            "u_15011112222",
            "order 15011112222x",
            "2024-05-01 到 2024-06-01",
            "budget 1500000",
            "ids 123 456 789",
            "v1.2.3.4567",
        ] {
            assert!(!has_phone(text), "{text}");
        }
    }

    #[test]
    fn money_and_times_of_day_are_found() {
        for text in [
            "refund $120 to her",
            "押金 ¥ 350",
            "报销 86.5元",
            "80 块钱",
            "2,400 usd",
        ] {
            assert!(has_money(text), "{text}");
        }
        for text in ["3 people", "room 5", "$ sign"] {
            assert!(!has_money(text), "{text}");
        }
        for text in [
            "at 9:30 tomorrow",
            "14:00 开会",
            "3pm sync",
            "10 am",
            "下午三点",
            "上午 10 点半",
        ] {
            assert!(has_time_of_day(text), "{text}");
        }
        for text in ["ratio 16:9", "3 points", "三点建议", "v1:2", "12:30:45:10"] {
            assert!(!has_time_of_day(text), "{text}");
        }
    }
}
