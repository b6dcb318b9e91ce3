import torch
x = torch.zeros(2**22)
for i in range(20):
    x.add_(1)
