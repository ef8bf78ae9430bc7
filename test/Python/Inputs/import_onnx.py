"""dsm.import_onnx against dsm-translate (test/Python/import-onnx.test).
argv: an ONNX model, the directory with dsm-translate's module and the
CLI's report of it."""

import json
import os
import sys

import dsm

onnx, out = sys.argv[1], sys.argv[2]
with open(os.path.join(out, "resnet50.mlir")) as f:
    translated = f.read()
with open(os.path.join(out, "cli.json")) as f:
    cli = json.load(f)

model = dsm.import_onnx(onnx)
assert model.mlir.strip() == translated.strip(), "import differs"
print("import_onnx: dsm-translate's module")
options = dict(system="dsm-8pf-asym", mode="infer", batch=32)
assert dsm.map_model(model, **options) == cli
print("Model: the CLI's report")
assert dsm.map_model(onnx, **options) == cli
print(".onnx path: the CLI's report")
try:
    dsm.import_onnx(os.path.join(os.path.dirname(__file__), "..", "..", "..",
                                 "models", "alexnet.mlir"))
    print("no error")
except dsm.DsmError as error:
    print("DsmError:", str(error).splitlines()[0])
