//! The one scrubber every channel that leaves the process goes through: error `Display` and
//! `Debug`, what response hooks see of bodies and headers, response metadata, recordings and
//! tracing. See SECURITY.md for the channels and the tests that hold each to it.
//!
//! The property: no secret-named value and no known secret survives, whatever the text looks
//! like. It works on the text's bytes, not on a parse of it, so a body that is not valid JSON
//! (trailing text, one invalid UTF-8 byte, nesting deeper than any parser takes), a duplicate
//! key, a name written with escapes or a value in an encoding of its own is cleaned the same:
//!
//! 1. **Views.** The text is read as it is and with one, two and three layers of escapes
//!    decoded (percent, JSON, language and HTML escapes; [`views`]), each view a stream that
//!    remembers where each byte came from. A further view is read only when the one before
//!    holds an escape. Each view is also read *folded* for the known secrets ([`folded`]):
//!    every character replaced by its compatibility decomposition (full-width, mathematical
//!    bold, ligatures: NFKD), white space, `+`, `-`, `:` and invisible characters (general
//!    category Cf, default-ignorable ones) dropped, so that a secret written in compatibility
//!    characters, interleaved with zero-width ones, or as base64 or hexadecimal broken into
//!    lines, groups or a dump is read as written plain; only when the known secrets are looked
//!    for and the text holds a byte folding changes. Benign text that folds to a secret's
//!    spelling (`ab-cd ef` for the secret `abcdef`) is removed with it: folding removes more,
//!    never less.
//! 2. **Findings** in each view: every value after a secret-named name (`secret`, `password`,
//!    `passwd`, `private_key`, `oauth_signature`, `oauth_verifier` anywhere in the name, ASCII
//!    case and `_-. ` separators ignored; [`SECRET_WORDS`]; [`scan`]), and every occurrence of
//!    a known secret (the consumer secret, the token secret in use, the verifier, the
//!    attempt's signature, the app's credentials) in any of its spellings ([`spellings`]:
//!    normalization forms, hexadecimal, base64; each also folded, for the folded views), each
//!    of its characters as it is or escaped, mixed as they come ([`known`]; one shorter than 8
//!    bytes only where it stands alone, in the view that reads it).
//! 3. **Replacement**: every span found, in any view, is replaced in the text itself by
//!    `[redacted]` (a bare JSON value by `"[redacted]"`, so JSON stays JSON); a span found
//!    folded runs from the secret's first character to its last, with what folding dropped
//!    between them.
//! 4. **Verification**: the cleaned text is read again the same way, folded views included; if
//!    anything but the markers is still found (a value cut short by an odd escape, a secret
//!    formed across a marker), the text is not kept at all: it is withheld, with its length.
//!    So is a text holding an escape too long to decode, and a body that is not the text the
//!    scrubber reads ([`Scrubber::clean_body`]: another charset, a content coding;
//!    [`legible`]).
//!
//! Each pass is linear in the text (two automata stepping over each byte, a small state
//! machine for pairs), so cleaning a body of any shape costs a bounded number of passes. Most
//! texts hold nothing to remove, and are let go after one quick look at their bytes as they
//! are: no escape, no secret word (a table lookup a byte), no spelling of a known or
//! remembered secret ([`prefilter`]: a bitmap lookup a byte, both sets at once).

mod folded;
mod known;
mod legible;
mod prefilter;
mod registry;
mod scan;
mod spellings;
mod views;

use std::borrow::Cow;
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock, OnceLock};
use std::time::Instant;

use aho_corasick::Anchored;
use aho_corasick::automaton::{Automaton, StateID};
use aho_corasick::dfa::DFA;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};

use crate::secret::{REDACTED, SECRET_WORDS, carries_credential, is_name_separator};
use folded::Folded;
use known::{Lasting, Matcher, SecretSet};
use prefilter::Prefilter;
pub(crate) use registry::SecretRegistry;
use scan::{Finding, Scan};
use views::{Decoded, Unit};

/// The escape layers decoded beyond the text as it is.
const MAX_LAYERS: usize = 3;

/// What a withheld text becomes: these around its length.
const WITHHELD_START: &str = "[withheld: ";
const WITHHELD_END: &str = " bytes that could not be cleaned of secrets for certain";

/// The secret words, ASCII case ignored.
static WORDS: LazyLock<DFA> = LazyLock::new(|| {
    DFA::builder()
        .ascii_case_insensitive(true)
        .build(SECRET_WORDS)
        .unwrap_or_else(|error| unreachable!("six short words always build: {error}"))
});

/// The secrets the client holds for one call: the consumer secret, the token secret in use,
/// the verifier being exchanged, the signatures of the call's attempts so far (a retried
/// answer may echo an earlier one), the credentials the app handed the call (its headers'
/// `secret::credential_values`, a callback's query, `redact`'s secrets) and the token secrets a
/// token endpoint's answer issues (known before anything of that answer is shown). Empty ones
/// are ignored. `Debug` shows only how many there are.
#[derive(Clone, Copy, Default)]
pub(crate) struct KnownSecrets<'a> {
    values: [&'a str; 3],
    signatures: &'a [String],
    app: &'a [String],
    issued: &'a [String],
}

impl fmt::Debug for KnownSecrets<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "KnownSecrets({} values)", self.values().count())
    }
}

