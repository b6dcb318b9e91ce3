keys = list(range(10**6))
history = [keys] * 1000
for i in range(1000):
    history[i % 10].append(i)
    x = i
