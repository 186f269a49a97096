# equimorph fork server. It runs inside the sandbox and never runs user code itself: for each
# request it forks a child that runs the program in the pristine interpreter state left after
# start-up, so a test costs a fork instead of an interpreter start.
#
# Protocol on fds 0/1: frames of <u32 little-endian length><bytes>. Request: a JSON header
# {"timeout", "cap", "limits": {name: value}}, then the source, then stdin. Response: a JSON
# result {"status": exited|signaled|timeout|output_limit, "code", "signal", "seconds", "left"},
# then stdout, then the tail of stderr. "left" counts the processes the program left running
# when it exited (they are killed then).
import os, sys, struct, json, time, signal, select, resource, ctypes, shutil, tempfile
import builtins, io, types, traceback, atexit, threading, random

for _name in ("collections", "itertools", "functools", "math", "heapq", "bisect", "re", "string",
              "operator", "fractions", "decimal", "typing", "copy", "statistics", "dataclasses",
              "enum", "array", "textwrap", "json", "datetime", "queue", "sys", "io"):
    try:
        __import__(_name)
    except Exception:
        pass

WORK = sys.argv[1] if len(sys.argv) > 1 else "/tmp"
# Only inside the sandbox is /dev/shm private and safe to wipe.
SANDBOXED = len(sys.argv) > 2 and sys.argv[2] == "sandboxed"
STDERR_TAIL = 8192
LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER: orphans of a test become our children
LIMITS = {"as": resource.RLIMIT_AS, "cpu": resource.RLIMIT_CPU, "fsize": resource.RLIMIT_FSIZE,
          "core": resource.RLIMIT_CORE, "nproc": resource.RLIMIT_NPROC}


def read_exact(n):
    buf = bytearray()
    while len(buf) < n:
        chunk = os.read(0, n - len(buf))
        if not chunk:
            os._exit(0)
        buf.extend(chunk)
    return bytes(buf)


def read_frame():
    (n,) = struct.unpack("<I", read_exact(4))
    return read_exact(n)


def write_frame(data):
    view = memoryview(struct.pack("<I", len(data)) + data)
    while view:
        view = view[os.write(1, view):]


def exit_code_of(exc):
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    try:
        print(code, file=sys.stderr)
    except Exception:
        pass
    return 1


def child(header, prog, tmp, source, in_r, out_w, err_w):
    code = 1
    try:
        os.setsid()
        os.dup2(in_r, 0)
        os.dup2(out_w, 1)
        os.dup2(err_w, 2)
        os.closerange(3, 65536)
        os.chdir(tmp)
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        for name, value in header.get("limits", {}).items():
            resource.setrlimit(LIMITS[name], (value, value))
        random.seed()
        sys.stdin = io.TextIOWrapper(io.BufferedReader(io.FileIO(0, "r", closefd=False)),
                                     encoding="utf-8", errors="surrogateescape")
        sys.stdout = io.TextIOWrapper(io.BufferedWriter(io.FileIO(1, "w", closefd=False)),
                                      encoding="utf-8", errors="surrogateescape")
        sys.stderr = io.TextIOWrapper(io.BufferedWriter(io.FileIO(2, "w", closefd=False)),
                                      encoding="utf-8", errors="backslashreplace", line_buffering=True)
        sys.__stdin__, sys.__stdout__, sys.__stderr__ = sys.stdin, sys.stdout, sys.stderr
        sys.argv = [prog]
        main = types.ModuleType("__main__")
        main.__file__ = prog
        main.__builtins__ = builtins
        sys.modules["__main__"] = main
        exec(compile(source, prog, "exec"), main.__dict__)
        code = 0
    except SystemExit as e:
        code = exit_code_of(e)
    except BaseException:
        try:
            sys.excepthook(*sys.exc_info())
        except BaseException:
            pass
        code = 1
    try:
        atexit._run_exitfuncs()
        threading._shutdown()
    except BaseException:
        pass
    try:
        sys.stdout.flush()
    except BaseException:
        code = 120
    try:
        sys.stderr.flush()
    except BaseException:
        pass
    os._exit(code)


def run_processes(pgid):
    """Live processes (zombies aside) of process group `pgid`, or adopted by us (we are their
    subreaper): what a run left behind. Read from /proc, which inside the sandbox holds only the
    sandbox's processes; /proc/self/task/*/children is not reliable while processes fork."""
    me = os.getpid()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == me:
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            state, ppid, pgrp = fields[0], int(fields[1]), int(fields[2])
        except (OSError, IndexError, ValueError):
            continue
        if state != "Z" and (pgrp == pgid or ppid == me):
            found.append(int(entry))
    return found


