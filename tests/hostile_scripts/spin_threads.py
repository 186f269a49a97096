# Starts 64 threads that spin forever.
import threading


def spin():
    while True:
        pass


for _ in range(64):
    threading.Thread(target=spin, daemon=True).start()
print(open(0).read())
