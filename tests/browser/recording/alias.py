# A short PyTorch program whose recording the page's browser test opens (recording.test.mjs):
# a write through a transposed view that its base sees, and an in-place write to a tensor that
# autograd saved, so the backward fails. Recorded by the real recorder, from the repository root:
#   PYTHONPATH=python python -m stridelab_record tests/browser/recording/alias.py -o tests/browser/recording/alias.json
import torch

a = torch.arange(6.).reshape(2, 3)
b = a.t()
b[0] += 10
w = torch.ones(3, requires_grad=True)
y = (a * w).sigmoid()
y.mul_(2)
y.sum().backward()
