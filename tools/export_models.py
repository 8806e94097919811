#!/usr/bin/python3
"""Export torchvision image classifiers and two sequence models to ONNX graphs without weights.

The bundled model zoo (resources/models) gives GraphOpt Studio real network structures to
place, schedule and tune. The engines only need shapes (FLOPs, bytes, placement), so the
weights are left out: export_params=False turns every parameter into a graph input that
keeps its shape, and the files stay a few KB to a few hundred KB each.

Because the weights become graph inputs, the C++ loader cannot tell the real input apart
from them by looking at the graph alone; the metadata entry `graphopt.data_inputs` names it.

The batch dimension stays symbolic ("batch", as torch.onnx.export's dynamic_axes writes it), so
`graphopt ... --batch 32` re-infers every shape at that batch. Shape computations that do not
depend on the batch are folded here; those that do (ViT's and Swin's reshape targets are
computed from the input's shape) are left for the C++ loader, which folds them once the batch
is known (default 1).

Run with Debian's interpreter, which sees python3-torchvision and python3-onnx:
    /usr/bin/python3 tools/export_models.py [--out DIR] [MODEL ...]
Nothing is downloaded: every model is built with weights=None.

The sequence models (SEQUENCE_MODELS: a Transformer encoder and an LSTM, built from torch.nn)
are exported the way a user would export their own model: opset 13, no constant folding, a
symbolic batch dimension, and none of the clean-up below. Their reshape targets are computed at
run time (Shape -> Gather -> Unsqueeze -> Concat -> Reshape), so they test that the C++ loader
folds shape computations and gives symbolic dimensions a value by itself.
"""

import argparse
import os
import sys
import time
import warnings

SOURCE = ("torchvision 0.14 (Debian python3-torchvision), "
          "exported without weights by tools/export_models.py")
SOURCE_SEQUENCE = ("torch.nn 1.13 (Debian python3-torch), exported without weights and "
                   "without constant folding by tools/export_models.py")
DEFAULT_OPSET = 13

# torchvision name -> (family, input side, opset, constructor kwargs).
# The constructor kwargs avoid work that is useless without weights (inception's truncated
# normal init) and keep auxiliary classifiers out of the model; in eval mode they would not
# be exported anyway.
MODELS = {
    "alexnet": ("alexnet", 224, DEFAULT_OPSET, {}),
    "vgg11": ("vgg", 224, DEFAULT_OPSET, {}),
    "vgg16": ("vgg", 224, DEFAULT_OPSET, {}),
    "resnet18": ("resnet", 224, DEFAULT_OPSET, {}),
    "resnet34": ("resnet", 224, DEFAULT_OPSET, {}),
    "resnet50": ("resnet", 224, DEFAULT_OPSET, {}),
    "resnet101": ("resnet", 224, DEFAULT_OPSET, {}),
    "resnext50_32x4d": ("resnext", 224, DEFAULT_OPSET, {}),
    "wide_resnet50_2": ("wide_resnet", 224, DEFAULT_OPSET, {}),
    "densenet121": ("densenet", 224, DEFAULT_OPSET, {}),
    "densenet161": ("densenet", 224, DEFAULT_OPSET, {}),
    "inception_v3": ("inception", 299, DEFAULT_OPSET, {"aux_logits": False, "init_weights": False}),
    "googlenet": ("googlenet", 224, DEFAULT_OPSET, {"aux_logits": False, "init_weights": False}),
    "mobilenet_v2": ("mobilenet", 224, DEFAULT_OPSET, {}),
    "mobilenet_v3_small": ("mobilenet", 224, DEFAULT_OPSET, {}),
    "mobilenet_v3_large": ("mobilenet", 224, DEFAULT_OPSET, {}),
    "mnasnet1_0": ("mnasnet", 224, DEFAULT_OPSET, {}),
    "shufflenet_v2_x1_0": ("shufflenet", 224, DEFAULT_OPSET, {}),
    "squeezenet1_0": ("squeezenet", 224, DEFAULT_OPSET, {}),
    "squeezenet1_1": ("squeezenet", 224, DEFAULT_OPSET, {}),
    "efficientnet_b0": ("efficientnet", 224, DEFAULT_OPSET, {}),
    "efficientnet_b3": ("efficientnet", 224, DEFAULT_OPSET, {}),
    "regnet_x_400mf": ("regnet", 224, DEFAULT_OPSET, {}),
    "regnet_y_400mf": ("regnet", 224, DEFAULT_OPSET, {}),
    "convnext_tiny": ("convnext", 224, DEFAULT_OPSET, {}),
    "vit_b_16": ("vit", 224, DEFAULT_OPSET, {}),
    "swin_t": ("swin", 224, DEFAULT_OPSET, {}),
    # A video classifier (Kinetics-400, 3-D convolutions): its input is a clip of frames, here 8
    # frames of 112 x 112 (the model was trained on 16), which keeps its 3-D conv tasks small
    # enough to tune on a laptop.
    "r3d_18": ("video", 112, DEFAULT_OPSET, {}),
}

