import torch
x = torch.tensor([0.5, 1.0, 1.5], requires_grad=True)
y = x.sigmoid()
z = (y * x).sum()
g, = torch.autograd.grad(z, x, create_graph=True)
y.mul_(2)
z.backward()
