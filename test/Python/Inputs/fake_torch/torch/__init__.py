"""A stand-in for torch (test/Python/from-torch-plumbing.test): just enough
for dsm.from_torch -- torch.onnx.export "exports" by copying the ONNX file
named by DSM_TEST_ONNX and records how it was called -- so the plumbing is
tested where Debian has no torch for Python."""

import os
import shutil


class _Onnx:
    calls = []

    def export(self, module, args, path, **options):
        _Onnx.calls.append({"training": module.training, "args": args,
                            "options": options})
        shutil.copyfile(os.environ["DSM_TEST_ONNX"], path)


class TrainingMode:
    EVAL = "eval"
    PRESERVE = "preserve"
    TRAINING = "training"


_Onnx.TrainingMode = TrainingMode
onnx = _Onnx()
