//! Build a collection from a directory of NetCDF files (feature `netcdf`),
//! the way atlas-python 0.17.2's `atlas create` does, without Python.
//!
//! Each file becomes one dataset named after the file (suffix kept), its
//! variables decoded by xarray's CF rules as atlas-python applies them
//! (docs/write-path.md lists them): coordinates first, masked integers as
//! floats with NaN, CF times as nanosecond timestamps, character arrays as
//! strings, attributes atlas cannot hold as `json:` text. Variables are read
//! and written one stored chunk at a time, so memory follows the chunk
//! budget, not the file. Nothing appears at the destination unless the whole
//! run succeeds (or, with `skip_errors`, every file that could land has).

mod attrs;
mod cftime;
mod chunking;
mod classic;
mod enums;
mod file;
mod plan;
mod scan;
mod source;

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::mpsc;

pub use attrs::JSON_PREFIX;
pub use chunking::{DimChunk, OpenChunks};
pub use scan::{dataset_name, find_netcdf_files, NETCDF_SUFFIXES};

use crate::write::{AtlasWriter, Codec, DatasetWriter, WriterConfig};

/// The dataset attribute listing which arrays were coordinates (a JSON list).
pub const COORDS_ATTR: &str = "_pyatlas_coords";
/// atlas-python's default chunk budget (`--chunk-size 128MiB`).
pub const DEFAULT_CHUNK_BUDGET: u64 = 128 << 20;

/// How to build the collection.
#[derive(Debug, Clone)]
pub struct CreateOptions {
    /// Descend into subdirectories.
    pub recursive: bool,
    /// Block codec.
    pub codec: Codec,
    /// Stored chunk shape per variable name; overrides `open_chunks`.
    pub chunks: BTreeMap<String, Vec<u64>>,
    /// How each variable is read, which also sets its stored chunk shape
    /// (atlas-python's `--open-chunks`).
    pub open_chunks: OpenChunks,
    /// Bytes of one variable read at a time; also the largest automatic chunk.
    pub chunk_budget: u64,
    /// Decode CF times to timestamps (atlas-python's default).
    pub decode_times: bool,
    /// Decode times on a calendar numpy cannot hold (Julian, or the mixed
    /// Gregorian before 1582) to the timestamps of the same instants, instead
    /// of refusing them (`--convert-calendar`).
    pub convert_calendar: bool,
    /// Skip files that fail instead of abandoning the collection.
    pub skip_errors: bool,
    /// Leave out arrays atlas cannot store instead of failing their file.
    pub skip_unsupported: bool,
    /// Files read and written at once (libnetcdf calls still take turns).
    pub workers: usize,
    /// Build only this share of the sorted file list (`atlas create --part`).
    pub part: Option<Part>,
}

/// The `index`-th (from 1) of `count` contiguous, near-equal shares of the
/// sorted file list (or of a split's samples, `import-atria --part`): parts
/// built anywhere join into one collection with [`crate::write::merge`], in
/// index order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Part {
    /// Which share, from 1.
    pub index: usize,
    /// How many shares.
    pub count: usize,
}

impl Part {
    /// Parses `I/N`, 1 ≤ I ≤ N.
    pub fn parse(text: &str) -> Result<Part, CreateError> {
        let bad = || {
            CreateError::InvalidOption(format!(
                "a part is I/N with 1 <= I <= N (e.g. 2/8), not '{text}'"
            ))
        };
        let (index, count) = text.split_once('/').ok_or_else(bad)?;
        let number = |s: &str| s.trim().parse::<usize>().map_err(|_| bad());
        let (index, count) = (number(index)?, number(count)?);
        if index == 0 || index > count {
            return Err(bad());
        }
        Ok(Part { index, count })
    }

