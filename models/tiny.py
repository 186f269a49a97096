#!/usr/bin/env python3
"""Makes the tiny test models (random weights, seeded) from the configs in models/configs and
exports them with export.py: an embedding model (BERT), a cross-encoder (BERT with pooler and
classifier) and a siamese CodeXGLUE-style model (RoBERTa with a dense-tanh-2way head).
Usage: tiny.py TOKENIZER_JSON OUT_DIR"""
import json, os, shutil, subprocess, sys
import numpy as np
from safetensors.numpy import save_file

HERE = os.path.dirname(os.path.abspath(__file__))


def weights(cfg, rng, extra):
    H, I, L = cfg["hidden_size"], cfg["intermediate_size"], cfg["num_hidden_layers"]
    w = lambda *shape: (rng.standard_normal(shape) * 0.05).astype(np.float32)
    W = {
        "embeddings.word_embeddings.weight": w(cfg["vocab_size"], H),
        "embeddings.position_embeddings.weight": w(cfg["max_position_embeddings"], H),
        "embeddings.token_type_embeddings.weight": w(cfg["type_vocab_size"], H),
        "embeddings.LayerNorm.weight": np.ones(H, np.float32),
        "embeddings.LayerNorm.bias": np.zeros(H, np.float32),
    }
    for i in range(L):
        p = f"encoder.layer.{i}."
        for n in ("query", "key", "value"):
            W[p + f"attention.self.{n}.weight"], W[p + f"attention.self.{n}.bias"] = w(H, H), w(H)
        W[p + "attention.output.dense.weight"], W[p + "attention.output.dense.bias"] = w(H, H), w(H)
        W[p + "attention.output.LayerNorm.weight"], W[p + "attention.output.LayerNorm.bias"] = np.ones(H, np.float32), w(H)
        W[p + "intermediate.dense.weight"], W[p + "intermediate.dense.bias"] = w(I, H), w(I)
        W[p + "output.dense.weight"], W[p + "output.dense.bias"] = w(H, I), w(H)
        W[p + "output.LayerNorm.weight"], W[p + "output.LayerNorm.bias"] = np.ones(H, np.float32), w(H)
    if extra == "cross":
        W["pooler.dense.weight"], W["pooler.dense.bias"] = w(H, H), w(H)
        W["classifier.weight"], W["classifier.bias"] = w(2, H), w(2)
    if extra == "siamese":
        W["classifier.dense.weight"], W["classifier.dense.bias"] = w(H, 2 * H), w(H)
        W["classifier.out_proj.weight"], W["classifier.out_proj.bias"] = w(2, H), w(2)
    return W


def main():
    tokenizer, out = sys.argv[1], sys.argv[2]
    for name, config, extra, kind, seed in (
        ("tiny-embedding", "tiny-bert.json", None, "embedding", 1),
        ("tiny-cross", "tiny-bert.json", "cross", "cross-encoder", 2),
        ("tiny-siamese", "tiny-roberta.json", "siamese", "siamese", 3),
    ):
        cfg = json.load(open(os.path.join(HERE, "configs", config)))
        src = os.path.join(out, "src", name)
        os.makedirs(src, exist_ok=True)
        json.dump(cfg, open(os.path.join(src, "config.json"), "w"))
        save_file(weights(cfg, np.random.default_rng(seed), extra), os.path.join(src, "model.safetensors"))
        shutil.copy(tokenizer, os.path.join(src, "tokenizer.json"))
        subprocess.run([sys.executable, os.path.join(HERE, "export.py"), src, os.path.join(out, name), "--kind", kind,
                        "--pooling", "cls" if kind == "siamese" else "mean", "--max-length", "128", "--name", name, "--gpu"], check=True)


if __name__ == "__main__":
    main()
