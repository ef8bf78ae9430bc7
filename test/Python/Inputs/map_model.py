"""Checks of the installed Python package against dsm-opt's JSON reports
(test/Python/map-model.test). argv: the models directory, the directory
with the CLI's reports."""

import json
import os
import sys

import dsm

models, reports = sys.argv[1], sys.argv[2]


def cli(name):
    with open(os.path.join(reports, name)) as f:
        return json.load(f)


def without_clock(report):
    """The device report's search rates are wall-clock measurements."""
    for key in ("seconds", "evaluations_per_second", "events_per_second"):
        report["search"].pop(key)
    return report


print("version", dsm.__version__)
resnet50 = os.path.join(models, "resnet50.mlir")
alexnet = os.path.join(models, "alexnet.mlir")

spatial = dsm.map_model(resnet50, system="dsm-8pf-asym", mode="train",
                        batch=512)
assert spatial == cli("spatial.json"), "spatial report differs"
print("spatial: the CLI's report")

memory = dsm.map_model(alexnet, system="nnp-i", mode="infer", batch=1,
                       placement="ea", iterations=200, seed=3)
assert memory == cli("memory.json"), "memory report differs"
print("memory: the CLI's report")

devices = dsm.map_model(alexnet, system="malvik", batch=64, placement="ga",
                        evaluations=300, seed=2)
assert without_clock(devices) == without_clock(cli("devices.json"))
print("devices: the CLI's report")

with open(resnet50) as f:
    model = dsm.Model(f.read(), "resnet50")
assert dsm.map_model(model, system="dsm-8pf-asym", mode="train",
                     batch=512) == spatial
print("text model: the CLI's report")

from_file = dsm.map_model(resnet50, os.path.join(reports, "my systems",
                                                 "asym.yaml"),
                          mode="train", batch=512)
assert from_file["layers"] == spatial["layers"]
print("system file with a space: the preset's report")

for call in (
        lambda: dsm.map_model(alexnet, system="dsm-8pf-asym", bacth=3),
        lambda: dsm.map_model(os.path.join(models, "no-such-model.mlir"),
                              system="dsm-8pf-asym"),
        lambda: dsm.map_model(alexnet, system="dsm-9pf"),
        lambda: dsm.map_model(alexnet, system="dsm-8pf-asym", report="x.html"),
):
    try:
        call()
        print("no error")
    except dsm.DsmError as error:
        print("DsmError:", str(error).splitlines()[0])
    except TypeError as error:
        print("TypeError:", str(error).split(" (")[0])

# A trace= naming the model file is refused, and the model stays (issue 46,
# item 13: the C API protects the model it reads, as dsm-opt does).
import shutil
copy = os.path.join(reports, "model-copy.mlir")
shutil.copyfile(alexnet, copy)
try:
    dsm.map_model(copy, system="malvik", batch=64, placement="ga",
                  evaluations=10, trace=copy)
    print("no error")
except dsm.DsmError as error:
    print("DsmError:", [line for line in str(error).splitlines()
                        if ": error: " in line][0])
with open(copy) as a, open(alexnet) as b:
    assert a.read() == b.read(), "the model was overwritten"
print("ok")
