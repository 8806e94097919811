#!/usr/bin/python3
"""Writes the bundled large models (resources/models): graphs of models that do not fit one
device, with every weight stored as ONNX external data in a file that is never written.

Models over 2 GB cannot be one protobuf, so ONNX keeps their weights beside the graph: each
initializer declares its type and dims and says where its bytes are (TensorProto.data_location =
EXTERNAL, external_data = location/offset/length). GraphOpt Studio needs only the declared types
and dims (FLOPs, bytes, placement), so the data files are left out: the .onnx files stay a few
hundred KB, and loading them must read no weight bytes (tests check it with the files absent).

Models (sizes in MODELS below):
  gpt2_xl       GPT-2 XL: 48 layers, width 1600, 25 heads, MLP 6400, vocab 50257, context 1024
                (1.56 B parameters; the LM head is tied to the token embedding, as in GPT-2)
  llama_7b      a LLaMA-7B-like decoder in float32: 32 layers, width 4096, 32 heads, SwiGLU MLP
                11008, RMSNorm, rotary embedding, vocab 32000, sequence 2048 (6.74 B parameters)
  bert_large    BERT-large encoder: 24 layers, width 1024, 16 heads, MLP 4096, vocab 30522,
                sequence 512, with the pooler (335 M parameters)

The graphs are written with onnx.helper, the way torch.onnx.export (opset 17) writes these
models from Hugging Face's PyTorch classes: node names carry the module scopes
(/model/layers.3/self_attn/q_proj/MatMul), Linear layers are MatMul (+ Add for a bias) against a
weight stored transposed ([in, out]), the attention is Reshape/Transpose/MatMul/Softmax per head,
reshape targets are Constant nodes. Batch and sequence are symbolic ('batch', 'sequence'); the
causal mask and the position ids are computed from the sequence length in the graph.

Simplifications (the FLOPs are those of the real models to within the elementwise ops):
  - GELU is the exact erf form (GPT-2 uses the tanh approximation: 8 elementwise nodes, not 5).
  - The rotary embedding is HF's rotate_half form (q*cos + rotate_half(q)*sin) with cos and sin
    tables for 2048 positions stored as (external) buffers, gathered by position once per model.
  - No KV cache, no dropout (inference graphs of a full sequence), no padding mask for the
    decoders (the causal mask only).

Run with Debian's interpreter (python3-onnx):
    /usr/bin/python3 tools/make_large_models.py [--out DIR] [MODEL ...]
Deterministic: two runs give byte-identical files. No weights are computed or downloaded.
"""

import argparse
import math
import os
import sys

import onnx
from onnx import TensorProto, helper

OPSET = 17  # LayerNormalization is an ONNX op from opset 17 (ONNX 1.12)
IR_VERSION = 8
SOURCE = "written by tools/make_large_models.py (onnx.helper); weights as external data, not included"

MODELS = {
    "gpt2_xl": dict(family="gpt2", layers=48, width=1600, heads=25, mlp=6400, vocab=50257, context=1024),
    "llama_7b": dict(family="llama", layers=32, width=4096, heads=32, mlp=11008, vocab=32000, context=2048),
    "bert_large": dict(family="bert", layers=24, width=1024, heads=16, mlp=4096, vocab=30522, context=512,
                       type_vocab=2),
}

ELEMENT_BYTES = {TensorProto.FLOAT: 4, TensorProto.FLOAT16: 2, TensorProto.BFLOAT16: 2, TensorProto.INT64: 8}


