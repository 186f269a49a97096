# Tries to fork.
import os

os.fork()
