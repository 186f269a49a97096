# Prints too much and swallows every exception raised at it.
import sys

try:
    while True:
        sys.stdout.write("y" * 65536)
except BaseException:
    pass
print("done")