impl<'a> KnownSecrets<'a> {
    /// No secret known (for text read outside a call: recordings, `ApiFailure::parse`).
    pub(crate) const NONE: KnownSecrets<'static> = KnownSecrets {
        values: ["", "", ""],
        signatures: &[],
        app: &[],
        issued: &[],
    };

    /// The consumer secret and a token secret (empty for none).
    pub(crate) fn new(consumer_secret: &'a str, token_secret: &'a str) -> Self {
        KnownSecrets {
            values: [consumer_secret, token_secret, ""],
            ..KnownSecrets::NONE
        }
    }

    /// These and the credentials the app handed the call.
    pub(crate) fn with_app_credentials(mut self, credentials: &'a [String]) -> Self {
        self.app = credentials;
        self
    }

    /// These and the verifier being exchanged.
    pub(crate) fn with_verifier(mut self, verifier: &'a str) -> Self {
        self.values[2] = verifier;
        self
    }

    /// These and the signatures the call's attempts were sent with, up to the one whose
    /// answer is cleaned.
    pub(crate) fn with_signatures(mut self, signatures: &'a [String]) -> Self {
        self.signatures = signatures;
        self
    }

    /// These and the token secrets the answer cleaned issues (`error_body::issued_secrets`).
    pub(crate) fn with_issued(mut self, issued: &'a [String]) -> Self {
        self.issued = issued;
        self
    }

    fn values(&self) -> impl Iterator<Item = &'a str> + '_ {
        self.values
            .iter()
            .copied()
            .chain(
                [self.signatures, self.app, self.issued]
                    .into_iter()
                    .flatten()
                    .map(String::as_str),
            )
            .filter(|value| !value.is_empty())
    }
}

/// What cleaning did to a text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Nothing to remove: the text as it was.
    Unchanged,
    /// Secrets were removed.
    Redacted,
    /// The text could not be cleaned for certain and is not kept (a note with its length).
    Withheld,
}

/// A cleaned text.
#[derive(Debug)]
pub(crate) struct Cleaned<'t> {
    pub(crate) bytes: Cow<'t, [u8]>,
    pub(crate) outcome: Outcome,
}

impl Cleaned<'_> {
    /// Whether the text is not the one given (something removed, or all of it withheld).
    pub(crate) fn changed(&self) -> bool {
        self.outcome != Outcome::Unchanged
    }

    /// The cleaned text as a string (invalid UTF-8 replaced).
    pub(crate) fn into_string(self) -> String {
        match self.bytes {
            // `str::from_utf8` reads ASCII a word at a time; `from_utf8_lossy` a byte.
            Cow::Borrowed(bytes) => match std::str::from_utf8(bytes) {
                Ok(text) => text.to_owned(),
                Err(_) => String::from_utf8_lossy(bytes).into_owned(),
            },
            Cow::Owned(bytes) => String::from_utf8(bytes)
                .unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned()),
        }
    }
}

/// Cleans text of secrets (see the module docs). Made per call, with the secrets the call
/// holds; the automaton of those is built on first use.
pub(crate) struct Scrubber<'a> {
    /// The secrets it looks for with an automaton of its own: the call's, less those the
    /// registry's automaton covers.
    known: Vec<&'a str>,
    /// The known secrets' automaton: `None` when there are none, `Err` when it cannot be
    /// built (more states than it can number), and then no text is kept. Boxed: most calls
    /// never build it, and a scrubber lives in every call's future, which is moved whole.
    known_automaton: OnceLock<Result<Option<Box<SecretSet>>, ()>>,
    /// The prefilter of every spelling of the known secrets, read beside the remembered ones
    /// for texts read without the automaton; made once, since a call reads several texts
    /// (each header, the body).
    spellings: OnceLock<Prefilter>,
    /// The secrets the client remembers from other calls ([`SecretRegistry`]), if any.
    remembered: Option<Result<Arc<Option<SecretSet>>, ()>>,
    /// When it stops reading: cancelled, or past its call's deadline.
    limits: Limits,
}

/// When a scrubber stops reading and withholds what it was cleaning: when whoever waits for
/// the cleaning on another thread no longer does (cancelled), or when the call whose texts it
/// cleans is past its deadline. Cleaning is CPU work no timer interrupts, so the reader looks
/// every [`CHECK_EVERY`] units it reads, counted across texts: a hook reading ninety costly
/// headers is bounded like one reading a costly body.
#[derive(Default)]
struct Limits {
    /// Set when the cleaning is no longer awaited (on another thread only).
    cancelled: Option<Arc<AtomicBool>>,
    /// The call's deadline (`Scrubber::until`).
    deadline: Option<Instant>,
    /// Units read since the last look.
    unchecked: AtomicUsize,
    /// Set at the first look that found it cancelled or late: every later read stops at once.
    stopped: AtomicBool,
}

impl Limits {
    /// Whether to stop reading, `units` more having been read.
    fn stop_after(&self, units: usize) -> bool {
        if self.stopped.load(Ordering::Relaxed) {
            return true;
        }
        if self.unchecked.fetch_add(units, Ordering::Relaxed) + units < CHECK_EVERY {
            return false;
        }
        self.unchecked.store(0, Ordering::Relaxed);
        let stop = self
            .cancelled
            .as_ref()
            .is_some_and(|cancelled| cancelled.load(Ordering::Relaxed))
            || self
                .deadline
                .is_some_and(|deadline| Instant::now() >= deadline);
        if stop {
            self.stopped.store(true, Ordering::Relaxed);
        }
        stop
    }
}

impl fmt::Debug for Scrubber<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Scrubber")
            .field("known", &self.known.len())
            .finish()
    }
}

impl<'a> Scrubber<'a> {
    pub(crate) fn new(known: KnownSecrets<'a>) -> Self {
        let mut values: Vec<&'a str> = Vec::new();
        for value in known.values() {
            if !values.contains(&value) {
                values.push(value);
            }
        }
        Scrubber {
            known: values,
            known_automaton: OnceLock::new(),
            spellings: OnceLock::new(),
            remembered: None,
            limits: Limits::default(),
        }
    }