# Models whose input is not an image [1, 3, side, side]: their input shape and class count.
INPUT_SHAPES = {"r3d_18": (1, 3, 8, 112, 112)}
CLASSES = {"r3d_18": 400}


# name -> (family, description, builder(torch) -> (module, example input), FLOP formula notes).
# Sizes are chosen so the graphs are real workloads (0.5-1 GFLOP) and the files stay small.
TRANSFORMER = dict(d_model=256, nhead=8, dim_feedforward=1024, num_layers=4, seq=128)
LSTM = dict(input_size=256, hidden_size=512, num_layers=2, seq=64)


def build_transformer_encoder(torch):
    c = TRANSFORMER
    layer = torch.nn.TransformerEncoderLayer(c["d_model"], c["nhead"], c["dim_feedforward"],
                                             dropout=0.0)
    model = torch.nn.TransformerEncoder(layer, c["num_layers"], enable_nested_tensor=False)
    return model, torch.randn(c["seq"], 1, c["d_model"])  # (sequence, batch, features)


def build_lstm(torch):
    c = LSTM
    model = torch.nn.LSTM(c["input_size"], c["hidden_size"], c["num_layers"])
    return model, torch.randn(c["seq"], 1, c["input_size"])  # (sequence, batch, features)


SEQUENCE_MODELS = {
    "transformer_encoder": ("transformer", build_transformer_encoder),
    "lstm": ("lstm", build_lstm),
}


def split_shared_weights(onnx, proto):
    """Give every parameter its own graph input again.

    The exporter merges initializers with equal values and feeds the copies through Identity
    nodes. Freshly initialized weights are often equal (LayerNorm ones, zero biases), so
    without weights this would make unrelated layers share one input. Each Identity that
    copies a weight input becomes a graph input of its own, with the copied input's type.
    """
    inputs = {i.name: i for i in proto.graph.input}
    kept = []
    for node in proto.graph.node:
        source = node.input[0] if node.op_type == "Identity" else None
        if source in inputs and source != "input":
            copy = proto.graph.input.add()
            copy.CopyFrom(inputs[source])
            copy.name = node.output[0]
        else:
            kept.append(node)
    del proto.graph.node[:]
    proto.graph.node.extend(kept)


