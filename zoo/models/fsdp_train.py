# GPT-2-style training with fully sharded data parallelism (FSDP2, torch.distributed.fsdp's
# fully_shard) over NCCL, one process per GPU, started by torchrun (torchrun --nproc_per_node=2
# fsdp_train.py): each transformer block is its own shard group, so its parameters are
# all-gathered before its forward and again before its backward, and its gradients
# reduce-scattered after its backward; bf16 parameters and fp32 reductions, AdamW on each rank's
# shard, random weights and tokens. NVTX 'step' ranges hold 'forward', 'backward' and
# 'optimizer'. Rank r trains on its own batch on GPU LOCAL_RANK.
import os

import torch
import torch.distributed as dist
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard
from transformers import GPT2Config, GPT2LMHeadModel

import zoo_common as z

args = z.parse(__doc__, layers=4, hidden=768, heads=12, vocab=50257, batch=8, seq=256, steps=10)
cfg = GPT2Config(n_layer=args.layers, n_embd=args.hidden, n_head=args.heads, vocab_size=args.vocab,
                 n_positions=1024)
if z.write_config(args, cfg):
    raise SystemExit
local_rank = int(os.environ.get("LOCAL_RANK", "0"))
torch.cuda.set_device(local_rank)
dist.init_process_group("nccl", device_id=torch.device("cuda", local_rank))
rank = dist.get_rank()
z.setup()
model = GPT2LMHeadModel(cfg).cuda().train()
policy = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
for block in model.transformer.h:
    fully_shard(block, mp_policy=policy)
fully_shard(model, mp_policy=policy)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
torch.manual_seed(rank)  # each rank its own data
ids = torch.randint(0, args.vocab, (args.batch, args.seq), device="cuda")
for _ in range(args.steps):
    with z.stage("step"):
        with z.stage("forward"):
            loss = model(input_ids=ids, labels=ids).loss
        with z.stage("backward"):
            loss.backward()
        with z.stage("optimizer"):
            opt.step()
            opt.zero_grad(set_to_none=True)
        torch.cuda.synchronize()
z.done(args.steps, "steps", f"rank {rank} of {dist.get_world_size()}", f"loss {loss.item():.3f}")
dist.destroy_process_group()
