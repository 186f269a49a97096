#!/usr/bin/env python3
"""Torch-free exporter: a BERT- or RoBERTa-family encoder (config.json + model.safetensors +
tokenizer.json) becomes an ONNX model for equimorph, plus an equimorph.toml describing it.

Outputs of the encoder graph (opset 17, dynamic batch and sequence axes):
  last_hidden_state [B, S, H] and sentence_embedding [B, H] (mean over the attention mask or the
  first token, then L2-normalised). Heads:
  --kind cross-encoder: `logits` [B, C] from the sequence-classification head in the weights;
  --kind siamese: a separate head.onnx (features [B, 2H] -> dense -> tanh -> out_proj -> logits).
Every export is checked against an independent numpy forward pass (max abs diff printed).
Uses only onnx, numpy and safetensors (onnxruntime for the check and for --int8)."""
import argparse, json, math, os, shutil, sys
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from safetensors.numpy import load_file

OPSET = 17


def load_weights(path):
    raw = load_file(path)
    out = {}
    for k, v in raw.items():
        for prefix in ("bert.", "roberta.", "model."):
            if k.startswith(prefix):
                k = k[len(prefix):]
        out[k.replace("LayerNorm.gamma", "LayerNorm.weight").replace("LayerNorm.beta", "LayerNorm.bias")] = v.astype(np.float32)
    return out


class Graph:
    def __init__(self, half=False):
        # half: float constants are stored as fp16 (the encoder of the GPU graph).
        self.nodes, self.inits, self.n, self.half = [], [], 0, half

    def name(self, base):
        self.n += 1
        return f"{base}_{self.n}"

    def const(self, array, base="c"):
        n = self.name(base)
        array = np.asarray(array)
        if self.half and array.dtype == np.float32:
            array = array.astype(np.float16)
        self.inits.append(numpy_helper.from_array(array, n))
        return n

    def op(self, op_type, inputs, base=None, **attrs):
        out = self.name(base or op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [out], name=out, **attrs))
        return out

    def linear(self, x, w, b):
        # HF stores [out, in]; MatMul wants [in, out].
        return self.op("Add", [self.op("MatMul", [x, self.const(w.T.copy(), "w")]), self.const(b, "b")])

    def layer_norm(self, x, w, b, eps):
        return self.op("LayerNormalization", [x, self.const(w, "ln_w"), self.const(b, "ln_b")], axis=-1, epsilon=eps)


def embeddings(g, cfg, W, arch, with_token_types):
    """Token + position (+ type) embeddings, layer-normed; returns (h, the mask as float)."""
    eps = cfg.get("layer_norm_eps", 1e-12)
    ids, mask = "input_ids", "attention_mask"
    words = g.op("Gather", [g.const(W["embeddings.word_embeddings.weight"], "word_emb"), ids], axis=0)
    mask_f = g.op("Cast", [mask], to=TensorProto.FLOAT)
    if arch == "roberta":
        pad = cfg.get("pad_token_id", 1)
        csum = g.op("CumSum", [mask, g.const(np.array(1, dtype=np.int64))])
        pos_ids = g.op("Add", [g.op("Mul", [csum, mask]), g.const(np.array(pad, dtype=np.int64))])
    else:
        seq = g.op("Gather", [g.op("Shape", [ids]), g.const(np.array(1, dtype=np.int64))], axis=0)
        pos_ids = g.op("Range", [g.const(np.array(0, dtype=np.int64)), seq, g.const(np.array(1, dtype=np.int64))])
    pos = g.op("Gather", [g.const(W["embeddings.position_embeddings.weight"], "pos_emb"), pos_ids], axis=0)
    emb = g.op("Add", [words, pos])
    types = W.get("embeddings.token_type_embeddings.weight")
    if types is not None:
        if with_token_types:
            emb = g.op("Add", [emb, g.op("Gather", [g.const(types, "type_emb"), "token_type_ids"], axis=0)])
        else:
            emb = g.op("Add", [emb, g.const(types[0], "type_emb0")])
    h = g.layer_norm(emb, W["embeddings.LayerNorm.weight"], W["embeddings.LayerNorm.bias"], eps)
    return h, mask_f


