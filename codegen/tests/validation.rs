//! One test per spec validation rule: each broken spec is refused with the rule it breaks
//! (its [`ErrorKind`]), its file, line and column, and the path inside the spec; where the
//! nearest valid name is the point, the suggestion too. Tests match on the kind and the place,
//! never on the wording, except the one test of how an error is rendered.

use marketplace_codegen::diagnostic::ErrorKind::{self, *};
use marketplace_codegen::{SpecError, SpecSource, resolve};
use proptest::prelude::*;

/// The errors for a one-file spec named `spec/test.yaml`.
fn errors(yaml: &str) -> Vec<SpecError> {
    errors_in(&[("spec/test.yaml", yaml)])
}

fn errors_in(files: &[(&str, &str)]) -> Vec<SpecError> {
    let sources: Vec<SpecSource> = files
        .iter()
        .map(|(path, text)| SpecSource {
            path: (*path).to_owned(),
            text: (*text).to_owned(),
        })
        .collect();
    match resolve(&sources) {
        Ok(_) => panic!("the spec was accepted"),
        Err(errors) => errors.0,
    }
}

/// What a test compares: the rule, where (`file:line:column`) and the spec path.
fn found(errors: &[SpecError]) -> Vec<(ErrorKind, String, &str)> {
    errors
        .iter()
        .map(|e| {
            let at = match e.location {
                Some(at) => format!("{}:{}:{}", e.file, at.line, at.column),
                None => e.file.clone(),
            };
            (e.kind, at, e.path.as_str())
        })
        .collect()
}

/// `(kind, "line:column", path)` in `spec/test.yaml`.
fn at(kind: ErrorKind, line_column: &str, path: &'static str) -> (ErrorKind, String, &'static str) {
    (kind, format!("spec/test.yaml:{line_column}"), path)
}

/// The name an error suggests, from its `(did you mean '…'?)`.
fn suggestion(error: &SpecError) -> Option<&str> {
    let rest = error.message.split("(did you mean '").nth(1)?;
    rest.split('\'').next()
}

/// A valid base to break: a method delivering a record with one field.
const BASE: &str = "\
types:
  Timesheet:
    doc: A timesheet.
    fields:
      rate:
        type: decimal
        doc: Hourly rate.
methods:
  pay/getTimesheet:
    doc: One timesheet.
    response: Timesheet
";

fn broken(from: &str, to: &str) -> String {
    assert!(BASE.contains(from), "{from:?} is not in BASE");
    BASE.replacen(from, to, 1)
}

const OAUTH: &str = "\
oauth:
  doc: OAuth.
  https_required: true
  signature_method: HMAC-SHA1
  version: '1.0'
  token_lifetime_seconds: 21600
  endpoints:
    request_token: { method: POST, path: /oauth/getRequestToken, doc: a }
    authorize: { method: GET, path: /oauth/authorizeToken, doc: b }
    access_token: { method: POST, path: /oauth/getAccessToken, doc: c }
    revoke: { method: POST, path: /oauth/revokeToken, doc: d }
";

#[test]
fn the_base_spec_is_valid() {
    let sources = [SpecSource {
        path: "spec/test.yaml".to_owned(),
        text: BASE.to_owned(),
    }];
    assert!(resolve(&sources).is_ok());
}

#[test]
fn an_error_is_rendered_with_file_line_column_rule_path_and_suggestion() {
    let errors = errors(&broken("type: decimal", "type: decimall"));
    assert_eq!(
        errors[0].to_string(),
        "spec/test.yaml:6:9: unknown-type: types.Timesheet.fields.rate: unknown type 'decimall' (did you mean 'decimal'?)"
    );
}

/// One broken spec per rule; the test below checks that each is refused by that rule, and
/// that every rule has one.
fn one_spec_per_rule() -> Vec<(ErrorKind, String)> {
    let params = |params: &str| format!("{BASE}    params:\n{params}");
    vec![
        (TooLarge, "[".repeat(100)),
        (InvalidYaml, "types: [unclosed\n".to_owned()),
        (UnknownKey, broken("type: decimal", "tyep: decimal")),
        (MissingKey, broken("        doc: Hourly rate.\n", "")),
        (InvalidValue, broken("type: decimal", "type: [decimal]")),
        (
            DuplicateName,
            format!("{BASE}enums:\n  Timesheet:\n    doc: Clash.\n    values: {{ A: a }}\n"),
        ),
        (
            InvalidPath,
            "api: { name: M, doc: D, data_path: api, api_version: 1 }\n".to_owned(),
        ),
        (
            UnknownHttpMethod,
            OAUTH.replace("method: GET", "method: PUT"),
        ),
        (
            UnsupportedSignatureMethod,
            OAUTH.replace("HMAC-SHA1", "RSA-SHA1"),
        ),
        (
            EmptyEnum,
            "enums:\n  Status:\n    doc: A status.\n    values: {}\n".to_owned(),
        ),
        (
            InvalidVariant,
            "enums:\n  Status:\n    doc: A status.\n    values: { Other: c }\n".to_owned(),
        ),
        (
            DuplicateVariant,
            "enums:\n  Status:\n    doc: A status.\n    values: { A B: a, A_B: b }\n".to_owned(),
        ),
        (
            InvalidTypeName,
            format!("{BASE}enums:\n  Decimal:\n    doc: Clash.\n    values: {{ A: a }}\n"),
        ),
        (UnknownType, broken("type: decimal", "type: decimall")),
        (
            InvalidFields,
            "types:\n  Comment:\n    doc: A comment.\n".to_owned(),
        ),
        (
            RecursiveType,
            broken("type: decimal", "type: Timesheet\n        optional: true"),
        ),
        (InvalidRustName, broken("      rate:", "      type:")),
        (
            RustNameTaken,
            broken(
                "    response: Timesheet",
                "    response: Timesheet\n    rust_name: timesheet",
            ),
        ),
        (
            InvalidPresence,
            broken(
                "type: decimal",
                "type: decimal\n        optional: true\n        only_in: [pay/getTimesheet]",
            ),
        ),
        (
            UnknownMethod,
            format!("{BASE}errors:\n  E_X:\n    doc: X.\n    methods: [pay/getTimesheets]\n"),
        ),
        (
            NotDelivered,
            broken(
                "type: decimal",
                "type: decimal\n        only_in: [pay/getTimeshet]",
            ),
        ),
        (
            UnknownEncoding,
            broken("type: decimal", "type: decimal\n        encoding: strng"),
        ),
        (MissingEncoding, broken("type: decimal", "type: date")),
        (
            InvalidZeroIsNone,
            broken("type: decimal", "type: decimal\n        zero_is_none: true"),
        ),
        (EmptyDoc, broken("doc: Hourly rate.", "doc: ''")),
        (
            InvalidNarrowed,
            broken("type: decimal", "type: decimal\n        narrowed: because"),
        ),
        (
            InvalidMethodName,
            broken("  pay/getTimesheet:", "  getTimesheet:"),
        ),
        (
            UnknownParameter,
            format!("{BASE}    at_least_one_of: [id, bidId]\n"),
        ),
        (
            InvalidAlternatives,
            params("      id: { type: id, doc: ID. }\n    at_least_one_of: [id]\n"),
        ),
        (
            UnknownParameterType,
            params("      id: { type: identifier, doc: ID. }\n"),
        ),
        (
            InvalidBounds,
            params("      id: { type: id, min: -1, doc: ID. }\n"),
        ),
        (
            InvalidPaging,
            params(
                "      page: { type: count, doc: Page. }\n      rpp: { type: count, doc: Size. }\n    paging: { page_param: page, size_param: rpp, items: rate, beyond_last: above_total }\n",
            ),
        ),
        (UnknownErrorCode, format!("{BASE}    errors: [E_NOPE]\n")),
        (
            ReservedParameter,
            params("      oauth_token: { type: id, doc: A token. }\n"),
        ),
        (
            ErrorListsDisagree,
            format!("{BASE}errors:\n  E_X:\n    doc: X.\n    methods: [pay/getTimesheet]\n"),
        ),
        (AliasExpansion, alias_bomb(3 << 20)),
        (
            ControlCharacter,
            broken("doc: Hourly rate.", "doc: \"Hourly \\e[2J rate.\""),
        ),
    ]
}

