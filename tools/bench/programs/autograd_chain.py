import torch
x = torch.ones(3, requires_grad=True)
y = x
for i in range(4000):
    y = y * 1.0001
