# Allocates without bound.
hoard = []
while True:
    hoard.append(bytearray(8 << 20))
