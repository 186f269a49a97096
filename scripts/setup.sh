#!/usr/bin/env bash
# Installs what equimorph needs on a fresh Debian machine (idempotent, quick when done):
# Debian packages for sandboxing and for building the WebAssembly guests, and a JDK (javac and
# java, Debian's OpenJDK) for Java tasks, and gcc/g++ for C and C++ tasks.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
command -v python3 >/dev/null || "$ROOT/scripts/ensure-apt.sh" python3
"$ROOT/scripts/ensure-apt.sh" bubblewrap
# Java tasks: the oracle compiles and runs them with the JDK (headless is enough).
command -v javac >/dev/null || "$ROOT/scripts/ensure-apt.sh" openjdk-17-jdk-headless
# C and C++ tasks: the oracle compiles them with gcc and g++.
command -v g++ >/dev/null || "$ROOT/scripts/ensure-apt.sh" g++
command -v gcc >/dev/null || "$ROOT/scripts/ensure-apt.sh" gcc
"$ROOT/scripts/setup-models.sh"
