# Never returns.
while True:
    pass
