//! The validated API: every name resolved, every quirk stated as data.
//!
//! Built by [`crate::resolve`] from the spec files; read by the emitters (and by any tool that
//! compares two versions of the spec). Everything is in spec order, so output is deterministic,
//! but for the lists the spec writes as sets, which are sorted (`resolve::as_set`).
//! Items refer to each other by checked [`Id`]s; [`Api::check`] states every invariant the
//! emitters rely on, and `generate` refuses an `Api` that breaks one. Loops over items look
//! others up through a [`Lookup`] (constant time), not by scanning the `Api`.

mod check;
mod encoding;
mod id;
mod lookup;

pub use check::Inconsistency;
pub(crate) use check::{contained_records, containment_cycles, cycle_text};
pub use encoding::{DateForm, ENCODINGS, Encoding, EncodingInfo, JsonForm, JsonKind, Kind, Reader};
pub use id::Id;
pub use lookup::{Find, Lookup};

/// The whole API, merged from all spec files.
#[derive(Clone, Debug, PartialEq)]
pub struct Api {
    /// The spec files, in load order; items refer to them by index.
    pub files: Vec<SpecFileInfo>,
    /// The service, when a file declares it.
    pub info: Option<ApiInfo>,
    /// The OAuth endpoints, when a file declares them.
    pub oauth: Option<OAuth>,
    /// Error codes.
    pub errors: Vec<ErrorCode>,
    /// Enumerations.
    pub enums: Vec<Enum>,
    /// Record types.
    pub records: Vec<Record>,
    /// Data methods.
    pub methods: Vec<Method>,
}

impl Api {
    /// The record `id` names, by a scan (in a loop, use a [`Lookup`]). Every id of an `Api`
    /// from `resolve` names an item of it (see [`Api::check`]); an id from elsewhere is a bug
    /// of the caller.
    pub fn record(&self, id: &Id<Record>) -> &Record {
        self.record_named(id.as_str())
            .unwrap_or_else(|| panic!("{id:?} names no record of this Api (see Api::check)"))
    }

    /// The enum `id` names, by a scan (in a loop, use a [`Lookup`]).
    pub fn enumeration(&self, id: &Id<Enum>) -> &Enum {
        self.enum_named(id.as_str())
            .unwrap_or_else(|| panic!("{id:?} names no enum of this Api (see Api::check)"))
    }

    /// The parts of a paged method: its page and size parameters and the response fields
    /// with the items and the page count. `None` for a method that does not page. By scans
    /// (in a loop, use [`Lookup::paging_of`]).
    pub fn paging_of<'a>(&'a self, method: &'a Method) -> Option<PagingParts<'a>> {
        let paging = method.paging.as_ref()?;
        let response = self.record(&method.response);
        Some(PagingParts {
            paging,
            page: method.param(&paging.page_param),
            size: method.param(&paging.size_param),
            items: response.field(&paging.items),
            total_pages: paging.total_pages.as_ref().map(|id| response.field(id)),
        })
    }
}

/// A paged method's paging, with its references followed.
#[derive(Clone, Copy, Debug)]
pub struct PagingParts<'a> {
    /// The method's paging.
    pub paging: &'a Paging,
    /// The page-number parameter.
    pub page: &'a Param,
    /// The page-size parameter.
    pub size: &'a Param,
    /// The field holding the page's items.
    pub items: &'a Field,
    /// The field holding the page count.
    pub total_pages: Option<&'a Field>,
}

impl PagingParts<'_> {
    /// The type of one item of a page.
    pub fn item_type(&self) -> &TypeRef {
        match &self.items.ty {
            TypeRef::List(element) => element,
            other => panic!("paging items of type {other:?}: Api::check requires a list"),
        }
    }
}

/// One spec file and the module generated from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecFileInfo {
    /// The file as named to the loader, e.g. `spec/pay.yaml`.
    pub path: String,
    /// The generated module's name (the file stem), e.g. `pay`.
    pub module: String,
    /// Documentation of the generated module.
    pub doc: Option<String>,
}

/// The service.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiInfo {
    /// Human-readable name.
    pub name: String,
    /// Documentation.
    pub doc: String,
    /// Path prefix of the data methods, e.g. `/api`.
    pub data_path: String,
    /// The envelope's `apiVersion`.
    pub api_version: i64,
    /// Index of the declaring file.
    pub file: usize,
}