    /// This part's share of `items`.
    pub fn of<'a, T>(&self, items: &'a [T]) -> &'a [T] {
        let range = self.range(items.len() as u64);
        &items[range.start as usize..range.end as usize]
    }

    /// This part's share of `0..len`: share `i` of `n` starts at `⌊(i-1)·len/n⌋`.
    pub fn range(&self, len: u64) -> std::ops::Range<u64> {
        let at = |k: usize| (k as u128 * len as u128 / self.count as u128) as u64;
        at(self.index - 1)..at(self.index)
    }
}

impl Default for CreateOptions {
    fn default() -> Self {
        Self {
            recursive: true,
            codec: Codec::Zstd,
            chunks: BTreeMap::new(),
            open_chunks: OpenChunks::Auto,
            chunk_budget: DEFAULT_CHUNK_BUDGET,
            decode_times: true,
            convert_calendar: false,
            skip_errors: false,
            skip_unsupported: false,
            workers: 1,
            part: None,
        }
    }
}

/// A file the run left out, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct SkippedFile {
    /// The file.
    pub file: PathBuf,
    /// What went wrong, in atlas-python's words where it has them.
    pub error: String,
}

/// An array left out under `skip_unsupported`.
#[derive(Debug, Clone, PartialEq)]
pub struct SkippedArray {
    /// The dataset (the file's name).
    pub dataset: String,
    /// The variable left out.
    pub array: String,
    /// numpy's name for what xarray would have produced (`bool`, `object`).
    pub dtype: String,
    /// Why it cannot be stored.
    pub error: String,
}

/// What a run did, in file order whatever `workers` is.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CreateSummary {
    /// The files this run read, sorted (under `part`, its share alone).
    pub files: Vec<PathBuf>,
    /// Datasets written.
    pub written: Vec<String>,
    /// Files left out.
    pub skipped: Vec<SkippedFile>,
    /// Arrays left out.
    pub skipped_arrays: Vec<SkippedArray>,
}

