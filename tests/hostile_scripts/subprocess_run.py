# Tries to start a process.
import subprocess

subprocess.run(["touch", "/tmp/equimorph-hostile-subprocess"])
