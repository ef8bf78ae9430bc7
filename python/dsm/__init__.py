"""dsm: map deep neural networks onto accelerator systems from Python.

A thin layer over dsm-opt's C API (include/dsm-c/Dsm.h, libDsmCAPI.so)
through ctypes, so it runs with Debian's python3 and nothing else::

    import dsm
    report = dsm.map_model("models/resnet50.mlir", system="dsm-8pf-asym",
                           mode="train", batch=512)
    print(report["totals"]["seconds"])

`map_model` returns the JSON report of `dsm-opt --dsm-map-system` as a dict:
the same contract as the command line's (`report=- report-format=json`) for
whichever capability the system's kind selects -- spatial mapping, memory
placement or device placement. Failures raise `DsmError` carrying the
located messages dsm-opt would print. See docs/python.md.
"""

import ctypes
import json
import os
import tempfile
import warnings

from . import _location

__all__ = [
    "DsmError",
    "DsmWarning",
    "Model",
    "from_torch",
    "import_onnx",
    "map_model",
    "version",
]


class DsmError(RuntimeError):
    """dsm-opt refused or failed: the message is its located diagnostics
    (``file:line:col: error: ...``), as dsm-opt prints them."""

    def __init__(self, diagnostics):
        self.diagnostics = diagnostics
        super().__init__(diagnostics.strip() or "dsm-opt failed")


class DsmWarning(UserWarning):
    """A warning dsm-opt emitted on a run that succeeded (for instance a plan
    that needs more memory per chip than a chip has)."""


class Model:
    """A model in the dsm dialect, as MLIR text with its locations (the
    layer names). `import_onnx` and `from_torch` return one; `map_model`
    takes one as well as a path."""

    def __init__(self, mlir, name="model"):
        self.mlir = _text_argument("dsm.Model", "mlir", mlir)
        self.name = _text_argument("dsm.Model", "name", name)

    def save(self, path):
        """Writes the MLIR text to `path` (for dsm-opt)."""
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.mlir)

    def __str__(self):
        return self.mlir

    def __repr__(self):
        return "<dsm.Model %s: %d bytes of MLIR>" % (self.name, len(self.mlir))


def _library_path():
    override = os.environ.get("DSM_CAPI_LIBRARY")
    if override:
        return override
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.normpath(os.path.join(here, _location.LIBRARY))


def _load():
    path = _library_path()
    try:
        lib = ctypes.CDLL(path)
    except OSError as error:
        raise ImportError(
            "dsm: cannot load dsm-opt's C API library %s (%s); set "
            "DSM_CAPI_LIBRARY to libDsmCAPI.so of an installed prefix"
            % (path, error)) from error
    out = ctypes.POINTER(ctypes.c_void_p)
    lib.dsmMapModelFile.argtypes = [ctypes.c_char_p, ctypes.c_char_p, out,
                                    out, out]
    lib.dsmMapModelFile.restype = ctypes.c_int
    lib.dsmMapModelText.argtypes = [ctypes.c_char_p, ctypes.c_char_p,
                                    ctypes.c_char_p, out, out, out]
    lib.dsmMapModelText.restype = ctypes.c_int
    lib.dsmImportOnnxFile.argtypes = [ctypes.c_char_p, ctypes.c_char_p, out,
                                      out]
    lib.dsmImportOnnxFile.restype = ctypes.c_int
    lib.dsmStringDestroy.argtypes = [ctypes.c_void_p]
    lib.dsmStringDestroy.restype = None

    class _StringRef(ctypes.Structure):
        _fields_ = [("data", ctypes.c_char_p), ("length", ctypes.c_size_t)]

    lib.dsmGetVersion.argtypes = []
    lib.dsmGetVersion.restype = _StringRef
    return lib


_lib = _load()


def version():
    """The version of dsm-opt the library was built from."""
    ref = _lib.dsmGetVersion()
    return ref.data[:ref.length].decode()


__version__ = version()


def _take(pointer):
    """The library's string at `pointer` as str, freed."""
    if not pointer.value:
        return ""
    try:
        return ctypes.string_at(pointer.value).decode("utf-8", "replace")
    finally:
        _lib.dsmStringDestroy(pointer.value)


