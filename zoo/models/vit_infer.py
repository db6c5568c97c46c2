# Vision transformer (ViT-style) image classification in bf16, each batch one 'forward' range.
import torch
from transformers import ViTConfig, ViTForImageClassification

import zoo_common as z

args = z.parse(__doc__, layers=8, hidden=768, heads=12, intermediate=3072, image=224, patch=16, batch=32, steps=6)
cfg = ViTConfig(image_size=args.image, patch_size=args.patch, hidden_size=args.hidden,
                num_hidden_layers=args.layers, num_attention_heads=args.heads, intermediate_size=args.intermediate,
                num_labels=1000)
if z.write_config(args, cfg):
    raise SystemExit
z.setup()
model = ViTForImageClassification(cfg).cuda().to(torch.bfloat16).eval()
images = torch.randn(args.batch, 3, args.image, args.image, device="cuda", dtype=torch.bfloat16)
with torch.inference_mode():
    for _ in range(args.steps):
        with z.stage("forward"):
            logits = model(pixel_values=images).logits
            torch.cuda.synchronize()
z.done(args.steps, "steps")
