# Decoder LLM inference (Qwen2-style: grouped-query attention, RMSNorm, SwiGLU), bf16, with a KV
# cache: each request is a 'generate' range holding a 'prefill' range (the whole prompt) and a
# 'decode' range (one token at a time). The first request is the warm-up.
import torch
from transformers import Qwen2Config, Qwen2ForCausalLM

import zoo_common as z

args = z.parse(__doc__, layers=6, hidden=1024, heads=16, kv_heads=4, intermediate=2816, vocab=32000,
               batch=4, prompt=256, new_tokens=24, requests=3)
cfg = Qwen2Config(hidden_size=args.hidden, intermediate_size=args.intermediate, num_hidden_layers=args.layers,
                  num_attention_heads=args.heads, num_key_value_heads=args.kv_heads, vocab_size=args.vocab,
                  max_position_embeddings=4096)
if z.write_config(args, cfg):
    raise SystemExit
z.setup()
model = Qwen2ForCausalLM(cfg).cuda().to(torch.bfloat16).eval()
prompts = torch.randint(0, args.vocab, (args.requests, args.batch, args.prompt), device="cuda")
with torch.inference_mode():
    for r in range(args.requests):
        with z.stage("generate"):
            with z.stage("prefill"):
                out = model(prompts[r], use_cache=True)
                kv, nxt = out.past_key_values, out.logits[:, -1:].argmax(-1)
            with z.stage("decode"):
                for _ in range(args.new_tokens):
                    out = model(nxt, past_key_values=kv, use_cache=True)
                    kv, nxt = out.past_key_values, out.logits[:, -1:].argmax(-1)
            torch.cuda.synchronize()
z.done(args.requests, "requests")
