# Tries to write a file outside any sandbox, then to read one.
with open("/tmp/equimorph-hostile-write", "w") as f:
    f.write("pwned")
print(open("/etc/passwd").read())
