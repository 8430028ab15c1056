//! `ParquetHandle`: one parquet file (a HuggingFace dataset behind a URL, a
//! Delta data file) read through [`ParquetFile`], rows out as the cache's are.

use std::rc::Rc;
use std::sync::Arc;

use atlas_wasm::atria::parquet::ParquetFile;
use atlas_wasm_js::{whole, JsByteSource, JsSource};
use js_sys::{Array, Promise};
use wasm_bindgen::prelude::*;

use crate::{spawn, values};

/// One open parquet file: its footer read, row groups read on demand.
#[wasm_bindgen]
pub struct ParquetHandle {
    file: Rc<ParquetFile>,
}

#[wasm_bindgen]
impl ParquetHandle {
    /// Reads the footer of the file `source` serves; resolves to a `ParquetHandle`.
    pub fn open(source: JsSource, abort: Option<Promise>) -> Promise {
        spawn(
            async move {
                let file = ParquetFile::open(Arc::new(JsByteSource::new(source))).await?;
                Ok(ParquetHandle {
                    file: Rc::new(file),
                }
                .into())
            },
            abort,
        )
    }

    #[wasm_bindgen(getter, js_name = numRows)]
    pub fn num_rows(&self) -> f64 {
        self.file.num_rows() as f64
    }

    /// `[{name, type}]`: the top-level fields.
    #[wasm_bindgen(getter)]
    pub fn columns(&self) -> Vec<JsValue> {
        let columns = self.file.columns();
        values::columns(
            columns
                .iter()
                .map(|c| (c.name.as_str(), c.type_name.as_str())),
        )
    }

    /// The rows in each row group.
    #[wasm_bindgen(getter, js_name = rowGroupRows)]
    pub fn row_group_rows(&self) -> Vec<f64> {
        self.file
            .row_group_rows()
            .into_iter()
            .map(|n| n as f64)
            .collect()
    }

    /// The rows of row group `i` (only `columns`, when given), as plain objects.
    #[wasm_bindgen(js_name = readRowGroup)]
    pub fn read_row_group(
        &self,
        i: f64,
        columns: Option<Vec<String>>,
        abort: Option<Promise>,
    ) -> Promise {
        let file = self.file.clone();
        spawn(
            async move {
                let group = usize::try_from(whole(i, "a row group index")?).unwrap_or(usize::MAX);
                let names: Option<Vec<&str>> = columns
                    .as_ref()
                    .map(|c| c.iter().map(String::as_str).collect());
                let rows = file.read_row_group(group, names.as_deref()).await?;
                Ok(rows
                    .into_iter()
                    .map(values::value)
                    .collect::<Array>()
                    .into())
            },
            abort,
        )
    }

    /// Row `i` of the file, reading only its row group.
    pub fn row(&self, i: f64, abort: Option<Promise>) -> Promise {
        let file = self.file.clone();
        spawn(
            async move { Ok(values::value(file.row(whole(i, "a row index")?).await?)) },
            abort,
        )
    }
}
