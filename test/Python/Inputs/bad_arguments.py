"""Arguments the C API cannot take as they are (test/Python/arguments.test):
a NUL would end a C string early (a path "two.mlir\\0.onnx" named
two.mlir, MLIR text was cut, an option's NUL broke the report's JSON), and
a wrong type raised AttributeError. Each must be a ValueError or TypeError
naming the argument. argv: a model file."""

import os
import sys

import dsm

model = sys.argv[1]
calls = [
    ("path with NUL", lambda: dsm.map_model(model + "\0.onnx",
                                            system="dsm-8pf-asym")),
    ("Model text with NUL", lambda: dsm.Model("module {}\0garbage")),
    ("Model name with NUL", lambda: dsm.Model("module {}", "a\0b")),
    ("Model(None)", lambda: dsm.Model(None)),
    ("system with NUL", lambda: dsm.map_model(model,
                                              system="dsm-8pf-asym\0x")),
    ("option with NUL", lambda: dsm.map_model(model, system="dsm-8pf-asym",
                                              search="ex\0")),
    ("model of a wrong type", lambda: dsm.map_model(42,
                                                    system="dsm-8pf-asym")),
    ("import_onnx path with NUL", lambda: dsm.import_onnx("m.onnx\0x")),
    ("Model text changed to NUL", lambda: dsm.map_model(
        changed(), system="dsm-8pf-asym")),
]


def changed():
    m = dsm.Model("module {}")
    m.mlir = "module {}\0"
    return m


for what, call in calls:
    try:
        call()
        print(what + ": no error")
    except (ValueError, TypeError) as error:
        print("%s: %s: %s" % (what, type(error).__name__, error))

# A bytes path is a path: it maps as its str spelling does.
as_bytes = dsm.map_model(os.fsencode(model), system="dsm-8pf-asym",
                         mode="infer", batch=8)
as_str = dsm.map_model(model, system="dsm-8pf-asym", mode="infer", batch=8)
assert as_bytes == as_str
print("bytes path: mapped")
