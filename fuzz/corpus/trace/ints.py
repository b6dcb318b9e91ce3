import torch
a = torch.tensor([-2147483647, 7, -9]) - 1
b = a // -1
c = a % 3
d = torch.zeros(3) / 0
e = torch.tensor(1.).flip(0)
f = torch.cat([torch.ones(2)] * 5)
