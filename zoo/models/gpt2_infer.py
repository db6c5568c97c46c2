# GPT-2-style inference in fp16 (multi-head attention, GELU MLP, learned positions) with a KV
# cache: 'prefill' then 'decode' ranges per request, the first request the warm-up.
import torch
from transformers import GPT2Config, GPT2LMHeadModel

import zoo_common as z

args = z.parse(__doc__, layers=6, hidden=768, heads=12, vocab=50257, batch=8, prompt=128, new_tokens=24,
               requests=3)
cfg = GPT2Config(n_layer=args.layers, n_embd=args.hidden, n_head=args.heads, vocab_size=args.vocab,
                 n_positions=1024)
if z.write_config(args, cfg):
    raise SystemExit
z.setup()
model = GPT2LMHeadModel(cfg).cuda().half().eval()
prompts = torch.randint(0, args.vocab, (args.requests, args.batch, args.prompt), device="cuda")
with torch.inference_mode():
    for r in range(args.requests):
        with z.stage("prefill"):
            out = model(prompts[r], use_cache=True)
            kv, nxt = out.past_key_values, out.logits[:, -1:].argmax(-1)
        with z.stage("decode"):
            for _ in range(args.new_tokens):
                out = model(nxt, past_key_values=kv, use_cache=True)
                kv, nxt = out.past_key_values, out.logits[:, -1:].argmax(-1)
            torch.cuda.synchronize()
z.done(args.requests, "requests")