class Builder:
    """Collects nodes and external initializers; names nodes uniquely within a scope as the
    PyTorch exporter does (MatMul, MatMul_1, ...)."""

    def __init__(self, data_file):
        self.data_file = data_file
        self.offset = 0
        self.nodes = []
        self.initializers = []
        self.used = set()
        self.tensors = 0

    def weight(self, name, dims, data_type=TensorProto.FLOAT):
        t = TensorProto()
        t.name = name
        t.data_type = data_type
        t.dims.extend(dims)
        t.data_location = TensorProto.EXTERNAL
        length = ELEMENT_BYTES[data_type] * math.prod(dims)
        for key, value in (("location", self.data_file), ("offset", str(self.offset)), ("length", str(length))):
            entry = t.external_data.add()
            entry.key = key
            entry.value = value
        self.offset += length
        self.initializers.append(t)
        return name

    def node(self, scope, op, inputs, outputs=1, **attrs):
        base = f"{scope}/{op}"
        name, k = base, 0
        while name in self.used:
            k += 1
            name = f"{base}_{k}"
        self.used.add(name)
        outs = [f"{name}_output_{i}" for i in range(outputs)]
        self.nodes.append(helper.make_node(op, inputs, outs, name=name, **attrs))
        return outs[0] if outputs == 1 else outs

    def const(self, scope, values, data_type=TensorProto.INT64, dims=None):
        """A small inline Constant (reshape targets, split sizes, scalars): not a weight in the file."""
        values = list(values) if isinstance(values, (list, tuple)) else [values]
        dims = [len(values)] if dims is None else dims
        return self.node(scope, "Constant", [], value=helper.make_tensor("value", data_type, dims, values))

    # Building blocks -----------------------------------------------------------------------
    def linear(self, scope, x, prefix, d_in, d_out, bias=True):
        w = self.weight(f"{prefix}.weight", [d_in, d_out])
        y = self.node(scope, "MatMul", [x, w])
        if bias:
            y = self.node(scope, "Add", [y, self.weight(f"{prefix}.bias", [d_out])])
        return y

    def layer_norm(self, scope, x, prefix, width, eps=1e-5):
        return self.node(scope, "LayerNormalization",
                         [x, self.weight(f"{prefix}.weight", [width]), self.weight(f"{prefix}.bias", [width])],
                         axis=-1, epsilon=eps)

    def rms_norm(self, scope, x, prefix, width, eps=1e-6):
        sq = self.node(scope, "Mul", [x, x])
        mean = self.node(scope, "ReduceMean", [sq], axes=[-1], keepdims=1)
        shifted = self.node(scope, "Add", [mean, self.const(scope, [eps], TensorProto.FLOAT, [])])
        root = self.node(scope, "Sqrt", [shifted])
        normed = self.node(scope, "Div", [x, root])
        return self.node(scope, "Mul", [normed, self.weight(f"{prefix}.weight", [width])])

    def gelu(self, scope, x):
        """Exact GELU: x * 0.5 * (1 + erf(x / sqrt(2)))."""
        e = self.node(scope, "Erf", [self.node(scope, "Div", [x, self.const(scope, [math.sqrt(2.0)], TensorProto.FLOAT, [])])])
        one = self.node(scope, "Add", [e, self.const(scope, [1.0], TensorProto.FLOAT, [])])
        return self.node(scope, "Mul", [self.node(scope, "Mul", [x, one]), self.const(scope, [0.5], TensorProto.FLOAT, [])])

    def split_heads(self, scope, x, heads, head_dim, key=False):
        """[B, S, H*d] -> [B, H, S, d] (or [B, H, d, S] for keys, ready for q @ k^T)."""
        r = self.node(scope, "Reshape", [x, self.const(scope, [0, 0, heads, head_dim])])
        return self.node(scope, "Transpose", [r], perm=[0, 2, 3, 1] if key else [0, 2, 1, 3])

    def attention(self, scope, q, k, v, heads, head_dim, width, mask=None, additive_mask=None):
        """Scaled dot-product attention over [B, H, S, d] q, v and [B, H, d, S] k -> [B, S, width]."""
        scores = self.node(scope, "MatMul", [q, k])
        scores = self.node(scope, "Div", [scores, self.const(scope, [math.sqrt(head_dim)], TensorProto.FLOAT, [])])
        if mask is not None:  # boolean causal mask [S, S]: True where attention is allowed
            scores = self.node(scope, "Where", [mask, scores, self.const(scope, [-math.inf], TensorProto.FLOAT, [])])
        if additive_mask is not None:  # [B, 1, 1, S]: 0 or a large negative number
            scores = self.node(scope, "Add", [scores, additive_mask])
        probs = self.node(scope, "Softmax", [scores], axis=-1)
        ctx = self.node(scope, "MatMul", [probs, v])
        ctx = self.node(scope, "Transpose", [ctx], perm=[0, 2, 1, 3])
        return self.node(scope, "Reshape", [ctx, self.const(scope, [0, 0, width])])

    def sequence_positions(self, scope, input_ids):
        """Sequence length of input_ids [B, S] as a scalar, and position ids 0..S-1 [S]."""
        shape = self.node(scope, "Shape", [input_ids])
        seq = self.node(scope, "Gather", [shape, self.const(scope, [1], dims=[])], axis=0)
        positions = self.node(scope, "Range", [self.const(scope, [0], dims=[]), seq, self.const(scope, [1], dims=[])])
        return positions

    def causal_mask(self, scope, positions):
        """[S, S] bool, True where key position <= query position."""
        rows = self.node(scope, "Unsqueeze", [positions, self.const(scope, [1])])  # [S, 1] queries
        cols = self.node(scope, "Unsqueeze", [positions, self.const(scope, [0])])  # [1, S] keys
        return self.node(scope, "LessOrEqual", [cols, rows])