/// The OAuth 1.0a endpoints and their rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OAuth {
    /// Documentation.
    pub doc: String,
    /// Whether the endpoints must be called over HTTPS.
    pub https_required: bool,
    /// The only accepted `oauth_signature_method`.
    pub signature_method: String,
    /// The only accepted `oauth_version`.
    pub version: String,
    /// How long an access token lives at most.
    pub token_lifetime_seconds: u64,
    /// The endpoints: request_token, authorize, access_token, revoke (in that order).
    pub endpoints: Vec<OAuthEndpoint>,
    /// Index of the declaring file.
    pub file: usize,
}

impl OAuth {
    /// The names of the endpoints, in order.
    pub const ENDPOINTS: [&'static str; 4] =
        ["request_token", "authorize", "access_token", "revoke"];
}

/// One OAuth endpoint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OAuthEndpoint {
    /// `request_token`, `authorize`, `access_token` or `revoke`.
    pub name: String,
    /// HTTP method.
    pub method: String,
    /// Path below the base URL.
    pub path: String,
    /// Documentation.
    pub doc: String,
    /// Variables of the form-encoded response body.
    pub response: Vec<String>,
}

/// A documented error code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ErrorCode {
    /// The code as sent, e.g. `E_VALIDATION_INVALID_ID`.
    pub code: String,
    /// The Rust variant name, e.g. `ValidationInvalidId`.
    pub variant: String,
    /// Documentation.
    pub doc: String,
    /// The reference's error type, e.g. `authentication`.
    pub kind: Option<String>,
    /// Methods that return it; `None` means every authenticated method.
    pub methods: Option<Vec<Id<Method>>>,
    /// Index of the declaring file.
    pub file: usize,
}

/// An enumeration of wire strings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Enum {
    /// Rust name.
    pub name: String,
    /// Documentation.
    pub doc: String,
    /// Whether unknown values are kept (`Other(String)`) instead of refused.
    pub open: bool,
    /// The documented values.
    pub values: Vec<EnumValue>,
    /// Index of the declaring file.
    pub file: usize,
}

/// One documented value of an enumeration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EnumValue {
    /// The value as sent.
    pub wire: String,
    /// The Rust variant name.
    pub variant: String,
    /// Documentation.
    pub doc: String,
}

/// A record type: a JSON object with known fields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// Rust name.
    pub name: String,
    /// The reference's name for it, when different.
    pub documented_as: Option<String>,
    /// Documentation.
    pub doc: String,
    /// Fields are not documented: the raw JSON object is kept.
    pub opaque: bool,
    /// Fields in spec order.
    pub fields: Vec<Field>,
    /// The methods whose responses contain this record, in spec order.
    pub delivered_by: Vec<Id<Method>>,
    /// Index of the declaring file.
    pub file: usize,
}

/// A field of a record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    /// The name in JSON.
    pub wire_name: String,
    /// The Rust field name.
    pub rust_name: String,
    /// Documentation.
    pub doc: String,
    /// The value type.
    pub ty: TypeRef,
    /// How the value is written on the wire.
    pub encoding: FieldEncoding,
    /// When the field is present.
    pub presence: Presence,
    /// `null` means none.
    pub nullable: bool,
    /// `0` means none.
    pub zero_is_none: bool,
    /// The reference's name for the field, when it is delivered under another name.
    pub documented_as: Option<String>,
    /// The reference's type for the field, when it is delivered with another type's fields.
    pub documented_type: Option<Id<Record>>,
    /// Why the type is narrower than the reference's type for the field (a sentence quoting
    /// the reference's evidence), when it is.
    pub narrowed: Option<String>,
}

impl Record {
    /// The field `id` names.
    pub fn field(&self, id: &Id<Field>) -> &Field {
        self.fields
            .iter()
            .find(|field| field.wire_name == *id)
            .unwrap_or_else(|| panic!("{id:?} names no field of {} (see Api::check)", self.name))
    }
}

impl Field {
    /// Whether the Rust field is an `Option`.
    pub fn is_optional(&self) -> bool {
        self.presence != Presence::Always || self.nullable || self.zero_is_none
    }
}

/// The excerpts of the reference that a `narrowed` sentence quotes: each text between a pair
/// of double quotes, in order (`Notes say "Numeric text".` quotes `Numeric text`).
pub fn quoted_excerpts(sentence: &str) -> impl Iterator<Item = &str> {
    sentence.split('"').skip(1).step_by(2)
}

/// The page a paged method's stream starts at, given its page parameter: the parameter's
/// default, else its minimum, else 1. The generated `FIRST_PAGE` and the spec diff's paging
/// model both read it here.
pub fn first_page(page: &Param) -> i64 {
    page.default.or(page.min).unwrap_or(1)
}

