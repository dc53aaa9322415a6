//! The text form of the learned tree models parsed into plain tables: the weak model
//! (`weak_model.txt`, docs/adr/0006's learned-flag addendum), the sure model (`sure_model.txt`,
//! docs/adr/0018, written by `docs/adr/0018-sure-answer/learned_sure.py export`) and the tail
//! model (`tail_model.txt`, docs/adr/0019, written by
//! `docs/adr/0019-tempting-tail/learned_tail.py export`), all in the same form.
//!
//! `build.rs` includes this file by path and compiles the shipped model into static tables
//! (`weak_tables.rs`, read by `retrieve::weak`), so no process parses it at start-up; a test
//! holds the compiled tables equal to a run-time parse. The text is what
//! `docs/adr/0006-learned-weak/learned_weak.py export` writes:
//!
//! ```text
//! toolsearch-weak-model 1
//! source_hash sha256:…          the catalog the model was trained for
//! threshold 0.2187…             a request is doubted above this probability
//! features 58
//! trees 100 -2.28…              tree count, then the baseline log-odds
//! 31                            per tree: its node count, then one line per node:
//! 36 3.26… 1 16 0 0.0 0         feature threshold left right is_leaf value missing_go_to_left
//! ```
//!
//! A node sends a feature value `<=` its threshold to `left` (a NaN to the side
//! `missing_go_to_left` names); a leaf's value already carries the learning rate.

/// Features the weak and sure models read of a first hit (see `retrieve::weak`).
pub const N_FEATURES: usize = 58;

/// Features the tail model reads of a later hit: its [`N_FEATURES`], then whether it shares the
/// first hit's product and its effect, and its rank (see `retrieve::weak`).
pub const N_TAIL_FEATURES: usize = N_FEATURES + 3;

/// One tree node, 16 bytes (a walk reads several hundred of them per request); `left` and
/// `right` index the node's own tree.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Node {
    /// A split's threshold (a feature value `<=` it goes left), or a leaf's value.
    pub value: f64,
    /// The feature a split reads, or [`LEAF`].
    pub feature: u16,
    pub left: u16,
    pub right: u16,
    /// Where a split sends a NaN.
    pub missing_left: bool,
}

/// [`Node::feature`] of a leaf.
pub const LEAF: u16 = u16::MAX;

/// A parsed model.
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    pub source_hash: String,
    pub threshold: f64,
    pub baseline: f64,
    /// Every tree's nodes, tree after tree.
    pub nodes: Vec<Node>,
    /// Where each tree starts in `nodes` (the last ends at `nodes.len()`).
    pub tree_starts: Vec<u32>,
}

/// Parses a model file whose trees read `features` features.
///
/// # Errors
/// A message naming the line for a wrong header, a feature count other than `features`, a number
/// that does not parse or is not finite, a feature index past `features`, a child that is not a later node of the same
/// tree (every walk must end at a leaf), or a line too many or too few.
pub fn parse(text: &str, n_features: usize) -> Result<Model, String> {
    let mut lines = text.lines().enumerate();
    let mut line = |what: &str| -> Result<(usize, &str), String> {
        lines
            .next()
            .map(|(at, line)| (at + 1, line))
            .ok_or_else(|| format!("the file ends before {what}"))
    };
    let (at, header) = line("the header")?;
    if header != "toolsearch-weak-model 1" {
        return Err(format!("line {at}: not `toolsearch-weak-model 1`"));
    }
    let mut keyed = |key: &str| -> Result<(usize, String), String> {
        let (at, text) = line(key)?;
        text.strip_prefix(key)
            .and_then(|rest| rest.strip_prefix(' '))
            .map(|rest| (at, rest.to_string()))
            .ok_or_else(|| format!("line {at}: expected `{key} …`"))
    };
    let (_, source_hash) = keyed("source_hash")?;
    let (at, threshold) = keyed("threshold")?;
    let threshold = number(at, &threshold)?;
    let (at, features) = keyed("features")?;
    if features != n_features.to_string() {
        return Err(format!(
            "line {at}: the engine computes {n_features} features, not {features}"
        ));
    }
    let (at, trees) = keyed("trees")?;
    let (count, baseline) = trees
        .split_once(' ')
        .ok_or_else(|| format!("line {at}: expected `trees COUNT BASELINE`"))?;
    let count = whole(at, count)?;
    let baseline = number(at, baseline)?;
    let mut nodes = Vec::new();
    let mut tree_starts = Vec::with_capacity(count as usize);
    for _ in 0..count {
        let (at, size) = line("a tree")?;
        let size = whole(at, size)?;
        if size == 0 {
            return Err(format!("line {at}: an empty tree"));
        }
        tree_starts.push(u32::try_from(nodes.len()).map_err(|_| "too many nodes".to_string())?);
        for index in 0..size {
            let (at, text) = line("a node")?;
            let fields: Vec<&str> = text.split(' ').collect();
            let [feature, threshold, left, right, leaf, value, missing_left] = fields[..] else {
                return Err(format!("line {at}: a node has seven fields"));
            };
            let (feature, left, right) = (whole(at, feature)?, whole(at, left)?, whole(at, right)?);
            let (threshold, value) = (number(at, threshold)?, number(at, value)?);
            let missing_left = flag(at, missing_left)?;
            let node = if flag(at, leaf)? {
                Node {
                    value,
                    feature: LEAF,
                    left: 0,
                    right: 0,
                    missing_left,
                }
            } else {
                let later = |child: u32| child > index && child < size;
                let (Some(feature), true, true) = (
                    u16::try_from(feature)
                        .ok()
                        .filter(|&f| usize::from(f) < n_features),
                    later(left),
                    later(right),
                ) else {
                    return Err(format!("line {at}: a split needs a feature below {n_features} and two later nodes of its tree"));
                };
                let narrow = |child: u32| {
                    u16::try_from(child)
                        .map_err(|_| format!("line {at}: a tree of more than {} nodes", u16::MAX))
                };
                Node {
                    value: threshold,
                    feature,
                    left: narrow(left)?,
                    right: narrow(right)?,
                    missing_left,
                }
            };
            nodes.push(node);
        }
    }
    if let Some((at, _)) = lines.next() {
        return Err(format!("line {}: more lines than the trees hold", at + 1));
    }
    Ok(Model {
        source_hash,
        threshold,
        baseline,
        nodes,
        tree_starts,
    })
}

fn number(at: usize, text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(value) if value.is_finite() => Ok(value),
        _ => Err(format!("line {at}: `{text}` is not a finite number")),
    }
}

fn whole(at: usize, text: &str) -> Result<u32, String> {
    text.parse()
        .map_err(|_| format!("line {at}: `{text}` is not a whole number"))
}

fn flag(at: usize, text: &str) -> Result<bool, String> {
    match text {
        "0" => Ok(false),
        "1" => Ok(true),
        _ => Err(format!("line {at}: `{text}` is not 0 or 1")),
    }
}
