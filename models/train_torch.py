#!/usr/bin/env python3
"""Full fine-tuning of a BERT encoder in PyTorch, for `equimorph train --mode full --backend torch`.

equimorph writes a job file (JSON) and runs this script on it:
  source     the model's Hugging Face source (config.json, model.safetensors)
  out        where to write the kept weights (safetensors, Hugging Face names)
  programs   token ids of every program (tokenized and truncated by equimorph)
  train      per epoch, its batches; a batch is a list of [anchor, positive] program indices
  valid      the validation batches (the same every epoch)
  lr, decay, scale, patience, seed, threads, device ("auto", "cpu" or "cuda")

The loss, optimiser and early stopping are those of the candle backend (src/train/full.rs):
mean-pooled, L2-normalised embeddings, in-batch negatives (cosine x scale, cross-entropy
against the true pair), AdamW over every weight, no dropout, the weights of the epoch with the
lowest validation loss kept (the base weights when no epoch beats them). Stdout gets one JSON
line per event: {"base": ...}, {"epoch": ...} per epoch, {"done": ...} last. Uses only torch
and safetensors; runs on CUDA when torch sees a device and `device` allows it."""
import json
import math
import os
import sys
import time

# cuBLAS is deterministic only with a fixed workspace; it must be set before CUDA starts.
os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")

try:
    import torch
    import torch.nn.functional as F
    from safetensors.torch import load_file, save_file
except ImportError as e:  # pragma: no cover - depends on the interpreter
    sys.stderr.write(
        f"train_torch: --backend torch needs PyTorch and safetensors in {sys.executable} ({e}); "
        "install them there (pip install torch safetensors) or use --backend candle\n"
    )
    sys.exit(3)

PREFIXES = ("bert.", "model.")


class Layer(torch.nn.Module):
    """One encoder layer, with Hugging Face's parameter names."""

    def __init__(self, h, inter, eps):
        super().__init__()
        attention = torch.nn.Module()
        attention.add_module("self", torch.nn.Module())
        for name in ("query", "key", "value"):
            getattr(attention, "self").add_module(name, torch.nn.Linear(h, h))
        attention.output = torch.nn.Module()
        attention.output.dense = torch.nn.Linear(h, h)
        attention.output.LayerNorm = torch.nn.LayerNorm(h, eps=eps)
        self.attention = attention
        self.intermediate = torch.nn.Module()
        self.intermediate.dense = torch.nn.Linear(h, inter)
        self.output = torch.nn.Module()
        self.output.dense = torch.nn.Linear(inter, h)
        self.output.LayerNorm = torch.nn.LayerNorm(h, eps=eps)

    def forward(self, x, bias, heads):
        b, s, h = x.shape
        hd = h // heads
        sa = getattr(self.attention, "self")

        def split(t):
            return t.view(b, s, heads, hd).transpose(1, 2)

        q, k, v = split(sa.query(x)), split(sa.key(x)), split(sa.value(x))
        scores = q @ k.transpose(-1, -2) / math.sqrt(hd) + bias
        ctx = (scores.softmax(-1) @ v).transpose(1, 2).reshape(b, s, h)
        a = self.attention.output.LayerNorm(self.attention.output.dense(ctx) + x)
        i = F.gelu(self.intermediate.dense(a))
        return self.output.LayerNorm(self.output.dense(i) + a)


class Bert(torch.nn.Module):
    """A BERT encoder (no pooler, no dropout) whose state dict uses Hugging Face's names."""

    def __init__(self, c):
        super().__init__()
        h, eps = c["hidden_size"], c.get("layer_norm_eps", 1e-12)
        self.heads = c["num_attention_heads"]
        e = torch.nn.Module()
        e.word_embeddings = torch.nn.Embedding(c["vocab_size"], h)
        e.position_embeddings = torch.nn.Embedding(c["max_position_embeddings"], h)
        e.token_type_embeddings = torch.nn.Embedding(c.get("type_vocab_size", 2), h)
        e.LayerNorm = torch.nn.LayerNorm(h, eps=eps)
        self.embeddings = e
        self.encoder = torch.nn.Module()
        self.encoder.layer = torch.nn.ModuleList(
            Layer(h, c["intermediate_size"], eps) for _ in range(c["num_hidden_layers"])
        )

    def forward(self, ids, mask):
        e = self.embeddings
        s = ids.shape[1]
        x = e.word_embeddings(ids) + e.position_embeddings.weight[:s] + e.token_type_embeddings.weight[0]
        x = e.LayerNorm(x)
        # Padding gets a large negative score before the softmax.
        bias = ((1.0 - mask) * -1e4)[:, None, None, :]
        for layer in self.encoder.layer:
            x = layer(x, bias, self.heads)
        return x


def fail(message, code=2):
    sys.stderr.write(f"train_torch: {message}\n")
    sys.exit(code)