/// A field's type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TypeRef {
    /// A built-in scalar.
    Scalar(Scalar),
    /// A collection.
    List(Box<TypeRef>),
    /// A record type.
    Record(Id<Record>),
    /// An enumeration.
    Enum(Id<Enum>),
}

impl TypeRef {
    /// The type as the spec writes it (`id`, `list<Timesheet>`).
    pub fn spec_name(&self) -> String {
        match self {
            TypeRef::Scalar(scalar) => scalar.spec_name().to_owned(),
            TypeRef::List(element) => format!("list<{}>", element.spec_name()),
            TypeRef::Record(id) => id.to_string(),
            TypeRef::Enum(id) => id.to_string(),
        }
    }

    /// What declares its encodings: a scalar or a list; `None` for records and enums.
    pub fn kind(&self) -> Option<Kind> {
        match self {
            TypeRef::Scalar(scalar) => Some(Kind::Scalar(*scalar)),
            TypeRef::List(_) => Some(Kind::List),
            TypeRef::Record(_) | TypeRef::Enum(_) => None,
        }
    }
}

/// The built-in scalar types of the spec.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scalar {
    /// Text.
    String,
    /// A signed integer.
    Integer,
    /// An object ID.
    Id,
    /// A non-negative count or page number.
    Count,
    /// An exact decimal (money, hours).
    Decimal,
    /// A boolean.
    Boolean,
    /// A date (DD-MON-YY text or epoch seconds).
    Date,
}

impl Scalar {
    /// Every scalar.
    pub const ALL: [Scalar; 7] = [
        Scalar::String,
        Scalar::Integer,
        Scalar::Id,
        Scalar::Count,
        Scalar::Decimal,
        Scalar::Boolean,
        Scalar::Date,
    ];

    /// The scalar the spec calls `name`.
    pub fn named(name: &str) -> Option<Scalar> {
        Self::ALL
            .into_iter()
            .find(|scalar| scalar.spec_name() == name)
    }

    /// The spec name.
    pub fn spec_name(self) -> &'static str {
        match self {
            Scalar::String => "string",
            Scalar::Integer => "integer",
            Scalar::Id => "id",
            Scalar::Count => "count",
            Scalar::Decimal => "decimal",
            Scalar::Boolean => "boolean",
            Scalar::Date => "date",
        }
    }

    /// The decoder its values need whatever their encoding: serde's own for text (a `String`
    /// refuses a number unless an encoding says otherwise), the runtime's lenient one for the
    /// others (exact digits, every spelling).
    pub fn reader(self) -> Reader {
        match self {
            Scalar::String => Reader::Serde,
            Scalar::Integer
            | Scalar::Id
            | Scalar::Count
            | Scalar::Decimal
            | Scalar::Boolean
            | Scalar::Date => Reader::Lenient,
        }
    }

    /// A typical value, for encodings whose row gives no examples of its own: the text of a
    /// JSON string, and of a JSON number (`-7`, `12.50`; for text, a number kept as its text).
    pub fn example(self) -> ScalarExample {
        let same = |text| ScalarExample { text, number: text };
        match self {
            Scalar::String => ScalarExample {
                text: "week 3",
                number: "12",
            },
            Scalar::Integer => same("-7"),
            Scalar::Id | Scalar::Count => same("310001"),
            Scalar::Decimal => same("12.50"),
            Scalar::Boolean => same("1"),
            Scalar::Date => same("1767571200"),
        }
    }
}

/// A typical value of a scalar, as JSON string text and as JSON number text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScalarExample {
    /// As a JSON string.
    pub text: &'static str,
    /// As a JSON number.
    pub number: &'static str,
}

/// The encodings of a field: one for all methods, or one per method.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FieldEncoding {
    /// A record or an enum: written as itself (an object, a string), never declared.
    Itself,
    /// The same in every response.
    Uniform(Encoding),
    /// Per method that delivers the field, sorted by method (the spec's map has no order).
    PerMethod(Vec<(Id<Method>, Encoding)>),
}

impl FieldEncoding {
    /// Every distinct encoding, sorted.
    pub fn distinct(&self) -> Vec<Encoding> {
        let mut encodings: Vec<Encoding> = match self {
            FieldEncoding::Itself => Vec::new(),
            FieldEncoding::Uniform(encoding) => vec![*encoding],
            FieldEncoding::PerMethod(per_method) => per_method.iter().map(|(_, e)| *e).collect(),
        };
        encodings.sort();
        encodings.dedup();
        encodings
    }

