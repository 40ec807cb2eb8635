//! `method-added`: A data method was added.

use super::prelude::*;
use crate::diff::rust_api::{Item, tidy};

pub const RULE: Rule = Rule {
    id: "method-added",
    summary: "A data method was added.",
};

/// What a reviewer checks of a new method is its whole surface: the call an app writes, what it
/// answers, the options it takes and whether it pages.
pub fn check(cx: &mut Context<'_>) {
    for new in cx.added_methods.clone() {
        let message = format!(
            "{} was added: {}, answering {}; {}",
            new.name,
            call(cx, new),
            new.response,
            options(new)
        );
        cx.push(
            RULE.id,
            Surface::None,
            None,
            &[],
            None,
            Some(Context::method_place(new)),
            message,
        );
    }
}

/// `Session::get_invoice(id: u64) -> Request<GetInvoice>`, read from the head crate (the
/// method's name alone when the crate has no such method, which the generator never makes).
fn call(cx: &Context<'_>, method: &Method) -> String {
    let key = format!("Session::{}()", method.rust_name);
    match cx.head_rust.items.get(&key) {
        Some(Item::Method(signature)) => {
            let arguments: Vec<String> = signature
                .params
                .iter()
                .map(|(name, ty)| format!("{name}: {}", tidy(ty)))
                .collect();
            let output = match signature.output.as_str() {
                "" => String::new(),
                output => format!(" -> {}", tidy(output)),
            };
            format!(
                "`Session::{}({}){output}`",
                method.rust_name,
                arguments.join(", ")
            )
        }
        _ => format!("`Session::{}`", method.rust_name),
    }
}

/// The parameters set on the request rather than passed to the method, and its paging.
fn options(method: &Method) -> String {
    let options: Vec<String> = method
        .params
        .iter()
        .filter(|param| !super::required(method, param))
        .map(|param| format!("`{}`", param.rust_name))
        .collect();
    let options = match options.as_slice() {
        [] => "no options".to_owned(),
        [one] => format!("option {one}"),
        many => format!("options {}", many.join(", ")),
    };
    match &method.paging {
        Some(paging) => format!(
            "{options}; paged (`pages()`, and `items()` of each page's `{}`)",
            paging.items
        ),
        None => options,
    }
}
