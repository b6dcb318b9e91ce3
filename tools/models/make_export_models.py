#!/usr/bin/env python3
"""Export seven small models the way people export them, with onnxruntime's outputs beside them.

The models are written here from their published descriptions (small widths, fixed seeds): a
ResNet (BasicBlocks, downsampling shortcut), a MobileNetV3-small (depthwise convolutions,
squeeze-excite with HardSigmoid, HardSwish), a SqueezeNet (Fire modules, ceil-mode pooling), a
ViT (patch convolution, class token, `nn.TransformerEncoderLayer`s), a GPT-2-style decoder
(nanoGPT's attention with `split`/`view`/`transpose` and a causal `masked_fill`, GELU MLP, tied
embeddings), an LSTM text classifier (two bidirectional layers) and a U-Net
(`ConvTranspose2d`, bilinear upsampling, `cat` skips).

Each is exported four ways: by the classic exporter (`dynamo=False`, opset 17) and by the
default one (`dynamo=True`, opset 18, weights in an external `model.onnx.data` as it writes
them), each with default-initialised weights (where the exporter folds equal weights into
`Identity` nodes) and with random weights and batch-norm statistics. Beside each model:
`input_N.npy` (a seeded input per graph input) and `output_N.npy` (onnxruntime's outputs, one
thread), and `models.json` lists them.

    /work/venv/bin/python tools/models/make_export_models.py
"""
import json
import os
import shutil
import sys
import warnings

import numpy as np
import onnx
import onnxruntime as ort
import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "..", "tests", "data", "models", "export")


def bn(c):
    return nn.BatchNorm2d(c)


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = bn(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = bn(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), bn(cout))

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return F.relu(y + (x if self.down is None else self.down(x)))


class ResNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 7, 2, 3, bias=False)
        self.bn1 = bn(8)
        self.pool = nn.MaxPool2d(3, 2, 1)
        self.layer1 = BasicBlock(8, 8, 1)
        self.layer2 = BasicBlock(8, 16, 2)
        self.avg = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.bn1(self.conv1(x))))
        x = self.layer2(self.layer1(x))
        return self.fc(torch.flatten(self.avg(x), 1))


class SqueezeExcite(nn.Module):
    def __init__(self, c, r):
        super().__init__()
        self.fc1 = nn.Conv2d(c, r, 1)
        self.fc2 = nn.Conv2d(r, c, 1)

    def forward(self, x):
        s = F.adaptive_avg_pool2d(x, 1)
        return x * F.hardsigmoid(self.fc2(F.relu(self.fc1(s))))


class InvertedResidual(nn.Module):
    def __init__(self, cin, exp, cout, stride, act, se):
        super().__init__()
        self.expand = nn.Sequential(nn.Conv2d(cin, exp, 1, bias=False), bn(exp), act())
        self.dw = nn.Sequential(nn.Conv2d(exp, exp, 3, stride, 1, groups=exp, bias=False), bn(exp), act())
        self.se = SqueezeExcite(exp, 8) if se else nn.Identity()
        self.project = nn.Sequential(nn.Conv2d(exp, cout, 1, bias=False), bn(cout))
        self.residual = stride == 1 and cin == cout

    def forward(self, x):
        y = self.project(self.se(self.dw(self.expand(x))))
        return x + y if self.residual else y


class MobileNetV3(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1, bias=False), bn(8), nn.Hardswish())
        self.blocks = nn.Sequential(
            InvertedResidual(8, 16, 8, 2, nn.ReLU, True),
            InvertedResidual(8, 24, 8, 1, nn.Hardswish, True),
            InvertedResidual(8, 24, 12, 2, nn.Hardswish, False),
        )
        self.last = nn.Sequential(nn.Conv2d(12, 32, 1, bias=False), bn(32), nn.Hardswish())
        self.avg = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Sequential(nn.Linear(32, 24), nn.Hardswish(), nn.Dropout(0.2), nn.Linear(24, 10))

    def forward(self, x):
        x = self.avg(self.last(self.blocks(self.stem(x))))
        return self.classifier(torch.flatten(x, 1))