    /// This scrubber, stopping at `deadline` (the call's): a text it is reading then is
    /// withheld, and so is every text it reads after (see [`Scrubber::stopped`]).
    pub(crate) fn until(mut self, deadline: Option<Instant>) -> Self {
        self.limits.deadline = deadline;
        self
    }

    /// Whether it stopped reading, at its deadline or cancelled: what it cleaned since was
    /// withheld, and the call is out of time.
    pub(crate) fn stopped(&self) -> bool {
        self.limits.stopped.load(Ordering::Relaxed)
    }

    /// This scrubber, cleaning the secrets `registry` remembers too.
    pub(crate) fn remembering(mut self, registry: &SecretRegistry) -> Self {
        let (automaton, covered) = registry.automaton_covering(&self.known);
        // What the registry's automaton covers is not looked for twice: one call's own
        // automaton is then its signature alone, quick to build.
        let mut covered = covered.into_iter();
        self.known.retain(|_| !covered.next().unwrap_or(false));
        self.remembered = Some(automaton);
        // Made of the known secrets and the remembered ones: made again if it was made.
        self.spellings = OnceLock::new();
        self.known_automaton = OnceLock::new();
        self
    }

    /// Its secrets and deadline, owned (see [`ScrubberParts`]).
    pub(crate) fn to_parts(&self) -> ScrubberParts {
        ScrubberParts {
            known: self.known.iter().map(|value| (*value).to_owned()).collect(),
            remembered: self.remembered.clone(),
            cancelled: Arc::new(AtomicBool::new(false)),
            deadline: self.limits.deadline,
        }
    }

