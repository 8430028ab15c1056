//! Which files a run reads, in which order, under which names.

use std::path::{Path, PathBuf};

use crate::ingest::CreateError;

/// Suffixes treated as NetCDF (compared without case), as atlas-python.
pub const NETCDF_SUFFIXES: [&str; 4] = ["nc", "nc4", "cdf", "netcdf"];

/// The dataset name of a NetCDF file: its file name, suffix kept, so
/// `jan.nc` and `jan.nc4` are two datasets.
pub fn dataset_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// The NetCDF files under `dir`, sorted by path (the sort fixes the
/// collection's order). Symbolic links to files count; links to
/// directories are not followed, so a cycle cannot trap the walk.
pub fn find_netcdf_files(dir: &Path, recursive: bool) -> Result<Vec<PathBuf>, CreateError> {
    if !dir.is_dir() {
        return Err(CreateError::NoInput(format!(
            "not a directory: {}",
            dir.display()
        )));
    }
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(at) = pending.pop() {
        let entries = std::fs::read_dir(&at)
            .map_err(|e| CreateError::NoInput(format!("{}: {e}", at.display())))?;
        for entry in entries {
            let entry =
                entry.map_err(|e| CreateError::NoInput(format!("{}: {e}", at.display())))?;
            let path = entry.path();
            let kind = entry
                .file_type()
                .map_err(|e| CreateError::NoInput(format!("{}: {e}", path.display())))?;
            if kind.is_dir() {
                if recursive {
                    pending.push(path);
                }
            } else if path.is_file() && is_netcdf(&path) {
                found.push(path);
            }
        }
    }
    found.sort();
    Ok(found)
}

fn is_netcdf(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| NETCDF_SUFFIXES.iter().any(|s| s.eq_ignore_ascii_case(e)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scan_is_sorted_recursive_and_suffix_driven() {
        let root = std::env::temp_dir().join(format!("atlas-scan-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("b/c")).unwrap();
        for f in [
            "z.nc",
            "a.NC4",
            "b/c/x.cdf",
            "b/y.netcdf",
            "notes.txt",
            "b/data.nc.gz",
        ] {
            std::fs::write(root.join(f), b"").unwrap();
        }
        let names = |files: Vec<PathBuf>| -> Vec<String> {
            files
                .iter()
                .map(|p| p.strip_prefix(&root).unwrap().display().to_string())
                .collect()
        };
        assert_eq!(
            names(find_netcdf_files(&root, true).unwrap()),
            ["a.NC4", "b/c/x.cdf", "b/y.netcdf", "z.nc"]
        );
        assert_eq!(
            names(find_netcdf_files(&root, false).unwrap()),
            ["a.NC4", "z.nc"]
        );
        assert_eq!(dataset_name(&root.join("b/c/x.cdf")), "x.cdf");
        assert!(find_netcdf_files(&root.join("z.nc"), true).is_err());
        std::fs::remove_dir_all(&root).unwrap();
    }
}