def encoder(g, cfg, W, arch, with_token_types):
    H = cfg["hidden_size"]
    heads = cfg["num_attention_heads"]
    dh = H // heads
    eps = cfg.get("layer_norm_eps", 1e-12)
    h, mask_f = embeddings(g, cfg, W, arch, with_token_types)
    # Additive mask: 0 for real tokens, -1e9 for padding, shaped [B, 1, 1, S].
    bias = g.op("Mul", [g.op("Sub", [g.const(np.array(1.0, dtype=np.float32)), mask_f]), g.const(np.array(-1e9, dtype=np.float32))])
    bias = g.op("Unsqueeze", [bias, g.const(np.array([1, 2], dtype=np.int64))])
    split = g.const(np.array([0, 0, heads, dh], dtype=np.int64))
    merge = g.const(np.array([0, 0, H], dtype=np.int64))
    scale = g.const(np.array(1.0 / math.sqrt(dh), dtype=np.float32))
    for i in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{i}."
        def heads_of(name, perm):
            x = g.linear(h, W[p + f"attention.self.{name}.weight"], W[p + f"attention.self.{name}.bias"])
            return g.op("Transpose", [g.op("Reshape", [x, split])], perm=perm)
        q = heads_of("query", [0, 2, 1, 3])
        k = heads_of("key", [0, 2, 3, 1])
        v = heads_of("value", [0, 2, 1, 3])
        scores = g.op("Add", [g.op("Mul", [g.op("MatMul", [q, k]), scale]), bias])
        ctx = g.op("MatMul", [g.op("Softmax", [scores], axis=-1), v])
        ctx = g.op("Reshape", [g.op("Transpose", [ctx], perm=[0, 2, 1, 3]), merge])
        attn = g.linear(ctx, W[p + "attention.output.dense.weight"], W[p + "attention.output.dense.bias"])
        h1 = g.layer_norm(g.op("Add", [attn, h]), W[p + "attention.output.LayerNorm.weight"], W[p + "attention.output.LayerNorm.bias"], eps)
        inter = g.linear(h1, W[p + "intermediate.dense.weight"], W[p + "intermediate.dense.bias"])
        # Exact GELU: x * 0.5 * (1 + erf(x / sqrt(2))), written so ORT fuses it.
        erf = g.op("Erf", [g.op("Div", [inter, g.const(np.array(math.sqrt(2.0), dtype=np.float32))])])
        gelu = g.op("Mul", [g.op("Mul", [inter, g.op("Add", [erf, g.const(np.array(1.0, dtype=np.float32))])]), g.const(np.array(0.5, dtype=np.float32))])
        out = g.linear(gelu, W[p + "output.dense.weight"], W[p + "output.dense.bias"])
        h = g.layer_norm(g.op("Add", [out, h1]), W[p + "output.LayerNorm.weight"], W[p + "output.LayerNorm.bias"], eps)
    return h, mask_f


def fused_encoder(g, cfg, W, arch, with_token_types):
    """The same encoder written with ONNX Runtime's fused contrib ops (com.microsoft): one
    Attention per layer (packed QKV weights; the mask as each row's length, which is what the
    fused CUDA kernels take: equimorph pads on the right), SkipLayerNormalization for
    residual + bias + LayerNorm, BiasGelu for bias + exact GELU."""
    H = cfg["hidden_size"]
    heads = cfg["num_attention_heads"]
    eps = cfg.get("layer_norm_eps", 1e-12)
    h, mask_f = embeddings(g, cfg, W, arch, with_token_types)
    lengths = g.op("Cast", [g.op("ReduceSum", ["attention_mask", g.const(np.array([1], dtype=np.int64))], keepdims=0)],
                   to=TensorProto.INT32)
    ms = dict(domain="com.microsoft")
    for i in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{i}."
        a = p + "attention.self."
        wqkv = np.concatenate([W[a + n + ".weight"].T for n in ("query", "key", "value")], axis=1).copy()
        bqkv = np.concatenate([W[a + n + ".bias"] for n in ("query", "key", "value")])
        ctx = g.op("Attention", [h, g.const(wqkv, "wqkv"), g.const(bqkv, "bqkv"), lengths], num_heads=heads, **ms)
        attn = g.op("MatMul", [ctx, g.const(W[p + "attention.output.dense.weight"].T.copy(), "w")])
        h1 = g.op("SkipLayerNormalization", [attn, h, g.const(W[p + "attention.output.LayerNorm.weight"], "ln_w"),
                                              g.const(W[p + "attention.output.LayerNorm.bias"], "ln_b"),
                                              g.const(W[p + "attention.output.dense.bias"], "b")], epsilon=eps, **ms)
        inter = g.op("MatMul", [h1, g.const(W[p + "intermediate.dense.weight"].T.copy(), "w")])
        gelu = g.op("BiasGelu", [inter, g.const(W[p + "intermediate.dense.bias"], "b")], **ms)
        out = g.op("MatMul", [gelu, g.const(W[p + "output.dense.weight"].T.copy(), "w")])
        h = g.op("SkipLayerNormalization", [out, h1, g.const(W[p + "output.LayerNorm.weight"], "ln_w"),
                                             g.const(W[p + "output.LayerNorm.bias"], "ln_b"),
                                             g.const(W[p + "output.dense.bias"], "b")], epsilon=eps, **ms)
    return h, mask_f


