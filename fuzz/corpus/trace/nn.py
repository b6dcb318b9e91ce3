import torch
import torch.nn.functional as F
torch.manual_seed(0)
x = torch.randn(2, 1, 6, 6)
w = torch.randn(3, 1, 3, 3, requires_grad=True)
y = F.max_pool2d(F.relu(F.conv2d(x, w, padding=1)), 2)
loss = F.cross_entropy(y.flatten(1), torch.tensor([1, 4]))
loss.backward()
v = w.grad.norm()
