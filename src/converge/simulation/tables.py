"""The tidy results table, streamed to disk: one row per round (:data:`~converge.simulation.stats.ROUND_COLUMNS`).

Parquet needs pyarrow (``pip install 'converge-game[sim]'``); CSV needs nothing. Rows are written as they
arrive, a batch at a time, so the table never sits in memory.
"""

from __future__ import annotations

import csv
import importlib
import importlib.util
from pathlib import Path
from typing import IO, Any, Protocol

from converge import install_command
from converge.simulation.stats import ROUND_COLUMNS, ROUND_TYPES, RoundRow

FORMATS = ("auto", "parquet", "csv")
#: Rows per Parquet row group.
BATCH_ROWS = 16384


def have(module: str) -> bool:
    """True when an optional dependency can be imported."""
    return importlib.util.find_spec(module) is not None


class RoundWriter(Protocol):
    path: Path
    rows: int

    def write(self, rows: list[RoundRow]) -> None:
        ...

    def close(self) -> None:
        ...


class CsvRounds:
    """Rows to a CSV file with a header line (booleans as ``true``/``false``)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.rows = 0
        self._file: IO[str] = path.open("w", encoding="utf-8", newline="")
        self._csv = csv.writer(self._file)
        self._csv.writerow(ROUND_COLUMNS)
        self._bools = [i for i, t in enumerate(ROUND_TYPES) if t == "bool"]

    def write(self, rows: list[RoundRow]) -> None:
        bools = self._bools
        for row in rows:
            out: list[object] = list(row)
            for i in bools:
                out[i] = "true" if out[i] else "false"
            self._csv.writerow(out)
        self.rows += len(rows)

    def close(self) -> None:
        self._file.close()


class ParquetRounds:
    """Rows to a Parquet file, one row group per :data:`BATCH_ROWS` rows."""

    def __init__(self, path: Path) -> None:
        pa: Any = importlib.import_module("pyarrow")
        pq: Any = importlib.import_module("pyarrow.parquet")
        self._pa: Any = pa
        types = {"str": pa.string(), "int": pa.int64(), "bool": pa.bool_()}
        self._schema = pa.schema([(name, types[t]) for name, t in zip(ROUND_COLUMNS, ROUND_TYPES, strict=True)])
        self.path = path
        self.rows = 0
        self._writer: Any = pq.ParquetWriter(str(path), self._schema, compression="zstd")
        self._pending: list[RoundRow] = []

    def write(self, rows: list[RoundRow]) -> None:
        self._pending.extend(rows)
        self.rows += len(rows)
        if len(self._pending) >= BATCH_ROWS:
            self._flush()

    def _flush(self) -> None:
        if not self._pending:
            return
        columns = list(zip(*self._pending, strict=True))
        batch = self._pa.RecordBatch.from_arrays(
            [self._pa.array(col, type=self._schema.field(i).type) for i, col in enumerate(columns)],
            schema=self._schema)
        self._writer.write_batch(batch)
        self._pending = []

    def close(self) -> None:
        self._flush()
        self._writer.close()


def resolve_format(fmt: str) -> tuple[str, str | None]:
    """The format to write (``parquet`` or ``csv``) and a note when ``auto`` had to fall back to CSV.

    Raises ``ValueError`` when Parquet is asked for and pyarrow is missing.
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown table format {fmt!r} (known: {', '.join(FORMATS)})")
    if fmt == "csv":
        return "csv", None
    if have("pyarrow"):
        return "parquet", None
    if fmt == "parquet":
        raise ValueError(f"Parquet output needs pyarrow: {install_command('sim')} (or use --format csv)")
    return "csv", f"pyarrow is not installed, so the table is CSV ({install_command('sim')} for Parquet)"


def open_rounds(folder: Path, fmt: str) -> RoundWriter:
    """A writer for ``folder/rounds.parquet`` or ``folder/rounds.csv`` (``fmt`` already resolved)."""
    if fmt == "parquet":
        return ParquetRounds(folder / "rounds.parquet")
    return CsvRounds(folder / "rounds.csv")


__all__ = ["BATCH_ROWS", "FORMATS", "CsvRounds", "ParquetRounds", "RoundWriter", "have", "open_rounds",
           "resolve_format"]