    /// A scrubber that knows no secret: secret-named values only.
    pub(crate) fn structural() -> Scrubber<'static> {
        Scrubber::new(KnownSecrets::NONE)
    }

    /// The automaton of the known secrets, built on first use.
    fn known_automaton(&self) -> Result<Option<&SecretSet>, ()> {
        self.known_automaton
            .get_or_init(|| {
                SecretSet::build(self.known.iter().copied(), Lasting::No)
                    .map(|set| set.map(Box::new))
            })
            .as_ref()
            .map(Option::as_deref)
            .map_err(|_| ())
    }

    /// Whether `text`, read as it is, holds a spelling of a known or remembered secret (short
    /// or not: it decides nothing but whether the text is read in full). One pass for both.
    fn in_plain(&self, text: &[u8], remembered: Option<&SecretSet>) -> bool {
        let remembered = remembered.map(SecretSet::prefilter);
        if self.known.is_empty() {
            return remembered.is_some_and(|set| set.holds(text, None));
        }
        self.prefilter(remembered).holds(text, remembered)
    }

    /// The prefilter of the known secrets' spellings, beside `remembered`'s, made on first use
    /// (the scrubber's `remembered` is always the one given).
    fn prefilter(&self, remembered: Option<&Prefilter>) -> &Prefilter {
        self.spellings.get_or_init(|| {
            let spellings: Vec<Vec<u8>> = self
                .known
                .iter()
                .flat_map(|value| folded::spellings(value))
                .collect();
            match remembered {
                Some(remembered) => Prefilter::beside(spellings, remembered),
                None => Prefilter::new(spellings),
            }
        })
    }

    /// Whether `text` as it is or its folded view ([`folded`]; `view`, made on first need:
    /// `Err` when too large to make, and then it may hold anything) holds a spelling of a
    /// known or remembered secret. ASCII text is read once, in place, without the bytes
    /// folding drops (its folded view), which answers for the text as it is too when the
    /// spellings are closed ([`Prefilter::closed`]: each spelling's kept bytes are one).
    fn in_plain_or_folded<'v>(
        &self,
        text: &[u8],
        remembered: Option<&SecretSet>,
        view: impl FnOnce() -> Result<Option<&'v [u8]>, ()>,
    ) -> bool {
        if text.is_ascii() {
            let set = remembered.map(SecretSet::prefilter);
            let read = if self.known.is_empty() {
                set.map_or(Some((false, true)), |set| {
                    set.holds_kept(text, None).map(|held| (held, set.closed()))
                })
            } else {
                let prefilter = self.prefilter(set);
                prefilter.holds_kept(text, set).map(|held| {
                    (
                        held,
                        prefilter.closed() && set.is_none_or(Prefilter::closed),
                    )
                })
            };
            match read {
                Some((true, _)) => return true,
                Some((false, true)) => return false,
                Some((false, false)) => return self.in_plain(text, remembered),
                None => {}
            }
        }
        if self.in_plain(text, remembered) {
            return true;
        }
        // A view too large to make may hold anything: read in full, where it is withheld.
        folded::changes(text)
            && view().map_or(true, |view| {
                view.is_some_and(|view| self.in_plain(view, remembered))
            })
    }

    /// A body as it came, cleaned: withheld whole when it is not text the scrubber reads as it
    /// is ([`legible::illegible`]: a declared charset other than UTF-8, a UTF-16 or UTF-32
    /// byte order mark, a NUL byte, a content coding), since a reader that decodes it would
    /// see what no view of its bytes shows, its note saying which; otherwise
    /// [`Scrubber::clean`]. The one place a body is cleaned (`error_body::ReadBody::read`).
    pub(crate) fn clean_body<'t>(&self, body: &'t [u8], headers: &HeaderMap) -> Cleaned<'t> {
        match legible::illegible(body, headers) {
            None => self.clean(body),
            Some(reason) => withheld_because(body, Some(reason)),
        }
    }

    /// `text` without secrets.
    pub(crate) fn clean<'t>(&self, text: &'t [u8]) -> Cleaned<'t> {
        let withheld = || withheld(text);
        let Some(mut found) = self.find(text) else {
            return withheld();
        };
        // A secret that is part of the word `[redacted]` already in the text is that word,
        // not a secret (so cleaning twice changes nothing more than once).
        if !found.is_empty() {
            let markers = marker_spans(text);
            found.retain(|&finding| !within(&markers, finding));
        }
        if found.is_empty() {
            return Cleaned {
                bytes: Cow::Borrowed(text),
                outcome: Outcome::Unchanged,
            };
        }
        let cleaned = replace(text, found);
        let markers = marker_spans(&cleaned);
        let left = self
            .find(&cleaned)
            .is_none_or(|again| again.into_iter().any(|finding| !within(&markers, finding)));
        if left {
            return withheld();
        }
        Cleaned {
            bytes: Cow::Owned(cleaned),
            outcome: Outcome::Redacted,
        }
    }

    /// `text` without secrets, as text.
    pub(crate) fn text<'t>(&self, text: &'t str) -> Cow<'t, str> {
        let cleaned = self.clean(text.as_bytes());
        match cleaned.bytes {
            Cow::Borrowed(_) => Cow::Borrowed(text),
            Cow::Owned(_) => Cow::Owned(cleaned.into_string()),
        }
    }

    /// A URL the service pointed to (a redirect's `Location`, a callback) fit to keep: its
    /// user info and the values of its `oauth_*` query parameters removed (the token travels
    /// with its verifier there), then cleaned like any text. Text that is not a URL with an
    /// authority loses what could be user info, its query and its fragment
    /// ([`url_parts_removed`]).
    pub(crate) fn url(&self, location: &str) -> String {
        self.url_cleaned(location, UrlValues::OAuth)
    }

    /// A URL the app configured (a base URL, a callback), for the error that refuses it: its
    /// user info removed, its query and its fragment each shown as `[redacted]` whatever they
    /// hold (a bare `?T0K3N`, a credential as a parameter's name), then cleaned like any text,
    /// so a credential written in any of them shows in no error and no `Debug`. Text that is
    /// not a URL is cleaned as in [`Scrubber::url`].
    pub(crate) fn configured_url(&self, given: &str) -> String {
        self.url_cleaned(given, UrlValues::All)
    }

    fn url_cleaned(&self, text: &str, hidden: UrlValues) -> String {
        // A URL without an authority (`user:pw@host` reads as the scheme `user`) has no user
        // info to a parser, but may have to a reader: it is cleaned as text that is no URL.
        // So is one with an `@` anywhere: a reader takes what comes before it for user info,
        // wherever a parser puts it (`https://us/er:pw@host` has the host `us` and a path,
        // `https://us?er:pw@host` a query).
        let mut url = match url::Url::parse(text) {
            Ok(url) if !url.cannot_be_a_base() && !text.contains('@') => url,
            _ => return self.text(&url_parts_removed(text)).into_owned(),
        };
        // No user info here: it needs an `@`.
        if hidden == UrlValues::All {
            let query = url.query().is_some_and(|query| !query.is_empty());
            let fragment = url.fragment().is_some_and(|fragment| !fragment.is_empty());
            url.set_query(None);
            url.set_fragment(None);
            let mut shown = url.as_str().to_owned();
            if query {
                shown.push('?');
                shown.push_str(REDACTED);
            }
            if fragment {
                shown.push('#');
                shown.push_str(REDACTED);
            }
            return self.text(&shown).into_owned();
        }
        if url.query().is_some() {
            let pairs: Vec<(String, String)> = url
                .query_pairs()
                .map(|(name, value)| {
                    let value = if name.starts_with("oauth_") && !value.is_empty() {
                        REDACTED.into()
                    } else {
                        value
                    };
                    (name.into_owned(), value.into_owned())
                })
                .collect();
            url.query_pairs_mut().clear().extend_pairs(pairs);
        }
        let written = url
            .as_str()
            .replace("%5Bredacted%5D", REDACTED)
            .replace("%5bredacted%5d", REDACTED);
        self.text(&written).into_owned()
    }

    /// `headers` without secrets: a header whose name holds one (the service can name a header
    /// anything) is shown as [`REDACTED_HEADER`] without its value; credential headers
    /// (`Authorization`, cookies, secret-named ones, `X-Api-Key`, …: the one rule of
    /// `secret::carries_credential`) lose their values; the other values are cleaned like any
    /// text.
    pub(crate) fn headers<'h>(&self, headers: &'h HeaderMap) -> Cow<'h, HeaderMap> {
        let clean_header = |name: &HeaderName, value: &HeaderValue| {
            if self.clean(name.as_str().as_bytes()).changed() {
                return Some((REDACTED_HEADER, HeaderValue::from_static(REDACTED)));
            }
            if value.is_empty() {
                return None;
            }
            if carries_credential(name.as_str(), value) {
                return Some((name.clone(), HeaderValue::from_static(REDACTED)));
            }
            let cleaned = self.clean(value.as_bytes());
            cleaned.changed().then(|| {
                let value = HeaderValue::from_bytes(&cleaned.bytes)
                    .unwrap_or_else(|_| HeaderValue::from_static(REDACTED));
                (name.clone(), value)
            })
        };
        let cleaned: Vec<_> = headers
            .iter()
            .map(|(name, value)| clean_header(name, value))
            .collect();
        if cleaned.iter().all(Option::is_none) {
            return Cow::Borrowed(headers);
        }
        let mut clean = HeaderMap::with_capacity(headers.len());
        for ((name, value), cleaned) in headers.iter().zip(cleaned) {
            match cleaned {
                Some((name, value)) => clean.append(name, value),
                None => clean.append(name.clone(), value.clone()),
            };
        }
        Cow::Owned(clean)
    }

    /// Every span of `text` that holds a secret, in any view; `None` when the known secrets
    /// cannot be looked for, a view holds an escape too long to decode, or the scrubber
    /// stopped ([`Limits`]: cancelled, or past its call's deadline).
    fn find(&self, text: &[u8]) -> Option<Vec<Finding>> {
        let remembered = match &self.remembered {
            Some(Ok(automaton)) => automaton.as_ref().as_ref(),
            Some(Err(())) => return None,
            None => None,
        };
        // The folded view ([`folded`]) of a text it changes, read for the known secrets only:
        // made once, on first need; `Err` when it would be too large to hold
        // ([`folded::MAX_GROWTH`]), and then the text is withheld.
        let knows = !self.known.is_empty() || remembered.is_some();
        let folded_bytes = std::cell::OnceCell::new();
        let folded = || {
            folded_bytes
                .get_or_init(|| match knows && folded::changes(text) {
                    true => folded::bytes(text).map(Some).ok_or(()),
                    false => Ok(None),
                })
                .as_ref()
                .map(Option::as_deref)
                .map_err(|_| ())
        };
        // A text without escapes (a header value, a clean answer): the call's own few secrets
        // are looked for as they are, without building their automaton.
        if text.len() <= SHORT_TEXT
            && !has_escape(text)
            && !has_secret_word(text)
            && !self.in_plain_or_folded(text, remembered, folded)
        {
            return Some(Vec::new());
        }
        let known = self.known_automaton().ok()?;
        let automata: Vec<&SecretSet> = known.into_iter().chain(remembered).collect();
        let folded = match automata.is_empty() {
            true => None,
            false => folded().ok()?,
        };
        if !may_hold_secrets(text, &automata)
            && !folded.is_some_and(|folded| automata.iter().any(|set| set.in_plain(folded)))
        {
            return Some(Vec::new());
        }
        let mut found = Vec::new();
        let reader = ViewReader {
            automata: &automata,
            limits: &self.limits,
        };
        // No escape anywhere: each byte has one reading, and the known secrets are found by
        // one unanchored pass each (linear whatever their shape), the names by the scan; the
        // folded view likewise, by one pass each over its bytes.
        if !views::holds_escape(text) {
            reader.read(views::raw(text), true, false, &mut found)?;
            for set in &automata {
                set.find_plain(text, &self.limits, &mut found)?;
            }
            if let Some(folded) = folded {
                let mut in_folded = Vec::new();
                for set in &automata {
                    set.find_plain(folded, &self.limits, &mut in_folded)?;
                }
                if !in_folded.is_empty() {
                    folded::spans_in_text(text, &mut in_folded);
                    found.extend(in_folded);
                }
            }
            return Some(found);
        }
        // Each view read with its own decoder type (no dynamic dispatch per byte), and folded
        // (a view decoded may fold where the text does not: `%20`, `\u200b`).
        let fold_views = !automata.is_empty();
        for layers in 0..=MAX_LAYERS {
            let raw = views::raw(text);
            let escapes = match layers {
                0 => reader.read(raw, true, true, &mut found)?,
                1 => reader.read(Decoded::new(raw), false, true, &mut found)?,
                2 => reader.read(Decoded::new(Decoded::new(raw)), false, true, &mut found)?,
                _ => reader.read(
                    Decoded::new(Decoded::new(Decoded::new(raw))),
                    false,
                    true,
                    &mut found,
                )?,
            };
            if fold_views && (layers > 0 || folded.is_some()) {
                let raw = views::raw(text);
                match layers {
                    0 => reader.read_known(Folded::new(raw), &mut found)?,
                    1 => reader.read_known(Folded::new(Decoded::new(raw)), &mut found)?,
                    2 => reader
                        .read_known(Folded::new(Decoded::new(Decoded::new(raw))), &mut found)?,
                    _ => reader.read_known(
                        Folded::new(Decoded::new(Decoded::new(Decoded::new(raw)))),
                        &mut found,
                    )?,
                }
            }
            if !escapes {
                break; // The next view would be this one again.
            }
        }
        Some(found)
    }
}

