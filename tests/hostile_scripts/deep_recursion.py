# Unbounded recursion with Python's own guard lifted.
import sys

sys.setrecursionlimit(10**9)


def down(n):
    return down(n + 1) + 1


down(0)
