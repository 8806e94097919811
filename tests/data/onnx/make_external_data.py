#!/usr/bin/python3
"""Writes two small ONNX models whose weights are stored as ONNX external data, for the tests
that loading them reads no weight bytes. The data files they name are never written: they are
absent on purpose, as they are when someone shares only the .onnx of a model over 2 GB.

external-data.onnx: x[batch, 8] -> MatMul W1 (float32 8x16) -> Add b1 (float32 16) -> Relu -> h;
  h -> MatMul (W2 float16 16x4 -> Cast) and h -> MatMul (W3 bfloat16 16x4 -> Cast), summed.
  Weights: 128 + 16 + 64 + 64 = 272 elements; 512 + 64 + 128 + 128 = 832 bytes.
external-shape.onnx: a Reshape whose target shape is an external int64 initializer: its value
  cannot be known without the data file, so the Reshape's output has no shape after loading.

Run with Debian's interpreter (python3-onnx): /usr/bin/python3 make_external_data.py"""
import os

import onnx
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
ELEMENT_BYTES = {TensorProto.FLOAT: 4, TensorProto.FLOAT16: 2, TensorProto.BFLOAT16: 2,
                 TensorProto.INT64: 8}


def external(name, data_type, dims, location, offset):
    """An initializer that declares its type and dims and keeps its bytes in `location`."""
    t = TensorProto()
    t.name = name
    t.data_type = data_type
    t.dims.extend(dims)
    t.data_location = TensorProto.EXTERNAL
    length = ELEMENT_BYTES[data_type]
    for d in dims:
        length *= d
    for key, value in (("location", location), ("offset", str(offset)), ("length", str(length))):
        entry = t.external_data.add()
        entry.key = key
        entry.value = value
    return t, offset + length


def check(model):
    """onnx.checker on a copy whose external initializers are graph inputs of the same type and
    shape: ONNX 1.12's checker stats every external data file and refuses a missing one."""
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    inits = list(copy.graph.initializer)
    del copy.graph.initializer[:]
    for t in inits:
        copy.graph.input.append(helper.make_tensor_value_info(t.name, t.data_type, list(t.dims)))
    onnx.checker.check_model(copy)


def save(model, file_name):
    model.ir_version = 8
    check(model)
    path = os.path.join(HERE, file_name)
    # SerializeToString + write, not onnx.save: nothing may try to write or read external data.
    with open(path, "wb") as f:
        f.write(model.SerializeToString())
    if os.path.exists(path + ".data"):
        raise RuntimeError(path + ".data must not exist")


def make_external_data():
    data = "external-data.onnx.data"
    inits, offset = [], 0
    for name, dtype, dims in (("W1", TensorProto.FLOAT, [8, 16]), ("b1", TensorProto.FLOAT, [16]),
                              ("W2", TensorProto.FLOAT16, [16, 4]), ("W3", TensorProto.BFLOAT16, [16, 4])):
        t, offset = external(name, dtype, dims, data, offset)
        inits.append(t)
    nodes = [
        helper.make_node("MatMul", ["x", "W1"], ["mm1"], name="/fc1/MatMul"),
        helper.make_node("Add", ["mm1", "b1"], ["fc1"], name="/fc1/Add"),
        helper.make_node("Relu", ["fc1"], ["h"], name="/relu/Relu"),
        helper.make_node("Cast", ["W2"], ["W2f"], name="/fc2/Cast", to=TensorProto.FLOAT),
        helper.make_node("MatMul", ["h", "W2f"], ["y2"], name="/fc2/MatMul"),
        helper.make_node("Cast", ["W3"], ["W3f"], name="/fc3/Cast", to=TensorProto.FLOAT),
        helper.make_node("MatMul", ["h", "W3f"], ["y3"], name="/fc3/MatMul"),
        helper.make_node("Add", ["y2", "y3"], ["y"], name="/Add"),
    ]
    graph = helper.make_graph(nodes, "external_data_mlp",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 4])],
                              initializer=inits)
    save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), "external-data.onnx")


def make_external_shape():
    target, _ = external("target", TensorProto.INT64, [2], "external-shape.onnx.data", 0)
    nodes = [
        helper.make_node("Relu", ["x"], ["r"], name="/relu/Relu"),
        helper.make_node("Reshape", ["r", "target"], ["reshaped"], name="/Reshape"),
        helper.make_node("Relu", ["reshaped"], ["y"], name="/relu_1/Relu"),
    ]
    graph = helper.make_graph(nodes, "external_shape",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["rows", "cols"])],
                              initializer=[target])
    save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), "external-shape.onnx")


if __name__ == "__main__":
    make_external_data()
    make_external_shape()