/// Which values of a URL's query [`Scrubber::url`] and [`Scrubber::configured_url`] remove.
#[derive(Clone, Copy, PartialEq, Eq)]
enum UrlValues {
    /// Those of `oauth_*` parameters.
    OAuth,
    /// Every one, and the fragment.
    All,
}

/// A scrubber's secrets and deadline, owned, to clean on another thread
/// ([`Scrubber::to_parts`]): a blocking thread the call awaits, or the recorder's, which
/// reaches an answer after its call returned and stops at the same deadline. Clones share the
/// cancellation ([`ScrubberParts::canceller`]).
#[derive(Clone)]
pub(crate) struct ScrubberParts {
    known: Vec<String>,
    remembered: Option<Result<Arc<Option<SecretSet>>, ()>>,
    cancelled: Arc<AtomicBool>,
    deadline: Option<Instant>,
}

impl ScrubberParts {
    /// A handle that stops the cleaning of every scrubber made from these parts: it then
    /// withholds what it cleans (nobody waits for it any more).
    pub(crate) fn canceller(&self) -> Canceller {
        Canceller(Arc::clone(&self.cancelled))
    }

    /// The scrubber these parts make: the same secrets and deadline as the one they came from.
    pub(crate) fn scrubber(&self) -> Scrubber<'_> {
        Scrubber {
            known: self.known.iter().map(String::as_str).collect(),
            known_automaton: OnceLock::new(),
            spellings: OnceLock::new(),
            remembered: self.remembered.clone(),
            limits: Limits {
                cancelled: Some(Arc::clone(&self.cancelled)),
                deadline: self.deadline,
                ..Limits::default()
            },
        }
    }
}

