"""Writes expected.json beside each table in this directory: the rows
delta-rs (the `deltalake` package pinned in tests/atria/requirements.txt)
reads from `<name>/delta/train` at its latest version, in its order, with the
row count. `DeltaTable.to_pyarrow_table` refuses deletion vectors; delta-rs's
query engine (`QueryBuilder`, DataFusion) applies them, so rows come from a
`SELECT *` over the table. Run once with the venv's python; the output is committed.

    target/atria-venv/bin/python tests/atria/delta-dv/make_expected.py
"""

import json
import math
import pathlib

import deltalake
import pyarrow
from deltalake import QueryBuilder

HERE = pathlib.Path(__file__).resolve().parent


def plain(value):
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError("a non-finite float has no JSON form")
    return value


for table_dir in sorted(p for p in HERE.iterdir() if (p / "delta/train/_delta_log").is_dir()):
    table = deltalake.DeltaTable(str(table_dir / "delta/train"))
    rows = [{k: plain(v) for k, v in row.items()} for row in pyarrow.table(QueryBuilder().register("t", table).execute("SELECT * FROM t")).to_pylist()]
    out = {
        "reader": f"deltalake {deltalake.__version__}",
        "version": table.version(),
        "num_rows": len(rows),
        "columns": [f.name for f in table.schema().fields],
        "rows": rows,
    }
    (table_dir / "expected.json").write_text(json.dumps(out, indent=1) + "\n")
    print(table_dir.name, table.version(), len(rows))