def fold_shape_computations(onnx, proto, max_elements=4096):
    """Replace small computations whose inputs are all known with Constant nodes.

    Models that read tensor sizes in Python (Swin's window attention above all) trace into
    thousands of Shape/Gather/Concat/... nodes, although the input size is fixed. Those
    nodes compute shapes, not data: they would swamp layouts, FLOP counts and the placement
    policy. Sizes of statically shaped tensors are known after shape inference, and every
    small result computed only from constants is folded here. Results larger than
    max_elements (such as Swin's attention masks) stay as computations, so the file stays small.
    """
    import numpy as np
    from onnx import helper, numpy_helper

    inferred = onnx.shape_inference.infer_shapes(proto, data_prop=True)
    static_shapes = {}
    for info in list(inferred.graph.value_info) + list(inferred.graph.input):
        tensor_type = info.type.tensor_type
        dims = tensor_type.shape.dim
        if tensor_type.HasField("shape") and all(d.HasField("dim_value") for d in dims):
            static_shapes[info.name] = tuple(d.dim_value for d in dims)

    def attrs(node):
        return {a.name: helper.get_attribute_value(a) for a in node.attribute}

    def np_type(onnx_type):
        if hasattr(helper, "tensor_dtype_to_np_dtype"):  # onnx >= 1.13
            return helper.tensor_dtype_to_np_dtype(onnx_type)
        return onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[onnx_type]

    def int_div(a, b):
        if np.issubdtype(a.dtype, np.integer):
            return (np.sign(a) * np.sign(b) * (np.abs(a) // np.abs(b))).astype(a.dtype)
        return (a / b).astype(a.dtype)

    def evaluate(node, known):
        op, a = node.op_type, attrs(node)
        if op == "Constant":
            if "value" in a:
                return [numpy_helper.to_array(a["value"])]
            for key, dtype in (("value_int", np.int64), ("value_ints", np.int64),
                               ("value_float", np.float32), ("value_floats", np.float32)):
                if key in a:
                    return [np.array(a[key], dtype=dtype)]
            return None
        if op == "Shape":
            shape = static_shapes.get(node.input[0])
            if shape is None:
                return None
            start, end = a.get("start", 0), a.get("end", None)
            return [np.array(shape[start:end], dtype=np.int64)]
        present = [name for name in node.input if name]
        if not present or any(name not in known for name in present):
            return None
        x = [known[name] if name else None for name in node.input]
        if op == "Identity":
            return [x[0]]
        if op == "Cast":
            return [x[0].astype(np_type(a["to"]))]
        if op == "Unsqueeze":
            out = x[0]
            rank = out.ndim + len(x[1])
            for axis in sorted(int(v) % rank for v in x[1]):
                out = np.expand_dims(out, axis)
            return [out]
        if op == "Squeeze":
            axes = None if len(x) < 2 or x[1] is None else tuple(int(v) for v in x[1])
            return [np.squeeze(x[0], axis=axes)]
        if op == "Gather":
            return [np.take(x[0], x[1], axis=a.get("axis", 0))]
        if op == "Concat":
            return [np.concatenate(x, axis=a["axis"])]
        if op == "Slice":
            data, starts, ends = x[0], x[1], x[2]
            axes = x[3] if len(x) > 3 and x[3] is not None else np.arange(len(starts))
            steps = x[4] if len(x) > 4 and x[4] is not None else np.ones(len(starts), np.int64)
            index = [slice(None)] * data.ndim
            for s, e, ax, st in zip(starts, ends, axes, steps):
                index[int(ax)] = slice(int(s), int(e), int(st))
            return [data[tuple(index)]]
        if op in ("Add", "Sub", "Mul"):
            fn = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply}[op]
            return [fn(x[0], x[1]).astype(x[0].dtype)]
        if op == "Div":
            return [int_div(x[0], x[1])]
        if op == "Mod":
            fn = np.fmod if a.get("fmod", 0) else np.mod
            return [fn(x[0], x[1]).astype(x[0].dtype)]
        if op == "Equal":
            return [np.equal(x[0], x[1])]
        if op == "Less":
            return [np.less(x[0], x[1])]
        if op == "Greater":
            return [np.greater(x[0], x[1])]
        if op == "Not":
            return [np.logical_not(x[0])]
        if op == "Where":
            return [np.where(x[0], x[1], x[2]).astype(x[1].dtype)]
        if op == "Range":
            return [np.arange(x[0], x[1], x[2]).astype(x[0].dtype)]
        if op == "ConstantOfShape":
            value = numpy_helper.to_array(a["value"]) if "value" in a else np.zeros(1, np.float32)
            if int(np.prod(x[0])) > max_elements:
                return None
            return [np.full(tuple(int(v) for v in x[0]), value.reshape(-1)[0], dtype=value.dtype)]
        if op == "Expand":
            shape = np.broadcast_shapes(x[0].shape, tuple(int(v) for v in x[1]))
            if int(np.prod(shape)) > max_elements:
                return None
            return [np.array(np.broadcast_to(x[0], shape))]
        if op == "Reshape":
            shape = [int(v) for v in x[1]]
            if not a.get("allowzero", 0):
                shape = [x[0].shape[i] if v == 0 else v for i, v in enumerate(shape)]
            return [x[0].reshape(shape)]
        if op == "Transpose":
            return [np.transpose(x[0], a.get("perm"))]
        if op == "ScatterND":
            out = x[0].copy()
            indices = x[1].reshape(-1, x[1].shape[-1])
            updates = x[2].reshape((indices.shape[0],) + x[0].shape[x[1].shape[-1]:])
            for index, update in zip(indices, updates):
                out[tuple(index)] = update
            return [out]
        return None

    graph = proto.graph
    known = {}
    plan = []
    for node in graph.node:
        values = evaluate(node, known)
        if values is not None and all(v.size <= max_elements for v in values):
            for name, value in zip(node.output, values):
                known[name] = np.asarray(value)
            plan.append((node, True))
        else:
            plan.append((node, False))

    needed = {name for node, folded in plan if not folded for name in node.input}
    needed |= {o.name for o in graph.output}
    # A folded value that is still read becomes a Constant at its producer's position, so the
    # node list stays topologically sorted; folded values nobody reads are dropped.
    new_nodes = []
    for node, folded in plan:
        if not folded:
            new_nodes.append(node)
            continue
        for name in node.output:
            if name in needed:
                tensor = numpy_helper.from_array(known[name], name=name)
                new_nodes.append(helper.make_node("Constant", [], [name],
                                                  name=name if len(node.output) > 1 or not node.name
                                                  else node.name, value=tensor))
    del graph.node[:]
    graph.node.extend(new_nodes)
    del graph.value_info[:]   # stale after folding; shape inference rebuilds it


def export_one(name, out_dir, torch, torchvision, onnx):
    family, side, opset, kwargs = MODELS[name]
    path = os.path.join(out_dir, name + ".onnx")
    tmp_path = path + ".tmp"

    torch.manual_seed(0)  # weights=None draws random init values; seed them so runs repeat
    constructor = getattr(torchvision.models, name, None) or getattr(torchvision.models.video, name)
    model = constructor(weights=None, **kwargs)
    model.eval()
    dummy = torch.randn(*INPUT_SHAPES.get(name, (1, 3, side, side)))

    try:
        return finish_export(name, model, dummy, path, tmp_path, family, side, opset, torch, onnx)
    finally:
        if os.path.exists(tmp_path):
            os.remove(tmp_path)


def finish_export(name, model, dummy, path, tmp_path, family, side, opset, torch, onnx):
    # Not under torch.no_grad(): with grad disabled, nn.MultiheadAttention (ViT) takes its fused
    # fast path, aten::_native_multi_head_attention, which has no ONNX export.
    torch.onnx.export(
        model, dummy, tmp_path,
        export_params=False,
        input_names=["input"],
        output_names=["output"],
        opset_version=opset,
        do_constant_folding=True,
        dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}},
    )

    proto = onnx.load(tmp_path)
    data_inputs = [i.name for i in proto.graph.input if i.name == "input"]
    if data_inputs != ["input"]:
        raise RuntimeError(f"{name}: exported graph has no input named 'input'")
    if [o.name for o in proto.graph.output] != ["output"]:
        raise RuntimeError(f"{name}: exported graph outputs are "
                           f"{[o.name for o in proto.graph.output]}, expected ['output']")
    if proto.graph.initializer:
        raise RuntimeError(f"{name}: the exported graph has initializers (weights?)")

    split_shared_weights(onnx, proto)
    # Folding makes more shapes static, which lets the next round fold more: run to a fixpoint.
    while True:
        count = len(proto.graph.node)
        fold_shape_computations(onnx, proto)
        if len(proto.graph.node) == count:
            break

    del proto.metadata_props[:]
    for key, value in (("graphopt.data_inputs", "input"),
                       ("graphopt.family", family),
                       ("graphopt.source", SOURCE)):
        entry = proto.metadata_props.add()
        entry.key = key
        entry.value = value

    onnx.checker.check_model(proto)
    # What is saved keeps the symbolic batch; the checks below run on a copy at batch 1.
    saved = onnx.ModelProto()
    saved.CopyFrom(proto)
    for value in list(proto.graph.input) + list(proto.graph.output):
        if value.name in ("input", "output"):
            value.type.tensor_type.shape.dim[0].dim_value = 1
    inferred = onnx.shape_inference.infer_shapes(proto, check_type=True, strict_mode=True,
                                             data_prop=True)
    onnx.checker.check_model(inferred)
    # The C++ loader computes FLOPs and bytes from these shapes: every tensor must have one.
    shapes = {}
    for info in list(inferred.graph.value_info) + list(inferred.graph.output):
        dims = info.type.tensor_type.shape.dim
        if info.type.tensor_type.HasField("shape") and all(d.HasField("dim_value") for d in dims):
            shapes[info.name] = [d.dim_value for d in dims]
    # ONNX's inference alone cannot shape what depends on a folded batch-dependent computation
    # (the C++ loader folds those: tests check every bundled model loads fully shaped); what it
    # does shape must be right.
    unknown = [o for n in inferred.graph.node for o in n.output if o and o not in shapes]
    if unknown:
        print(f"  {name}: {len(unknown)} tensors depend on the batch through computed shapes "
              f"(folded by the loader)", flush=True)
    classes = CLASSES.get(name, 1000)
    if "output" in shapes and shapes["output"] != [1, classes]:
        raise RuntimeError(f"{name}: output shape is {shapes.get('output')}, expected [1, {classes}]")
    onnx.save(saved, tmp_path)
    os.replace(tmp_path, path)
    return inferred, path, opset, side, family