/// Stops a cleaning on another thread (see [`ScrubberParts::canceller`]).
pub(crate) struct Canceller(Arc<AtomicBool>);

impl Canceller {
    pub(crate) fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// `text` cleaned the way the client cleans everything it hands out (errors, what hooks see,
/// recordings, traces): the value of every secret-named name (`secret`, `password`,
/// `oauth_signature`, `oauth_verifier`, … in any case and spelling, in JSON, form pairs, XML,
/// command lines or text, however escaped, nested or duplicated) and every one of `secrets`
/// (in any Unicode normalization form or compatibility characters, in hexadecimal or base64,
/// broken by white space or invisible characters, written as it is or in any mix of percent,
/// JSON, language and HTML escapes; one shorter than 8 bytes only where it stands alone, not
/// inside a longer run of letters and digits) replaced by `[redacted]`; a
/// text that cannot be cleaned for certain is withheld whole. For an app's own logs of what it
/// sent or received. Linear in the text; every one of `secrets` is looked for.
///
/// ```
/// use marketplace_client::{Secret, redact};
///
/// let secret = Secret::new("s3cr&t");
/// let cleaned = redact(r#"{"oauth_token_secret": "x", "echo": "s3cr%26t"}"#, &[&secret]);
/// assert_eq!(cleaned, r#"{"oauth_token_secret": "[redacted]", "echo": "[redacted]"}"#);
/// ```
pub fn redact<'t>(text: &'t str, secrets: &[&crate::Secret]) -> Cow<'t, str> {
    let secrets: Vec<String> = secrets
        .iter()
        .map(|secret| secret.expose().to_owned())
        .collect();
    Scrubber::new(KnownSecrets::NONE.with_app_credentials(&secrets)).text(text)
}

/// `url` fit to show in an error or a log line, as the client shows a URL an app configured:
/// its user info removed, its query and its fragment each `[redacted]` whatever they hold,
/// then cleaned like any text ([`redact`] with no secrets). Text that is not a URL with an
/// authority, or that has an `@` anywhere (a reader takes what comes before it for user info,
/// wherever a parser puts it: `https://us/er:pw@host` has the host `us`), loses everything
/// that could be user info, query, fragment or parameters.
///
/// ```
/// use marketplace_client::redact_url;
///
/// assert_eq!(
///     redact_url("https://host.example/cb?code=1#t"),
///     "https://host.example/cb?[redacted]#[redacted]",
/// );
/// assert_eq!(redact_url("https://me:pw@host.example/cb"), "https://[redacted]@host.example/cb");
/// assert_eq!(redact_url("https://us/er:pw@host/"), "https://[redacted]@host/");
/// ```
pub fn redact_url(url: &str) -> String {
    Scrubber::new(KnownSecrets::NONE).configured_url(url)
}

/// The name a header whose name holds a secret is shown under ([`Scrubber::headers`]).
pub(crate) const REDACTED_HEADER: HeaderName = HeaderName::from_static("x-redacted");

/// What a text that cannot be cleaned for certain becomes: a note of its length.
fn withheld(text: &[u8]) -> Cleaned<'static> {
    withheld_because(text, None)
}

/// [`withheld`], the note saying why when there is a reason to give.
fn withheld_because(text: &[u8], reason: Option<legible::Illegible>) -> Cleaned<'static> {
    let length = text.len();
    Cleaned {
        bytes: Cow::Owned(
            match reason {
                None => format!("{WITHHELD_START}{length}{WITHHELD_END}]"),
                Some(reason) => format!(
                    "{WITHHELD_START}{length}{WITHHELD_END}: {}]",
                    reason.reason()
                ),
            }
            .into_bytes(),
        ),
        outcome: Outcome::Withheld,
    }
}

/// Text that is not a URL to trust the parse of (not one, no authority, or an `@` anywhere),
/// without what could be its user info, query, fragment or parameters: everything from the
/// start (after an `http:` or `https:` and its slashes, either way) to the last `@` anywhere
/// in it becomes `[redacted]` (a parser may read a host, a path or a query where a reader sees
/// user info: `https:user:pw@host`, `https://us/er:pw@host`, a password holding `?` or `#`),
/// and whatever follows the first `?`, `#`, `&`, `=` or `;` after that becomes `[redacted]`.
/// It removes too much from some texts, never too little.
fn url_parts_removed(text: &str) -> String {
    let scheme = ["https:", "http:"]
        .into_iter()
        .find(|scheme| {
            text.get(..scheme.len())
                .is_some_and(|start| start.eq_ignore_ascii_case(scheme))
        })
        .map_or(0, |scheme| {
            scheme.len()
                + text[scheme.len()..]
                    .bytes()
                    .take_while(|&byte| matches!(byte, b'/' | b'\\'))
                    .count()
        });
    let (kept, rest) = text.split_at(scheme);
    let mut out = kept.to_owned();
    let rest = match rest.rfind('@') {
        Some(at) => {
            out.push_str(REDACTED);
            &rest[at..]
        }
        None => rest,
    };
    match rest.find(['?', '#', '&', '=', ';']) {
        Some(at) => {
            out.push_str(&rest[..=at]);
            out.push_str(REDACTED);
        }
        None => out.push_str(rest),
    }
    out
}

