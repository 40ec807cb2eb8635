//! What a judging command read and judged, and the rule all of them follow: nothing judged is
//! not a pass (SECURITY.md).
//!
//! Each command that judges (`wire-audit`, `spec-audit`, `spec-diff`, `codegen --check`,
//! `public-api --check`, `msrv`) fills a [`Tally`] from the counts its judging function
//! returns: what it read, what it judged, what it read but left out and why. [`Tally::verdict`]
//! is the one place the rule is decided: a tally that judged nothing is [`NothingJudged`], an
//! input error (exit 2) that says what was looked at and why nothing was judged; any other is a
//! [`Judged`], which only `verdict` makes and which every command's outcome carries, so that no
//! report of a judgement can be made without passing through the rule.

use std::fmt;

use marketplace_codegen::items::{ItemKind, Items};

/// How many of one kind of thing: `412 exchanges`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Count {
    /// How many.
    pub count: usize,
    /// The thing in words, for one of it.
    pub one: String,
    /// The thing in words, for several (and none).
    pub many: String,
}

impl Count {
    /// `count` things named `one`, several of them `one` with an `s`.
    pub fn new(count: usize, one: &str) -> Count {
        Count::irregular(count, one, &format!("{one}s"))
    }

    /// `count` things named `one`, several of them `many`.
    pub fn irregular(count: usize, one: &str, many: &str) -> Count {
        Count {
            count,
            one: one.to_owned(),
            many: many.to_owned(),
        }
    }
}

impl fmt::Display for Count {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let noun = if self.count == 1 {
            &self.one
        } else {
            &self.many
        };
        write!(f, "{} {noun}", self.count)
    }
}

/// What a command read, judged and left out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tally {
    /// The command, as typed (`wire-audit`).
    pub command: &'static str,
    /// What it was pointed at, as the user named it (paths, revisions).
    pub looked_at: String,
    /// What it read: `3 files, 412 exchanges` (counts of zero are shown).
    pub read: Vec<Count>,
    /// What it judged, by kind; the judgement's size is their sum.
    pub judged: Vec<Count>,
    /// Over what, after the judged counts: `of 9 methods`, `against …`.
    pub over: Option<String>,
    /// What it read but did not judge, each kind saying why (`OAuth token answers`).
    pub left_out: Vec<Count>,
    /// What to do when nothing was judged.
    pub remedy: &'static str,
}

impl Tally {
    /// How many items were judged.
    pub fn judged_count(&self) -> usize {
        self.judged.iter().map(|count| count.count).sum()
    }

    /// The rule: a judgement of nothing is an input error; anything else a [`Judged`].
    pub fn verdict(self) -> Result<Judged, NothingJudged> {
        if self.judged_count() == 0 {
            Err(NothingJudged {
                tally: Box::new(self),
            })
        } else {
            Ok(Judged { tally: self })
        }
    }
}

/// `read 3 files, 412 exchanges; judged 380 answers, 12 error answers of 9 methods (20 left
/// out: 20 OAuth token answers)`.
impl fmt::Display for Tally {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |counts: &mut dyn Iterator<Item = &Count>| {
            counts
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        };
        write!(f, "read {}; judged ", list(&mut self.read.iter()))?;
        let judged = list(&mut self.judged.iter().filter(|count| count.count > 0));
        if judged.is_empty() {
            f.write_str("nothing")?;
        } else {
            f.write_str(&judged)?;
            if let Some(over) = &self.over {
                write!(f, " {over}")?;
            }
        }
        let left_out: usize = self.left_out.iter().map(|count| count.count).sum();
        if left_out > 0 {
            let reasons = list(&mut self.left_out.iter().filter(|count| count.count > 0));
            write!(f, " ({left_out} left out: {reasons})")?;
        }
        Ok(())
    }
}

/// Each kind of spec item, counted (every kind, zeros included: a tally shows only the others).
pub fn item_counts(items: &Items) -> Vec<Count> {
    ItemKind::ALL
        .into_iter()
        .map(|kind| {
            let (one, many) = kind.nouns();
            Count::irregular(items.count(kind), one, many)
        })
        .collect()
}