def export_sequence_model(name, out_dir, torch, onnx):
    """Exports as torch.onnx.export does by default for a user: nothing folded, batch symbolic."""
    family, build = SEQUENCE_MODELS[name]
    path = os.path.join(out_dir, name + ".onnx")
    tmp_path = path + ".tmp"
    torch.manual_seed(0)
    model, dummy = build(torch)
    model.eval()
    try:
        # Not under torch.no_grad(), for the reason given in finish_export.
        torch.onnx.export(
            model, dummy, tmp_path,
            export_params=False,
            input_names=["input"],
            output_names=["output"],
            dynamic_axes={"input": {1: "batch"}, "output": {1: "batch"}},
            opset_version=DEFAULT_OPSET,
            do_constant_folding=False,
        )
        proto = onnx.load(tmp_path)
        if [i.name for i in proto.graph.input if i.name == "input"] != ["input"]:
            raise RuntimeError(f"{name}: exported graph has no input named 'input'")
        if proto.graph.initializer:
            raise RuntimeError(f"{name}: the exported graph has initializers (weights?)")
        del proto.metadata_props[:]
        for key, value in (("graphopt.data_inputs", "input"),
                           ("graphopt.family", family),
                           ("graphopt.source", SOURCE_SEQUENCE)):
            entry = proto.metadata_props.add()
            entry.key = key
            entry.value = value
        onnx.checker.check_model(proto)
        # Saved as exported: no shape inference, no folding (that is the loader's job).
        onnx.save(proto, tmp_path)
        os.replace(tmp_path, path)
        inferred = onnx.shape_inference.infer_shapes(proto)
        shapes = {i.name for i in list(inferred.graph.value_info) + list(inferred.graph.output)
                  if i.type.tensor_type.HasField("shape")
                  and all(d.HasField("dim_value") for d in i.type.tensor_type.shape.dim)}
        outputs = [o for n in inferred.graph.node for o in n.output if o]
        static = sum(o in shapes for o in outputs)
        print(f"  {name}: ONNX shape inference alone gives {static} of {len(outputs)} node "
              f"outputs a static shape", flush=True)
        return proto, path, DEFAULT_OPSET, 0, family
    finally:
        if os.path.exists(tmp_path):
            os.remove(tmp_path)