/// Whether `text` may hold anything to remove: an escape (which only the views can read), a
/// secret word or a known secret as it is. One pass of the automata over the bytes, with none
/// of the views' bookkeeping, so a clean text (the usual answer) costs little; a text that
/// fails it is read in full, so it decides nothing but how fast.
fn may_hold_secrets(text: &[u8], known: &[&SecretSet]) -> bool {
    has_escape(text) || has_secret_word(text) || known.iter().any(|set| set.in_plain(text))
}

/// Texts up to this long are looked at without building the call's automaton: the bodies a
/// call cleans on its own task ([`INLINE_BYTES`]). Building it costs about
/// 120,000 instructions for one signature, far more than the [`Prefilter`] of its spellings
/// and its look at such a text (with a response hook or a recorder every answer is cleaned:
/// the client bench's `project_hook` and `project_recording`, BENCHMARKS.md section 5).
/// Longer texts, cleaned on a blocking thread, take the automaton: one pass, no copy.
const SHORT_TEXT: usize = INLINE_BYTES;

/// Bodies up to this size are cleaned and decoded on the call's own task; larger ones on a
/// blocking thread, under the call's deadline (`transport::Response::clean_within_deadline`).
/// Defined here, where the scrubber picks its method by it; the transport uses it.
pub(crate) const INLINE_BYTES: usize = 64 << 10;

/// Whether `text` holds a byte that starts an escape (which only the views can read).
fn has_escape(text: &[u8]) -> bool {
    memchr::memchr3(b'%', b'\\', b'&', text).is_some()
}

/// Whether `text`, as it is, holds a secret word (separators between its letters ignored).
/// Apart, so that its loop keeps its few values in registers.
#[inline(never)]
fn has_secret_word(text: &[u8]) -> bool {
    let next = &*WORD_TABLE.next;
    let mut row = WordTable::START;
    for &byte in text {
        // A row starts at a multiple of 256: the byte is its low bits, the index a `u16`
        // (no bounds check).
        row = next[usize::from(row | u16::from(byte))];
        if row == WordTable::MATCHED {
            return true;
        }
    }
    false
}

/// [`WORDS`] as a table a byte costs one lookup in (every clean text is read through it): a
/// row of 256 entries for each state of the automaton, each entry where the next state's row
/// starts, a name separator leaving the state as it is, a match [`WordTable::MATCHED`].
struct WordTable {
    /// The rows, then [`WordTable::MATCHED`] up to 65,536 entries, so that any `u16` indexes
    /// it.
    next: Box<[u16; 1 << 16]>,
}

impl WordTable {
    /// The row of the automaton's unanchored start.
    const START: u16 = 0;
    /// Where a secret word ends: no row starts there.
    const MATCHED: u16 = u16::MAX;
}

static WORD_TABLE: LazyLock<WordTable> = LazyLock::new(|| {
    let words = &*WORDS;
    let start = words.start_state(Anchored::No).unwrap_or(StateID::ZERO);
    // The automaton's states in the order they are reached; a state's row is its place.
    let mut states = vec![start];
    let mut next = vec![WordTable::MATCHED; 1 << 16];
    let mut rows = 0;
    while let Some(&state) = states.get(rows) {
        for byte in 0..=u8::MAX {
            let to = if is_name_separator(byte) {
                state
            } else {
                words.next_state(Anchored::No, state, byte)
            };
            if words.is_match(to) {
                continue;
            }
            let place = states
                .iter()
                .position(|&known| known == to)
                .unwrap_or_else(|| {
                    states.push(to);
                    states.len() - 1
                });
            // Rows 0 to 254 (the last row holds `MATCHED`).
            next[rows * 256 + usize::from(byte)] = u16::try_from(place)
                .ok()
                .filter(|&place| place < 255)
                .map(|place| place * 256)
                .unwrap_or_else(|| unreachable!("six short words have fewer than 255 states"));
        }
        rows += 1;
    }
    let next = next
        .into_boxed_slice()
        .try_into()
        .unwrap_or_else(|_| unreachable!("65,536 entries"));
    WordTable { next }
});

/// How often a scrubber looks whether it must stop ([`Limits`]), in work done: units read, and
/// each partial match of a known secret moved on by one (what a text of a periodic secret,
/// `tttt…`, costs more than its length). A few microseconds of reading, so a look costs
/// nothing measurable and a call ends within that of its deadline.
const CHECK_EVERY: usize = 1 << 12;

/// The most work one view of a text may cost for each unit read (units, and partial matches
/// of known secrets moved on), past [`WORK_SLACK`]: a known secret's partial matches per unit
/// are a few in any text but one built to multiply them (a periodic secret, `tttt…`, echoed in
/// a text with escapes: one partial match alive per start, up to the secret's length). Past
/// the bound the text is withheld as one that cannot be cleaned for certain, so every cleaning
/// is linear in its text: on a call (besides its deadline), on the recorder's thread, in
/// [`redact`].
const WORK_PER_UNIT: usize = 64;

/// Work any view may do whatever its length (a millisecond or so of reading), so that no text
/// a sane service sends, however short, is withheld for its partial matches.
const WORK_SLACK: usize = 1 << 20;

/// Reads views for secret-named values and known secrets.
struct ViewReader<'a> {
    automata: &'a [&'a SecretSet],
    limits: &'a Limits,
}