def _text_argument(function, name, value):
    """`value`, a str without NUL: the C API reads C strings, which end at
    the first NUL, so what follows one would be dropped silently."""
    if not isinstance(value, str):
        raise TypeError("%s: '%s' must be a str, got %s"
                        % (function, name, type(value).__name__))
    if "\0" in value:
        raise ValueError("%s: '%s' holds a NUL character (at index %d), "
                         "which would end it there" % (function, name,
                                                       value.index("\0")))
    return value


def _path_argument(function, name, value,
                   kinds="a path (str, bytes or os.PathLike)"):
    """`value` (str, bytes or os.PathLike) as the bytes of a path without
    NUL: "two.mlir\\0.onnx" would name two.mlir."""
    try:
        path = os.fsencode(value)
    except TypeError:
        raise TypeError("%s: '%s' must be %s, got %s"
                        % (function, name, kinds,
                           type(value).__name__)) from None
    if b"\0" in path:
        raise ValueError("%s: '%s' holds a NUL character (at index %d), "
                         "which would end the path there: %r"
                         % (function, name, path.index(b"\0"), value))
    return path


def _option_value(value, name="option"):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ",".join(_option_value(v, name) for v in value)
    if isinstance(value, (bytes, os.PathLike)):
        text = os.fsdecode(value)
    else:
        text = str(value)
    if "\0" in text:
        raise ValueError("dsm: option '%s' holds a NUL character (at index "
                         "%d), which would end the options there: %r"
                         % (name, text.index("\0"), text))
    if not text or any(c.isspace() for c in text):
        if '"' in text:
            raise ValueError("dsm: an option value cannot hold both "
                             "whitespace and '\"': %r" % text)
        return '"%s"' % text
    return text


def _options_text(options):
    words = []
    for key, value in options.items():
        if value is None:
            continue
        words.append("%s=%s" % (key.replace("_", "-"),
                                 _option_value(value, key)))
    return " ".join(words)


def _warn(diagnostics):
    for line in diagnostics.splitlines():
        if ": warning: " in line:
            warnings.warn(line, DsmWarning, stacklevel=3)


def map_model(model, system, mode=None, batch=None, **options):
    """Maps `model` onto `system` and returns the report as a dict.

    `model` is a path to dsm MLIR (``.mlir``) or ONNX (``.onnx``), or a
    `Model`. `system` is a preset (``dsm-8pf-asym``, ``nnp-i``,
    ``malvik``, ...) or a system file. `mode` is ``"train"`` or
    ``"infer"``; `batch` the minibatch (None keeps the model's). Every
    other option of ``--dsm-map-system`` is a keyword, dashes spelled as
    underscores: ``search="exhaustive"``, ``placement="egrl"``,
    ``iterations=500``, ``seed=1``, ``optimizations=["reuse", "pipeline"]``,
    ``trace="t.json"``. The report is the one
    ``dsm-opt --dsm-map-system="... report=- report-format=json"`` prints;
    `report` and `report_format` are therefore not options here (write the
    dict with ``json.dump``, or use dsm-opt for tables and HTML).

    Raises `DsmError` with dsm-opt's located messages when the model, the
    system or an option is refused, or the job fails; warnings of a run that
    succeeds are issued as `DsmWarning`.
    """
    for forbidden in ("report", "report_format", "report-format"):
        if forbidden in options:
            raise TypeError(
                "dsm.map_model returns the JSON report: '%s' is not an option "
                "here (json.dump the dict, or run dsm-opt for a table or "
                "HTML)" % forbidden)
    fields = {"system": system, "mode": mode, "batch": batch}
    fields.update(options)
    fields["report"] = "-"
    fields["report-format"] = "json"
    text = _options_text(fields).encode()
    report = ctypes.c_void_p()
    diagnostics = ctypes.c_void_p()
    if isinstance(model, Model):
        mlir = _text_argument("dsm.map_model", "model.mlir", model.mlir)
        name = _text_argument("dsm.map_model", "model.name", model.name)
        status = _lib.dsmMapModelText(mlir.encode(), name.encode(),
                                      text, ctypes.byref(report), None,
                                      ctypes.byref(diagnostics))
    else:
        path = _path_argument("dsm.map_model", "model", model,
                              "a path (str, bytes or os.PathLike) or a "
                              "dsm.Model")
        status = _lib.dsmMapModelFile(path, text,
                                      ctypes.byref(report), None,
                                      ctypes.byref(diagnostics))
    report_text = _take(report)
    messages = _take(diagnostics)
    if status > 128:
        # A signal (Ctrl-C) ended the search: its best so far, marked
        # "interrupted", rides on the exception.
        interrupt = KeyboardInterrupt(messages.strip())
        interrupt.report = json.loads(report_text) if report_text else None
        raise interrupt
    if status != 0:
        raise DsmError(messages)
    _warn(messages)
    return json.loads(report_text)


