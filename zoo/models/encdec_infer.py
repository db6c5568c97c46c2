# Encoder-decoder inference (T5-style: relative position bias, ReLU MLP), bf16, with a growing
# decoder cache: each request is a 'generate' range holding an 'encode' range (the whole source)
# and a 'decode' range (one target token at a time; the self-attention cache grows by one
# position per step, so its kernels see a new key length at every step). The first request is
# the warm-up.
import torch
from transformers import T5Config, T5ForConditionalGeneration

import zoo_common as z

args = z.parse(__doc__, layers=6, d_model=768, heads=12, d_ff=3072, vocab=32128, batch=8, source=256,
               new_tokens=48, requests=3)
cfg = T5Config(d_model=args.d_model, d_kv=args.d_model // args.heads, d_ff=args.d_ff, num_layers=args.layers,
               num_decoder_layers=args.layers, num_heads=args.heads, vocab_size=args.vocab,
               decoder_start_token_id=0, pad_token_id=0)
if z.write_config(args, cfg):
    raise SystemExit
z.setup()
model = T5ForConditionalGeneration(cfg).cuda().to(torch.bfloat16).eval()
sources = torch.randint(1, args.vocab, (args.requests, args.batch, args.source), device="cuda")
start = torch.zeros((args.batch, 1), dtype=torch.long, device="cuda")
with torch.inference_mode():
    for r in range(args.requests):
        with z.stage("generate"):
            with z.stage("encode"):
                enc = model.get_encoder()(input_ids=sources[r])
            with z.stage("decode"):
                kv, nxt = None, start
                for _ in range(args.new_tokens):
                    out = model(encoder_outputs=enc, decoder_input_ids=nxt, past_key_values=kv, use_cache=True)
                    kv, nxt = out.past_key_values, out.logits[:, -1:].argmax(-1)
            torch.cuda.synchronize()
z.done(args.requests, "requests")
