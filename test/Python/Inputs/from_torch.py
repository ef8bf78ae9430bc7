"""dsm.from_torch on torchvision's ResNet-18 (test/Python/from-torch.test)."""

import dsm
import torch
import torchvision

model = dsm.from_torch(torchvision.models.resnet18(weights=None),
                       torch.randn(1, 3, 224, 224), name="resnet18")
print("resnet18: %d convolutions, %d batch norms" % (
    model.mlir.count("dsm.conv2d"), model.mlir.count("dsm.batch_norm")))
report = dsm.map_model(model, system="dsm-8pf-asym", mode="train", batch=256)
print("plan: %g s per training step" % report["totals"]["seconds"])
