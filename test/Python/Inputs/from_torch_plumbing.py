"""dsm.from_torch with the stand-in torch of Inputs/fake_torch
(test/Python/from-torch-plumbing.test)."""

import dsm
import torch


class Net:
    """What from_torch uses of an nn.Module: training, eval(), train()."""

    def __init__(self):
        self.training = True

    def eval(self):
        self.training = False
        return self

    def train(self, mode=True):
        self.training = mode
        return self


net = Net()
model = dsm.from_torch(net, "x", name="resnet50", dynamo=False)
call = torch.onnx.calls[0]
print("exported in eval mode:", not call["training"],
      "inputs as a tuple:", call["args"] == ("x",),
      "options:", sorted(call["options"].items()))
print("training mode restored:", net.training)
print(repr(model))
report = dsm.map_model(model, system="dsm-8pf-asym", mode="infer", batch=8)
print("mapped:", len(report["layers"]), "layer passes")
