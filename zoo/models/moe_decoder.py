# Mixture-of-experts decoder (Mixtral-style: 8 experts, 2 per token, grouped-query attention),
# bf16 inference with a KV cache: 'prefill' then 'decode' ranges per request, the first
# request the warm-up.
import torch
from transformers import MixtralConfig, MixtralForCausalLM

import zoo_common as z

args = z.parse(__doc__, layers=4, hidden=1024, heads=16, kv_heads=4, intermediate=1792, experts=8, top_k=2,
               vocab=32000, batch=4, prompt=256, new_tokens=16, requests=3)
cfg = MixtralConfig(hidden_size=args.hidden, intermediate_size=args.intermediate, num_hidden_layers=args.layers,
                    num_attention_heads=args.heads, num_key_value_heads=args.kv_heads,
                    num_local_experts=args.experts, num_experts_per_tok=args.top_k, vocab_size=args.vocab,
                    max_position_embeddings=4096)
if z.write_config(args, cfg):
    raise SystemExit
z.setup()
model = MixtralForCausalLM(cfg).cuda().to(torch.bfloat16).eval()
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
