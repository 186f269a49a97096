# Prints the environment, the arguments and the current directory instead of a program.
import os
import sys

print(repr(dict(os.environ)), sys.argv, os.getcwd() if hasattr(os, "getcwd") else "")
