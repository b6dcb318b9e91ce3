#!/usr/bin/env python3
"""Export single layers and functions the way people export them, with onnxruntime's outputs.

Each case is one PyTorch module or function (an activation, a norm, a recurrent layer, an index
op, a resize, ...) exported by the classic exporter (`dynamo=False`, opset 17) and by the default
one (`dynamo=True`, opset 18, weights in `model.onnx.data`). Beside each model: `x.npy` (its seeded
input) and `y.npy` (onnxruntime's output, one thread); `layers.json` lists the cases, and the
cases an exporter itself cannot export with why. Together with `make_export_models.py` this is
the breadth check for what `torch.onnx.export` writes.

    /work/venv/bin/python tools/models/make_export_layers.py
"""
import json
import os
import re
import shutil
import sys
import warnings

import numpy as np
import onnx
import onnxruntime as ort
import torch
import torch.nn as nn
import torch.nn.functional as F

warnings.simplefilter("ignore")


class L(nn.Module):
    def __init__(s, f, mods=None):
        super().__init__(); s.f=f; s.m=nn.ModuleList(mods or [])
    def forward(s, x): return s.f(s, x)
img=lambda: torch.randn(1,4,8,8)
seq=lambda: torch.randn(2,5,6)
ids=lambda: torch.randint(0,10,(2,5))
cases = {
 "prelu": (L(lambda s,x: s.m[0](x), [nn.PReLU(4)]), img),
 "selu": (L(lambda s,x: F.selu(x)), img),
 "celu": (L(lambda s,x: F.celu(x)), img),
 "mish": (L(lambda s,x: F.mish(x)), img),
 "silu": (L(lambda s,x: F.silu(x)), img),
 "gelu_tanh": (L(lambda s,x: F.gelu(x, approximate='tanh')), img),
 "relu6": (L(lambda s,x: F.relu6(x)), img),
 "hardtanh": (L(lambda s,x: F.hardtanh(x, -0.5, 0.5)), img),
 "softplus": (L(lambda s,x: F.softplus(x)), img),
 "pixel_shuffle": (L(lambda s,x: F.pixel_shuffle(x, 2)), img),
 "pixel_unshuffle": (L(lambda s,x: F.pixel_unshuffle(x, 2)), img),
 "upsample_nearest": (L(lambda s,x: F.interpolate(x, scale_factor=2, mode='nearest')), img),
 "upsample_bilinear_ac": (L(lambda s,x: F.interpolate(x, size=(13,11), mode='bilinear', align_corners=True)), img),
 "adaptive_avg": (L(lambda s,x: F.adaptive_avg_pool2d(x, (4,4))), img),
 "adaptive_max": (L(lambda s,x: F.adaptive_max_pool2d(x, (1,1))), img),
 "pad_reflect": (L(lambda s,x: F.pad(x, (1,2,3,1), mode='reflect')), img),
 "pad_replicate": (L(lambda s,x: F.pad(x, (1,2,3,1), mode='replicate')), img),
 "instnorm": (L(lambda s,x: s.m[0](x), [nn.InstanceNorm2d(4, affine=True)]), img),
 "groupnorm": (L(lambda s,x: s.m[0](x), [nn.GroupNorm(2, 4)]), img),
 "bn1d": (L(lambda s,x: s.m[0](x), [nn.BatchNorm1d(5)]), seq),
 "conv1d": (L(lambda s,x: s.m[0](x), [nn.Conv1d(5, 3, 3, padding=1)]), seq),
 "convT1d": (L(lambda s,x: s.m[0](x), [nn.ConvTranspose1d(5, 3, 3, stride=2, padding=1, output_padding=1)]), seq),
 "maxpool1d": (L(lambda s,x: F.max_pool1d(x, 2)), seq),
 "gru": (L(lambda s,x: s.m[0](x)[0], [nn.GRU(6, 4, batch_first=True, bidirectional=True)]), seq),
 "rnn": (L(lambda s,x: s.m[0](x)[0], [nn.RNN(6, 4, num_layers=2, batch_first=True)]), seq),
 "mha": (L(lambda s,x: s.m[0](x, x, x)[0], [nn.MultiheadAttention(6, 2, batch_first=True)]), seq),
 "sdpa_causal": (L(lambda s,x: F.scaled_dot_product_attention(x, x, x, is_causal=True)), seq),
 "logsumexp": (L(lambda s,x: torch.logsumexp(x, dim=-1)), seq),
 "norm": (L(lambda s,x: F.normalize(x, dim=-1)), seq),
 "var": (L(lambda s,x: x.var(dim=-1, keepdim=True)), seq),
 "std": (L(lambda s,x: x.std(dim=1)), seq),
 "max_dim": (L(lambda s,x: torch.max(x, dim=1)[0] + torch.max(x, dim=1)[1].float()), seq),
 "argmax": (L(lambda s,x: x.argmax(-1).float()), seq),
 "cumsum": (L(lambda s,x: torch.cumsum(x, 1)), seq),
 "sort": (L(lambda s,x: torch.sort(x, dim=-1)[0]), seq),
 "topk": (L(lambda s,x: torch.topk(x, 3, dim=-1)[0]), seq),
 "gather": (L(lambda s,x: torch.gather(x, 2, torch.tensor([[[0,2],[1,1],[3,0],[5,4],[2,2]]]*2))), seq),
 "scatter": (L(lambda s,x: torch.zeros(2,5,6).scatter(2, torch.tensor([[[0,2],[1,1],[3,0],[5,4],[2,2]]]*2), x[:, :, :2])), seq),
 "index_put": (L(lambda s,x: x.index_put((torch.tensor([0,1]),), torch.ones(5,6))), seq),
 "masked_fill": (L(lambda s,x: x.masked_fill(x > 0.5, 0.0)), seq),
 "where": (L(lambda s,x: torch.where(x > 0, x, x * 0.1)), seq),
 "clamp": (L(lambda s,x: x.clamp(min=-0.3)), seq),
 "sincos": (L(lambda s,x: torch.sin(x) * torch.cos(x) + torch.atan(x) + torch.tan(x*0.1)), seq),
 "isnan": (L(lambda s,x: torch.isnan(x).float() + torch.isinf(x).float()), seq),
 "onehot": (L(lambda s,x: F.one_hot(x, 10).float()), ids),
 "embedding_bag": (L(lambda s,x: s.m[0](x), [nn.Embedding(10, 3)]), ids),
 "stack_chunk": (L(lambda s,x: torch.stack(x.chunk(2, dim=-1), 0)), seq),
 "repeat": (L(lambda s,x: x.repeat(1, 2, 1)), seq),
 "flip": (L(lambda s,x: x.flip(-1)), seq),
 "roll": (L(lambda s,x: x.roll(1, -1)), seq),
 "tril": (L(lambda s,x: torch.tril(x)), seq),
 "einsum": (L(lambda s,x: torch.einsum('bij,bkj->bik', x, x)), seq),
 "bmm": (L(lambda s,x: torch.bmm(x, x.transpose(1, 2))), seq),
 "layernorm_noaffine": (L(lambda s,x: F.layer_norm(x, (6,))), seq),
 "log_softmax": (L(lambda s,x: F.log_softmax(x, -1)), seq),
 "nonzero_sum": (L(lambda s,x: (x > 0).sum(-1).float()), seq),
 "mean_all": (L(lambda s,x: x.mean()), seq),
 "unfold": (L(lambda s,x: F.unfold(x, 3)), img),
 "avgpool_ceil": (L(lambda s,x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False)), img),
 "expand_as": (L(lambda s,x: x[:, :1].expand(-1, 5, -1) + x), seq),
 "float_int": (L(lambda s,x: (x * 10).long().float() / 10), seq),
 "square_pow": (L(lambda s,x: x.pow(3) + x ** 0.5 * 0), seq),
 "erfc_rsqrt": (L(lambda s,x: torch.rsqrt(x.abs() + 1) + torch.exp(x) + torch.log1p(x.abs())), seq),
 "floor_div": (L(lambda s,x: torch.floor_divide(x, 0.3) + torch.remainder(x, 0.3)), seq),
 "sign_round": (L(lambda s,x: torch.sign(x) + torch.round(x * 3) + torch.ceil(x) + torch.floor(x)), seq),
 "min_max": (L(lambda s,x: torch.minimum(x, x.flip(0)) + torch.maximum(x, torch.zeros(1))), seq),
}
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "data", "models", "layers")


