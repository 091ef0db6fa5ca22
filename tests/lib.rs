//! Helpers shared by the workspace-level integration tests in `tests/`.

use std::path::{Path, PathBuf};

/// The repository root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

/// The shared data folder, `../shared/data/` from the repository root.
pub fn shared_data() -> PathBuf {
    repo_root().join("../shared/data")
}

/// Compare `actual` with the golden file `tests/golden/NAME`; with
/// `UPDATE_GOLDEN=1` in the environment, write it instead.
pub fn assert_golden(name: &str, actual: &str) {
    let path = repo_root().join("tests/golden").join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, actual).expect("write golden file");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "golden file {} unreadable ({e}); run with UPDATE_GOLDEN=1 to create it",
            path.display()
        )
    });
    assert!(
        expected == actual,
        "{} differs from the rendered output; if the change is intended, run with UPDATE_GOLDEN=1\n--- expected\n{expected}\n--- actual\n{actual}",
        path.display()
    );
}
