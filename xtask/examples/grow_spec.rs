//! Grows a spec directory for the build-cost benchmark (`tests/benches/build_cost.sh`): adds
//! `copies` copies of every enum, type and method of its files under new names, so the
//! generated crate is about `copies + 1` times as large.
//!
//! ```text
//! cargo run -p xtask --example grow_spec -- <spec dir> <copies>
//! ```
//!
//! Copy `k` of `<stem>.yaml` is `<stem>_c<k>.yaml`: the file's `doc`, `enums`, `types` and
//! `methods` sections (the service, OAuth and error sections stay in the original alone), with
//! every name one of them defines renamed wherever it stands as a whole word: a type or enum
//! `Invoice` becomes `InvoiceC<k>`, a method `pay/getInvoice` becomes `pay/getInvoiceC<k>`
//! (so its Rust items, `Session::get_invoice_c<k>` and `GetInvoiceC<k>`, are new too). The
//! copies refer to each other and to the shared items (error codes, and nothing else) as the
//! originals do. The directory is then a valid spec: the script runs `cargo xtask codegen`
//! on it.

use std::collections::HashMap;
use std::path::Path;
use std::process::ExitCode;

use marketplace_client::files::OutputDir;

/// The top-level sections a copy keeps.
const COPIED: [&str; 4] = ["doc", "enums", "types", "methods"];
/// The sections whose items (keys indented by two spaces) are renamed.
const NAMED: [&str; 3] = ["enums", "types", "methods"];

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [dir, copies] = args.as_slice() else {
        eprintln!("usage: grow_spec <spec dir> <copies>");
        return ExitCode::from(2);
    };
    let Ok(copies) = copies.parse::<usize>() else {
        eprintln!("grow_spec: <copies> must be a number, not {copies:?}");
        return ExitCode::from(2);
    };
    match grow(Path::new(dir), copies) {
        Ok(written) => {
            println!("grow_spec: {written} files written in {dir}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("grow_spec: {error}");
            ExitCode::FAILURE
        }
    }
}

/// A spec file cut into its top-level sections: each a key and its lines, the key's own
/// line included (comments and blank lines before the first section dropped).
fn sections(text: &str) -> Vec<(String, Vec<&str>)> {
    let mut sections: Vec<(String, Vec<&str>)> = Vec::new();
    for line in text.lines() {
        let top = line
            .chars()
            .next()
            .is_some_and(|c| !c.is_whitespace() && c != '#');
        if top {
            let key = line.split(':').next().unwrap_or_default().to_owned();
            sections.push((key, vec![line]));
        } else if let Some((_, lines)) = sections.last_mut() {
            lines.push(line);
        }
    }
    sections
}

/// The names a section defines: its keys indented by exactly two spaces.
fn defined_names<'a>(lines: &[&'a str]) -> impl Iterator<Item = &'a str> {
    lines.iter().filter_map(|line| {
        let rest = line.strip_prefix("  ")?;
        if rest.starts_with([' ', '#']) || rest.is_empty() {
            return None;
        }
        let (name, after) = rest.split_once(':')?;
        after.trim().is_empty().then_some(name.trim())
    })
}

/// `text` with every whole word (a run of letters, digits, `_` and `/`) that `renames` maps
/// replaced.
fn rename(text: &str, renames: &HashMap<String, String>) -> String {
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '/';
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        out.push_str(renames.get(word.as_str()).unwrap_or(word));
        word.clear();
    };
    for c in text.chars() {
        if is_word(c) {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// Whether `stem` names a copy (`<stem>_c<k>`).
fn is_copy(stem: &str) -> bool {
    stem.rsplit_once("_c")
        .is_some_and(|(_, k)| !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()))
}

fn grow(dir: &Path, copies: usize) -> Result<usize, String> {
    let mut files = Vec::new();
    let entries = std::fs::read_dir(dir).map_err(|error| format!("{}: {error}", dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|error| error.to_string())?.path();
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        // Copies made by an earlier run are not copied again.
        if path.extension().is_some_and(|e| e == "yaml") && !is_copy(stem) {
            let text = std::fs::read_to_string(&path)
                .map_err(|error| format!("{}: {error}", path.display()))?;
            files.push((stem.to_owned(), text));
        }
    }
    files.sort();
    // Every copy lands in the directory named, whole, all or none (marketplace_client::files).
    let out = OutputDir::open(dir).map_err(|error| error.to_string())?;
    let mut set = out.stage();
    let mut written = 0;
    for copy in 1..=copies {
        let suffix = format!("C{copy}");
        let renames: HashMap<String, String> = files
            .iter()
            .flat_map(|(_, text)| sections(text))
            .filter(|(key, _)| NAMED.contains(&key.as_str()))
            .flat_map(|(_, lines)| defined_names(&lines).map(str::to_owned).collect::<Vec<_>>())
            .map(|name| {
                let renamed = format!("{name}{suffix}");
                (name, renamed)
            })
            .collect();
        for (stem, text) in &files {
            let kept: Vec<String> = sections(text)
                .into_iter()
                .filter(|(key, _)| COPIED.contains(&key.as_str()))
                .map(|(_, lines)| lines.join("\n"))
                .collect();
            if !kept.iter().any(|section| !section.starts_with("doc")) {
                continue;
            }
            let contents = format!(
                "# Copy {copy} of {stem}.yaml, every name renamed (grow_spec, build-cost benchmark).\n\n{}\n",
                rename(&kept.join("\n\n"), &renames)
            );
            set.write(format!("{stem}_c{copy}.yaml"), contents);
            written += 1;
        }
    }
    set.commit().map_err(|error| error.to_string())?;
    Ok(written)
}
