# GPT-2-style training with DistributedDataParallel over NCCL, one process per GPU, started by
# torchrun (torchrun --nproc_per_node=2 ddp_train.py) or mpirun (mpirun -np 2 python3
# ddp_train.py): bf16 autocast, AdamW, random weights and tokens; 'step' ranges holding 'forward',
# 'backward' (where DDP's gradient all-reduces run, bucket by bucket) and 'optimizer'. Rank r
# trains on its own batch on GPU LOCAL_RANK.
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from transformers import GPT2Config, GPT2LMHeadModel

import zoo_common as z

args = z.parse(__doc__, layers=4, hidden=768, heads=12, vocab=50257, batch=8, seq=256, steps=10)
cfg = GPT2Config(n_layer=args.layers, n_embd=args.hidden, n_head=args.heads, vocab_size=args.vocab,
                 n_positions=1024)
if z.write_config(args, cfg):
    raise SystemExit
z.torch_rank_env()
local_rank = int(os.environ.get("LOCAL_RANK", "0"))
torch.cuda.set_device(local_rank)
dist.init_process_group("nccl", device_id=torch.device("cuda", local_rank))
rank = dist.get_rank()
z.setup()
model = DDP(GPT2LMHeadModel(cfg).cuda().train(), device_ids=[local_rank])
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
torch.manual_seed(rank)  # each rank its own data
ids = torch.randint(0, args.vocab, (args.batch, args.seq), device="cuda")
for _ in range(args.steps):
    with z.stage("step"):
        with z.stage("forward"), torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(input_ids=ids, labels=ids).loss
        with z.stage("backward"):
            loss.backward()
        with z.stage("optimizer"):
            opt.step()
            opt.zero_grad(set_to_none=True)
        torch.cuda.synchronize()
z.done(args.steps, "steps", f"rank {rank} of {dist.get_world_size()}", f"loss {loss.item():.3f}")
dist.destroy_process_group()