def build_gpt2(b, c):
    W, H, d = c["width"], c["heads"], c["width"] // c["heads"]
    ids = "input_ids"
    tok = b.node("/transformer/wte", "Gather", [b.weight("transformer.wte.weight", [c["vocab"], W]), ids], axis=0)
    positions = b.sequence_positions("/transformer", ids)
    pos = b.node("/transformer/wpe", "Gather", [b.weight("transformer.wpe.weight", [c["context"], W]), positions], axis=0)
    x = b.node("/transformer", "Add", [tok, pos])
    mask = b.causal_mask("/transformer", positions)
    for i in range(c["layers"]):
        s, p = f"/transformer/h.{i}", f"transformer.h.{i}"
        h = b.layer_norm(f"{s}/ln_1", x, f"{p}.ln_1", W)
        qkv = b.linear(f"{s}/attn/c_attn", h, f"{p}.attn.c_attn", W, 3 * W)
        q, k, v = b.node(f"{s}/attn", "Split", [qkv, b.const(f"{s}/attn", [W, W, W])], outputs=3, axis=-1)
        q = b.split_heads(f"{s}/attn", q, H, d)
        k = b.split_heads(f"{s}/attn", k, H, d, key=True)
        v = b.split_heads(f"{s}/attn", v, H, d)
        a = b.attention(f"{s}/attn", q, k, v, H, d, W, mask=mask)
        a = b.linear(f"{s}/attn/c_proj", a, f"{p}.attn.c_proj", W, W)
        x = b.node(s, "Add", [x, a])
        h = b.layer_norm(f"{s}/ln_2", x, f"{p}.ln_2", W)
        h = b.linear(f"{s}/mlp/c_fc", h, f"{p}.mlp.c_fc", W, c["mlp"])
        h = b.gelu(f"{s}/mlp/act", h)
        h = b.linear(f"{s}/mlp/c_proj", h, f"{p}.mlp.c_proj", c["mlp"], W)
        x = b.node(s, "Add", [x, h])
    x = b.layer_norm("/transformer/ln_f", x, "transformer.ln_f", W)
    # Tied LM head: the logits multiply by the token embedding itself ([vocab, width], hence
    # Gemm's transB). Gemm is 2-D: positions are flattened, then the logits take [B, S, vocab].
    # (Not Einsum: ONNX 1.12 infers only the rank of an Einsum's output, not its shape.)
    flat = b.node("/lm_head", "Reshape", [x, b.const("/lm_head", [-1, W])])
    logits = b.node("/lm_head", "Gemm", [flat, "transformer.wte.weight"], transB=1)
    shape = b.node("/lm_head", "Concat", [b.node("/lm_head", "Shape", [ids]), b.const("/lm_head", [c["vocab"]])], axis=0)
    logits = b.node("/lm_head", "Reshape", [logits, shape])
    return [("input_ids", TensorProto.INT64, ["batch", "sequence"])], [(logits, "logits", ["batch", "sequence", c["vocab"]])]


