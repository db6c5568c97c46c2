# Encoder (BERT-style) inference in fp16: a batch of sequences through the encoder, each batch
# one 'forward' range.
import torch
from transformers import BertConfig, BertModel

import zoo_common as z

args = z.parse(__doc__, layers=6, hidden=768, heads=12, intermediate=3072, vocab=30522, batch=32, seq=128, steps=6)
cfg = BertConfig(hidden_size=args.hidden, num_hidden_layers=args.layers, num_attention_heads=args.heads,
                 intermediate_size=args.intermediate, vocab_size=args.vocab)
if z.write_config(args, cfg):
    raise SystemExit
z.setup()
model = BertModel(cfg).cuda().half().eval()
ids = torch.randint(0, args.vocab, (args.batch, args.seq), device="cuda")
mask = torch.ones_like(ids)
with torch.inference_mode():
    for _ in range(args.steps):
        with z.stage("forward"):
            out = model(input_ids=ids, attention_mask=mask).last_hidden_state
            torch.cuda.synchronize()
z.done(args.steps, "steps")