/// A spec whose one alias-free line is an anchor of about 64 KB, followed by enough aliases of
/// it to expand the file to about `bytes`.
fn alias_bomb(bytes: usize) -> String {
    let anchor = "word ".repeat(64 << 10 >> 3);
    let aliases = "*a, ".repeat(bytes / anchor.len() + 1);
    format!("{BASE}x-anchor: &a [{anchor}]\nx-aliases: [{aliases}]\n")
}

#[test]
fn every_rule_refuses_its_spec_and_every_rule_has_one() {
    let mut specs: Vec<(ErrorKind, Vec<String>)> = one_spec_per_rule()
        .into_iter()
        .map(|(kind, spec)| (kind, vec![spec]))
        .collect();
    specs.push((DuplicateSection, vec![OAUTH.to_owned(), OAUTH.to_owned()]));
    // A rule of the file's name: the harness names the one file so.
    specs.push((InvalidFileName, vec![BASE.to_owned()]));
    for (kind, files) in &specs {
        let named: Vec<(String, &str)> = files
            .iter()
            .enumerate()
            .map(|(i, text)| match kind {
                InvalidFileName => (format!("spec/zz-hostile{i}.yaml"), text.as_str()),
                _ => (format!("spec/f{i}.yaml"), text.as_str()),
            })
            .collect();
        let named: Vec<(&str, &str)> = named.iter().map(|(p, t)| (p.as_str(), *t)).collect();
        let errors = errors_in(&named);
        assert!(
            errors.iter().any(|e| e.kind == *kind),
            "{}: {:#?}",
            kind.id(),
            errors
        );
    }
    for kind in ErrorKind::ALL {
        assert!(
            specs.iter().any(|(k, _)| k == kind),
            "no spec here breaks {}",
            kind.id()
        );
    }
}

#[test]
fn invalid_yaml_is_reported_with_its_position() {
    let errors = errors("types:\n  Timesheet:\n    doc: [unclosed\n");
    assert_eq!(found(&errors), [at(InvalidYaml, "4:1", "")]);
}

/// The line breaks only YAML 1.1 reads as one (the parser's) are refused wherever they stand,
/// at their own line and column as an editor shows them: in a comment (where the text after
/// one would be read as content), in a quoted and in a plain text (where one would vanish).
#[test]
fn yaml_1_1_line_breaks_are_invalid_yaml_at_their_place() {
    for c in ['\u{85}', '\u{2028}', '\u{2029}'] {
        for (text, line_column) in [
            (format!("# a note{c}types: {{}}\n"), "1:9"),
            (format!("types:\n  T:\n    doc: \"a{c}b\"\n"), "3:12"),
            (format!("types:\n  T:\n    doc: ab{c}c\n"), "3:12"),
        ] {
            assert_eq!(
                found(&errors(&text)),
                [at(InvalidYaml, line_column, "")],
                "U+{:04X} in {text:?}",
                c as u32
            );
        }
    }
}

/// A YAML document of block mappings and sequences, for the duplicate-key property.
#[derive(Clone, Debug)]
enum Node {
    Scalar,
    Map(Vec<Entry>),
    Seq(Vec<Node>),
}

#[derive(Clone, Debug)]
struct Entry {
    /// An index into [`KEYS`].
    key: usize,
    /// Plain, double-quoted or single-quoted.
    spelling: u8,
    value: Node,
    /// The duplicate the property inserted.
    repeated: bool,
}

const KEYS: [&str; 5] = ["doc", "name", "type", "a b", "x-y"];

fn entries(inner: impl Strategy<Value = Node>) -> impl Strategy<Value = Vec<Entry>> {
    prop::collection::vec((0..KEYS.len(), 0..3u8, inner), 1..4).prop_map(|entries| {
        // Keys distinct within a mapping: the property inserts the one duplicate.
        let mut seen = std::collections::BTreeSet::new();
        entries
            .into_iter()
            .filter(|(key, _, _)| seen.insert(*key))
            .map(|(key, spelling, value)| Entry {
                key,
                spelling,
                value,
                repeated: false,
            })
            .collect()
    })
}

fn document() -> impl Strategy<Value = Vec<Entry>> {
    let node = Just(Node::Scalar).prop_recursive(4, 24, 3, |inner| {
        prop_oneof![
            entries(inner.clone()).prop_map(Node::Map),
            prop::collection::vec(inner, 1..3).prop_map(Node::Seq),
        ]
    });
    entries(node)
}

/// The `n`-th mapping of `node` in document order (`n` counts down to it).
fn nth_map<'a>(node: &'a mut Node, n: &mut usize) -> Option<&'a mut Vec<Entry>> {
    match node {
        Node::Scalar => None,
        Node::Map(entries) => {
            if *n == 0 {
                return Some(entries);
            }
            *n -= 1;
            entries
                .iter_mut()
                .find_map(|entry| nth_map(&mut entry.value, n))
        }
        Node::Seq(items) => items.iter_mut().find_map(|item| nth_map(item, n)),
    }
}

fn count_maps(node: &Node) -> usize {
    match node {
        Node::Scalar => 0,
        Node::Map(entries) => 1 + entries.iter().map(|e| count_maps(&e.value)).sum::<usize>(),
        Node::Seq(items) => items.iter().map(count_maps).sum(),
    }
}

/// Renders a mapping whose keys stand at `indent` spaces, its first key after `first` (the
/// indentation, or a sequence item's `- `); the line and column of the repeated entry are
/// set in `repeated`.
fn render_map(
    entries: &[Entry],
    indent: usize,
    first: String,
    lines: &mut Vec<String>,
    repeated: &mut Option<(usize, usize)>,
) {
    for (at, entry) in entries.iter().enumerate() {
        let lead = if at == 0 {
            first.clone()
        } else {
            " ".repeat(indent)
        };
        let key = match entry.spelling {
            0 => KEYS[entry.key].to_owned(),
            1 => format!("\"{}\"", KEYS[entry.key]),
            _ => format!("'{}'", KEYS[entry.key]),
        };
        if entry.repeated {
            *repeated = Some((lines.len() + 1, indent + 1));
        }
        match &entry.value {
            // A value with a colon and a key's look: no entry of its own.
            Node::Scalar => lines.push(format!("{lead}{key}: \"name: v\"")),
            Node::Map(inner) => {
                lines.push(format!("{lead}{key}:"));
                render_map(inner, indent + 2, " ".repeat(indent + 2), lines, repeated);
            }
            Node::Seq(items) => {
                lines.push(format!("{lead}{key}:"));
                render_seq(items, indent + 2, lines, repeated);
            }
        }
    }
}

