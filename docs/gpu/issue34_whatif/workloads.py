# Workloads made to check kscope whatif's predictions on the GPU machine (issue 34): each has a
# baseline and a variant that applies one change, and marks its steps with an NVTX range
# 'step' (sub-ranges 'inject', 'forward', 'backward', 'optimizer' where they apply).
#
#   python3 workloads.py MODE VARIANT STEPS     one workload, e.g. under nsys
#   python3 workloads.py time REPS STEPS        every workload and variant, REPS rounds
#                                               interleaved, no profiler: one JSON line each
#
# Modes (baseline -> variant):
#   gpu_sleep    GPU-bound step (8 memory-bound adds over 256 MB) with a ~1 ms GPU sleep kernel -> without it
#   gpu_host     the same step with a 1 ms host busy-wait while the GPU works -> without it
#   decode_host  host-bound decode of a 12-layer fp16 decoder written in plain torch (KV cache grown
#                by torch.cat, .item() each token) with a 2 ms host busy-wait -> without it
#   decode_sleep the same decode with a ~1 ms GPU sleep kernel at each step's start -> without it
#   decode_graph fixed-shape decoder forward, eager -> replayed as a CUDA graph
#   adamw        training step of 120 linear layers, AdamW foreach -> AdamW fused
#   vocab        GPT-2 forward with a vocabulary of 50,257 -> padded to 50,304
# (workloads_round1.py: the first round, whose GPU-bound loop was 12 bf16 matmuls and whose
# decodes ran Hugging Face's GPT-2.)
# Random weights, no download. A step's time is the period between two steps' starts (after
# 10 warm-up steps), as kscope whatif measures a step of an outermost stage.
import json
import os
import statistics
import sys
import time

import torch

nvtx = torch.cuda.nvtx
DEV = "cuda"
SLEEP_CYCLES = 1_700_000  # about 1 ms at the H100's clock


def busy(us):
    t = time.perf_counter()
    while (time.perf_counter() - t) * 1e6 < us:
        pass


class Range:
    def __init__(self, name):
        self.name = name

    def __enter__(self):
        nvtx.range_push(self.name)

    def __exit__(self, *a):
        nvtx.range_pop()


def gpu_loop(variant, inject):
    x = torch.randn(64 << 20, device=DEV)
    y = torch.empty_like(x)

    def step():
        with Range("step"):
            for _ in range(8):
                torch.add(x, 1.0, out=y)
            if variant == "base":
                with Range("inject"):
                    if inject == "sleep":
                        torch.cuda._sleep(SLEEP_CYCLES)
                    else:
                        busy(1000)
            torch.cuda.synchronize()
    return step


