#!/usr/bin/python3
"""Writes fixed-batch-conv.onnx: a Conv + Relu whose input shape is fixed at 1x3x8x8 in the file
(no symbolic dimension), for the tests of --batch on a model that cannot take it.
Run with Debian's interpreter (python3-onnx): /usr/bin/python3 make_fixed_batch.py"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

weight = numpy_helper.from_array(np.zeros((4, 3, 3, 3), dtype=np.float32), name="weight")
graph = helper.make_graph(
    [helper.make_node("Conv", ["input", "weight"], ["conv"], name="conv"),
     helper.make_node("Relu", ["conv"], ["output"], name="relu")],
    "fixed_batch_conv",
    [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 8, 8])],
    [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 4, 6, 6])],
    initializer=[weight])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
model.ir_version = 7
onnx.checker.check_model(model)
onnx.save(model, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixed-batch-conv.onnx"))
