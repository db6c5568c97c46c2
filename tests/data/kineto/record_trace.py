# Records the Kineto traces of tests/data/kineto with torch.profiler, from zoo workloads made
# small (random weights, no download). One mode per call:
#   infer: Qwen2-style decoder inference (zoo/models/decoder_infer.py), record_function ranges
#          'generate' > 'prefill' / 'decode', record_shapes; the whole run is profiled.
#   train: Mistral-style training (zoo/models/decoder_train.py) under a profiler schedule
#          (wait 1, warmup 1, active 3): ProfilerStep#2..#4, with 'forward', 'backward' and
#          'optimizer' ranges.
#   ddp:   GPT-2 DDP training (zoo/models/ddp_train.py) under torchrun, one trace per rank,
#          same schedule (its NCCL all-reduces and distributedInfo).
#   whole: the inference of 'infer', one request, with every CUDA kernel of the process inside
#          the profiler (the model is cast and moved before the first kernel, no warm-up
#          outside it), so that the trace counts each kernel's launches from the process's
#          first, as ncu does: the workload of `kscope profile --discovery TRACE-RUN` and of an
#          ncu report imported into the trace run (docs/kineto/ncu_on_trace.md).
# Usage: python3 record_trace.py MODE OUTDIR   (ddp: torchrun --nproc_per_node=2 record_trace.py ddp OUTDIR)
import gzip
import os
import shutil
import sys

import torch
from torch.profiler import ProfilerActivity, profile, record_function, schedule

mode, outdir = sys.argv[1], sys.argv[2]
os.makedirs(outdir, exist_ok=True)
torch.manual_seed(0)
ACTIVITIES = [ProfilerActivity.CPU, ProfilerActivity.CUDA]


def export(prof, name):
    path = os.path.join(outdir, name + ".json")
    try:
        prof.export_chrome_trace(path)
    except RuntimeError as e:  # under ncu, CUPTI may refuse the profiler a second subscriber
        print("no trace:", e, flush=True)
        return
    with open(path, "rb") as f, gzip.open(path + ".gz", "wb", compresslevel=9) as g:
        shutil.copyfileobj(f, g)
    os.remove(path)
    with open(os.path.join(outdir, name + ".key_averages.txt"), "w") as f:
        f.write(prof.key_averages().table(sort_by="cuda_time_total", row_limit=40))


def infer():
    from transformers import Qwen2Config, Qwen2ForCausalLM
    cfg = Qwen2Config(hidden_size=512, intermediate_size=1408, num_hidden_layers=2, num_attention_heads=8,
                      num_key_value_heads=2, vocab_size=32000, max_position_embeddings=1024)
    model = Qwen2ForCausalLM(cfg).cuda().to(torch.bfloat16).eval()
    prompts = torch.randint(0, 32000, (2, 2, 64), device="cuda")
    with torch.inference_mode():  # warm-up outside the profiler
        model(prompts[0], use_cache=True)
        torch.cuda.synchronize()
        with profile(activities=ACTIVITIES, record_shapes=True) as prof:
            for r in range(2):
                with record_function("generate"):
                    with record_function("prefill"):
                        out = model(prompts[r], use_cache=True)
                        kv, nxt = out.past_key_values, out.logits[:, -1:].argmax(-1)
                    with record_function("decode"):
                        for _ in range(4):
                            out = model(nxt, past_key_values=kv, use_cache=True)
                            kv, nxt = out.past_key_values, out.logits[:, -1:].argmax(-1)
                    torch.cuda.synchronize()
    export(prof, "decoder_infer")


def whole():
    from transformers import Qwen2Config, Qwen2ForCausalLM
    cfg = Qwen2Config(hidden_size=512, intermediate_size=1408, num_hidden_layers=2, num_attention_heads=8,
                      num_key_value_heads=2, vocab_size=32000, max_position_embeddings=1024)
    model = Qwen2ForCausalLM(cfg).to(torch.bfloat16).eval()
    prompt = torch.randint(0, 32000, (2, 64))
    with torch.inference_mode(), profile(activities=ACTIVITIES, record_shapes=True) as prof:
        model, prompt = model.cuda(), prompt.cuda()  # copies only: no kernel before the profiler
        with record_function("generate"):
            with record_function("prefill"):
                out = model(prompt, use_cache=True)
                kv, nxt = out.past_key_values, out.logits[:, -1:].argmax(-1)
            with record_function("decode"):
                for _ in range(3):
                    out = model(nxt, past_key_values=kv, use_cache=True)
                    kv, nxt = out.past_key_values, out.logits[:, -1:].argmax(-1)
            torch.cuda.synchronize()
    export(prof, "decoder_whole")


def train_steps(model, opt, ids, prof, steps):
    for _ in range(steps):
        with record_function("forward"), torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(input_ids=ids, labels=ids).loss
        with record_function("backward"):
            loss.backward()
        with record_function("optimizer"):
            opt.step()
            opt.zero_grad(set_to_none=True)
        torch.cuda.synchronize()
        prof.step()


def train():
    from transformers import MistralConfig, MistralForCausalLM
    cfg = MistralConfig(hidden_size=512, intermediate_size=1536, num_hidden_layers=2, num_attention_heads=8,
                        num_key_value_heads=2, vocab_size=32000, max_position_embeddings=1024)
    model = MistralForCausalLM(cfg).cuda().train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    ids = torch.randint(0, 32000, (2, 128), device="cuda")
    sched = schedule(wait=1, warmup=1, active=3, repeat=1)
    with profile(activities=ACTIVITIES, record_shapes=True, schedule=sched,
                 on_trace_ready=lambda p: export(p, "decoder_train")) as prof:
        train_steps(model, opt, ids, prof, 6)


def ddp():
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP
    from transformers import GPT2Config, GPT2LMHeadModel
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl", device_id=torch.device("cuda", local_rank))
    rank = dist.get_rank()
    cfg = GPT2Config(n_layer=2, n_embd=256, n_head=4, vocab_size=8192, n_positions=256)
    model = DDP(GPT2LMHeadModel(cfg).cuda().train(), device_ids=[local_rank])
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    torch.manual_seed(rank)
    ids = torch.randint(0, 8192, (4, 128), device="cuda")
    sched = schedule(wait=1, warmup=1, active=2, repeat=1)
    with profile(activities=ACTIVITIES, record_shapes=True, schedule=sched,
                 on_trace_ready=lambda p: export(p, f"ddp_train_rank{rank}")) as prof:
        train_steps(model, opt, ids, prof, 5)
    dist.destroy_process_group()


{"infer": infer, "train": train, "ddp": ddp, "whole": whole}[mode]()
print("ok", mode, flush=True)
