//! The old runtime's behaviour keyed on what the spec says of the service, run against the new
//! server: the error codes it corrects its clock on (`Service::authentication_errors`, and the
//! OAuth problems it knows by name, `ApiFailure::is_signature_mismatch`), met by each code the
//! new spec says a server sends for a refused signature or timestamp.

use super::witness::Witness;
use crate::ir::Api;

/// The kind of error code the runtime corrects its clock on.
pub const AUTHENTICATION: &str = "authentication";

/// The codes the runtime corrects its clock on whatever the spec says (OAuth's problem names,
/// `ApiFailure::is_signature_mismatch` in `api_failure.rs`).
pub const BUILT_IN_CLOCK_CODES: &[&str] = &["signature_invalid", "timestamp_refused"];

/// Whether the crate of `api` corrects its clock (and signs again) when a server whose clock
/// is far from its own refuses a call with `code`.
pub fn corrects_clock_on(api: &Api, code: &str) -> bool {
    BUILT_IN_CLOCK_CODES.contains(&code)
        || api
            .errors
            .iter()
            .any(|e| e.code == code && e.kind.as_deref() == Some(AUTHENTICATION))
}

/// The codes the server of `api` refuses a signature or a timestamp with: its
/// `authentication` codes.
pub fn clock_codes(api: &Api) -> impl Iterator<Item = &str> {
    api.errors
        .iter()
        .filter(|e| e.kind.as_deref() == Some(AUTHENTICATION))
        .map(|e| e.code.as_str())
}

/// The witness of an old crate (of `base`) that does not correct its clock when the new
/// server (of `head`) refuses a call with `code`, one of the codes it refuses a skewed clock
/// with.
pub fn clock_witness(base: &Api, head: &Api, code: &str) -> Option<Witness> {
    let refused_for_clock = clock_codes(head).any(|c| c == code);
    (refused_for_clock && !corrects_clock_on(base, code)).then(|| Witness::Runtime {
        finding: format!(
            "a new server whose clock is 2 h ahead refuses a data call with {code} (an \
             authentication error in the new spec); the old crate does not take it for a \
             signature refusal, so it neither corrects its clock nor signs again, and the \
             call fails where the new spec says a corrected clock succeeds"
        ),
    })
}
