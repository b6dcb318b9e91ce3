keys = list(range(10**6))
for i in range(1000):
    x = i
