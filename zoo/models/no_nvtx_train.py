# A small transformer encoder's training loop with no NVTX at all: forward, loss, backward and
# an AdamW step, 10 times, after model set-up. The first step allocates the optimizer's state
# and sets up cuBLAS; the others repeat the same kernels. Random weights and data, fp32, no
# download. kscope has to find the steps from the kernel sequence alone.
import torch

torch.manual_seed(0)
torch.backends.cuda.matmul.allow_tf32 = True
layer = torch.nn.TransformerEncoderLayer(d_model=256, nhead=4, dim_feedforward=1024, batch_first=True)
model = torch.nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False).cuda().train()
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
x = torch.randn(8, 128, 256, device="cuda")
target = torch.randn(8, 128, 256, device="cuda")
for _ in range(10):
    opt.zero_grad(set_to_none=True)
    loss = torch.nn.functional.mse_loss(model(x), target)
    loss.backward()
    opt.step()
torch.cuda.synchronize()
print("ok no_nvtx_train", float(loss))
