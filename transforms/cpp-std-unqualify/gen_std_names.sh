#!/bin/sh
# Regenerates std_names.txt and std_overloads.txt from this machine's g++ and libstdc++.
#
# std_names.txt: every name that `using namespace std;` can make visible, that is every member
# of `std` (or of its inline namespaces) that `using std::X;` or `namespace a = std::X;`
# accepts under -std=gnu++17 or -std=gnu++20, plus every name the C headers declare in the
# global namespace (`using ::X;`). The candidates are the identifiers of the preprocessed
# standard headers that do not start with `_`.
#
# std_overloads.txt: the C library functions the global namespace declares once but `std`
# overloads (`::abs(int)` against `std::abs(long long)`, `std::abs(double)`…): a single
# function's address can be taken (`decltype(&::X)`), the overload set's cannot.
#
# Usage: sh gen_std_names.sh   (from this directory; needs g++ and awk)
set -eu
export LC_ALL=C
dir=$(pwd)
tmp=$(mktemp -d)
cd "$tmp"
printf '#include <bits/stdc++.h>\n#include <bits/extc++.h>\n#include <strstream>\n' > hdr.h
for s in gnu++17 gnu++20; do g++ -std=$s -w -E -P -x c++ hdr.h; done \
  | grep -oE '\b[A-Za-z][A-Za-z0-9_]*\b' | sort -u > cands.txt
# ok STD FILE TEMPLATE: the candidates whose line (TEMPLATE with X replaced) compiles.
ok() {
  { echo '#include "hdr.h"'; awk -v t="$3" '{ l = t; gsub(/X/, $0, l); print "namespace p_" NR " { " l " }" }' cands.txt; } > "$2.cpp"
  g++ -std="$1" -w -fsyntax-only -fmax-errors=0 "$2.cpp" 2>&1 \
    | grep -oE "^$2\.cpp:[0-9]+:[0-9]+: error" | cut -d: -f2 | sort -un > "$2.err" || true
  awk -v e="$2.err" 'BEGIN { while ((getline l < e) > 0) bad[l - 1] = 1 } !bad[NR]' cands.txt
}
{
  for s in gnu++17 gnu++20; do
    ok $s u "using std::X;"
    ok $s ns "namespace a = std::X;"
  done
  ok gnu++17 g "using ::X;"
} | sort -u > "$dir/std_names.txt"
# Functions in both namespaces, against <bits/stdc++.h> alone (the C++ wrappers <math.h> and
# <stdlib.h>, which the ext headers include, bring std's overloads into the global namespace).
printf '#include <bits/stdc++.h>\n' > hdr.h
ok gnu++17 gu "using ::X;" | sort -u > gu.txt
ok gnu++17 su "using std::X;" | sort -u > su.txt
ok gnu++17 gs "using T = decltype(&::X);" | sort -u > sg.txt
ok gnu++17 ss "using T = decltype(&std::X);" | sort -u > ss.txt
# A single function globally, not a single one in std; and, whatever a program includes, the
# C functions <cmath> and <cstdlib> overload (some are macros globally, or overloaded by
# <math.h>): a superset only declines more.
{
  comm -12 gu.txt su.txt | comm -12 - sg.txt | comm -23 - ss.txt
  printf '%s\n' abs labs llabs div ldiv lldiv isnan isinf isfinite isnormal signbit \
    fpclassify isgreater isgreaterequal isless islessequal islessgreater isunordered nan \
    fabs sqrt cbrt pow exp exp2 log log2 log10 floor ceil round trunc fmod sin cos tan \
    asin acos atan atan2 sinh cosh tanh hypot fmin fmax
} | sort -u > "$dir/std_overloads.txt"
cd "$dir"
rm -rf "$tmp"
wc -l std_names.txt std_overloads.txt