def import_onnx(path, batch=None, mode=None, dims=None):
    """Imports the ONNX model at `path` into the dsm dialect, as
    ``dsm-translate --import-onnx`` does, and returns a `Model`.

    `batch` sizes a dynamic batch dimension (dimension 0 of an input),
    `dims` named dynamic dimensions (``{"seq": 128}``); `mode` is
    ``"strict"`` (an operator the importer cannot express is an error, the
    default) or ``"permissive"`` (kept as ``dsm.opaque``). Raises `DsmError`
    with the located message of what could not be imported.
    """
    fields = {"mode": mode, "batch": batch}
    if dims:
        fields["dims"] = ",".join("%s=%d" % (k, v) for k, v in dims.items())
    text = _options_text(fields).encode()
    module = ctypes.c_void_p()
    diagnostics = ctypes.c_void_p()
    encoded = _path_argument("dsm.import_onnx", "path", path)
    status = _lib.dsmImportOnnxFile(encoded, text,
                                    ctypes.byref(module),
                                    ctypes.byref(diagnostics))
    mlir = _take(module)
    messages = _take(diagnostics)
    if status != 0:
        raise DsmError(messages)
    _warn(messages)
    name = os.path.splitext(os.path.basename(os.fsdecode(path)))[0]
    return Model(mlir, name)


def from_torch(module, example_inputs, name=None, opset_version=17,
               keep_batch_norm=True, **export_options):
    """Exports a ``torch.nn.Module`` through ``torch.onnx.export`` and
    imports it (`import_onnx`); returns a `Model`.

    `example_inputs` is a tensor or a tuple of tensors whose shapes fix the
    model's (their first dimension is the batch: `map_model`'s `batch`
    changes it). The module is exported in eval mode (dropout an identity);
    with `keep_batch_norm` (the default) its batch norms stay layers of
    their own work (``training=TrainingMode.PRESERVE``), as a training step
    runs them, where an eval-mode export folds them into the convolutions
    before. Further keywords go to ``torch.onnx.export``. Needs torch (and
    what its exporter needs); raises ImportError without it.
    """
    try:
        import torch  # noqa: F401  (only to say clearly when it is missing)
    except ImportError as error:
        raise ImportError("dsm.from_torch needs torch (pip install torch)") \
            from error
    if not isinstance(example_inputs, tuple):
        example_inputs = (example_inputs,)
    name = name or type(module).__name__
    if keep_batch_norm and "training" not in export_options:
        export_options["training"] = torch.onnx.TrainingMode.PRESERVE
    was_training = module.training
    module.eval()
    try:
        with tempfile.TemporaryDirectory(prefix="dsm-") as directory, \
                warnings.catch_warnings():
            # PRESERVE with constant folding: the exporter recommends
            # turning folding off for training; the eval-mode graph here
            # needs it (shapes).
            warnings.filterwarnings(
                "ignore", message="It is recommended that constant folding")
            path = os.path.join(directory, name + ".onnx")
            torch.onnx.export(module, example_inputs, path,
                              opset_version=opset_version, **export_options)
            model = import_onnx(path)
    finally:
        module.train(was_training)
    model.name = name
    return model