class Block(torch.nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.d, self.h = d, heads
        self.ln1, self.ln2 = torch.nn.LayerNorm(d), torch.nn.LayerNorm(d)
        self.qkv, self.out = torch.nn.Linear(d, 3 * d), torch.nn.Linear(d, d)
        self.up, self.down = torch.nn.Linear(d, 4 * d), torch.nn.Linear(4 * d, d)

    def forward(self, x, cache):
        q, k, v = self.qkv(self.ln1(x)).split(self.d, -1)
        shape = (1, -1, self.h, self.d // self.h)
        q, k, v = (t.reshape(shape).transpose(1, 2) for t in (q, k, v))
        cache["k"] = k if cache.get("k") is None else torch.cat([cache["k"], k], 2)
        cache["v"] = v if cache.get("v") is None else torch.cat([cache["v"], v], 2)
        a = torch.nn.functional.scaled_dot_product_attention(q, cache["k"], cache["v"])
        x = x + self.out(a.transpose(1, 2).reshape(1, -1, self.d))
        return x + self.down(torch.nn.functional.gelu(self.up(self.ln2(x))))


class Decoder(torch.nn.Module):
    def __init__(self, vocab=32000, d=768, heads=12, layers=12):
        super().__init__()
        self.emb = torch.nn.Embedding(vocab, d)
        self.blocks = torch.nn.ModuleList(Block(d, heads) for _ in range(layers))
        self.head = torch.nn.Linear(d, vocab)

    def forward(self, tok, caches):
        x = self.emb(tok)
        for b, c in zip(self.blocks, caches):
            x = b(x, c)
        return self.head(x[:, -1]).argmax(-1)


def decode(variant, inject):
    # cuDNN's attention compiles a kernel for each new sequence length (60 ms a step while the
    # cache grows, seen in round 2): the decodes use the precompiled flash kernels instead.
    torch.backends.cuda.enable_cudnn_sdp(False)
    torch.manual_seed(0)
    model = Decoder().to(DEV).half().eval()
    state = {}

    def reset():
        state["caches"] = [{} for _ in model.blocks]
        with torch.inference_mode():
            state["tok"] = model(torch.randint(0, 32000, (1, 32), device=DEV), state["caches"])[:, None]
        state["n"] = 0

    reset()

    def step():
        if state["n"] >= 200:  # keep the cache short: a new request every 200 tokens
            reset()
        with Range("step"), torch.inference_mode():
            if variant == "base":
                with Range("inject"):
                    if inject == "sleep":
                        torch.cuda._sleep(SLEEP_CYCLES)
                    else:
                        busy(2000)
            with Range("forward"):
                state["tok"] = model(state["tok"], state["caches"])[:, None]
            state["tok"].item()
            state["n"] += 1
    return step


def gpt2(vocab, layers=12):
    from transformers import GPT2Config, GPT2LMHeadModel
    cfg = GPT2Config(n_layer=layers, n_embd=768, n_head=12, vocab_size=vocab, n_positions=1024)
    torch.manual_seed(0)
    return GPT2LMHeadModel(cfg).to(DEV).half().eval()


def decode_graph(variant):
    layer = torch.nn.TransformerEncoderLayer(d_model=512, nhead=8, dim_feedforward=2048, batch_first=True)
    torch.manual_seed(0)
    model = torch.nn.TransformerEncoder(layer, num_layers=6, enable_nested_tensor=False).to(DEV).eval()
    head = torch.nn.Linear(512, 1000).to(DEV).eval()
    emb = torch.nn.Embedding(1000, 512).to(DEV)
    static_tok = torch.randint(0, 1000, (1, 64), device=DEV)

    def forward():
        return head(model(emb(static_tok)))[:, -1].argmax(-1)

    with torch.inference_mode():
        graph = None
        if variant == "graph":
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                for _ in range(3):
                    forward()
            torch.cuda.current_stream().wait_stream(side)
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                static_out = forward()

    def step():
        with Range("step"), torch.inference_mode():
            with Range("forward"):
                out = forward() if graph is None else (graph.replay(), static_out)[1]
            nxt = out.item()
            static_tok.copy_(torch.roll(static_tok, -1, 1))
            static_tok[0, -1] = nxt
    return step


def adamw(variant):
    torch.manual_seed(0)
    model = torch.nn.Sequential(*[torch.nn.Sequential(torch.nn.Linear(256, 256), torch.nn.GELU()) for _ in range(120)])
    model = model.to(DEV)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, foreach=variant == "base", fused=variant != "base")
    x = torch.randn(64, 256, device=DEV)

    def step():
        with Range("step"):
            with Range("forward"):
                loss = model(x).square().mean()
            with Range("backward"):
                loss.backward()
            with Range("optimizer"):
                opt.step()
                opt.zero_grad(set_to_none=True)
            loss.item()
    return step


def vocab(variant):
    model = gpt2(50257 if variant == "base" else 50304, layers=6)
    x = torch.randint(0, 50257, (8, 256), device=DEV)

    def step():
        with Range("step"), torch.inference_mode():
            model(x).logits.sum().item()
    return step


MODES = {
    "gpu_sleep": (lambda v: gpu_loop(v, "sleep"), "none"),
    "gpu_host": (lambda v: gpu_loop(v, "host"), "none"),
    "decode_host": (lambda v: decode(v, "host"), "none"),
    "decode_sleep": (lambda v: decode(v, "sleep"), "none"),
    "decode_graph": (decode_graph, "graph"),
    "adamw": (adamw, "fused"),
    "vocab": (vocab, "padded"),
}


def run(step, steps, warmup=10):
    starts = []
    for i in range(warmup + steps + 1):
        if i >= warmup:
            starts.append(time.perf_counter())
        step()
    torch.cuda.synchronize()
    return [(b - a) * 1e3 for a, b in zip(starts, starts[1:])]


def summary(ms):
    q = statistics.quantiles(ms, n=10)
    return {"median_ms": statistics.median(ms), "p10_ms": q[0], "p90_ms": q[-1], "steps": len(ms)}


if __name__ == "__main__":
    torch.backends.cuda.matmul.allow_tf32 = True
    if sys.argv[1] == "time":
        reps, steps = int(sys.argv[2]), int(sys.argv[3])
        built = {}
        for rep in range(reps):
            for mode, (make, other) in MODES.items():
                if os.environ.get("MODES") and mode not in os.environ["MODES"].split():
                    continue
                for variant in ("base", other):
                    if (mode, variant) not in built:
                        built[(mode, variant)] = make(variant)
                    ms = run(built[(mode, variant)], steps)
                    print(json.dumps({"mode": mode, "variant": variant, "rep": rep, **summary(ms)}), flush=True)
    else:
        mode, variant, steps = sys.argv[1], sys.argv[2], int(sys.argv[3])
        ms = run(MODES[mode][0](variant), steps)
        print(json.dumps({"mode": mode, "variant": variant, **summary(ms)}), flush=True)
