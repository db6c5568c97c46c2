# GPT-2-style training loop compiled with torch.compile (Inductor: Triton kernels), bf16
# autocast, fused AdamW: 'step' ranges holding 'forward', 'backward' and 'optimizer'. The first
# step compiles; later steps run the compiled graphs.
import torch
from transformers import GPT2Config, GPT2LMHeadModel

import zoo_common as z

args = z.parse(__doc__, layers=4, hidden=768, heads=12, vocab=50257, batch=8, seq=512, steps=6)
cfg = GPT2Config(n_layer=args.layers, n_embd=args.hidden, n_head=args.heads, vocab_size=args.vocab,
                 n_positions=1024)
if z.write_config(args, cfg):
    raise SystemExit
z.setup()
model = GPT2LMHeadModel(cfg).cuda().train()
opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
compiled = torch.compile(model)
ids = torch.randint(0, args.vocab, (args.batch, args.seq), device="cuda")
for _ in range(args.steps):
    with z.stage("step"):
        with z.stage("forward"), torch.autocast("cuda", dtype=torch.bfloat16):
            loss = compiled(input_ids=ids, labels=ids).loss
        with z.stage("backward"):
            loss.backward()
        with z.stage("optimizer"):
            opt.step()
            opt.zero_grad(set_to_none=True)
        torch.cuda.synchronize()
z.done(args.steps, "steps", f"loss {loss.item():.3f}")