def rotary(b, scope, x, cos, sin, head_dim):
    """x * cos + rotate_half(x) * sin on [B, H, S, d]; rotate_half(x) = concat(-x2, x1)."""
    x1, x2 = b.node(scope, "Split", [x, b.const(scope, [head_dim // 2, head_dim // 2])], outputs=2, axis=-1)
    rotated = b.node(scope, "Concat", [b.node(scope, "Neg", [x2]), x1], axis=-1)
    return b.node(scope, "Add", [b.node(scope, "Mul", [x, cos]), b.node(scope, "Mul", [rotated, sin])])


def build_llama(b, c):
    W, H, d = c["width"], c["heads"], c["width"] // c["heads"]
    ids = "input_ids"
    x = b.node("/model/embed_tokens", "Gather", [b.weight("model.embed_tokens.weight", [c["vocab"], W]), ids], axis=0)
    positions = b.sequence_positions("/model", ids)
    mask = b.causal_mask("/model", positions)
    rs = "/model/rotary_emb"
    cos = b.node(rs, "Gather", [b.weight("model.rotary_emb.cos_cached", [c["context"], d]), positions], axis=0)
    sin = b.node(rs, "Gather", [b.weight("model.rotary_emb.sin_cached", [c["context"], d]), positions], axis=0)
    for i in range(c["layers"]):
        s, p = f"/model/layers.{i}", f"model.layers.{i}"
        h = b.rms_norm(f"{s}/input_layernorm", x, f"{p}.input_layernorm", W)
        a = f"{s}/self_attn"
        q = b.split_heads(a, b.linear(f"{a}/q_proj", h, f"{p}.self_attn.q_proj", W, W, bias=False), H, d)
        k = b.split_heads(a, b.linear(f"{a}/k_proj", h, f"{p}.self_attn.k_proj", W, W, bias=False), H, d)
        v = b.split_heads(a, b.linear(f"{a}/v_proj", h, f"{p}.self_attn.v_proj", W, W, bias=False), H, d)
        q = rotary(b, f"{a}/rotary_q", q, cos, sin, d)
        k = rotary(b, f"{a}/rotary_k", k, cos, sin, d)
        k = b.node(a, "Transpose", [k], perm=[0, 1, 3, 2])
        o = b.attention(a, q, k, v, H, d, W, mask=mask)
        o = b.linear(f"{a}/o_proj", o, f"{p}.self_attn.o_proj", W, W, bias=False)
        x = b.node(s, "Add", [x, o])
        h = b.rms_norm(f"{s}/post_attention_layernorm", x, f"{p}.post_attention_layernorm", W)
        m = f"{s}/mlp"
        gate = b.linear(f"{m}/gate_proj", h, f"{p}.mlp.gate_proj", W, c["mlp"], bias=False)
        gate = b.node(f"{m}/act_fn", "Mul", [gate, b.node(f"{m}/act_fn", "Sigmoid", [gate])])  # SiLU
        up = b.linear(f"{m}/up_proj", h, f"{p}.mlp.up_proj", W, c["mlp"], bias=False)
        h = b.linear(f"{m}/down_proj", b.node(m, "Mul", [gate, up]), f"{p}.mlp.down_proj", c["mlp"], W, bias=False)
        x = b.node(s, "Add", [x, h])
    x = b.rms_norm("/model/norm", x, "model.norm", W)
    logits = b.linear("/lm_head", x, "lm_head", W, c["vocab"], bias=False)
    return [("input_ids", TensorProto.INT64, ["batch", "sequence"])], [(logits, "logits", ["batch", "sequence", c["vocab"]])]


def build_bert(b, c):
    W, H, d = c["width"], c["heads"], c["width"] // c["heads"]
    e = "/bert/embeddings"
    words = b.node(f"{e}/word_embeddings", "Gather",
                   [b.weight("bert.embeddings.word_embeddings.weight", [c["vocab"], W]), "input_ids"], axis=0)
    types = b.node(f"{e}/token_type_embeddings", "Gather",
                   [b.weight("bert.embeddings.token_type_embeddings.weight", [c["type_vocab"], W]), "token_type_ids"], axis=0)
    positions = b.sequence_positions(e, "input_ids")
    pos = b.node(f"{e}/position_embeddings", "Gather",
                 [b.weight("bert.embeddings.position_embeddings.weight", [c["context"], W]), positions], axis=0)
    x = b.node(e, "Add", [b.node(e, "Add", [words, types]), pos])
    x = b.layer_norm(f"{e}/LayerNorm", x, "bert.embeddings.LayerNorm", W, eps=1e-12)
    # attention_mask [B, S] (1 = attend) -> additive [B, 1, 1, S]: 0 or -10000, as BERT does.
    m = "/bert"
    ext = b.node(m, "Unsqueeze", ["attention_mask", b.const(m, [1, 2])])
    ext = b.node(m, "Cast", [ext], to=TensorProto.FLOAT)
    ext = b.node(m, "Sub", [b.const(m, [1.0], TensorProto.FLOAT, []), ext])
    ext = b.node(m, "Mul", [ext, b.const(m, [-10000.0], TensorProto.FLOAT, [])])
    for i in range(c["layers"]):
        s, p = f"/bert/encoder/layer.{i}", f"bert.encoder.layer.{i}"
        a = f"{s}/attention/self"
        q = b.split_heads(a, b.linear(f"{a}/query", x, f"{p}.attention.self.query", W, W), H, d)
        k = b.split_heads(a, b.linear(f"{a}/key", x, f"{p}.attention.self.key", W, W), H, d, key=True)
        v = b.split_heads(a, b.linear(f"{a}/value", x, f"{p}.attention.self.value", W, W), H, d)
        ctx = b.attention(a, q, k, v, H, d, W, additive_mask=ext)
        o = f"{s}/attention/output"
        h = b.linear(f"{o}/dense", ctx, f"{p}.attention.output.dense", W, W)
        x = b.layer_norm(f"{o}/LayerNorm", b.node(o, "Add", [h, x]), f"{p}.attention.output.LayerNorm", W, eps=1e-12)
        h = b.linear(f"{s}/intermediate/dense", x, f"{p}.intermediate.dense", W, c["mlp"])
        h = b.gelu(f"{s}/intermediate/intermediate_act_fn", h)
        o = f"{s}/output"
        h = b.linear(f"{o}/dense", h, f"{p}.output.dense", c["mlp"], W)
        x = b.layer_norm(f"{o}/LayerNorm", b.node(o, "Add", [h, x]), f"{p}.output.LayerNorm", W, eps=1e-12)
    last = b.node("/bert/encoder", "Identity", [x])
    first = b.node("/bert/pooler", "Gather", [last, b.const("/bert/pooler", [0], dims=[])], axis=1)  # [CLS]: [B, W]
    pooled = b.node("/bert/pooler/dense", "Gemm",
                    [first, b.weight("bert.pooler.dense.weight", [W, W]), b.weight("bert.pooler.dense.bias", [W])],
                    transB=1)
    pooled = b.node("/bert/pooler/activation", "Tanh", [pooled])
    inputs = [(n, TensorProto.INT64, ["batch", "sequence"]) for n in ("input_ids", "attention_mask", "token_type_ids")]
    return inputs, [(last, "last_hidden_state", ["batch", "sequence", W]), (pooled, "pooler_output", ["batch", W])]


BUILDERS = {"gpt2": build_gpt2, "llama": build_llama, "bert": build_bert}


def check(model):
    """onnx.checker and strict shape inference on a copy whose external initializers are graph
    inputs (ONNX 1.12's checker stats every external data file and refuses a missing one), at
    batch 1 and a sequence of 8."""
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    inits = list(copy.graph.initializer)
    del copy.graph.initializer[:]
    for t in inits:
        copy.graph.input.append(helper.make_tensor_value_info(t.name, t.data_type, list(t.dims)))
    onnx.checker.check_model(copy)
    for value in list(copy.graph.input) + list(copy.graph.output):
        for dim in value.type.tensor_type.shape.dim:
            if dim.dim_param in ("batch", "sequence"):
                dim.dim_value = 1 if dim.dim_param == "batch" else 8
    inferred = onnx.shape_inference.infer_shapes(copy, check_type=True, strict_mode=True, data_prop=True)
    onnx.checker.check_model(inferred)
    return inferred


def write(name, out_dir):
    config = MODELS[name]
    file_name = name + ".onnx"
    b = Builder(file_name + ".data")  # never written
    inputs, outputs = BUILDERS[config["family"]](b, config)
    # The tensors that are graph outputs take the output names (logits, ...) in the nodes that write and read them.
    renames = {tensor: out_name for tensor, out_name, _ in outputs}
    for n in b.nodes:
        for i, o in enumerate(n.output):
            if o in renames:
                n.output[i] = renames[o]
        for i, x in enumerate(n.input):
            if x in renames:
                n.input[i] = renames[x]
    graph = helper.make_graph(
        b.nodes, name,
        [helper.make_tensor_value_info(n, t, dims) for n, t, dims in inputs],
        [helper.make_tensor_value_info(out_name, TensorProto.FLOAT, dims) for _, out_name, dims in outputs],
        initializer=b.initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="graphopt make_large_models.py")
    model.ir_version = IR_VERSION
    for key, value in (("graphopt.data_inputs", ",".join(n for n, _, _ in inputs)),
                       ("graphopt.family", config["family"]),
                       ("graphopt.source", SOURCE),
                       ("graphopt.external_data", file_name + ".data (not included)")):
        entry = model.metadata_props.add()
        entry.key = key
        entry.value = value
    inferred = check(model)
    shaped = {v.name for v in list(inferred.graph.value_info) + list(inferred.graph.output)
              if v.type.tensor_type.HasField("shape")
              and all(d.HasField("dim_value") for d in v.type.tensor_type.shape.dim)}
    missing = [o for n in inferred.graph.node for o in n.output if o not in shaped]
    if missing:
        # ONNX's inference does not evaluate Range (the position ids); the C++ loader folds it
        # and shapes every tensor (tests/graph checks that every bundled model loads shaped).
        print(f"  {name}: ONNX shape inference alone leaves {len(missing)} tensors unshaped "
              f"(from the position ids: {', '.join(missing[:2])}, ...)", flush=True)
    path = os.path.join(out_dir, file_name)
    with open(path + ".tmp", "wb") as f:  # not onnx.save: nothing may touch external data
        f.write(model.SerializeToString())
    os.replace(path + ".tmp", path)
    params = sum(math.prod(t.dims) for t in b.initializers)
    print(f"{file_name}: {len(b.nodes)} nodes, {len(b.initializers)} external initializers, "
          f"{params:,} weight elements, {b.offset:,} weight bytes (absent), {os.path.getsize(path):,} bytes",
          flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                                      "resources", "models"))
    parser.add_argument("models", nargs="*", choices=[[]] + list(MODELS), default=[])
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for name in args.models or list(MODELS):
        write(name, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