def main():
    assert onnx.__version__ == "1.22.0", onnx.__version__
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    listing, failed = [], {}
    for name, (mod, mk) in cases.items():
        mod.eval()
        torch.manual_seed(sum(map(ord, name)))
        x = mk()
        for exp in ["classic", "dynamo"]:
            case = f"{name}_{exp}"
            d = os.path.join(OUT, case)
            os.makedirs(d)
            p = os.path.join(d, "model.onnx")
            try:
                if exp == "classic":
                    torch.onnx.export(mod, (x,), p, opset_version=17, dynamo=False, input_names=["x"], output_names=["y"])
                else:
                    prog = torch.onnx.export(mod, (x,), dynamo=True, opset_version=18, input_names=["x"], output_names=["y"])
                    prog.save(p, external_data=True)
                sess = ort.InferenceSession(p, opts, providers=["CPUExecutionProvider"])
                y = sess.run(None, {"x": x.numpy()})[0]
            except Exception as e:  # the exporter (or onnxruntime on its output) refuses the case
                shutil.rmtree(d)
                failed[case] = re.sub(r"\x1b\[[0-9;]*m", "", str(e)).strip().splitlines()[0][:200]
                continue
            np.save(os.path.join(d, "x.npy"), x.numpy())
            np.save(os.path.join(d, "y.npy"), y)
            ops = sorted({n.op_type for n in onnx.load(p, load_external_data=False).graph.node})
            listing.append({"name": case, "ops": ops})
    with open(os.path.join(OUT, "layers.json"), "w") as f:
        json.dump({"torch": torch.__version__, "onnxruntime": ort.__version__, "cases": listing,
                   "export_failed": failed}, f, indent=1)
        f.write("\n")
    print(f"{len(listing)} cases, {len(failed)} not exportable", file=sys.stderr)


if __name__ == "__main__":
    main()
