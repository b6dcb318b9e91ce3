# A short training script with an alias bug: the probabilities are squeezed into (0.01, 0.99) in
# place to keep log() finite, but sigmoid saved its output for backward, so the first
# backward() fails.
# Record it and open the recording (README, "A lesson: recording a training script"):
#   PYTHONPATH=python python -m stridelab_record examples/smooth_bug.py -o smooth_bug.json
#   stridelab run smooth_bug.json
import torch

torch.manual_seed(0)
x = torch.randn(8, 3)
y = (x.sum(1) > 0).float()
model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.5)

for epoch in range(3):
    p = torch.sigmoid(model(x).squeeze(1))
    p.mul_(0.98).add_(0.01)  # the bug: in place, on what sigmoid saved (fix: p = 0.98 * p + 0.01)
    loss = -(y * p.log() + (1 - y) * (1 - p).log()).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"epoch {epoch}: loss {loss.item():.4f}")