/// A tally that judged something: made only by [`Tally::verdict`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Judged {
    tally: Tally,
}

impl Judged {
    /// The tally.
    pub fn tally(&self) -> &Tally {
        &self.tally
    }

    /// How many items were judged (at least one).
    pub fn count(&self) -> usize {
        self.tally.judged_count()
    }
}

impl fmt::Display for Judged {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.tally.fmt(f)
    }
}

/// A judging command's outcome, as the command line prints it: its report, whether it found
/// what fails the command (exit 1), and what it judged, which only [`Tally::verdict`] gives.
pub trait Judgement {
    /// What was read, judged and left out.
    fn judged(&self) -> &Judged;
    /// The report (standard output).
    fn report(&self) -> &str;
    /// Whether it found what fails the command: findings, breaking changes, stale files.
    fn failed(&self) -> bool;
}

/// The outcome of a command whose findings are errors
/// ([`CommandError`](crate::command_line::CommandError)): its report and what it judged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checked {
    /// The report.
    pub report: String,
    /// What was read and judged.
    pub judged: Judged,
}

impl Judgement for Checked {
    fn judged(&self) -> &Judged {
        &self.judged
    }

    fn report(&self) -> &str {
        &self.report
    }

    fn failed(&self) -> bool {
        false
    }
}

/// A command judged nothing: an input error, not a pass.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "{}: nothing to judge: looked at {}; {tally}; {}. Nothing judged is not a pass: {}",
    tally.command,
    tally.looked_at,
    self.why(),
    tally.remedy
)]
pub struct NothingJudged {
    /// What was read and left out (boxed: errors stay small).
    pub tally: Box<Tally>,
}

impl NothingJudged {
    /// Why nothing was judged, in words.
    fn why(&self) -> &'static str {
        let read_anything = self.tally.read.iter().any(|count| count.count > 0);
        let left_out = self.tally.left_out.iter().any(|count| count.count > 0);
        match (read_anything, left_out) {
            (false, _) => "there was nothing in it to read",
            (true, true) => "everything read was left out",
            (true, false) => "nothing read was of a kind it judges",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tally(judged: usize, left_out: usize) -> Tally {
        Tally {
            command: "wire-audit",
            looked_at: "recordings/".to_owned(),
            read: vec![
                Count::new(2, "file"),
                Count::new(judged + left_out, "exchange"),
            ],
            judged: vec![Count::new(judged, "answer"), Count::new(0, "error answer")],
            over: Some("of 1 method".to_owned()),
            left_out: vec![Count::new(left_out, "OAuth token answer")],
            remedy: "record traffic first",
        }
    }

    #[test]
    fn a_tally_says_what_was_read_judged_and_left_out() {
        assert_eq!(
            tally(3, 2).to_string(),
            "read 2 files, 5 exchanges; judged 3 answers of 1 method (2 left out: 2 OAuth \
             token answers)"
        );
        assert_eq!(
            tally(1, 0).to_string(),
            "read 2 files, 1 exchange; judged 1 answer of 1 method"
        );
    }

    #[test]
    fn nothing_judged_is_an_error_naming_what_was_looked_at_and_why() {
        let error = tally(0, 2).verdict().unwrap_err();
        assert_eq!(
            error.to_string(),
            "wire-audit: nothing to judge: looked at recordings/; read 2 files, 2 exchanges; \
             judged nothing (2 left out: 2 OAuth token answers); everything read was left out. \
             Nothing judged is not a pass: record traffic first"
        );
        let mut empty = tally(0, 0);
        empty.read = vec![Count::new(0, "file")];
        assert!(
            empty
                .verdict()
                .unwrap_err()
                .to_string()
                .contains("there was nothing in it to read")
        );
        let judged = tally(1, 0).verdict().unwrap();
        assert_eq!(judged.count(), 1);
    }
}