fn render_seq(
    items: &[Node],
    indent: usize,
    lines: &mut Vec<String>,
    repeated: &mut Option<(usize, usize)>,
) {
    let lead = " ".repeat(indent);
    for item in items {
        match item {
            Node::Scalar => lines.push(format!("{lead}- name")),
            Node::Map(entries) => {
                render_map(entries, indent + 2, format!("{lead}- "), lines, repeated)
            }
            Node::Seq(inner) => {
                lines.push(format!("{lead}-"));
                render_seq(inner, indent + 2, lines, repeated);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// A key repeated in a block mapping, at any depth, inside sequences or not, in any
    /// spelling of either, is reported at the repeated entry: the line to remove, not the
    /// mapping's first entry, where the parser places it.
    #[test]
    fn a_repeated_key_is_reported_at_the_repeated_entry(
        document in document(),
        which in any::<usize>(),
        original in any::<usize>(),
        after in any::<usize>(),
        spelling in 0..3u8,
    ) {
        let mut root = Node::Map(document);
        let mut n = which % count_maps(&root);
        let map = nth_map(&mut root, &mut n).expect("a mapping of the document");
        let original = original % map.len();
        let place = original + 1 + after % (map.len() - original);
        let key = map[original].key;
        map.insert(place, Entry { key, spelling, value: Node::Scalar, repeated: true });
        let Node::Map(entries) = &root else { unreachable!() };
        let (mut lines, mut repeated) = (Vec::new(), None);
        render_map(entries, 0, String::new(), &mut lines, &mut repeated);
        let yaml = lines.join("\n") + "\n";
        let (line, column) = repeated.expect("the repeated entry rendered");
        let errors = errors(&yaml);
        prop_assert_eq!(
            found(&errors),
            [at(InvalidYaml, &format!("{line}:{column}"), "")],
            "{}\n{}", yaml, errors[0]
        );
    }
}

/// The lines of a document's body: a mapping whose values are plain, quoted over two lines,
/// literal blocks (whose lines may look like markers, indented), comments between them.
fn document_body() -> impl Strategy<Value = Vec<String>> {
    let entry = (0..KEYS.len(), 0..4u8).prop_map(|(index, shape)| {
        let key = KEYS[index];
        let lines = match shape {
            0 => vec![format!("{key}: v")],
            1 => vec![format!("{key}: \"one"), "  two\"".to_owned()],
            2 => vec![format!("{key}: |"), "  ---".to_owned(), "  ...".to_owned()],
            _ => vec!["# --- a comment".to_owned(), format!("{key}: v")],
        };
        (index, lines)
    });
    prop::collection::vec(entry, 1..4).prop_map(|entries| {
        // One mapping: each key once.
        let mut seen = std::collections::BTreeSet::new();
        entries
            .into_iter()
            .filter(|(index, _)| seen.insert(*index))
            .flat_map(|(_, lines)| lines)
            .collect()
    })
}

proptest! {
    /// A file of two documents is refused at the second one's start (the parser gives that
    /// error no place): its `---`, or what follows the first one's end (`...`).
    #[test]
    fn a_second_document_is_reported_where_it_starts(
        directive in any::<bool>(),
        opened in any::<bool>(),
        first in document_body(),
        how in 0..4u8,
        second in document_body(),
        bom in any::<bool>(),
    ) {
        let mut lines = Vec::new();
        if directive {
            lines.push("%YAML 1.1".to_owned());
        }
        if directive || opened {
            lines.push("---".to_owned());
        }
        lines.extend(first);
        // The line the second document starts at, and its lines.
        let start = match how {
            0 => { lines.push("---".to_owned()); lines.len() }
            // The first line of the second document's content, past its comments.
            1 => {
                lines.push("...".to_owned());
                lines.push("# between".to_owned());
                lines.len() + 1 + second.iter().take_while(|l| l.starts_with('#')).count()
            }
            2 => { lines.push("...".to_owned()); lines.push("---".to_owned()); lines.len() }
            _ => { lines.push("--- # the second".to_owned()); lines.len() }
        };
        lines.extend(second);
        let mut yaml = lines.join("\n") + "\n";
        if bom {
            yaml.insert(0, '\u{feff}');
        }
        let errors = errors(&yaml);
        prop_assert_eq!(found(&errors), [at(InvalidYaml, &format!("{start}:1"), "")], "{}", yaml);
        prop_assert!(errors[0].message.contains("more than one document"), "{}", errors[0]);
    }
}

/// A byte order mark is not content: a file that starts with one is read as without it, and
/// its errors are placed as an editor shows the text.
#[test]
fn a_byte_order_mark_changes_no_error_nor_its_place() {
    for yaml in [
        "name: 1\nname: 2\n",
        "types: {a: 1, a: 2}\n",
        "types:\n  - [\n",
        "unknown: 1\n",
    ] {
        let (plain, marked) = (errors(yaml), errors(&format!("\u{feff}{yaml}")));
        assert_eq!(found(&marked), found(&plain), "{yaml:?}");
        let messages =
            |errors: &[SpecError]| errors.iter().map(|e| e.message.clone()).collect::<Vec<_>>();
        assert_eq!(messages(&marked), messages(&plain), "{yaml:?}");
    }
}

/// The YAML reader refuses a control character by byte offset alone; it is reported at its
/// line and column (in characters) like every other spec error.
#[test]
fn a_control_character_is_reported_at_its_line_and_column() {
    for control in ['\u{1b}', '\u{7f}', '\u{9b}'] {
        let errors = errors(&format!(
            "types:\n  Timesheet:\n    doc: \"caf\u{e9}{control}\"\n"
        ));
        // Column 15: after `    doc: "café`, the `é` one character.
        assert_eq!(found(&errors), [at(InvalidYaml, "3:15", "")], "{control:?}");
        assert!(!errors[0].message.contains("position"), "{}", errors[0]);
    }
}

#[test]
fn hostile_nesting_is_refused_before_parsing_with_its_position() {
    // A megabyte of nested flow collections took the YAML parser minutes (quadratic in the
    // nesting); the pre-scan refuses it where the 65th level opens, in one pass.
    let megabyte = 1_000_000;
    for (unit, column) in [("[", 64), ("{a: ", 253), ("- ", 129), ("&a [", 256)] {
        let errors = errors(&unit.repeat(megabyte / unit.len()));
        assert_eq!(
            found(&errors),
            [at(TooLarge, &format!("1:{column}"), "")],
            "{unit:?}"
        );
        assert!(
            errors[0].message.contains("deeper than 64 levels"),
            "{}",
            errors[0]
        );
    }
    let errors = errors(&"a".repeat(2 << 20));
    assert_eq!(
        found(&errors),
        [(TooLarge, "spec/test.yaml".to_owned(), "")]
    );
    assert!(errors[0].message.contains("2097152 bytes"), "{}", errors[0]);
}

#[test]
fn unknown_type_suggests_the_nearest() {
    let errors = errors(&broken("type: decimal", "type: decimall"));
    assert_eq!(
        found(&errors),
        [at(UnknownType, "6:9", "types.Timesheet.fields.rate")]
    );
    assert_eq!(suggestion(&errors[0]), Some("decimal"));
}

#[test]
fn unknown_key_suggests_the_nearest() {
    let errors = errors(&broken("type: decimal", "tyep: decimal"));
    assert_eq!(
        found(&errors),
        [at(UnknownKey, "6:9", "types.Timesheet.fields.rate")]
    );
    assert_eq!(suggestion(&errors[0]), Some("type"));
    assert!(errors[0].message.ends_with("expected one of: type, doc, rust_name, encoding, optional, only_in, absent_in, nullable, zero_is_none, documented_as, documented_type, narrowed"));
}

#[test]
fn narrowed_must_say_why_quoting_the_reference() {
    let with = |narrowed: &str| {
        errors(&broken(
            "type: decimal",
            &format!("type: decimal\n        narrowed: '{narrowed}'"),
        ))
    };
    for text in [
        " ",
        "Notes say \"Decimal amount text.",
        "Notes say it is a decimal.",
    ] {
        assert_eq!(
            found(&with(text)),
            [at(InvalidNarrowed, "7:9", "types.Timesheet.fields.rate")],
            "{text}"
        );
    }
    let sources = [SpecSource {
        path: "spec/test.yaml".to_owned(),
        text: broken(
            "type: decimal",
            "type: decimal\n        narrowed: 'Notes say \"Decimal amount text.\"'",
        ),
    }];
    let api = resolve(&sources).unwrap();
    assert_eq!(
        api.records[0].fields[0].narrowed.as_deref(),
        Some("Notes say \"Decimal amount text.\"")
    );
}

#[test]
fn narrowed_on_a_parameter_is_checked_the_same_way() {
    let spec = format!(
        "{BASE}    params:\n      id:\n        type: id\n        doc: ID.\n        narrowed: because\n"
    );
    assert_eq!(
        found(&errors(&spec)),
        [at(
            InvalidNarrowed,
            "16:9",
            "methods.pay/getTimesheet.params.id"
        )]
    );
}

#[test]
fn missing_key_is_named() {
    let errors = errors(&broken("        doc: Hourly rate.\n", ""));
    assert_eq!(
        found(&errors),
        [at(MissingKey, "5:7", "types.Timesheet.fields.rate")]
    );
    assert!(errors[0].message.contains("'doc'"), "{}", errors[0]);
}

#[test]
fn encoding_must_fit_the_type() {
    let errors = errors(&broken(
        "type: decimal",
        "type: decimal\n        encoding: strng",
    ));
    assert_eq!(
        found(&errors),
        [at(UnknownEncoding, "7:9", "types.Timesheet.fields.rate")]
    );
    assert_eq!(suggestion(&errors[0]), Some("string"));
    assert!(
        errors[0]
            .message
            .ends_with("expected number, string or string_or_number"),
        "{}",
        errors[0]
    );
}

#[test]
fn dates_need_an_encoding() {
    assert_eq!(
        found(&errors(&broken("type: decimal", "type: date"))),
        [at(MissingEncoding, "5:7", "types.Timesheet.fields.rate")]
    );
}

#[test]
fn per_method_encodings_must_name_exactly_the_delivering_methods() {
    let errors = errors(&broken(
        "type: decimal",
        "type: decimal\n        encoding: { pay/getTimesheets: string }",
    ));
    assert_eq!(
        found(&errors),
        [
            at(MissingEncoding, "7:9", "types.Timesheet.fields.rate"),
            at(NotDelivered, "7:21", "types.Timesheet.fields.rate.encoding"),
        ]
    );
    assert_eq!(suggestion(&errors[1]), Some("pay/getTimesheet"));
}

#[test]
fn only_in_must_name_delivering_methods() {
    let errors = errors(&broken(
        "type: decimal",
        "type: decimal\n        only_in: [pay/getTimeshet]",
    ));
    assert_eq!(
        found(&errors),
        [at(
            NotDelivered,
            "7:19",
            "types.Timesheet.fields.rate.only_in.0"
        )]
    );
    assert_eq!(suggestion(&errors[0]), Some("pay/getTimesheet"));
}

#[test]
fn presence_is_declared_once() {
    assert_eq!(
        found(&errors(&broken(
            "type: decimal",
            "type: decimal\n        optional: true\n        only_in: [pay/getTimesheet]"
        ))),
        [at(InvalidPresence, "5:7", "types.Timesheet.fields.rate")]
    );
}

#[test]
fn zero_is_none_needs_a_type_that_can_be_zero() {
    assert_eq!(
        found(&errors(&broken(
            "type: decimal",
            "type: decimal\n        zero_is_none: true"
        ))),
        [at(InvalidZeroIsNone, "7:9", "types.Timesheet.fields.rate")]
    );
}

#[test]
fn keywords_need_a_rust_name() {
    assert_eq!(
        found(&errors(&broken("      rate:", "      type:"))),
        [at(InvalidRustName, "5:7", "types.Timesheet.fields.type")]
    );
}

#[test]
fn rust_names_must_be_snake_case() {
    assert_eq!(
        found(&errors(&broken(
            "type: decimal",
            "type: decimal\n        rust_name: Rate"
        ))),
        [at(InvalidRustName, "7:9", "types.Timesheet.fields.rate")]
    );
}

#[test]
fn two_fields_cannot_share_a_rust_name() {
    assert_eq!(
        found(&errors(&broken(
            "        doc: Hourly rate.\n",
            "        doc: Hourly rate.\n      Rate:\n        type: decimal\n        doc: Again.\n"
        ))),
        [at(RustNameTaken, "8:7", "types.Timesheet.fields.Rate")]
    );
}

#[test]
fn a_request_type_cannot_take_the_name_of_a_type_or_another_request() {
    // `rust_name: timesheet` makes the request type `Timesheet`, beside the record `Timesheet`.
    let clash = broken(
        "    response: Timesheet",
        "    response: Timesheet\n    rust_name: timesheet",
    );
    let errors = errors(&clash);
    assert_eq!(
        found(&errors),
        [at(RustNameTaken, "9:3", "methods.pay/getTimesheet")]
    );
    assert!(errors[0].message.contains("'Timesheet'"), "{}", errors[0]);
    // Two groups with a method of the same name derive the same Rust name.
    let twice = format!("{BASE}  manage/getTimesheet:\n    doc: Again.\n    response: Timesheet\n");
    assert_eq!(
        found(&errors_in(&[("spec/test.yaml", &twice)])),
        [
            at(RustNameTaken, "12:3", "methods.manage/getTimesheet"),
            at(RustNameTaken, "12:3", "methods.manage/getTimesheet"),
        ]
    );
    // A parameter whose setter would take a method of the runtime's Request.
    let spec = format!("{BASE}    params:\n      send: {{ type: id, doc: Sent. }}\n");
    assert_eq!(
        found(&errors_in(&[("spec/test.yaml", &spec)])),
        [at(
            RustNameTaken,
            "13:7",
            "methods.pay/getTimesheet.params.send"
        )]
    );
    // A runtime type, and a method of the runtime's Session.
    for (rust_name, line) in [("request", "9:3"), ("revoke", "9:3")] {
        let spec = broken(
            "    response: Timesheet",
            &format!("    response: Timesheet\n    rust_name: {rust_name}"),
        );
        assert_eq!(
            found(&errors_in(&[("spec/test.yaml", &spec)])),
            [at(RustNameTaken, line, "methods.pay/getTimesheet")],
            "{rust_name}"
        );
    }
}

#[test]
fn a_name_is_defined_once_across_files() {
    let other = "types:\n  Timesheet:\n    doc: Again.\n    opaque: true\n";
    assert_eq!(
        found(&errors_in(&[("spec/a.yaml", BASE), ("spec/b.yaml", other)])),
        [(
            DuplicateName,
            "spec/b.yaml:2:3".to_owned(),
            "types.Timesheet"
        )]
    );
}

#[test]
fn a_record_and_an_enum_cannot_share_a_name() {
    let spec = format!("{BASE}enums:\n  Timesheet:\n    doc: Clash.\n    values: {{ A: a }}\n");
    assert_eq!(
        found(&errors(&spec)),
        [at(DuplicateName, "2:3", "types.Timesheet")]
    );
}

#[test]
fn type_names_are_upper_camel_case_and_not_reserved() {
    assert_eq!(
        found(&errors(
            &broken("  Timesheet:\n", "  timesheet:\n")
                .replace("response: Timesheet", "response: timesheet")
        )),
        [at(InvalidTypeName, "2:3", "types.timesheet")]
    );
    for reserved in ["Decimal", "Request", "Session"] {
        let spec =
            format!("{BASE}enums:\n  {reserved}:\n    doc: Clash.\n    values: {{ A: a }}\n");
        let errors = errors(&spec);
        assert_eq!(errors.len(), 1, "{reserved}: {errors:?}");
        assert_eq!(errors[0].kind, InvalidTypeName, "{reserved}");
        assert_eq!(errors[0].path, format!("enums.{reserved}"));
    }
}

/// A type generated code names without a path (`Result` in `fn query() -> Result<…>`, the
/// `Into` of setters, the `OAuthService` it imports), or that the crate root names (where the
/// generated items are re-exported beside the runtime's), is refused, with a free name.
#[test]
fn type_names_the_generated_code_or_the_crate_root_use_are_reserved() {
    for reserved in [
        "Result",
        "Into",
        "From",
        "Some",
        "OAuthService",
        "ConsumerCredentials",
        "Response",
        "Envelope",
        "Stream",
    ] {
        let errors = errors(&broken(
            "methods:\n",
            &format!("  {reserved}:\n    doc: Clash.\n    opaque: true\nmethods:\n"),
        ));
        assert_eq!(errors.len(), 1, "{reserved}: {errors:#?}");
        assert_eq!(errors[0].kind, InvalidTypeName, "{reserved}");
        assert_eq!(errors[0].path, format!("types.{reserved}"));
        assert_eq!(
            suggestion(&errors[0]),
            Some(format!("{reserved}Data").as_str())
        );
    }
    // A method's request type: `rust_name: result` makes the unit struct `Result`.
    let spec = broken(
        "    response: Timesheet",
        "    response: Timesheet\n    rust_name: some",
    );
    let errors = errors(&spec);
    assert_eq!(
        found(&errors),
        [at(RustNameTaken, "9:3", "methods.pay/getTimesheet")]
    );
    assert_eq!(suggestion(&errors[0]), Some("pay_some"));
}

/// A record that contains itself, directly or through another, is refused at the field that
/// closes the cycle; through a list it is a tree, and valid.
#[test]
fn a_type_cannot_contain_itself_but_through_a_list() {
    let spec = format!(
        "{BASE}  Week:\n    doc: A week.\n    fields:\n      sheet: {{ type: Timesheet, doc: S. }}\n"
    )
    .replace("methods:\n", "")
    .replace("  pay/getTimesheet:\n    doc: One timesheet.\n    response: Timesheet\n", "");
    let cycle = spec.replacen("type: decimal", "type: Week\n        nullable: true", 1);
    let errors = errors(&cycle);
    assert_eq!(
        found(&errors),
        [at(RecursiveType, "12:16", "types.Week.fields.sheet")]
    );
    assert!(
        errors[0]
            .message
            .contains("Timesheet.rate -> Week.sheet -> Timesheet"),
        "{}",
        errors[0]
    );
    let tree = spec.replacen("type: decimal", "type: list<Week>", 1);
    let sources = [SpecSource {
        path: "spec/test.yaml".to_owned(),
        text: tree,
    }];
    assert!(resolve(&sources).is_ok());
}

/// Names rustc's `non_snake_case` lint refuses (`__`) are refused, also when derived: a
/// constructor `{rust_name}_by_{parameter}` of a Rust name ending in `_`.
#[test]
fn snake_case_names_have_no_double_underscore() {
    let found_errors = errors(&broken(
        "type: decimal",
        "type: decimal\n        rust_name: hourly__rate",
    ));
    assert_eq!(
        found(&found_errors),
        [at(InvalidRustName, "7:9", "types.Timesheet.fields.rate")]
    );
    assert_eq!(suggestion(&found_errors[0]), Some("hourly_rate"));
    let spec = format!(
        "{BASE}    rust_name: get_\n    at_least_one_of: [id, bidId]\n    params:\n      \
         id: {{ type: id, doc: I. }}\n      bidId: {{ type: id, doc: B. }}\n"
    );
    let found_errors = errors(&spec);
    assert_eq!(
        found(&found_errors),
        [
            at(InvalidRustName, "9:3", "methods.pay/getTimesheet"),
            at(InvalidRustName, "9:3", "methods.pay/getTimesheet"),
        ]
    );
    assert_eq!(suggestion(&found_errors[0]), Some("pay_get"));
}

/// A setter or constructor of the name of a method the builder, `Request` or `Session` has
/// from a trait it derives: `Default::default` (which `builder()` calls), `Clone::clone`
/// (which the runtime calls on a `Session`).
#[test]
fn names_of_derived_trait_methods_are_taken() {
    let found_errors = errors(&broken("      rate:", "      default:"));
    assert_eq!(
        found(&found_errors),
        [at(RustNameTaken, "5:7", "types.Timesheet.fields.default")]
    );
    assert_eq!(suggestion(&found_errors[0]), Some("default_value"));
    let spec = broken(
        "    response: Timesheet",
        "    response: Timesheet\n    rust_name: clone",
    );
    let found_errors = errors(&spec);
    // The constructor, and the request type `Clone`, a derive generated code names.
    assert_eq!(
        found(&found_errors),
        [
            at(RustNameTaken, "9:3", "methods.pay/getTimesheet"),
            at(RustNameTaken, "9:3", "methods.pay/getTimesheet"),
        ]
    );
    assert!(
        found_errors
            .iter()
            .any(|e| e.message.contains("Session::clone"))
    );
    assert_eq!(suggestion(&found_errors[0]), Some("pay_clone"));
}

/// A constructor, setter or builder setter clippy would read as a standard trait's method
/// (`should_implement_trait`: `cmp`, `add`, `next`, …): a warning in the generated client,
/// whose clippy denies warnings.
#[test]
fn names_of_standard_trait_methods_are_taken() {
    let found_errors = errors(&broken("      rate:", "      cmp:"));
    assert_eq!(
        found(&found_errors),
        [at(RustNameTaken, "5:7", "types.Timesheet.fields.cmp")]
    );
    assert!(found_errors[0].message.contains("should_implement_trait"));
    assert_eq!(suggestion(&found_errors[0]), Some("cmp_value"));
    let spec = broken(
        "    response: Timesheet",
        "    response: Timesheet\n    rust_name: next",
    );
    let found_errors = errors(&spec);
    assert_eq!(
        found(&found_errors),
        [at(RustNameTaken, "9:3", "methods.pay/getTimesheet")]
    );
    assert!(found_errors[0].message.contains("should_implement_trait"));
    assert_eq!(suggestion(&found_errors[0]), Some("pay_next"));
}

#[test]
fn enum_values_need_distinct_variants() {
    let spec = "enums:\n  Status:\n    doc: A status.\n    values:\n      Hourly Other: a\n      HOURLY_OTHER: b\n      Other: c\n";
    assert_eq!(
        found(&errors(spec)),
        [
            at(DuplicateVariant, "6:7", "enums.Status.values.HOURLY_OTHER"),
            at(InvalidVariant, "7:7", "enums.Status.values.Other"),
        ]
    );
}

#[test]
fn method_names_are_group_slash_method() {
    assert_eq!(
        found(&errors(&broken("  pay/getTimesheet:", "  getTimesheet:"))),
        [at(InvalidMethodName, "9:3", "methods.getTimesheet")]
    );
}

#[test]
fn the_response_must_be_a_defined_type() {
    let errors = errors(&broken("response: Timesheet", "response: Timesheets"));
    assert_eq!(
        found(&errors),
        [at(UnknownType, "11:5", "methods.pay/getTimesheet")]
    );
    assert_eq!(suggestion(&errors[0]), Some("Timesheet"));
}

#[test]
fn error_codes_must_be_defined() {
    let spec = format!(
        "{BASE}    errors: [E_VALIDATION_INVALID_IDD]\nerrors:\n  E_VALIDATION_INVALID_ID:\n    doc: Invalid.\n    methods: [pay/getTimesheets]\n"
    );
    let errors = errors(&spec);
    assert_eq!(
        found(&errors),
        [
            at(
                UnknownErrorCode,
                "12:14",
                "methods.pay/getTimesheet.errors.0"
            ),
            at(
                UnknownMethod,
                "16:15",
                "errors.E_VALIDATION_INVALID_ID.methods.0"
            ),
        ]
    );
    assert_eq!(suggestion(&errors[0]), Some("E_VALIDATION_INVALID_ID"));
    assert_eq!(suggestion(&errors[1]), Some("pay/getTimesheet"));
}

/// A second method delivering the same record, and two codes: `E_NAMED` names
/// `pay/getTimesheet` only, `E_ANY` names no method (any method's).
fn with_error_lists(first: &str, second: &str) -> String {
    format!(
        "{BASE}{first}  pay/getTimesheetById:\n    doc: One timesheet.\n    response: Timesheet\n{second}errors:\n  E_NAMED:\n    doc: Named.\n    methods: [pay/getTimesheet]\n  E_ANY:\n    doc: Any.\n"
    )
}

#[test]
fn an_error_code_and_the_methods_it_names_agree_both_ways() {
    // The line of `text` that starts with `start`, from 1.
    let line_of = |text: &str, start: &str| {
        1 + text
            .lines()
            .position(|line| line.starts_with(start))
            .unwrap()
    };
    // The code names a method whose errors leave it out; the message says where that method
    // is (it has no list: the method itself), often in another file.
    let spec = with_error_lists("", "    errors: [E_ANY]\n");
    let named_only_here = errors(&spec);
    assert_eq!(
        found(&named_only_here),
        [at(ErrorListsDisagree, "19:15", "errors.E_NAMED.methods.0")]
    );
    let method = line_of(&spec, "  pay/getTimesheet:");
    assert!(
        named_only_here[0].message.contains(&format!(
            "methods.pay/getTimesheet.errors (spec/test.yaml:{method}:"
        )),
        "{}",
        named_only_here[0]
    );
    // A method names a code whose methods leave it out.
    let named_only_there = errors(&with_error_lists(
        "    errors: [E_NAMED]\n",
        "    errors: [E_ANY, E_NAMED]\n",
    ));
    assert_eq!(
        found(&named_only_there),
        [at(
            ErrorListsDisagree,
            "16:21",
            "methods.pay/getTimesheetById.errors.1"
        )]
    );
    let spec = with_error_lists("    errors: [E_NAMED]\n", "    errors: [E_ANY, E_NAMED]\n");
    let list = line_of(&spec, "    methods: [pay/getTimesheet]");
    assert!(
        named_only_there[0]
            .message
            .contains(&format!("errors.E_NAMED.methods (spec/test.yaml:{list}:")),
        "{}",
        named_only_there[0]
    );
    // Each list is located as the file writes it, out of name order too (the IR reads the
    // lists sorted): the method's `[E_NAMED, E_ANY]` at its first entry, and the code's
    // `[pay/getTimesheetById, pay/getTimesheet]` at the method whose errors leave it out.
    let written = errors(&with_error_lists(
        "    errors: [E_NAMED]\n",
        "    errors: [E_NAMED, E_ANY]\n",
    ));
    assert_eq!(
        found(&written),
        [at(
            ErrorListsDisagree,
            "16:14",
            "methods.pay/getTimesheetById.errors.0"
        )]
    );
    let spec = with_error_lists("    errors: [E_NAMED]\n", "    errors: [E_ANY]\n").replace(
        "methods: [pay/getTimesheet]",
        "methods: [pay/getTimesheetById, pay/getTimesheet]",
    );
    assert_eq!(
        found(&errors(&spec)),
        [at(ErrorListsDisagree, "20:15", "errors.E_NAMED.methods.0")]
    );
    // Agreeing lists, and a code without methods named by any method, are accepted.
    let agreeing = with_error_lists("    errors: [E_NAMED, E_ANY]\n", "    errors: [E_ANY]\n");
    let sources = [SpecSource {
        path: "spec/test.yaml".to_owned(),
        text: agreeing,
    }];
    if let Err(errors) = resolve(&sources) {
        panic!("refused: {:#?}", errors.0);
    }
}

#[test]
fn parameters_are_checked() {
    let spec = format!(
        "{BASE}    params:\n      id: {{ type: id, doc: ID. }}\n      bidId: {{ type: id, required: true, doc: Bid. }}\n      rpp: {{ type: integr, doc: Size. }}\n      page: {{ type: integer, default: 0, min: 1, max: 0, doc: Page. }}\n    at_least_one_of: [id, bidId, nope]\n"
    );
    let errors = errors(&spec);
    assert_eq!(
        found(&errors),
        [
            at(
                InvalidAlternatives,
                "14:26",
                "methods.pay/getTimesheet.params.bidId"
            ),
            at(
                UnknownParameterType,
                "15:14",
                "methods.pay/getTimesheet.params.rpp"
            ),
            at(
                InvalidBounds,
                "16:30",
                "methods.pay/getTimesheet.params.page"
            ),
            at(
                InvalidBounds,
                "16:42",
                "methods.pay/getTimesheet.params.page"
            ),
            at(UnknownParameter, "17:5", "methods.pay/getTimesheet"),
        ]
    );
    assert_eq!(suggestion(&errors[1]), Some("integer"));
}

#[test]
fn count_and_id_parameters_are_unsigned() {
    let spec = format!(
        "{BASE}    params:\n      id: {{ type: id, min: -1, doc: ID. }}\n      rpp: {{ type: count, default: -2, doc: Size. }}\n      page: {{ type: count, default: 1, min: 1, doc: Page. }}\n      delta: {{ type: integer, default: -2, min: -5, max: 5, doc: A signed integer. }}\n      date: {{ type: date, max: 3, doc: A day. }}\n"
    );
    assert_eq!(
        found(&errors(&spec)),
        [
            at(InvalidBounds, "13:23", "methods.pay/getTimesheet.params.id"),
            at(
                InvalidBounds,
                "14:27",
                "methods.pay/getTimesheet.params.rpp"
            ),
            at(
                InvalidBounds,
                "17:27",
                "methods.pay/getTimesheet.params.date"
            ),
        ]
    );
}

#[test]
fn a_paged_method_with_count_parameters_and_fields_is_valid() {
    let spec = "types:\n  Page:\n    doc: A page.\n    fields:\n      totalPages: { type: count, doc: Pages. }\n      items: { type: list<Item>, doc: Items. }\n  Item:\n    doc: An item.\n    fields:\n      id: { type: id, doc: ID. }\nmethods:\n  pay/getItems:\n    doc: Items.\n    response: Page\n    params:\n      rpp: { type: count, default: 10, min: 1, max: 25, doc: Size. }\n      page: { type: count, default: 1, min: 1, doc: Page. }\n    paging: { page_param: page, size_param: rpp, items: items, total_pages: totalPages, beyond_last: above_total }\n";
    let sources = [SpecSource {
        path: "spec/test.yaml".to_owned(),
        text: spec.to_owned(),
    }];
    let api = resolve(&sources).expect("valid");
    let params = &api.methods[0].params;
    assert_eq!(params[0].ty, marketplace_codegen::ir::ParamType::Count);
    assert_eq!(
        api.records[0].fields[0].ty,
        marketplace_codegen::ir::TypeRef::Scalar(marketplace_codegen::ir::Scalar::Count)
    );
    let parts = api.paging_of(&api.methods[0]).expect("paged");
    assert_eq!(
        (
            parts.page.wire_name.as_str(),
            parts.items.wire_name.as_str()
        ),
        ("page", "items")
    );
}

#[test]
fn paging_refers_to_real_parameters_and_fields() {
    let spec = format!(
        "{BASE}    params:\n      page: {{ type: integer, doc: Page. }}\n      rpp: {{ type: id, doc: Size. }}\n    paging:\n      page_param: page\n      size_param: rpp\n      items: rates\n      total_pages: rate\n      beyond_last: above\n"
    );
    let errors = errors(&spec);
    let paging = "methods.pay/getTimesheet.paging";
    assert_eq!(
        found(&errors),
        [
            at(InvalidPaging, "16:7", paging),
            at(InvalidPaging, "17:7", paging),
            at(InvalidPaging, "18:7", paging),
            at(InvalidPaging, "19:7", paging),
            at(InvalidPaging, "20:7", paging),
        ]
    );
    assert_eq!(suggestion(&errors[2]), Some("rate"));
    assert_eq!(suggestion(&errors[4]), Some("above_total"));
}

/// Two paged methods of one response type: its page is read from the type, once.
#[test]
fn a_paged_response_is_one_methods() {
    let paged = "    response: TimesheetList\n    params:\n      page: { type: count, doc: P. }\n      \
                 rpp: { type: count, doc: S. }\n    paging: { page_param: page, size_param: rpp, \
                 items: sheets, beyond_last: above_total }\n";
    let spec = format!(
        "types:\n  TimesheetList:\n    doc: Sheets.\n    fields:\n      sheets: {{ type: list<string>, \
         doc: S. }}\nmethods:\n  pay/getSheets:\n    doc: Sheets.\n{paged}  pay/getMoreSheets:\n    \
         doc: More.\n{paged}"
    );
    assert_eq!(
        found(&errors(&spec)),
        [at(
            InvalidPaging,
            "20:5",
            "methods.pay/getMoreSheets.paging"
        )]
    );
}

/// A field's `documented_as` (a serde alias) that another field's wire name, another alias
/// or its own name takes: the decoder would read one JSON key into two fields.
#[test]
fn a_json_key_is_read_into_one_field() {
    let spec = broken(
        "        doc: Hourly rate.\n",
        "        doc: Hourly rate.\n      rateText:\n        type: string\n        doc: R.\n        documented_as: rate\n",
    );
    assert_eq!(
        found(&errors(&spec)),
        [at(DuplicateName, "11:9", "types.Timesheet.fields.rateText")]
    );
    let own = broken(
        "        doc: Hourly rate.\n",
        "        doc: Hourly rate.\n        documented_as: rate\n",
    );
    assert_eq!(
        found(&errors(&own)),
        [at(DuplicateName, "8:9", "types.Timesheet.fields.rate")]
    );
}

#[test]
fn opaque_records_have_no_fields_and_others_have_some() {
    assert_eq!(
        found(&errors(&broken(
            "    doc: A timesheet.\n",
            "    doc: A timesheet.\n    opaque: true\n"
        ))),
        [at(InvalidFields, "4:5", "types.Timesheet")]
    );
    assert_eq!(
        found(&errors("types:\n  Comment:\n    doc: A comment.\n")),
        [at(InvalidFields, "2:3", "types.Comment")]
    );
}

#[test]
fn documented_types_must_exist() {
    let errors = errors(&broken(
        "type: decimal",
        "type: decimal\n        documented_type: Timesheat",
    ));
    assert_eq!(
        found(&errors),
        [at(UnknownType, "7:9", "types.Timesheet.fields.rate")]
    );
    assert_eq!(suggestion(&errors[0]), Some("Timesheet"));
}

#[test]
fn nested_lists_are_refused() {
    assert_eq!(
        found(&errors(&broken(
            "type: decimal",
            "type: list<list<decimal>>"
        ))),
        [at(UnknownType, "6:9", "types.Timesheet.fields.rate")]
    );
}

#[test]
fn empty_docs_are_refused() {
    assert_eq!(
        found(&errors(&broken("doc: Hourly rate.", "doc: ''"))),
        [at(EmptyDoc, "7:9", "types.Timesheet.fields.rate")]
    );
}

#[test]
fn service_sections_are_declared_once_and_checked() {
    assert_eq!(
        found(&errors_in(&[
            ("spec/a.yaml", OAUTH),
            ("spec/b.yaml", OAUTH)
        ])),
        [(DuplicateSection, "spec/b.yaml:1:1".to_owned(), "oauth")]
    );
    let broken_oauth = OAUTH.replace("HMAC-SHA1", "RSA-SHA1").replace(
        "method: GET, path: /oauth/authorizeToken",
        "method: PUT, path: oauth/authorizeToken",
    );
    assert_eq!(
        found(&errors(&broken_oauth)),
        [
            at(UnsupportedSignatureMethod, "4:3", "oauth"),
            at(UnknownHttpMethod, "9:18", "oauth.endpoints.authorize"),
            at(InvalidPath, "9:31", "oauth.endpoints.authorize"),
        ]
    );
    assert_eq!(
        found(&errors(
            "api: { name: M, doc: D, data_path: api, api_version: 1 }\n"
        )),
        [at(InvalidPath, "1:25", "api.data_path")]
    );
}

#[test]
fn every_problem_is_reported_in_one_run() {
    let spec = BASE
        .replace("type: decimal", "type: decimall")
        .replace("response: Timesheet", "response: Timesheets");
    assert_eq!(errors(&spec).len(), 2);
}

#[test]
fn a_spec_file_name_that_names_no_module_is_refused_naming_the_file() {
    for name in [
        "zz-hostile.yaml",
        "zz.rs.yaml",
        "1zz.yaml",
        "mod.yaml",
        "std.yaml",
        "self.yaml",
        "Pay.yaml",
        ".yaml",
        "é.yaml",
    ] {
        let path = format!("spec/{name}");
        let errors = errors_in(&[(&path, BASE)]);
        assert_eq!(
            found(&errors),
            [(InvalidFileName, path.clone(), "")],
            "{name}: {errors:#?}"
        );
    }
    // Two files of one module, from two folders.
    let errors = errors_in(&[("a/pay.yaml", BASE), ("b/pay.yaml", OAUTH)]);
    assert_eq!(
        found(&errors),
        [(InvalidFileName, "b/pay.yaml".to_owned(), "")]
    );
    assert!(errors[0].message.contains("a/pay.yaml"), "{}", errors[0]);
}

#[test]
fn control_characters_in_any_text_are_refused_where_they_are() {
    let found_errors = errors(&broken("doc: Hourly rate.", "doc: \"Hourly \\e[2J rate.\""));
    assert_eq!(
        found(&found_errors),
        [at(
            ControlCharacter,
            "7:9",
            "types.Timesheet.fields.rate.doc"
        )]
    );
    assert!(
        found_errors[0].message.contains("U+001B"),
        "{}",
        found_errors[0]
    );
    // In a key, a carriage return, a bidirectional override.
    let found_errors = errors(&broken("      rate:", "      \"ra\\rte\":"));
    assert_eq!(found(&found_errors)[0].0, ControlCharacter);
    assert_eq!(found_errors[0].path, "types.Timesheet.fields.ra\\u{d}te");
    let found_errors = errors(&broken("Hourly rate.", "\"Hourly \\u202E rate.\""));
    assert_eq!(found(&found_errors)[0].0, ControlCharacter);
    // A tab and line breaks are text.
    let sources = [SpecSource {
        path: "spec/test.yaml".to_owned(),
        text: broken("doc: Hourly rate.", "doc: \"Hourly\\trate.\\nPer hour.\""),
    }];
    assert!(resolve(&sources).is_ok());
}

#[test]
fn aliases_that_would_expand_the_file_are_refused_at_the_alias() {
    let errors = errors(&alias_bomb(3 << 20));
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert_eq!(errors[0].kind, AliasExpansion);
    let at = errors[0].location.expect("located");
    assert_eq!(at.line, 13, "{}", errors[0]);
    assert!(errors[0].message.contains("'a'"), "{}", errors[0]);
    // The same aliases, few enough, parse (and are then unknown keys of the spec).
    let errors = errors_in(&[("spec/test.yaml", &alias_bomb(1 << 20))]);
    assert!(
        errors.iter().all(|e| e.kind != AliasExpansion),
        "{errors:#?}"
    );
}

#[test]
fn enum_values_and_error_codes_must_give_distinct_rust_variants() {
    let value = |values: &str| {
        errors(&format!(
            "{BASE}enums:\n  Status:\n    doc: A status.\n    open: false\n    values: {{ {values} }}\n"
        ))
    };
    assert_eq!(found(&value("Self: s"))[0].0, InvalidVariant);
    assert_eq!(found(&value("'-': s"))[0].0, InvalidVariant);
    assert_eq!(found(&value("Ünï: s"))[0].0, InvalidVariant);
    let code = |codes: &str| errors(&format!("{BASE}errors:\n{codes}"));
    for bad in ["E_", "E_OTHER", "SELF", "E_-"] {
        let errors = code(&format!("  {bad}:\n    doc: X.\n"));
        let found = found(&errors);
        assert_eq!(found.len(), 1, "{bad}: {errors:#?}");
        assert_eq!(
            (found[0].0, found[0].1.as_str()),
            (InvalidVariant, "spec/test.yaml:13:3"),
            "{bad}"
        );
    }
    let errors = code("  E_X:\n    doc: X.\n  X:\n    doc: Y.\n");
    assert_eq!(found(&errors), [at(DuplicateVariant, "15:3", "errors.X")]);
}

#[test]
fn every_generated_rust_name_is_checked_before_generation() {
    // A request type that is a keyword.
    let found_errors = errors(&broken(
        "    response: Timesheet",
        "    response: Timesheet\n    rust_name: self_",
    ));
    assert_eq!(
        found(&found_errors)[0].0,
        InvalidRustName,
        "{found_errors:#?}"
    );
    // A type named as another type's builder.
    let found_errors = errors(&broken(
        "types:\n",
        "types:\n  TimesheetBuilder:\n    doc: B.\n    opaque: true\n",
    ));
    assert_eq!(
        found(&found_errors),
        [at(RustNameTaken, "5:3", "types.Timesheet")]
    );
    // A field named as the builder's own method.
    let found_errors = errors(&broken("      rate:", "      build:"));
    assert_eq!(
        found(&found_errors),
        [at(RustNameTaken, "5:7", "types.Timesheet.fields.build")]
    );
    // Two parameters of one Rust name; a setter named as a method of the runtime's Request.
    let params = |params: &str| errors(&format!("{BASE}    params:\n{params}"));
    let found_errors =
        params("      bidId: { type: id, doc: A. }\n      bid_id: { type: id, doc: B. }\n");
    assert_eq!(
        found(&found_errors)[0].0,
        RustNameTaken,
        "{found_errors:#?}"
    );
    let found_errors = params("      sendWithMetadata: { type: id, doc: A. }\n");
    assert_eq!(
        found(&found_errors)[0].0,
        RustNameTaken,
        "{found_errors:#?}"
    );
}

/// The project's spec files, as `spec/<name>` with their text.
fn project_spec() -> Vec<(String, String)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec");
    let mut files: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "yaml"))
        .map(|path| {
            let name = format!("spec/{}", path.file_name().unwrap().to_string_lossy());
            (name, std::fs::read_to_string(&path).unwrap())
        })
        .collect();
    files.sort();
    files
}

