import torch
import torch.nn as nn
torch.manual_seed(0)
emb = nn.Embedding(50000, 64)
ids = torch.randint(0, 50000, (32, 128))
out = emb(ids)
loss = out.sum()
loss.backward()
print(out.shape, emb.weight.grad.shape)
print(emb.weight.grad.sum())
