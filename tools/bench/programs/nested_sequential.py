import torch.nn as nn
m = nn.Identity()
for i in range(2000):
    m = nn.Sequential(m)
