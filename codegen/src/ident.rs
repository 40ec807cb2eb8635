//! The checked Rust identifier every emitter and [`RustTy`](crate::rust_type::RustTy)'s tokens
//! use. Its own module so that `rust_type` and `emit` need not import each other.

use std::cell::RefCell;

use proc_macro2::{Ident, Span};

thread_local! {
    /// The names [`ident`] was given that are no identifier, during one
    /// [`generate`](crate::generate).
    static NOT_IDENTIFIERS: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

/// The identifier `name`, checked (where `Ident::new` would panic).
/// [`Api::check`](crate::ir::Api::check), which [`generate`](crate::generate) runs first,
/// guarantees every name the emitters pass is one; should one not be, it is noted and
/// `generate` returns [`EmitError::Inconsistent`](crate::EmitError::Inconsistent) instead of
/// any code.
pub(crate) fn ident(name: &str) -> Ident {
    match syn::parse_str::<Ident>(name) {
        Ok(ident) if ident == name => ident,
        _ => {
            NOT_IDENTIFIERS.with(|names| names.borrow_mut().push(name.to_owned()));
            Ident::new("not_an_identifier", Span::call_site())
        }
    }
}

/// The names [`ident`] refused since the last call.
pub(crate) fn take_not_identifiers() -> Vec<String> {
    NOT_IDENTIFIERS.with(|names| std::mem::take(&mut *names.borrow_mut()))
}
