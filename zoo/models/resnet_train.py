# CNN training (torchvision ResNet-50), channels_last, automatic mixed precision (fp16 autocast
# with a gradient scaler), SGD with momentum: 'step' ranges holding 'forward', 'backward' and
# 'optimizer'. cuDNN picks the convolution kernels (forward, data and weight gradients).
import torch
import torchvision

import zoo_common as z

args = z.parse(__doc__, batch=32, image=224, steps=6)
if args.write_config:
    z.write_config(args, {"model_type": "resnet50", "forward_flops_per_image": 8.2e9})
    raise SystemExit
z.setup()
torch.backends.cudnn.benchmark = True
model = torchvision.models.resnet50(weights=None).cuda().to(memory_format=torch.channels_last).train()
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
scaler = torch.amp.GradScaler("cuda")
images = torch.randn(args.batch, 3, args.image, args.image, device="cuda").to(memory_format=torch.channels_last)
labels = torch.randint(0, 1000, (args.batch,), device="cuda")
loss_fn = torch.nn.CrossEntropyLoss()
for _ in range(args.steps):
    with z.stage("step"):
        with z.stage("forward"), torch.autocast("cuda", dtype=torch.float16):
            loss = loss_fn(model(images), labels)
        with z.stage("backward"):
            scaler.scale(loss).backward()
        with z.stage("optimizer"):
            scaler.step(opt)
            scaler.update()
            opt.zero_grad(set_to_none=True)
        torch.cuda.synchronize()
z.done(args.steps, "steps", f"loss {loss.item():.3f}")
