# Tries to reach native code.
import ctypes

ctypes.CDLL(None).system(b"touch /tmp/equimorph-hostile-ctypes")