def pooled(g, h, mask_f, pooling):
    if pooling == "cls":
        x = g.op("Gather", [h, g.const(np.array(0, dtype=np.int64))], axis=1)
    else:
        m = g.op("Unsqueeze", [mask_f, g.const(np.array([2], dtype=np.int64))])
        s = g.op("ReduceSum", [g.op("Mul", [h, m]), g.const(np.array([1], dtype=np.int64))], keepdims=0)
        n = g.op("ReduceSum", [m, g.const(np.array([1], dtype=np.int64))], keepdims=0)
        x = g.op("Div", [s, g.op("Max", [n, g.const(np.array(1e-9, dtype=np.float32))])])
    norm = g.op("Sqrt", [g.op("ReduceSum", [g.op("Mul", [x, x]), g.const(np.array([1], dtype=np.int64))], keepdims=1)])
    return g.op("Div", [x, g.op("Max", [norm, g.const(np.array(1e-12, dtype=np.float32))])])


def cross_head(g, h, W):
    cls = g.op("Gather", [h, g.const(np.array(0, dtype=np.int64))], axis=1)
    if "classifier.out_proj.weight" in W:  # RoBERTa head
        x = g.op("Tanh", [g.linear(cls, W["classifier.dense.weight"], W["classifier.dense.bias"])])
        return g.linear(x, W["classifier.out_proj.weight"], W["classifier.out_proj.bias"])
    x = g.op("Tanh", [g.linear(cls, W["pooler.dense.weight"], W["pooler.dense.bias"])])
    return g.linear(x, W["classifier.weight"], W["classifier.bias"])


def build(cfg, W, arch, kind, pooling, with_token_types, fused=False, half=False):
    """The encoder graph; fused: ONNX Runtime's contrib ops; half: the encoder in fp16, its
    output cast to fp32 before pooling and heads (inputs and outputs stay as they are)."""
    g = Graph(half=half)
    h, mask_f = (fused_encoder if fused else encoder)(g, cfg, W, arch, with_token_types)
    if half:
        h = g.op("Cast", [h], to=TensorProto.FLOAT)
        g.half = False
    emb = pooled(g, h, mask_f, pooling)
    g.nodes.append(helper.make_node("Identity", [h], ["last_hidden_state"]))
    g.nodes.append(helper.make_node("Identity", [emb], ["sentence_embedding"]))
    H = cfg["hidden_size"]
    outputs = [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "sequence", H]),
               helper.make_tensor_value_info("sentence_embedding", TensorProto.FLOAT, ["batch", H])]
    if kind == "cross-encoder":
        logits = cross_head(g, h, W)
        g.nodes.append(helper.make_node("Identity", [logits], ["logits"]))
        outputs.append(helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", "labels"]))
    inputs = [helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "sequence"])
              for n in (["input_ids", "attention_mask"] + (["token_type_ids"] if with_token_types else []))]
    graph = helper.make_graph(g.nodes, "encoder", inputs, outputs, g.inits)
    opsets = [helper.make_opsetid("", OPSET)] + ([helper.make_opsetid("com.microsoft", 1)] if fused else [])
    model = helper.make_model(graph, opset_imports=opsets, producer_name="equimorph-export")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def build_siamese_head(W, H):
    g = Graph()
    x = g.op("Tanh", [g.linear("features", W["classifier.dense.weight"], W["classifier.dense.bias"])])
    logits = g.linear(x, W["classifier.out_proj.weight"], W["classifier.out_proj.bias"])
    g.nodes.append(helper.make_node("Identity", [logits], ["logits"]))
    graph = helper.make_graph(g.nodes, "siamese_head",
                              [helper.make_tensor_value_info("features", TensorProto.FLOAT, ["batch", 2 * H])],
                              [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 2])], g.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="equimorph-export")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


# ---- independent numpy forward pass, for the self-check ----

