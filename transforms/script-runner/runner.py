"""equimorph's script runner: one CPython component that executes any transform script.

A transform script (the Auto-SPT format) reads a Python program on standard input and prints
the rewritten program on standard output. This module is built once with componentize-py into a
component of the `script-runner` world (transforms/wit/script-runner.wit); the host calls `run`
on a fresh instance for every application, so nothing a script does survives the call.

Everything here at module level runs once, at build time, and is snapshotted into the component:
the modules imported below are the only ones a script can import.
"""

import builtins
import io
import random
import sys
import traceback

# The standard-library modules that transform scripts use (the list plus what we found
# in LLM-written transforms). Only modules imported at build time exist in the component.
import _ast_unparse  # noqa: F401  (ast.unparse imports it lazily)
import abc  # noqa: F401
import argparse  # noqa: F401
import array  # noqa: F401
import ast  # noqa: F401
import base64  # noqa: F401
import binascii  # noqa: F401
import bisect  # noqa: F401
import codecs  # noqa: F401
import collections  # noqa: F401
import collections.abc  # noqa: F401
import contextlib  # noqa: F401
import copy  # noqa: F401
import dataclasses  # noqa: F401
import datetime  # noqa: F401
import decimal  # noqa: F401
import difflib  # noqa: F401
import enum  # noqa: F401
import fractions  # noqa: F401
import functools  # noqa: F401
import hashlib  # noqa: F401
import heapq  # noqa: F401
import inspect  # noqa: F401
import itertools  # noqa: F401
import json  # noqa: F401
import keyword  # noqa: F401
import linecache  # noqa: F401
import math  # noqa: F401
import numbers  # noqa: F401
import operator  # noqa: F401
import pathlib  # noqa: F401
import pprint  # noqa: F401
import re  # noqa: F401
import statistics  # noqa: F401
import string  # noqa: F401
import struct  # noqa: F401
import symtable  # noqa: F401
import textwrap  # noqa: F401
import token  # noqa: F401
import tokenize  # noqa: F401
import types  # noqa: F401
import typing  # noqa: F401
import unicodedata  # noqa: F401
import warnings  # noqa: F401
import weakref  # noqa: F401

import wit_world
from componentize_py_types import Err

# Largest output a script may print, in bytes (the host applies its own, configurable, limit
# too; this one keeps a runaway print loop from filling the guest's memory first).
OUTPUT_LIMIT = 16 << 20
# Standard error is kept only to explain failures.
STDERR_LIMIT = 64 << 10
SCRIPT_NAME = "<transform>"

AVAILABLE_MODULES = sorted(
    name
    for name in sys.modules
    if not name.startswith(("_", "componentize_py", "wit_world", "encodings", "runner"))
    and "." not in name
)


class _OutputLimit(BaseException):
    """Raised into the script when it prints past OUTPUT_LIMIT (not an Exception, so a script's
    `except Exception` cannot swallow it)."""


class _CappedSink(io.RawIOBase):
    """A write-only byte sink that keeps at most `limit` bytes."""

    def __init__(self, limit, strict):
        super().__init__()
        self.limit = limit
        self.strict = strict
        self.chunks = []
        self.size = 0
        self.exceeded = False

    def writable(self):
        return True

    def write(self, b):
        n = len(b)
        if self.size + n > self.limit:
            self.exceeded = True
            if self.strict:
                raise _OutputLimit()
            keep = max(0, self.limit - self.size)
            self.chunks.append(bytes(b[:keep]))
            self.size += keep
            return n
        self.chunks.append(bytes(b))
        self.size += n
        return n

    def value(self):
        return b"".join(self.chunks)


class _UnavailableModuleFinder:
    """Last entry of sys.meta_path: an import nothing else could satisfy gets a clear error."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        top = name.partition(".")[0]
        raise ModuleNotFoundError(
            f"module {name!r} is not available to transform scripts "
            f"(the sandbox provides only: {', '.join(AVAILABLE_MODULES)})",
            name=top,
        )


sys.meta_path.append(_UnavailableModuleFinder)


def _text_stream(sink):
    return io.TextIOWrapper(
        io.BufferedWriter(sink), encoding="utf-8", errors="strict", newline="\n",
        write_through=True,
    )


def _describe(exc):
    """The last line of the exception's traceback, with the script line it came from."""
    last = traceback.format_exception_only(type(exc), exc)[-1].strip()
    line = None
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == SCRIPT_NAME:
            line = tb.tb_lineno
        tb = tb.tb_next
    if isinstance(exc, SyntaxError) and exc.filename == SCRIPT_NAME:
        where = f"line {exc.lineno}: " if exc.lineno else ""
        return f"the script does not compile: {where}{last}"
    return f"{last} (script line {line})" if line is not None else last


def _flush(stream):
    try:
        stream.flush()
    except Exception:  # noqa: BLE001 - stderr only explains failures; losing it is harmless
        pass


def _stderr_tail(sink):
    text = sink.value().decode("utf-8", "replace").strip()
    return text.splitlines()[-1][:500] if text else ""


class WitWorld(wit_world.WitWorld):
    def run(self, script, source, seed):
        random.seed(seed)
        out_sink = _CappedSink(OUTPUT_LIMIT, strict=True)
        err_sink = _CappedSink(STDERR_LIMIT, strict=False)
        stdout = _text_stream(out_sink)
        stderr = _text_stream(err_sink)
        stdin = io.TextIOWrapper(io.BytesIO(source.encode("utf-8")), encoding="utf-8")
        sys.stdin, sys.stdout, sys.stderr = stdin, stdout, stderr
        sys.argv = ["transform.py", str(seed)]
        namespace = {"__name__": "__main__", "__builtins__": builtins, "__file__": "transform.py"}
        failure = None
        try:
            try:
                exec(compile(script, SCRIPT_NAME, "exec"), namespace)
            finally:
                _flush(stderr)
                stdout.flush()
        except SystemExit as e:
            code = e.code
            if code is not None and code != 0:
                if isinstance(code, int):
                    tail = _stderr_tail(err_sink)
                    failure = f"exited with status {code}" + (f": {tail}" if tail else "")
                else:
                    failure = f"exited with status 1: {str(code)[:500]}"
        except _OutputLimit:
            failure = None  # reported below from the sink's flag
        except BaseException as e:  # noqa: BLE001 - every failure of the script is its error
            failure = _describe(e)
        if out_sink.exceeded:
            raise Err(f"printed more than {OUTPUT_LIMIT} bytes")
        if failure is not None:
            raise Err(failure)
        try:
            text = out_sink.value().decode("utf-8")
        except UnicodeDecodeError as e:
            raise Err(f"printed bytes that are not UTF-8 (offset {e.start})")
        if not text.strip():
            raise Err("printed nothing")
        if text.rstrip("\n") == source.rstrip("\n"):
            return None
        return text
