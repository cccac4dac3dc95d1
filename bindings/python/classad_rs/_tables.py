"""A cycle outcome's tables as pyarrow tables and pandas data frames
(both optional dependencies, imported when asked for)."""


def to_arrow(outcome, table="matches"):
    """``outcome``'s ``table`` as a ``pyarrow.Table``: each column wraps the
    bytes ``CycleOutcome.arrow_buffers`` made in Rust, without copying."""
    try:
        import pyarrow as pa
    except ImportError as e:
        raise ImportError("CycleOutcome.to_arrow needs pyarrow: pip install pyarrow") from e
    types = {"f64": pa.float64(), "i64": pa.int64(), "bool": pa.bool_(), "str": pa.string()}
    names, arrays = [], []
    for name, kind, length, validity, data, offsets in outcome.arrow_buffers(table):
        valid = None if validity is None else pa.py_buffer(validity)
        buffers = [valid, pa.py_buffer(data)] if offsets is None else [valid, pa.py_buffer(offsets), pa.py_buffer(data)]
        arrays.append(pa.Array.from_buffers(types[kind], length, buffers))
        names.append(name)
    return pa.Table.from_arrays(arrays, names=names)


def to_pandas(outcome, table="matches"):
    """``outcome``'s ``table`` as a ``pandas.DataFrame``: through pyarrow when
    it is installed, else from the columns as lists."""
    try:
        import pandas as pd
    except ImportError as e:
        raise ImportError("CycleOutcome.to_pandas needs pandas: pip install pandas") from e
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return pd.DataFrame(outcome.columns(table))
    return to_arrow(outcome, table).to_pandas()