    /// The encodings the field is sent with in `method`'s responses: the one declared for it,
    /// or every one when the spec does not name the method.
    pub fn in_method(&self, method: &str) -> Vec<Encoding> {
        match self {
            FieldEncoding::PerMethod(per_method) => {
                match per_method.iter().find(|(m, _)| *m == method) {
                    Some((_, encoding)) => vec![*encoding],
                    None => self.distinct(),
                }
            }
            FieldEncoding::Uniform(encoding) => vec![*encoding],
            FieldEncoding::Itself => Vec::new(),
        }
    }
}

/// When a field is present in a response.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Presence {
    /// Always.
    Always,
    /// Sometimes; the sentence says when, if the spec gives one.
    Optional(Option<String>),
    /// Only in these methods' responses.
    OnlyIn(Vec<Id<Method>>),
    /// In every response but these methods'.
    AbsentIn(Vec<Id<Method>>),
}

/// A data method.
#[derive(Clone, Debug, PartialEq, Eq)]
#[allow(
    clippy::disallowed_fields,
    reason = "the declaration of `errors`, and the derives' reads of every field"
)]
pub struct Method {
    /// `group/method`, as in the path.
    pub name: String,
    /// The Rust function name.
    pub rust_name: String,
    /// Documentation.
    pub doc: String,
    /// Path below the base URL, e.g. `/api/pay/getTimesheet`.
    pub path: String,
    /// The record type of the envelope's `data`.
    pub response: Id<Record>,
    /// The envelope's `api` as delivered (the method name unless the spec says otherwise).
    pub delivered_api: String,
    /// Query parameters in spec order.
    pub params: Vec<Param>,
    /// Parameters of which at least one must be sent.
    pub at_least_one_of: Vec<Id<Param>>,
    /// How the method pages, if it does.
    pub paging: Option<Paging>,
    /// The error codes its spec entry lists. It documents more: every code that names no
    /// method is every method's, so read [`Api::errors_of`]; this list alone is for the code
    /// that checks or writes it (clippy's `disallowed-fields` holds the rest to that).
    pub errors: Vec<Id<ErrorCode>>,
    /// Index of the declaring file.
    pub file: usize,
}

impl Method {
    /// The parameter `id` names.
    pub fn param(&self, id: &Id<Param>) -> &Param {
        self.params
            .iter()
            .find(|param| param.wire_name == *id)
            .unwrap_or_else(|| {
                panic!(
                    "{id:?} names no parameter of {} (see Api::check)",
                    self.name
                )
            })
    }
}

/// A query parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    /// The name in the query string.
    pub wire_name: String,
    /// The Rust name.
    pub rust_name: String,
    /// Documentation.
    pub doc: String,
    /// The value type.
    pub ty: ParamType,
    /// Whether the server requires it.
    pub required: bool,
    /// The server's default.
    pub default: Option<i64>,
    /// Smallest accepted value.
    pub min: Option<i64>,
    /// The documented cap.
    pub max: Option<i64>,
    /// Why the type is narrower than the reference's type for the parameter (a sentence
    /// quoting the reference's evidence), when it is.
    pub narrowed: Option<String>,
}

/// Types a query parameter can have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamType {
    /// A signed integer.
    Integer,
    /// A non-negative count or page number.
    Count,
    /// An object ID.
    Id,
    /// A day, sent as `DD-MON-YY`.
    Date,
}

impl ParamType {
    /// The spec name.
    pub fn spec_name(self) -> &'static str {
        match self {
            ParamType::Integer => "integer",
            ParamType::Count => "count",
            ParamType::Id => "id",
            ParamType::Date => "date",
        }
    }
}

/// How a paged method pages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Paging {
    /// The page-number parameter (a `count`).
    pub page_param: Id<Param>,
    /// The page-size parameter (a `count`).
    pub size_param: Id<Param>,
    /// The response field holding the page's items (a list).
    pub items: Id<Field>,
    /// The response field holding the page count (a `count`), if the response has one.
    pub total_pages: Option<Id<Field>>,
    /// Which pages come back empty.
    pub beyond_last: BeyondLast,
}

/// Which page numbers give an empty page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BeyondLast {
    /// Pages above totalPages.
    AboveTotal,
    /// Pages equal to or above totalPages (the workroom rule).
    AtOrAboveTotal,
}
