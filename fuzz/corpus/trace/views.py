# Views share storage; copies do not.
a = arange(12.).reshape(3, 4)
b = a.t()[1:]
c = a.flip(0)
b += 100
d = a[None, :, ::2]
