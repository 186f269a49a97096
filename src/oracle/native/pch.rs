//! A precompiled `bits/stdc++.h` per build of C++ programs.
//!
//! Most contest C++ starts with `#include <bits/stdc++.h>`, which costs g++ about 0.6 s of
//! the 0.8 s a small program takes to compile here; with a precompiled header the compile
//! takes about 0.2 s. The header is the system's own, compiled with exactly the flags of the
//! build that uses it (one per [`Build`](super::Build): g++ can even crash on a precompiled
//! header built with other optimisation flags), into a directory put first on the include
//! path.
//! g++ uses it only where it is valid (it checks the flags and the macros defined before the
//! `#include`) and otherwise reads the copied header, which is the system's, so a program
//! means the same either way.
//!
//! The directory lives in the system's temporary directory, one per user, compiler and flags,
//! so later processes reuse it: `equimorph-pch-<uid>/<key>/bits/stdc++.h.gch`. It is built
//! outside the sandbox (its only input is the system header) and written under a temporary
//! name, then renamed, so a concurrent process never reads half of it. A directory owned by
//! another user is never used.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Where g++ keeps `bits/stdc++.h` (the first match of `g++ -print-file-name` style lookups
/// is not available for headers, so the include directories are asked for).
fn system_header(cxx: &Path) -> Option<PathBuf> {
    let out = Command::new(cxx)
        .args(["-std=gnu++17", "-x", "c++", "-E", "-v", "-"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stderr);
    text.lines()
        .skip_while(|l| !l.starts_with("#include <...> search starts here"))
        .skip(1)
        .take_while(|l| l.starts_with(' '))
        .map(|l| Path::new(l.trim()).join("bits/stdc++.h"))
        .find(|p| p.is_file())
}

/// The include directory holding a valid precompiled `bits/stdc++.h` for `flags` (a build's
/// code-generation flags), building it on first use. `None` when it cannot be
/// built here: compiles then read the header as usual.
pub(super) fn prepare(cxx: &Path, flags: &[&str]) -> Option<PathBuf> {
    let header = system_header(cxx)?;
    let text = std::fs::read(&header).ok()?;
    let version = Command::new(cxx).arg("--version").output().ok()?.stdout;
    let mut key = blake3::Hasher::new();
    key.update(cxx.as_os_str().as_encoded_bytes());
    key.update(&version);
    key.update(flags.join(" ").as_bytes());
    key.update(&text);
    let key = key.finalize().to_hex();
    // SAFETY: getuid has no preconditions.
    let uid = unsafe { libc::getuid() };
    let base = std::env::temp_dir().join(format!("equimorph-pch-{uid}"));
    std::fs::create_dir_all(&base).ok()?;
    let owned = std::fs::metadata(&base).is_ok_and(|m| m.uid() == uid && m.is_dir());
    if !owned {
        return None;
    }
    let root = base.join(&key[..24]);
    let bits = root.join("bits");
    let gch = bits.join("stdc++.h.gch");
    if gch.is_file() {
        return Some(root);
    }
    std::fs::create_dir_all(&bits).ok()?;
    // Readable by the sandbox user, who compiles with it.
    for dir in [&base, &root, &bits] {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).ok()?;
    }
    std::fs::write(bits.join("stdc++.h"), &text).ok()?;
    let tmp = bits.join(format!("stdc++.h.gch.{}", std::process::id()));
    let built = Command::new(cxx)
        .args(flags)
        .args(["-x", "c++-header"])
        .arg(bits.join("stdc++.h"))
        .arg("-o")
        .arg(&tmp)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !built {
        let _ = std::fs::remove_file(&tmp);
        return None;
    }
    std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o644)).ok()?;
    std::fs::rename(&tmp, &gch).ok()?;
    Some(root)
}