def np_layer_norm(x, w, b, eps):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def np_forward(cfg, W, arch, ids, mask, types, pooling):
    from math import erf
    H, heads = cfg["hidden_size"], cfg["num_attention_heads"]
    dh, eps = H // heads, cfg.get("layer_norm_eps", 1e-12)
    B, S = ids.shape
    if arch == "roberta":
        pos = np.cumsum(mask, axis=1) * mask + cfg.get("pad_token_id", 1)
    else:
        pos = np.tile(np.arange(S), (B, 1))
    x = W["embeddings.word_embeddings.weight"][ids] + W["embeddings.position_embeddings.weight"][pos]
    if "embeddings.token_type_embeddings.weight" in W:
        x = x + W["embeddings.token_type_embeddings.weight"][types]
    h = np_layer_norm(x, W["embeddings.LayerNorm.weight"], W["embeddings.LayerNorm.bias"], eps)
    verf = np.vectorize(erf)
    for i in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{i}."
        lin = lambda t, n: t @ W[p + n + ".weight"].T + W[p + n + ".bias"]
        q = lin(h, "attention.self.query").reshape(B, S, heads, dh).transpose(0, 2, 1, 3)
        k = lin(h, "attention.self.key").reshape(B, S, heads, dh).transpose(0, 2, 1, 3)
        v = lin(h, "attention.self.value").reshape(B, S, heads, dh).transpose(0, 2, 1, 3)
        sc = q @ k.transpose(0, 1, 3, 2) / math.sqrt(dh) + ((1 - mask) * -1e9)[:, None, None, :]
        sc = np.exp(sc - sc.max(-1, keepdims=True))
        sc = sc / sc.sum(-1, keepdims=True)
        ctx = (sc @ v).transpose(0, 2, 1, 3).reshape(B, S, H)
        h1 = np_layer_norm(lin(ctx, "attention.output.dense") + h, W[p + "attention.output.LayerNorm.weight"], W[p + "attention.output.LayerNorm.bias"], eps)
        it = lin(h1, "intermediate.dense")
        it = it * 0.5 * (1 + verf(it / math.sqrt(2)))
        h = np_layer_norm(lin(it, "output.dense") + h1, W[p + "output.LayerNorm.weight"], W[p + "output.LayerNorm.bias"], eps)
    if pooling == "cls":
        e = h[:, 0]
    else:
        e = (h * mask[..., None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)
    return h, e / np.maximum(np.linalg.norm(e, axis=1, keepdims=True), 1e-12)


def check_feed(cfg, with_token_types):
    """A small batch, right-padded as the detector feeds it, seeded."""
    rng = np.random.default_rng(0)
    ids = rng.integers(3, min(cfg["vocab_size"], 1000), size=(3, 19)).astype(np.int64)
    mask = np.ones_like(ids)
    mask[1, 6:] = 0
    mask[2, 15:] = 0
    feed = {"input_ids": ids, "attention_mask": mask}
    if with_token_types:
        feed["token_type_ids"] = np.zeros_like(ids)
    return feed


def self_check(path, cfg, W, arch, pooling, with_token_types, what="export"):
    import onnxruntime as ort
    feed = check_feed(cfg, with_token_types)
    ids, mask = feed["input_ids"], feed["attention_mask"]
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    h, e = sess.run(["last_hidden_state", "sentence_embedding"], feed)
    rh, re = np_forward(cfg, W, arch, ids, mask, np.zeros_like(ids), pooling)
    diff = max(np.abs(e - re).max(), np.abs((h - rh) * mask[..., None]).max())
    print(f"self-check of the {what} against numpy: max abs diff {diff:.2e}")
    if diff > 1e-3:
        sys.exit(f"{what} does not match the numpy reference (diff {diff})")


def write_gpu_graph(model, out_path, fp32_path, cfg, with_token_types, kind):
    """Writes the fused fp16 graph and compares it with the fp32 export where ONNX Runtime's
    CPU provider can run it (its fp16 contrib kernels are CUDA-only in most builds: then the
    check is equimorph's, on the device)."""
    import onnxruntime as ort
    onnx.save(model, out_path)
    feed = check_feed(cfg, with_token_types)
    names = ["sentence_embedding"] + (["logits"] if kind == "cross-encoder" else [])
    ref = ort.InferenceSession(fp32_path, providers=["CPUExecutionProvider"]).run(names, feed)
    try:
        got = ort.InferenceSession(out_path, providers=["CPUExecutionProvider"]).run(names, feed)
    except Exception as e:  # no fp16 kernel for an op on this CPU build
        print(f"fp16 graph written; ONNX Runtime's CPU provider cannot run it ({str(e).splitlines()[0][:160]}), "
              "so it is checked where it runs (equimorph bench --compare on a GPU)")
        return
    cos = float(np.min(np.sum(got[0] * ref[0], axis=1)))
    print(f"fp16 graph vs fp32: min embedding cosine {cos:.6f}")
    if cos < 0.999:
        sys.exit(f"the fp16 graph drifts from fp32 (min cosine {cos})")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("src", help="directory with config.json, model.safetensors, tokenizer.json")
    ap.add_argument("out", help="output model directory")
    ap.add_argument("--kind", choices=["embedding", "cross-encoder", "siamese"], default="embedding")
    ap.add_argument("--pooling", choices=["mean", "cls"], default="mean")
    ap.add_argument("--max-length", type=int, default=256)
    ap.add_argument("--int8", action="store_true", help="also write model_int8.onnx (dynamic, per-channel)")
    ap.add_argument("--gpu", action="store_true",
                    help="also write model_gpu.onnx: fused attention, SkipLayerNorm and BiasGelu, fp16 weights, fp32 I/O "
                         "(what --device cuda runs by default)")
    ap.add_argument("--name", default=None)
    a = ap.parse_args()
    cfg = json.load(open(os.path.join(a.src, "config.json")))
    arch = "roberta" if cfg.get("model_type") in ("roberta", "xlm-roberta") else "bert"
    W = load_weights(os.path.join(a.src, "model.safetensors"))
    with_token_types = arch == "bert"
    os.makedirs(a.out, exist_ok=True)
    model = build(cfg, W, arch, a.kind, a.pooling, with_token_types)
    path = os.path.join(a.out, "model.onnx")
    onnx.save(model, path)
    self_check(path, cfg, W, arch, a.pooling, with_token_types)
    if a.gpu:
        fused_path = os.path.join(a.out, "model_fused32.onnx")
        onnx.save(build(cfg, W, arch, a.kind, a.pooling, with_token_types, fused=True), fused_path)
        self_check(fused_path, cfg, W, arch, a.pooling, with_token_types, what="fused graph")
        os.remove(fused_path)
        half = build(cfg, W, arch, a.kind, a.pooling, with_token_types, fused=True, half=True)
        write_gpu_graph(half, os.path.join(a.out, "model_gpu.onnx"), path, cfg, with_token_types, a.kind)
    shutil.copy(os.path.join(a.src, "tokenizer.json"), os.path.join(a.out, "tokenizer.json"))
    max_len = min(a.max_length, cfg.get("max_position_embeddings", 512) - (cfg.get("pad_token_id", 1) + 1 if arch == "roberta" else 0))
    inputs = ["input_ids", "attention_mask"] + (["token_type_ids"] if with_token_types else [])
    lines = [
        f'name = "{a.name or os.path.basename(os.path.normpath(a.out))}"',
        f'kind = "{a.kind}"',
        'model = "model.onnx"',
        'tokenizer = "tokenizer.json"',
        f'pooling = "{a.pooling}"',
        f"max_length = {max_len}",
        f"inputs = {json.dumps(inputs)}",
        'embedding_output = "sentence_embedding"',
        'hidden_output = "last_hidden_state"',
    ]
    if a.gpu:
        lines.append('gpu_model = "model_gpu.onnx"')
    if a.kind == "cross-encoder":
        lines += ['logits_output = "logits"', "clone_label = 1"]
    if a.kind == "siamese":
        onnx.save(build_siamese_head(W, cfg["hidden_size"]), os.path.join(a.out, "head.onnx"))
        lines += ['head = "head.onnx"', "clone_label = 1"]
    open(os.path.join(a.out, "equimorph.toml"), "w").write("\n".join(lines) + "\n")
    if a.int8:
        from onnxruntime.quantization import QuantType, quantize_dynamic
        quantize_dynamic(path, os.path.join(a.out, "model_int8.onnx"), per_channel=True, weight_type=QuantType.QInt8)
        int8 = [l.replace('model = "model.onnx"', 'model = "model_int8.onnx"') for l in lines if not l.startswith("gpu_model")]
        int8[0] = int8[0][:-1] + '-int8"'
        int8.append("max_batch = 1")
        open(os.path.join(a.out, "equimorph-int8.toml"), "w").write("\n".join(int8) + "\n")
        print("wrote model_int8.onnx and equimorph-int8.toml")
    print(f"exported {arch} ({cfg['num_hidden_layers']} layers, hidden {cfg['hidden_size']}) to {a.out}")


if __name__ == "__main__":
    main()