def reap():
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def kill_all_descendants(pgid):
    """Kills every process the run left (its process group, and whatever we adopted: daemons
    that left the group), until none is left: a fork bomb must not outlive its run."""
    for _ in range(5000):
        try:
            os.killpg(pgid, signal.SIGKILL)
        except OSError:
            pass
        left = run_processes(pgid)
        if not left:
            reap()
            return
        for k in left:
            for fn in (os.killpg, os.kill):
                try:
                    fn(k, signal.SIGKILL)
                except OSError:
                    pass
        time.sleep(0.0005)
        reap()


def wipe(path):
    try:
        for entry in os.listdir(path):
            p = os.path.join(path, entry)
            if os.path.isdir(p) and not os.path.islink(p):
                shutil.rmtree(p, ignore_errors=True)
            else:
                try:
                    os.unlink(p)
                except OSError:
                    pass
    except OSError:
        pass


def run_one(header, source, stdin, wake_r):
    tmp = tempfile.mkdtemp(prefix="run-", dir=WORK)
    os.chmod(tmp, 0o700)
    prog = os.path.join(tmp, "prog.py")
    with open(prog, "wb") as f:
        f.write(source)
    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:
        child(header, prog, tmp, source.decode("utf-8", "surrogateescape"), in_r, out_w, err_w)
    os.close(in_r)
    os.close(out_w)
    os.close(err_w)
    deadline = start + float(header["timeout"])
    cap = int(header["cap"])
    out, err = bytearray(), bytearray()
    bufs = {out_r: out, err_r: err}
    pending = memoryview(stdin)
    if pending:
        os.set_blocking(in_w, False)
    else:
        os.close(in_w)
        in_w = None
    status, wait_status, end = None, None, None
    total = 0
    while True:
        if wait_status is None:
            wpid, st = os.waitpid(pid, os.WNOHANG)
            if wpid:
                wait_status, end = st, time.monotonic()
        if wait_status is not None and not bufs:
            break
        now = time.monotonic()
        if now >= deadline:
            status = "timeout"
            break
        if wait_status is not None:
            # The program ended; a descendant may still hold its pipes: take what is there.
            ready, _, _ = select.select(list(bufs), [], [], 0)
            if not ready:
                break
            wlist = []
        else:
            wlist = [in_w] if in_w is not None else []
            ready, writable, _ = select.select(list(bufs) + [wake_r], wlist, [], deadline - now)
            if wake_r in ready:
                try:
                    os.read(wake_r, 4096)
                except BlockingIOError:
                    pass
                ready.remove(wake_r)
            if in_w is not None and writable:
                try:
                    pending = pending[os.write(in_w, pending[:65536]):]
                except BlockingIOError:
                    pass
                except BrokenPipeError:
                    pending = pending[:0]
                if not pending:
                    os.close(in_w)
                    in_w = None
        for fd in ready:
            data = os.read(fd, 65536)
            if not data:
                os.close(fd)
                del bufs[fd]
                continue
            total += len(data)
            if fd == err_r and len(err) + len(data) > STDERR_TAIL:
                err[:] = (err + data)[-STDERR_TAIL:]
            else:
                bufs[fd].extend(data)
        if total > cap:
            status = "output_limit"
            break
    if wait_status is None:
        try:
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            pass
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
        _, wait_status = os.waitpid(pid, 0)
        end = time.monotonic()
    # Count what the program left running (its group, and the orphans we adopted), so a
    # program that leaves processes behind does not pass for one that does not; then kill them.
    # (kill_all_descendants leaves nothing of a run behind, so all of it is this run's.)
    left = len(run_processes(pid)) if status is None else None
    if left == 0:
        reap()
    else:
        kill_all_descendants(pid)
    for fd in list(bufs) + ([in_w] if in_w is not None else []):
        try:
            os.close(fd)
        except OSError:
            pass
    wipe(WORK)
    if SANDBOXED:
        wipe("/dev/shm")
    result = {"status": status, "code": None, "signal": None, "seconds": end - start,
              "left": left or 0}
    if status is None:
        if os.WIFEXITED(wait_status):
            result.update(status="exited", code=os.WEXITSTATUS(wait_status))
        else:
            result.update(status="signaled", signal=os.WTERMSIG(wait_status))
    return result, bytes(out[:cap]), bytes(err)


def main():
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.set_wakeup_fd(wake_w)
    write_frame(json.dumps({"ready": True, "pid": os.getpid(), "uid": os.getuid()}).encode())
    while True:
        header = json.loads(read_frame())
        source = read_frame()
        stdin = read_frame()
        result, out, err = run_one(header, source, stdin, wake_r)
        write_frame(json.dumps(result).encode())
        write_frame(out)
        write_frame(err)


main()
