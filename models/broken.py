#!/usr/bin/env python3
"""Makes deliberately broken detector models from the tiny embedding model, for the tests that
check a fault of the detector never becomes a score:
  tiny-nan    its embeddings are NaN,
  tiny-short  its output has one row fewer than the batch,
  tiny-zero   its embeddings are all zeros.
Usage: broken.py TINY_EMBEDDING_DIR OUT_DIR"""
import os, shutil, sys
import numpy as np
import onnx
from onnx import helper, numpy_helper


def rewire(model, make_tail):
    """Renames the producer of `sentence_embedding` and appends `make_tail(raw) -> nodes`."""
    g = model.graph
    for node in g.node:
        for i, out in enumerate(node.output):
            if out == "sentence_embedding":
                node.output[i] = "sentence_embedding_raw"
    nodes, inits = make_tail("sentence_embedding_raw")
    g.node.extend(nodes)
    g.initializer.extend(inits)
    return model


def nan(raw):
    c = numpy_helper.from_array(np.array(np.nan, dtype=np.float32), "broken_nan")
    return [helper.make_node("Mul", [raw, "broken_nan"], ["sentence_embedding"])], [c]


def zero(raw):
    c = numpy_helper.from_array(np.array(0.0, dtype=np.float32), "broken_zero")
    return [helper.make_node("Mul", [raw, "broken_zero"], ["sentence_embedding"])], [c]


def short(raw):
    inits = [numpy_helper.from_array(np.array([v], dtype=np.int64), n)
             for n, v in (("broken_start", 0), ("broken_end", -1), ("broken_axis", 0))]
    node = helper.make_node("Slice", [raw, "broken_start", "broken_end", "broken_axis"], ["sentence_embedding"])
    return [node], inits


def main():
    src, out = sys.argv[1], sys.argv[2]
    for name, tail in (("tiny-nan", nan), ("tiny-short", short), ("tiny-zero", zero)):
        dest = os.path.join(out, name)
        tmp = dest + ".tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.copytree(src, tmp)
        model = rewire(onnx.load(os.path.join(src, "model.onnx")), tail)
        onnx.checker.check_model(model)
        onnx.save(model, os.path.join(tmp, "model.onnx"))
        toml = os.path.join(tmp, "equimorph.toml")
        text = open(toml).read()
        # The fault is in model.onnx only: no GPU graph that would run a healthy model instead.
        lines = [f'name = "{name}"' if l.startswith("name =") else l for l in text.splitlines() if not l.startswith("gpu_model")]
        if os.path.exists(os.path.join(tmp, "model_gpu.onnx")):
            os.remove(os.path.join(tmp, "model_gpu.onnx"))
        open(toml, "w").write("\n".join(lines) + "\n")
        shutil.rmtree(dest, ignore_errors=True)
        os.rename(tmp, dest)
        print(f"made {dest}")


if __name__ == "__main__":
    main()