def load_model(source, device):
    with open(os.path.join(source, "config.json"), encoding="utf-8") as f:
        config = json.load(f)
    if config.get("model_type", "bert") != "bert":
        fail(f"--mode full fine-tunes BERT encoders; {source} is {config.get('model_type')!r}")
    if config.get("hidden_act", "gelu") != "gelu":
        fail(f"{source}: hidden_act {config.get('hidden_act')!r} (the encoder here computes gelu)")
    model = Bert(config)
    raw = load_file(os.path.join(source, "model.safetensors"))
    weights = {}
    for k, v in raw.items():
        for p in PREFIXES:
            if k.startswith(p):
                k = k[len(p):]
        k = k.replace("LayerNorm.gamma", "LayerNorm.weight").replace("LayerNorm.beta", "LayerNorm.bias")
        weights[k] = v.float()
    wanted = model.state_dict()
    missing = [k for k in wanted if k not in weights]
    if missing:
        fail(f"{source}/model.safetensors lacks {len(missing)} weight(s), e.g. {missing[0]}")
    model.load_state_dict({k: weights[k] for k in wanted})
    return model.to(device)


class Encoder:
    def __init__(self, model, programs, device):
        self.model, self.programs, self.device = model, programs, device

    def embed(self, indices):
        """Mean-pooled, normalised embeddings of the programs at `indices`."""
        seqs = [self.programs[i] for i in indices]
        n = max(1, max(len(s) for s in seqs))
        ids = torch.zeros((len(seqs), n), dtype=torch.long)
        mask = torch.zeros((len(seqs), n), dtype=torch.float32)
        for r, s in enumerate(seqs):
            ids[r, : len(s)] = torch.tensor(s, dtype=torch.long)
            mask[r, : len(s)] = 1.0
        ids, mask = ids.to(self.device), mask.to(self.device)
        h = self.model(ids, mask)
        m = mask.unsqueeze(2)
        mean = (h * m).sum(1) / m.sum(1)
        return mean / mean.norm(dim=1, keepdim=True).clamp(min=1e-12)

    def loss(self, batch, scale):
        """The in-batch-negatives loss of a batch and its clone-vs-non-clone cosine margin."""
        za = self.embed([a for a, _ in batch])
        zp = self.embed([p for _, p in batch])
        cos = za @ zp.T
        target = torch.arange(len(batch), device=self.device)
        loss = F.cross_entropy(cos * scale, target)
        with torch.no_grad():
            k = cos.shape[0]
            diag = cos.diagonal().mean().item()
            off = (cos.sum().item() - cos.diagonal().sum().item()) / (k * k - k) if k > 1 else 0.0
        return loss, diag - off

    def mean_loss(self, batches, scale):
        if not batches:
            return None
        total, margin = 0.0, 0.0
        with torch.no_grad():
            for b in batches:
                loss, m = self.loss(b, scale)
                total += loss.item()
                margin += m
        return total / len(batches), margin / len(batches)


def say(event):
    sys.stdout.write(json.dumps(event) + "\n")
    sys.stdout.flush()


def main():
    if len(sys.argv) != 2:
        fail("usage: train_torch.py JOB.json")
    with open(sys.argv[1], encoding="utf-8") as f:
        job = json.load(f)
    torch.manual_seed(int(job["seed"]))
    torch.use_deterministic_algorithms(True)
    threads = int(job.get("threads") or 0)
    if threads > 0:
        torch.set_num_threads(threads)
    want = job.get("device", "auto")
    if want == "cuda" and not torch.cuda.is_available():
        fail("device cuda: torch sees no CUDA device")
    device = torch.device("cuda" if want != "cpu" and torch.cuda.is_available() else "cpu")
    model = load_model(job["source"], device)
    enc = Encoder(model, job["programs"], device)
    scale = float(job["scale"])
    started = time.monotonic()
    model.eval()  # no dropout: as the candle backend
    base = enc.mean_loss(job["valid"], scale)
    say({"base": {"valid_loss": base and base[0], "valid_margin": base and base[1], "device": str(device)}})
    out = job["out"]

    def save():
        state = {k: v.detach().cpu().contiguous() for k, v in model.state_dict().items()}
        tmp = out + ".part"
        save_file(state, tmp)
        os.replace(tmp, out)

    save()
    best = (0, base[0] if base else math.inf)
    opt = torch.optim.AdamW(model.parameters(), lr=float(job["lr"]), weight_decay=float(job["decay"]))
    stale, patience = 0, max(1, int(job["patience"]))
    for epoch, batches in enumerate(job["train"], start=1):
        total = 0.0
        for b in batches:
            loss, _ = enc.loss(b, scale)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            total += loss.item()
        checked = enc.mean_loss(job["valid"], scale)
        valid_loss = checked[0] if checked else None
        say({"epoch": {
            "epoch": epoch,
            "train_loss": total / len(batches) if batches else 0.0,
            "valid_loss": valid_loss,
            "valid_margin": checked[1] if checked else None,
        }})
        if valid_loss is None:
            best = (epoch, math.inf)
            save()
        elif valid_loss < best[1]:
            best = (epoch, valid_loss)
            save()
            stale = 0
        else:
            stale += 1
            if stale >= patience:
                break
    say({"done": {"best_epoch": best[0], "device": str(device), "seconds": time.monotonic() - started}})


if __name__ == "__main__":
    main()
