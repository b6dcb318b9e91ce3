import torch
x = torch.arange(4096.).reshape(64, 64)
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[3::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[11::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[19::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[27::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[35::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[43::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[51::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[59::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[67::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[75::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[83::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[91::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[99::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[7::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[15::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[23::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[31::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[39::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[47::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[55::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[63::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[71::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[79::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[87::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[95::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[3::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[11::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[19::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[27::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[35::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[43::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[51::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[59::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[67::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[75::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[83::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[91::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[99::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[7::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[15::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[23::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[31::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[39::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[47::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[55::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[63::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[71::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[79::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[87::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[95::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[3::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[11::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[19::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[27::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[35::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[43::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[51::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[59::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[67::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[75::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[83::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[91::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[99::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[7::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[15::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[23::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[31::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[39::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[47::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[55::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[63::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[71::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[79::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[87::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[95::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[3::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[11::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[19::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[27::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[35::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[43::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[51::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[59::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[67::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[75::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[83::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[91::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[99::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[7::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[15::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[23::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[31::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[39::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[47::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[55::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[63::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[71::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[79::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[87::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[95::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[3::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[11::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[19::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[27::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[35::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[43::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[51::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[59::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[67::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[75::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[83::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[91::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[99::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[7::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[15::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[23::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[31::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[39::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[47::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[55::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[63::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[71::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[79::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[87::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[95::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[3::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[11::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[19::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[27::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[35::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[43::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[51::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[59::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[67::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[75::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[83::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[91::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[99::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[7::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[15::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[23::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[31::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[39::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[47::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[55::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[63::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[71::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[79::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[87::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[95::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[3::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[11::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[19::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[27::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[35::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[43::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[51::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[59::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[67::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[75::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[83::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[91::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[99::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[7::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[15::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[23::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[31::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[39::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[47::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[55::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[63::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[71::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[79::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[87::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[95::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[3::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[11::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[19::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[27::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[35::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[43::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[51::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[59::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[67::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[75::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[83::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[91::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[99::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[7::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[15::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[23::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[31::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[39::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[47::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[55::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[63::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[71::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[79::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[87::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[95::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[3::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[11::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[19::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[27::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[35::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[43::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[51::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[59::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[67::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[75::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[83::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[91::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[99::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[7::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[15::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[23::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[31::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[39::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[47::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[55::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[63::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[71::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[79::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[87::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[95::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[3::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[11::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[19::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[27::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[35::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[43::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[51::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[59::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[67::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[75::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[83::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[91::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[99::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[7::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[15::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[23::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[31::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[39::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[47::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[55::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[63::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[71::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[79::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[87::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[95::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[3::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[11::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[19::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[27::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[35::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[43::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[51::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[59::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[67::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[75::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[83::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[91::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[99::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[7::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[15::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[23::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[31::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[39::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[47::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[55::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[63::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[71::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[79::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[87::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[95::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[3::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[11::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[19::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[27::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[35::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[43::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[51::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[59::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[67::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[75::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[83::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[91::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[99::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[7::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[15::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[23::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[31::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[39::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[47::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[55::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[63::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[71::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[79::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[87::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[95::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[3::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[11::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[19::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[27::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[35::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[43::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[51::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[59::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[67::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[75::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[83::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[91::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[99::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[7::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[15::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[23::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[31::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[39::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[47::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[55::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[63::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[71::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[79::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[87::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[95::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[3::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[11::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[19::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[27::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[35::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[43::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[51::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[59::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[67::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[75::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[83::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[91::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[99::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[7::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[15::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[23::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[31::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[39::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[47::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[55::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[63::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[71::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[79::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[87::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[95::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[3::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[11::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[19::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[27::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[35::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[43::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[51::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[59::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[67::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[75::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[83::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[91::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[99::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[7::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[15::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[23::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[31::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[39::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[47::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[55::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[63::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[71::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[79::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[87::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[95::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[3::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[11::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[19::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[27::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[35::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[43::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[51::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[59::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[67::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[75::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[83::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[91::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[99::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[7::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[15::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[23::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[31::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[39::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[47::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[55::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[63::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[71::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[79::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[87::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[95::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[3::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[11::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[19::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[27::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[35::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[43::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[51::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[59::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[67::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[75::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[83::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[91::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[99::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[7::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[15::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[23::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[31::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[39::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[47::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[55::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[63::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[71::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[79::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[87::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[95::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[3::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[11::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[19::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[27::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[35::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[43::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[51::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[59::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[67::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[75::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[83::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[91::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[99::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[7::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[15::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[23::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[31::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[39::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[47::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[55::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[63::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[71::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[79::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[87::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[95::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[3::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[11::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[19::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[27::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[35::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[43::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[51::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[59::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[67::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[75::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[83::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[91::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[99::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[7::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[15::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[23::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[31::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[39::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[47::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[55::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[63::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[71::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[79::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[87::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[95::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[3::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[11::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[19::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[27::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[35::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[43::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[51::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[59::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[67::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[75::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[83::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[91::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[99::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[7::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[15::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[23::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[31::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[39::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[47::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[55::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[63::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[71::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[79::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[87::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[95::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[3::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[11::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[19::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[27::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[35::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[43::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[51::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[59::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[67::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[75::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[83::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[91::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[99::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[7::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[15::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[23::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[31::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[39::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[47::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[55::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[63::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[71::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[79::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[87::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[95::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[3::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[11::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[19::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[27::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[35::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[43::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[51::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[59::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[67::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[75::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[83::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[91::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[99::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[7::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[15::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[23::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[31::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[39::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[47::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[55::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[63::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[71::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[79::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[87::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[95::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[3::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[11::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[19::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[27::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[35::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[43::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[51::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[59::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[67::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[75::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[83::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[91::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[99::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[7::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[15::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[23::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[31::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[39::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[47::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[55::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[63::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[71::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[79::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[87::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[95::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[3::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[11::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[19::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[27::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[35::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[43::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[51::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[59::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[67::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[75::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[83::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[91::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[99::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[7::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[15::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[23::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[31::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[39::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[47::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[55::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[63::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[71::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[79::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[87::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[95::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[3::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[11::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[19::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[27::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[35::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[43::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[51::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[59::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[67::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[75::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[83::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[91::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[99::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[7::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[15::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[23::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[31::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[39::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[47::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[55::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[63::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[71::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[79::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[87::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[95::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[3::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[11::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[19::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[27::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[35::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[43::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[51::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[59::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[67::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[75::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[83::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[91::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[99::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[7::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[15::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[23::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[31::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[39::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[47::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[55::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[63::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[71::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[79::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[87::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[95::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[3::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[11::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[19::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[27::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[35::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[43::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[51::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[59::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[67::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[75::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[83::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[91::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[99::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[7::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[15::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[23::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[31::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[39::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[47::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[55::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[63::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[71::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[79::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[87::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[95::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[3::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[11::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[19::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[27::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[35::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[43::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[51::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[59::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[67::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[75::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[83::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[91::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[99::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[7::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[15::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[23::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[31::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[39::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[47::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[55::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[63::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[71::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[79::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[87::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[95::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[3::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[11::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[19::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[27::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[35::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[43::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[51::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[59::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[67::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[75::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[83::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[91::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[99::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[7::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[15::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[23::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[31::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[39::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[47::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[55::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[63::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[71::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[79::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[87::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[95::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[3::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[11::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[19::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[27::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[35::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[43::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[51::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[59::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[67::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[75::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[83::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[91::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[99::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[7::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[15::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[23::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[31::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[39::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[47::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[55::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[63::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[71::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[79::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[87::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[95::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[3::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[11::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[19::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[27::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[35::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[43::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[51::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[59::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[67::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[75::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[83::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[91::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[99::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[7::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[15::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[23::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[31::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[39::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[47::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[55::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[63::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[71::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[79::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[87::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[95::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[3::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[11::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[19::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[27::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[35::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[43::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[51::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[59::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[67::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[75::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[83::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[91::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[99::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[7::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[15::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[23::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[31::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[39::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[47::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[55::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[63::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[71::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[79::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[87::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[95::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[3::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[11::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[19::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[27::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[35::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[43::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[51::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[59::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[67::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[75::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[83::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[91::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[99::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[7::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[15::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[23::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[31::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[39::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[47::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[55::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[63::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[71::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[79::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[87::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[95::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[3::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[11::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[19::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[27::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[35::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[43::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[51::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[59::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[67::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[75::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[83::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[91::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[99::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[7::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[15::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[23::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[31::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[39::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[47::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[55::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[63::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[71::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[79::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[87::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[95::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[3::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[11::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[19::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[27::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[35::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[43::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[51::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[59::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[67::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[75::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[83::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[91::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[99::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[7::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[15::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[23::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[31::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[39::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[47::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[55::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[63::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[71::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[79::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[87::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[95::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[3::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[11::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[19::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[27::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[35::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[43::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[51::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[59::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[67::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[75::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[83::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[91::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[99::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[7::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[15::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[23::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[31::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[39::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[47::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[55::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[63::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[71::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[79::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[87::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[95::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[3::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[11::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[19::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[27::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[35::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[43::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[51::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[59::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[67::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[75::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[83::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[91::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[99::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[7::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[15::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[23::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[31::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[39::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[47::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[55::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[63::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[71::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[79::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[87::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[95::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[3::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[11::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[19::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[27::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[35::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[43::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[51::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[59::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[67::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[75::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[83::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[91::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[99::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[7::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[15::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[23::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[31::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[39::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[47::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[55::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[63::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[71::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[79::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[87::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[95::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[3::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[11::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[19::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[27::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[35::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[43::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[51::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[59::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[67::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[75::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[83::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[91::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[99::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[7::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[15::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[23::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[31::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[39::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[47::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[55::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[63::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[71::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[79::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[87::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[95::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[3::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[11::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[19::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[27::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[35::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[43::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[51::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[59::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[67::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[75::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[83::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[91::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[99::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[7::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[15::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[23::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[31::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[39::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[47::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[55::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[63::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[71::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[79::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[87::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[95::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[3::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[11::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[19::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[27::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[35::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[43::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[51::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[59::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[67::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[75::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[83::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[91::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[99::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[7::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[15::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[23::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[31::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[39::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[47::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[55::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[63::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[71::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[79::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[87::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[95::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[3::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[11::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[19::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[27::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[35::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[43::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[51::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[59::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[67::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[75::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[83::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[91::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[99::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[7::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[15::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[23::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[31::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[39::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[47::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[55::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[63::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[71::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[79::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[87::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[95::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[3::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[11::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[19::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[27::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[35::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[43::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[51::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[59::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[67::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[75::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[83::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[91::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[99::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[7::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[15::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[23::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[31::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[39::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[47::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[55::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[63::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[71::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[79::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[87::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[95::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[3::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[11::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[19::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[27::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[35::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[43::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[51::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[59::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[67::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[75::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[83::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[91::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[99::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[7::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[15::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[23::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[31::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[39::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[47::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[55::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[63::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[71::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[79::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[87::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[95::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[3::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[11::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[19::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[27::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[35::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[43::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[51::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[59::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[67::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[75::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[83::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[91::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[99::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[7::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[15::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[23::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[31::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[39::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[47::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[55::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[63::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[71::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[79::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[87::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[95::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[3::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[11::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[19::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[27::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[35::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[43::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[51::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[59::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[67::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[75::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[83::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[91::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[99::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[7::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[15::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[23::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[31::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[39::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[47::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[55::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[63::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[71::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[79::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[87::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[95::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[3::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[11::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[19::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[27::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[35::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[43::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[51::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[59::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[67::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[75::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[83::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[91::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[99::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[7::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[15::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[23::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[31::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[39::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[47::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[55::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[63::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[71::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[79::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[87::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[95::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[3::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[11::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[19::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[27::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[35::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[43::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[51::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[59::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[67::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[75::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[83::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[91::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[99::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[7::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[15::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[23::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[31::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[39::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[47::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[55::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[63::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[71::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[79::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[87::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[95::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[3::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[11::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[19::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[27::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[35::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[43::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[51::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[59::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[67::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[75::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[83::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[91::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[99::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[7::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[15::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[23::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[31::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[39::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[47::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[55::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[63::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[71::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[79::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[87::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[95::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[3::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[11::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[19::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[27::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[35::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[43::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[51::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[59::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[67::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[75::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[40:44, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[83::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[48:52, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[91::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[56:60, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[99::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[4:8, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[7::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[12:16, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[15::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[20:24, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[23::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[28:32, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[31::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[36:40, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[39::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[44:48, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[47::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[52:56, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[55::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[0:4, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[63::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[8:12, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[71::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[16:20, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[79::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[24:28, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[87::7]
r.mul_(0.5)
d = x.diagonal()
u = x.unflatten(1, (8, 8))[:, 6]
u.sub_(d[:8])
v = x[32:36, ::2]
v.add_(1)
t = x.t()
r = t.reshape(-1)[95::7]
r.mul_(0.5)
print(x.sum().item())