/// Progress, reported on the calling thread as files land.
#[derive(Debug)]
pub enum Event<'a> {
    /// The scan found `total` files.
    Started {
        /// Files found.
        total: usize,
    },
    /// A dataset landed (completion order when `workers` > 1).
    Written {
        /// The dataset's name.
        name: &'a str,
        /// Datasets written so far.
        done: usize,
        /// Files found.
        total: usize,
    },
    /// A file was left out.
    SkippedFile(&'a SkippedFile),
    /// An array was left out.
    SkippedArray(&'a SkippedArray),
    /// What atlas-python warns of (in its words) for a file that landed.
    Warning {
        /// The file.
        file: &'a Path,
        /// The warning.
        message: &'a str,
    },
}

/// Why a run built nothing.
#[derive(Debug)]
#[non_exhaustive]
pub enum CreateError {
    /// The source is not a directory, or holds no NetCDF file.
    NoInput(String),
    /// A file failed (without `skip_errors`).
    File {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// Two files give one dataset name (without `skip_errors`).
    DuplicateName {
        /// The name both files give.
        name: String,
        /// The second file.
        path: PathBuf,
    },
    /// The collection could not be written.
    Write(crate::Error),
    /// An option makes no sense.
    InvalidOption(String),
}

impl fmt::Display for CreateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CreateError::NoInput(m) | CreateError::InvalidOption(m) => f.write_str(m),
            CreateError::File { path, message } => write!(f, "{}: {message}", path.display()),
            CreateError::DuplicateName { name, path } => {
                write!(f, "duplicate dataset name '{name}' from {}", path.display())
            }
            CreateError::Write(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for CreateError {}

impl From<crate::Error> for CreateError {
    fn from(e: crate::Error) -> Self {
        CreateError::Write(e)
    }
}

/// Builds the collection at `destination` from the NetCDF files under
/// `source`. On error nothing is left at `destination` (a directory this
/// call created is removed again).
pub fn create(
    source: &Path,
    destination: &Path,
    options: &CreateOptions,
    on_event: &mut dyn FnMut(Event<'_>),
) -> Result<CreateSummary, CreateError> {
    if options.workers == 0 {
        return Err(CreateError::InvalidOption(
            "workers must be at least 1".into(),
        ));
    }
    if options.chunk_budget == 0 {
        return Err(CreateError::InvalidOption(
            "the chunk budget must be at least 1 byte".into(),
        ));
    }
    let mut files = find_netcdf_files(source, options.recursive)?;
    if files.is_empty() {
        return Err(CreateError::NoInput(format!(
            "no NetCDF files under {}",
            source.display()
        )));
    }
    if let Some(part) = options.part {
        // A share may be empty (more parts than files): an empty
        // collection, which merges as nothing.
        files = part.of(&files).to_vec();
    }
    let existed = destination.exists();
    let result = run(&files, destination, options, on_event);
    if result.is_err() && !existed {
        // Only ever empty here: the writer removes its own work directory.
        let _ = std::fs::remove_dir(destination);
    }
    result
}

/// One file's outcome, tagged with its place in the scan.
type Outcome = (usize, Result<file::Landed, String>);

fn run(
    files: &[PathBuf],
    destination: &Path,
    options: &CreateOptions,
    on_event: &mut dyn FnMut(Event<'_>),
) -> Result<CreateSummary, CreateError> {
    let config = WriterConfig {
        codec: options.codec,
        ..WriterConfig::default()
    };
    let writer = AtlasWriter::create(destination, config)?;
    let total = files.len();
    on_event(Event::Started { total });
    let mut book = Book::new(files, options);
    let mut claimed = std::collections::HashSet::new();
    // At most two files per worker wait, so a long scan never holds a
    // dataset open for every file at once.
    let (work_tx, work_rx) = mpsc::sync_channel::<(usize, DatasetWriter)>(options.workers * 2);
    let work_rx = std::sync::Mutex::new(work_rx);
    let work_rx = &work_rx;

    std::thread::scope(|scope| -> Result<(), CreateError> {
        let (done_tx, done_rx) = mpsc::channel::<Outcome>();
        let netcdf = source::NetcdfThread::spawn();
        for _ in 0..options.workers {
            let done_tx = done_tx.clone();
            let netcdf = netcdf.clone();
            scope.spawn(move || loop {
                let job = work_rx.lock().unwrap_or_else(|p| p.into_inner()).recv();
                let Ok((index, dataset)) = job else { break };
                let outcome = file::ingest_file(&netcdf, &files[index], dataset, options);
                if done_tx.send((index, outcome)).is_err() {
                    break;
                }
            });
        }
        drop((done_tx, netcdf));
        let mut in_flight = 0usize;
        let mut failure = None;
        for (index, path) in files.iter().enumerate() {
            // Collect what is ready, so progress keeps up with the work.
            while let Ok(outcome) = done_rx.try_recv() {
                in_flight -= 1;
                if let Err(e) = book.record(outcome, on_event) {
                    failure = Some(e);
                }
            }
            if failure.is_some() {
                break;
            }
            let name = dataset_name(path);
            if !claimed.insert(name.clone()) {
                let e = CreateError::DuplicateName {
                    name: name.clone(),
                    path: path.clone(),
                };
                if !options.skip_errors {
                    failure = Some(e);
                    break;
                }
                book.skip(index, e.to_string(), on_event);
                continue;
            }
            // Ordinals follow the scan: datasets are added here, in order.
            // Under skip_errors a file may fail after writing some arrays:
            // staged, what it wrote never reaches the shared blocks.
            let added = match options.skip_errors {
                true => writer.add_staged_dataset(&name),
                false => writer.add_dataset(&name),
            };
            let dataset = match added {
                Ok(d) => d,
                Err(e) => {
                    if !options.skip_errors {
                        failure = Some(CreateError::File {
                            path: path.clone(),
                            message: e.to_string(),
                        });
                        break;
                    }
                    book.skip(index, e.to_string(), on_event);
                    continue;
                }
            };
            if work_tx.send((index, dataset)).is_err() {
                break;
            }
            in_flight += 1;
        }
        drop(work_tx);
        while in_flight > 0 {
            let Ok(outcome) = done_rx.recv() else { break };
            in_flight -= 1;
            if let Err(e) = book.record(outcome, on_event) {
                failure.get_or_insert(e);
            }
        }
        failure.map_or(Ok(()), Err)
    })?;
    writer.finish()?;
    Ok(book.summary())
}

/// The run's results, kept in scan order.
struct Book<'a> {
    files: &'a [PathBuf],
    options: &'a CreateOptions,
    total: usize,
    done: usize,
    written: Vec<(usize, String)>,
    skipped: Vec<(usize, SkippedFile)>,
    skipped_arrays: Vec<(usize, SkippedArray)>,
}

impl<'a> Book<'a> {
    fn new(files: &'a [PathBuf], options: &'a CreateOptions) -> Self {
        Self {
            files,
            options,
            total: files.len(),
            done: 0,
            written: Vec::new(),
            skipped: Vec::new(),
            skipped_arrays: Vec::new(),
        }
    }

    fn record(
        &mut self,
        (index, outcome): Outcome,
        on_event: &mut dyn FnMut(Event<'_>),
    ) -> Result<(), CreateError> {
        let path = &self.files[index];
        match outcome {
            Err(message) if !self.options.skip_errors => Err(CreateError::File {
                path: path.clone(),
                message,
            }),
            Err(message) => {
                self.skip(index, message, on_event);
                Ok(())
            }
            Ok(landed) => {
                let name = dataset_name(path);
                for message in &landed.warnings {
                    on_event(Event::Warning {
                        file: path,
                        message,
                    });
                }
                for u in landed.skipped {
                    let item = SkippedArray {
                        dataset: name.clone(),
                        array: u.array,
                        dtype: u.dtype,
                        error: u.reason,
                    };
                    on_event(Event::SkippedArray(&item));
                    self.skipped_arrays.push((index, item));
                }
                self.done += 1;
                on_event(Event::Written {
                    name: &name,
                    done: self.done,
                    total: self.total,
                });
                self.written.push((index, name));
                Ok(())
            }
        }
    }

    fn skip(&mut self, index: usize, error: String, on_event: &mut dyn FnMut(Event<'_>)) {
        let item = SkippedFile {
            file: self.files[index].clone(),
            error,
        };
        on_event(Event::SkippedFile(&item));
        self.skipped.push((index, item));
    }

    fn summary(mut self) -> CreateSummary {
        self.written.sort_by_key(|(i, _)| *i);
        self.skipped.sort_by_key(|(i, _)| *i);
        self.skipped_arrays.sort_by_key(|(i, _)| *i);
        CreateSummary {
            files: self.files.to_vec(),
            written: self.written.into_iter().map(|(_, n)| n).collect(),
            skipped: self.skipped.into_iter().map(|(_, s)| s).collect(),
            skipped_arrays: self.skipped_arrays.into_iter().map(|(_, s)| s).collect(),
        }
    }
}

#[cfg(test)]
mod part_tests {
    use super::Part;

    #[test]
    fn shares_are_contiguous_near_equal_and_cover_every_file() {
        let files: Vec<u32> = (0..10).collect();
        for count in 1..=13 {
            let mut joined = Vec::new();
            for index in 1..=count {
                let share = Part { index, count }.of(&files);
                assert!(share.len() == 10 / count || share.len() == 10 / count + 1);
                joined.extend_from_slice(share);
            }
            assert_eq!(joined, files, "{count} parts");
        }
        assert_eq!(Part::parse(" 2/8").unwrap(), Part { index: 2, count: 8 });
        for bad in ["0/3", "4/3", "1/0", "a/b", "2", "1/2/3", "-1/2"] {
            assert!(Part::parse(bad).is_err(), "{bad}");
        }
    }
}
