import torch
a = torch.arange(12.).reshape(3, 4)
d = {"lr": 0.1, "n": 3}
for i, row in enumerate(a):
    if i % 2 == 0:
        row[i:] += d["lr"] * i
    else:
        row.zero_()
b = [t.sum() for t in a.unbind()]
c = a.t().reshape(12)[::3]
print(f"{c.shape} {len(b)}")
