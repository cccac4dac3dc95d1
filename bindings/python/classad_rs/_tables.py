"""The tables of a cycle's outcome or a simulation's results as pyarrow
tables and pandas data frames (both optional dependencies, imported when
asked for)."""

import importlib
from typing import Any


def _import(name: str, owner: Any, what: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError as e:
        raise ImportError(f"{type(owner).__name__}.{what} needs {name}: pip install {name}") from e


def to_arrow(outcome: Any, table: str = "matches") -> Any:
    """``outcome``'s ``table`` as a ``pyarrow.Table``: each column wraps the
    bytes ``arrow_buffers`` made in Rust (of a ``CycleOutcome`` or a
    ``SimulationResults``), without copying."""
    pa = _import("pyarrow", outcome, "to_arrow")
    types = {"f64": pa.float64(), "i64": pa.int64(), "bool": pa.bool_(), "str": pa.string()}
    names, arrays = [], []
    for name, kind, length, validity, data, offsets in outcome.arrow_buffers(table):
        valid = None if validity is None else pa.py_buffer(validity)
        if offsets is None:
            buffers = [valid, pa.py_buffer(data)]
        else:
            buffers = [valid, pa.py_buffer(offsets), pa.py_buffer(data)]
        arrays.append(pa.Array.from_buffers(types[kind], length, buffers))
        names.append(name)
    return pa.Table.from_arrays(arrays, names=names)


def to_pandas(outcome: Any, table: str = "matches") -> Any:
    """``outcome``'s ``table`` as a ``pandas.DataFrame``: through pyarrow when
    it is installed, else from the columns as lists."""
    pd = _import("pandas", outcome, "to_pandas")
    try:
        importlib.import_module("pyarrow")
    except ImportError:
        return pd.DataFrame(outcome.columns(table))
    return to_arrow(outcome, table).to_pandas()
