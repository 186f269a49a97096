# Prints 200 MB.
import sys

chunk = "x" * (1 << 20)
for _ in range(200):
    sys.stdout.write(chunk)