ALL = list(MODELS) + list(SEQUENCE_MODELS)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    repo_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser.add_argument("--out", default=os.path.join(repo_root, "resources", "models"),
                        help="output directory (default: resources/models of this checkout)")
    parser.add_argument("models", nargs="*",
                        help="model names (default: all of " + ", ".join(ALL) + ")")
    args = parser.parse_args()

    names = args.models or ALL
    unknown = [n for n in names if n not in MODELS and n not in SEQUENCE_MODELS]
    if unknown:
        sys.exit(f"export_models: unknown model(s): {', '.join(unknown)}; "
                 f"known: {', '.join(ALL)}")

    try:
        import onnx
        import torch
        import torchvision
    except ImportError as error:
        sys.exit(f"export_models: {error}. Run with /usr/bin/python3 after "
                 f"tools/install-deps.sh --with-export")

    torch.set_num_threads(1)  # the machine is shared with builds; export is not the hot path
    warnings.filterwarnings("ignore")  # tracer warnings about Python control flow are expected
    os.makedirs(args.out, exist_ok=True)

    failed = []
    for name in names:
        start = time.time()
        try:
            if name in SEQUENCE_MODELS:
                proto, path, opset, side, family = export_sequence_model(name, args.out, torch, onnx)
            else:
                proto, path, opset, side, family = export_one(name, args.out, torch, torchvision, onnx)
        except Exception as error:  # report every model, then fail at the end
            failed.append(name)
            print(f"FAILED {name}: {type(error).__name__}: {error}", file=sys.stderr, flush=True)
            continue
        shape = ("x".join(map(str, INPUT_SHAPES[name])) if name in INPUT_SHAPES
                 else f"batch x 3 x {side} x {side}" if side else "seq x batch x features")
        print(f"{name:22s} family={family:12s} input={shape} opset={opset} "
              f"nodes={len(proto.graph.node):5d} size={os.path.getsize(path):8d} B "
              f"({time.time() - start:.1f} s)", flush=True)

    if failed:
        sys.exit(f"export_models: {len(failed)} model(s) failed: {', '.join(failed)}")


if __name__ == "__main__":
    main()
