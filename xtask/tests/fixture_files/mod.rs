//! Writing a test's fixture files through the project's one writer (`marketplace_client::files`:
//! clippy refuses std's writing calls elsewhere), for the suites that write files by path.

use std::path::Path;

/// Writes `contents` to `path`, creating its folder if need be.
pub fn write_file(path: impl AsRef<Path>, contents: impl AsRef<[u8]>) -> std::io::Result<()> {
    let path = path.as_ref();
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return Err(std::io::Error::other(format!(
            "{}: no file name",
            path.display()
        )));
    };
    marketplace_client::files::OutputDir::create(dir)
        .and_then(|dir| dir.write(name, contents))
        .map_err(std::io::Error::other)
}