class Fire(nn.Module):
    def __init__(self, cin, s, e1, e3):
        super().__init__()
        self.squeeze = nn.Conv2d(cin, s, 1)
        self.e1 = nn.Conv2d(s, e1, 1)
        self.e3 = nn.Conv2d(s, e3, 3, padding=1)

    def forward(self, x):
        x = F.relu(self.squeeze(x))
        return torch.cat([F.relu(self.e1(x)), F.relu(self.e3(x))], 1)


class SqueezeNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, 2),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(3, 2, ceil_mode=True),
            Fire(16, 4, 8, 8),
            Fire(16, 4, 8, 8),
            nn.MaxPool2d(3, 2, ceil_mode=True),
            Fire(16, 8, 16, 16),
        )
        self.classifier = nn.Sequential(
            nn.Dropout(0.5), nn.Conv2d(32, 10, 1), nn.ReLU(inplace=True), nn.AdaptiveAvgPool2d(1)
        )

    def forward(self, x):
        return torch.flatten(self.classifier(self.features(x)), 1)


class ViT(nn.Module):
    def __init__(self, d=32, layers=4):
        super().__init__()
        self.patch = nn.Conv2d(3, d, 4, 4)
        self.cls = nn.Parameter(torch.zeros(1, 1, d))
        self.pos = nn.Parameter(torch.zeros(1, 17, d))
        layer = nn.TransformerEncoderLayer(d, 4, 64, dropout=0.0, batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, 10)

    def forward(self, x):
        x = self.patch(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], 1) + self.pos
        x = self.norm(self.encoder(x))
        return self.head(x[:, 0])


class CausalSelfAttention(nn.Module):
    def __init__(self, d, heads, block):
        super().__init__()
        self.c_attn = nn.Linear(d, 3 * d)
        self.c_proj = nn.Linear(d, d)
        self.heads = heads
        self.register_buffer("bias", torch.tril(torch.ones(block, block)).view(1, 1, block, block))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(C, dim=2)
        k = k.view(B, T, self.heads, C // self.heads).transpose(1, 2)
        q = q.view(B, T, self.heads, C // self.heads).transpose(1, 2)
        v = v.view(B, T, self.heads, C // self.heads).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / (k.size(-1) ** 0.5))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)


class Block(nn.Module):
    def __init__(self, d, heads, block):
        super().__init__()
        self.ln_1 = nn.LayerNorm(d)
        self.attn = CausalSelfAttention(d, heads, block)
        self.ln_2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, vocab=64, block=16, d=32, heads=4, layers=2):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(block, d)
        self.h = nn.ModuleList([Block(d, heads, block) for _ in range(layers)])
        self.ln_f = nn.LayerNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)
        self.wte.weight = self.lm_head.weight

    def forward(self, idx):
        t = idx.size(1)
        pos = torch.arange(0, t, dtype=torch.long)
        x = self.wte(idx) + self.wpe(pos)
        for b in self.h:
            x = b(x)
        return self.lm_head(self.ln_f(x))


class LSTMClassifier(nn.Module):
    def __init__(self, vocab=50, d=16, hidden=12, classes=5):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.lstm = nn.LSTM(d, hidden, num_layers=2, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(2 * hidden, classes)

    def forward(self, ids):
        out, (h, c) = self.lstm(self.emb(ids))
        return self.fc(out[:, -1])


def double_conv(cin, cout):
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, padding=1, bias=False), bn(cout), nn.ReLU(inplace=True),
        nn.Conv2d(cout, cout, 3, padding=1, bias=False), bn(cout), nn.ReLU(inplace=True),
    )


class UNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc1 = double_conv(3, 8)
        self.enc2 = double_conv(8, 16)
        self.mid = double_conv(16, 32)
        self.up2 = nn.ConvTranspose2d(32, 16, 2, stride=2)
        self.dec2 = double_conv(32, 16)
        self.reduce = nn.Conv2d(16, 8, 1)
        self.dec1 = double_conv(16, 8)
        self.out = nn.Conv2d(8, 2, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(F.max_pool2d(e1, 2))
        m = self.mid(F.max_pool2d(e2, 2))
        d2 = self.dec2(torch.cat([self.up2(m), e2], 1))
        u1 = F.interpolate(self.reduce(d2), scale_factor=2, mode="bilinear", align_corners=False)
        return self.out(self.dec1(torch.cat([u1, e1], 1)))


def image(seed, shape):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def tokens(seed, shape, vocab):
    return torch.randint(0, vocab, shape, generator=torch.Generator().manual_seed(seed))


# name -> (constructor, inputs, input names, output names)
MODELS = {
    "resnet": (ResNet, lambda: (image(1, (1, 3, 64, 64)),), ["input"], ["logits"]),
    "mobilenet_v3": (MobileNetV3, lambda: (image(2, (1, 3, 64, 64)),), ["input"], ["logits"]),
    "squeezenet": (SqueezeNet, lambda: (image(3, (1, 3, 64, 64)),), ["input"], ["logits"]),
    "vit": (ViT, lambda: (image(4, (1, 3, 16, 16)),), ["pixels"], ["logits"]),
    "gpt": (GPT, lambda: (tokens(5, (1, 12), 64),), ["idx"], ["logits"]),
    "lstm": (LSTMClassifier, lambda: (tokens(6, (2, 7), 50),), ["ids"], ["logits"]),
    "unet": (UNet, lambda: (image(7, (1, 3, 32, 32)),), ["image"], ["mask"]),
}


def randomize(model, seed):
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.randn(p.shape, generator=g) * (1.0 / max(1, p[0].numel()) ** 0.5))
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.running_mean.copy_(torch.randn(m.num_features, generator=g) * 0.1)
                m.running_var.copy_(torch.rand(m.num_features, generator=g) + 0.5)


def export(model, args, path, names, outputs, exporter):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if exporter == "classic":
            torch.onnx.export(model, args, path, opset_version=17, dynamo=False,
                              input_names=names, output_names=outputs)
        else:
            prog = torch.onnx.export(model, args, dynamo=True, opset_version=18,
                                     input_names=names, output_names=outputs, verbose=False)
            prog.save(path, external_data=True)


def main():
    assert onnx.__version__ == "1.22.0", onnx.__version__
    torch.manual_seed(0)
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    listing = []
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    for name, (make, inputs, in_names, out_names) in MODELS.items():
        for init in ["default", "random"]:
            torch.manual_seed(sum(map(ord, name)))
            model = make().eval()
            if init == "random":
                randomize(model, sum(map(ord, name)) + 1)
            args = inputs()
            for exporter in ["classic", "dynamo"]:
                variant = f"{name}_{exporter}_{init}"
                d = os.path.join(OUT, variant)
                os.makedirs(d)
                path = os.path.join(d, "model.onnx")
                export(model, args, path, in_names, out_names, exporter)
                sess = ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])
                feeds = {i.name: a.numpy() for i, a in zip(sess.get_inputs(), args)}
                outs = sess.run(None, feeds)
                with torch.no_grad():
                    want = model(*args)
                err = float(np.abs(outs[0] - want.numpy()).max())
                assert err < 1e-4, f"{variant}: onnxruntime and PyTorch differ by {err}"
                for i, (k, v) in enumerate(feeds.items()):
                    np.save(os.path.join(d, f"input_{i}.npy"), v)
                for i, v in enumerate(outs):
                    np.save(os.path.join(d, f"output_{i}.npy"), v)
                m = onnx.load(path, load_external_data=False)
                ops = sorted({n.op_type for n in m.graph.node})
                external = os.path.exists(path + ".data")
                listing.append({"name": variant, "model": name, "exporter": exporter, "init": init,
                                "opset": m.opset_import[0].version, "inputs": list(feeds),
                                "outputs": [o.name for o in sess.get_outputs()], "ops": ops,
                                "external_data": external})
                print(f"{variant}: {len(m.graph.node)} nodes, ops {ops}", file=sys.stderr)
    with open(os.path.join(OUT, "models.json"), "w") as f:
        json.dump({"torch": torch.__version__, "onnx": onnx.__version__, "onnxruntime": ort.__version__,
                   "models": listing}, f, indent=1)
        f.write("\n")
    total = sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(OUT) for f in fs)
    print(f"{len(listing)} models, {total} bytes", file=sys.stderr)


if __name__ == "__main__":
    main()