/// A file that cannot be read is the one error shown, wherever it is broken and whatever the
/// other files define with it: the checks across files (every name it defines unknown to the
/// others) do not run, so the newcomer who broke one line sees that line first and alone.
/// Two broken files are both named.
#[test]
fn an_unreadable_file_is_the_only_error_shown_and_every_one_is_named() {
    let spec = project_spec();
    assert!(spec.len() >= 3, "{spec:?}");
    let broken = |text: &str, at: usize| {
        let lines: Vec<&str> = text.lines().collect();
        let at = at.min(lines.len());
        let mut out = lines[..at].join("\n");
        out.push_str("\n  broken: [unclosed\n");
        out.push_str(&lines[at..].join("\n"));
        out
    };
    for (index, (name, text)) in spec.iter().enumerate() {
        let lines = text.lines().count();
        for at in [1, lines / 2, lines] {
            let mut files = spec.clone();
            files[index].1 = broken(text, at);
            let files: Vec<(&str, &str)> = files
                .iter()
                .map(|(n, t)| (n.as_str(), t.as_str()))
                .collect();
            let errors = errors_in(&files);
            let kinds: Vec<(ErrorKind, &str)> =
                errors.iter().map(|e| (e.kind, e.file.as_str())).collect();
            assert_eq!(kinds, [(InvalidYaml, name.as_str())], "{name} at line {at}");
        }
    }
    let mut files = spec.clone();
    for index in [0, files.len() - 1] {
        files[index].1 = broken(&files[index].1.clone(), 2);
    }
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect();
    let errors = errors_in(&files);
    let kinds: Vec<(ErrorKind, &str)> = errors.iter().map(|e| (e.kind, e.file.as_str())).collect();
    assert_eq!(
        kinds,
        [
            (InvalidYaml, files[0].0),
            (InvalidYaml, files[files.len() - 1].0)
        ]
    );
}

