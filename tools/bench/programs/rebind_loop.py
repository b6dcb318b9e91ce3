import torch
x = torch.zeros(2**20)
for i in range(1000):
    x = x + 1
