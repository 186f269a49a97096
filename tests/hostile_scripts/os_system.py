# Tries to run a shell command.
import os

os.system("touch /tmp/equimorph-hostile-os-system")
print(open(0).read())
