#!/usr/bin/python3
"""Make the reference that checks `graphopt execute` computes what PyTorch computes.

A tiny two-branch CNN (the ops of the bundled image models: Conv with and without padding, Relu,
Clip as ReLU6, MaxPool, AveragePool, Concat, Add, Sigmoid, GlobalAveragePool, Flatten, Gemm) is
built with a fixed seed, exported to ONNX *with* its weights, and run once by PyTorch on a fixed
input. The input and PyTorch's output go beside it in JSON. The files are a few KB and are
committed, so the test that reads them (tests/execution/PlacementExecutorTest.cpp) needs no
PyTorch.

Run with Debian's interpreter, which sees python3-torch and python3-onnx:
    /usr/bin/python3 tools/make_exec_reference.py [--out DIR]
"""

import argparse
import json
import os

import torch
import torch.nn as nn


class TinyBranches(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 6, 3, stride=1, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.left = nn.Conv2d(6, 4, 1)
        self.right = nn.Conv2d(6, 4, 3, padding=1, groups=2)
        self.avg = nn.AvgPool2d(3, stride=1, padding=1)
        self.mix = nn.Conv2d(8, 8, 3, stride=2)
        self.fc = nn.Linear(8, 5)

    def forward(self, x):
        x = self.pool(torch.relu(self.stem(x)))
        a = torch.clamp(self.left(x), 0.0, 6.0)
        b = torch.sigmoid(self.avg(self.right(x)))
        y = torch.cat([a + b, a * b], dim=1)
        y = torch.relu(self.mix(y))
        y = torch.flatten(nn.functional.adaptive_avg_pool2d(y, 1), 1)
        return self.fc(y)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "tests", "data", "exec"))
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.manual_seed(7)
    model = TinyBranches().eval()
    x = torch.randn(1, 3, 12, 12)
    with torch.no_grad():
        y = model(x)
    onnx_path = os.path.join(args.out, "tiny_branches.onnx")
    torch.onnx.export(model, x, onnx_path, input_names=["input"], output_names=["logits"],
                      export_params=True, opset_version=13, do_constant_folding=True)
    ref = {
        "model": "tiny_branches.onnx",
        "made_by": "tools/make_exec_reference.py (torch " + torch.__version__ + ")",
        "input": {"name": "input", "shape": list(x.shape), "values": [round(v, 7) for v in x.flatten().tolist()]},
        "output": {"name": "logits", "shape": list(y.shape), "values": [round(v, 7) for v in y.flatten().tolist()]},
    }
    with open(os.path.join(args.out, "tiny_branches.json"), "w") as f:
        json.dump(ref, f, indent=1)
        f.write("\n")
    print("wrote", onnx_path, os.path.getsize(onnx_path), "bytes")


if __name__ == "__main__":
    main()