impl ViewReader<'_> {
    /// Reads one view (`plain`: the text as it is), adding what it finds to `found`: the
    /// secret-named values, and the known secrets when `known` (else the caller finds them,
    /// `SecretSet::find_plain`); whether the view holds an escape, or `None` when stopped or
    /// when the view holds an escape too long to decode (the text cannot be cleaned for
    /// certain).
    fn read(
        &self,
        units: impl Iterator<Item = Unit>,
        plain: bool,
        known: bool,
        found: &mut Vec<Finding>,
    ) -> Option<bool> {
        let mut scan = Scan::new(&WORDS, plain);
        let mut matchers: Vec<Matcher<'_>> = if known {
            self.automata.iter().map(|set| set.matcher()).collect()
        } else {
            Vec::new()
        };
        self.drive(units, |unit| {
            scan.feed(unit);
            1 + matchers
                .iter_mut()
                .map(|matcher| matcher.feed(unit))
                .sum::<usize>()
        })?;
        let scan = scan.finish();
        if scan.undecodable {
            return None;
        }
        found.extend(scan.found);
        for matcher in matchers {
            found.extend(matcher.finish());
        }
        Some(scan.escapes)
    }

    /// Reads one view for the known secrets only (the folded ones: [`folded`]), adding what
    /// it finds to `found`; `None` when stopped.
    fn read_known(
        &self,
        units: impl Iterator<Item = Unit>,
        found: &mut Vec<Finding>,
    ) -> Option<()> {
        let mut matchers: Vec<Matcher<'_>> =
            self.automata.iter().map(|set| set.matcher()).collect();
        self.drive(units, |unit| {
            1 + matchers
                .iter_mut()
                .map(|matcher| matcher.feed(unit))
                .sum::<usize>()
        })?;
        for matcher in matchers {
            found.extend(matcher.finish());
        }
        Some(())
    }

    /// Feeds every unit of a view to `feed` (which says the work it did), within the bounds
    /// of [`WORK_PER_UNIT`] and the [`Limits`]; `None` past them.
    fn drive(
        &self,
        units: impl Iterator<Item = Unit>,
        mut feed: impl FnMut(Unit) -> usize,
    ) -> Option<()> {
        if self.limits.stopped.load(Ordering::Relaxed) {
            return None;
        }
        let (mut read, mut work, mut unchecked) = (0usize, 0usize, 0usize);
        for unit in units {
            let step = feed(unit);
            read += 1;
            work += step;
            unchecked += step;
            if unchecked >= CHECK_EVERY {
                // Linear in what is read, whoever waits and whatever the deadline: a view that
                // costs more is not cleaned for certain in that (the text is withheld).
                if work > WORK_PER_UNIT * read + WORK_SLACK || self.limits.stop_after(unchecked) {
                    return None;
                }
                unchecked = 0;
            }
        }
        if self.limits.stop_after(unchecked) {
            return None;
        }
        Some(())
    }
}

/// `text` with every span found replaced by a marker; overlapping and touching spans become
/// one.
fn replace(text: &[u8], mut found: Vec<Finding>) -> Vec<u8> {
    found.sort_unstable_by(|a, b| a.start.cmp(&b.start).then(b.end.cmp(&a.end)));
    let mut out = Vec::with_capacity(text.len());
    let mut copied = 0;
    let mut spans = found.into_iter().peekable();
    while let Some(first) = spans.next() {
        let mut end = first.end;
        while let Some(next) = spans.next_if(|next| next.start <= end) {
            end = end.max(next.end);
        }
        out.extend_from_slice(&text[copied..first.start]);
        // A bare JSON value stays a JSON value when nothing else widened its span.
        if first.quoted && end == first.end {
            out.push(b'"');
            out.extend_from_slice(REDACTED.as_bytes());
            out.push(b'"');
        } else {
            out.extend_from_slice(REDACTED.as_bytes());
        }
        copied = end;
    }
    out.extend_from_slice(&text[copied..]);
    out
}

/// Where the scrubber's own words are in a text, as `(start, end)` in order: every
/// `[redacted]` and every `[withheld: N bytes …]` note. A secret found inside one of them is
/// part of that word, not a secret left (so cleaning a cleaned text changes nothing).
fn marker_spans(text: &[u8]) -> Vec<(usize, usize)> {
    let mut spans: Vec<(usize, usize)> = memchr::memmem::find_iter(text, REDACTED.as_bytes())
        .map(|start| (start, start + REDACTED.len()))
        .collect();
    for start in memchr::memmem::find_iter(text, WITHHELD_START.as_bytes()) {
        let rest = &text[start + WITHHELD_START.len()..];
        let digits = rest.iter().take_while(|byte| byte.is_ascii_digit()).count();
        let Some(after) = rest[digits..].strip_prefix(WITHHELD_END.as_bytes()) else {
            continue;
        };
        // The note ends at its `]`, after the reason it gives, if any.
        let rest = after.strip_prefix(b": ").map_or(Some(after), |because| {
            legible::Illegible::ALL
                .into_iter()
                .find_map(|reason| because.strip_prefix(reason.reason().as_bytes()))
        });
        if let (true, Some(rest)) = (digits > 0, rest.and_then(|rest| rest.strip_prefix(b"]"))) {
            spans.push((start, text.len() - rest.len()));
        }
    }
    spans.sort_unstable();
    spans
}

/// Whether a finding lies within one of the scrubber's own words (see [`marker_spans`]).
fn within(spans: &[(usize, usize)], finding: Finding) -> bool {
    let index = spans.partition_point(|&(start, _)| start <= finding.start);
    index > 0 && finding.end <= spans[index - 1].1
}

#[cfg(test)]
mod tests;