/// The reference: "A value of 0 in a date or ID field means none/unset". Every field of the real
/// spec that can be none (an `Option`: optional, absent in some method, nullable) and can be 0 (an
/// ID, or a date some method sends as epoch seconds) reads 0 as none: it declares
/// `zero_is_none`. A field added or made optional without it fails here, naming it.
#[test]
fn every_optional_id_or_epoch_date_of_the_spec_reads_zero_as_none() {
    use marketplace_codegen::ir::{DateForm, Scalar, TypeRef};
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec");
    let sources = marketplace_codegen::load_spec_dir(&dir, "spec").expect("the spec loads");
    let api = resolve(&sources).expect("the spec resolves");
    let mut missing = Vec::new();
    let mut judged = 0;
    for record in &api.records {
        for field in &record.fields {
            let zero_capable = match &field.ty {
                TypeRef::Scalar(Scalar::Id) => true,
                TypeRef::Scalar(Scalar::Date) => field
                    .encoding
                    .distinct()
                    .iter()
                    .any(|encoding| encoding.info().date == Some(DateForm::Instant)),
                _ => false,
            };
            if zero_capable && field.is_optional() {
                judged += 1;
                if !field.zero_is_none {
                    missing.push(format!("{}.{}", record.name, field.wire_name));
                }
            }
        }
    }
    assert!(
        judged >= 10,
        "only {judged} optional ID or date fields found"
    );
    assert!(
        missing.is_empty(),
        "optional ID or date fields without zero_is_none: {missing:?}"
    );
}
