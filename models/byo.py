#!/usr/bin/env python3
"""Makes model directories in the layouts other tools export, from the tiny test models, with
no equimorph.toml (for the bring-your-own-model tests):
  byo-optimum/      optimum feature extraction: model.onnx whose only output is
                    last_hidden_state, config.json, tokenizer.json, tokenizer_config.json
  byo-st/           sentence-transformers' ONNX backend: onnx/model.onnx (last_hidden_state),
                    tokenizer.json, 1_Pooling/config.json (mean), modules.json with Normalize,
                    sentence_bert_config.json
  byo-st-cls/       the same with CLS pooling and no Normalize
  byo-classifier/   optimum sequence classification (a cross-encoder): model.onnx whose only
                    output is logits, config.json with id2label
  byo-unusable/     a graph whose only output is neither hidden states nor logits
Usage: byo.py MODELS_DIR   (reads MODELS_DIR/tiny-embedding and tiny-cross, writes beside them)"""
import json, os, shutil, sys
import onnx
from onnx import helper


def keep_outputs(src, dst, names, rename=None):
    m = onnx.load(src)
    outs = [o for o in m.graph.output if o.name in names]
    del m.graph.output[:]
    m.graph.output.extend(outs)
    if rename:
        for o in m.graph.output:
            if o.name in rename:
                new = rename[o.name]
                m.graph.node.append(helper.make_node("Identity", [o.name], [new]))
                o.name = new
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    onnx.save(m, dst)


def write(path, obj):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(obj, f, indent=2)


def main():
    models = sys.argv[1]
    emb, cross = os.path.join(models, "tiny-embedding"), os.path.join(models, "tiny-cross")
    hidden = 32
    bert_config = {"model_type": "bert", "hidden_size": hidden, "max_position_embeddings": 512}

    out = os.path.join(models, "byo-optimum")
    keep_outputs(os.path.join(emb, "model.onnx"), os.path.join(out, "model.onnx"), {"last_hidden_state"})
    shutil.copy(os.path.join(emb, "tokenizer.json"), out)
    write(os.path.join(out, "config.json"), bert_config)
    write(os.path.join(out, "tokenizer_config.json"), {"model_max_length": 128, "do_lower_case": True})

    for name, cls in (("byo-st", False), ("byo-st-cls", True)):
        out = os.path.join(models, name)
        keep_outputs(os.path.join(emb, "model.onnx"), os.path.join(out, "onnx", "model.onnx"), {"last_hidden_state"})
        shutil.copy(os.path.join(emb, "tokenizer.json"), out)
        write(os.path.join(out, "config.json"), bert_config)
        write(os.path.join(out, "sentence_bert_config.json"), {"max_seq_length": 128, "do_lower_case": False})
        write(os.path.join(out, "1_Pooling", "config.json"), {
            "word_embedding_dimension": hidden, "pooling_mode_cls_token": cls, "pooling_mode_mean_tokens": not cls,
            "pooling_mode_max_tokens": False, "pooling_mode_mean_sqrt_len_tokens": False,
            "pooling_mode_weightedmean_tokens": False, "pooling_mode_lasttoken": False, "include_prompt": True})
        modules = [{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
                   {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}]
        if not cls:
            modules.append({"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"})
        write(os.path.join(out, "modules.json"), modules)

    out = os.path.join(models, "byo-classifier")
    keep_outputs(os.path.join(cross, "model.onnx"), os.path.join(out, "model.onnx"), {"logits"})
    shutil.copy(os.path.join(cross, "tokenizer.json"), out)
    write(os.path.join(out, "config.json"), dict(bert_config, id2label={"0": "NOT_CLONE", "1": "CLONE"},
                                                 label2id={"NOT_CLONE": 0, "CLONE": 1},
                                                 architectures=["BertForSequenceClassification"]))

    out = os.path.join(models, "byo-unusable")
    keep_outputs(os.path.join(emb, "model.onnx"), os.path.join(out, "model.onnx"), {"last_hidden_state"},
                 rename={"last_hidden_state": "features"})
    shutil.copy(os.path.join(emb, "tokenizer.json"), out)
    print("wrote byo-optimum, byo-st, byo-st-cls, byo-classifier, byo-unusable")


if __name__ == "__main__":
    main()
