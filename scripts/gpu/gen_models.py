#!/usr/bin/env python3
"""Random-weight encoders in real shapes, for throughput on a GPU machine (speed does not
depend on the weights): minilm-rand (6 layers x 384, window 256, all-MiniLM-L6-v2's shape) and
base-rand (12 x 768, window 512: BERT-base, the compute of CodeBERT/GraphCodeBERT). Each is
exported by models/export.py --gpu (fp32 graph + fused fp16 graph).
Usage: gen_models.py TOKENIZER_JSON OUT_DIR [--cpu-only]   (--cpu-only: the fp32 graph only, for training runs)"""
import json, os, shutil, subprocess, sys
import numpy as np
from safetensors.numpy import save_file

MODELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "models")
sys.path.insert(0, MODELS)
import tiny  # noqa: E402  (weights() in HF layout)

BERT = dict(architectures=["BertModel"], model_type="bert", vocab_size=30522, type_vocab_size=2,
            layer_norm_eps=1e-12, hidden_act="gelu", max_position_embeddings=512)
SHAPES = {
    "minilm-rand": (dict(BERT, hidden_size=384, num_hidden_layers=6, num_attention_heads=12, intermediate_size=1536), 256),
    "base-rand": (dict(BERT, hidden_size=768, num_hidden_layers=12, num_attention_heads=12, intermediate_size=3072), 512),
}


def main():
    tokenizer, out = sys.argv[1], sys.argv[2]
    gpu = [] if "--cpu-only" in sys.argv[3:] else ["--gpu"]
    for name, (cfg, window) in SHAPES.items():
        src = os.path.join(out, "src", name)
        os.makedirs(src, exist_ok=True)
        json.dump(cfg, open(os.path.join(src, "config.json"), "w"))
        save_file(tiny.weights(cfg, np.random.default_rng(7), None), os.path.join(src, "model.safetensors"))
        shutil.copy(tokenizer, os.path.join(src, "tokenizer.json"))
        subprocess.run([sys.executable, os.path.join(MODELS, "export.py"), src, os.path.join(out, name), *gpu,
                        "--max-length", str(window), "--name", name], check=True)


if __name__ == "__main__":
    main()
