# Decoder training step (Mistral-style: grouped-query attention, SwiGLU), fp32 weights under
# bf16 autocast, AdamW: each 'step' range holds 'forward', 'backward' and 'optimizer'. PyTorch
# runs the backward pass on its autograd thread, not on the thread that opened 'backward'.
import torch
from transformers import MistralConfig, MistralForCausalLM

import zoo_common as z

args = z.parse(__doc__, layers=4, hidden=1024, heads=16, kv_heads=4, intermediate=3584, vocab=32000, batch=4,
               seq=512, steps=6)
cfg = MistralConfig(hidden_size=args.hidden, intermediate_size=args.intermediate, num_hidden_layers=args.layers,
                    num_attention_heads=args.heads, num_key_value_heads=args.kv_heads, vocab_size=args.vocab,
                    max_position_embeddings=4096)
if z.write_config(args, cfg):
    raise SystemExit
z.setup()
model = MistralForCausalLM(cfg).cuda().train()
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
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
z.done(args.steps, "steps", f"loss {loss.item():.3f}")
