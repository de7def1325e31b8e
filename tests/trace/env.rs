//! `WEFT_TRACE` (see `weft::trace`): set to a directory, pools built afterwards record and
//! write `weft-trace-<pid>-<pool>.{json,svg}` there when they end, the global pool at process
//! exit; `0` turns it off; `ThreadPoolBuilder::trace(false)` wins over it.
//!
//! The variable must be set before a pool is built and is read by every pool of a process,
//! so each case runs in a child process: this test binary runs itself again with one test
//! selected (`env::child_*`, which do nothing unless `WEFT_TRACE_TEST_CHILD` is set) and the
//! variable in its environment; the parent then checks the files. No test sets the
//! variable in the parent process.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::common_trace::{parse_json, parse_xml};
use weft::prelude::*;

/// Runs the test `child` of this binary in a child process with `WEFT_TRACE=weft_trace`,
/// in the directory `cwd`.
fn run_child(child: &str, weft_trace: &str, cwd: &Path) {
    std::fs::create_dir_all(cwd).unwrap();
    let output = Command::new(std::env::current_exe().unwrap())
        .args([&format!("env::{child}"), "--exact", "--test-threads=1"])
        .current_dir(cwd)
        .env("WEFT_TRACE", weft_trace)
        .env("WEFT_TRACE_TEST_CHILD", "1")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{child} failed: {}\n{}{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A pool of two workers, built as `WEFT_TRACE` says.
fn pool_of_two() -> weft::ThreadPool {
    weft::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap()
}

fn is_child() -> bool {
    std::env::var_os("WEFT_TRACE_TEST_CHILD").is_some()
}

/// A fresh, empty directory for one case.
fn fresh_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("weft-trace-env-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// The trace files in `dir`, by name.
fn files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = match std::fs::read_dir(dir) {
        Ok(entries) => entries
            .map(|entry| entry.unwrap().file_name().into_string().unwrap())
            .collect(),
        Err(_) => Vec::new(),
    };
    names.sort();
    names
}

/// Checks a pair of files: the JSON parses and holds `pieces` loop pieces or more, the SVG
/// is well formed.
fn check_pair(dir: &Path, stem: &str, pieces: usize) {
    let json = std::fs::read_to_string(dir.join(format!("{stem}.json"))).unwrap();
    let json = parse_json(&json).unwrap();
    let events = json.get("traceEvents").unwrap().as_array().unwrap();
    let found = (events.iter())
        .filter(|event| event.get("cat").and_then(|cat| cat.as_str()) == Some("piece"))
        .count();
    assert!(found >= pieces, "{stem}: {found} pieces");
    let svg = std::fs::read_to_string(dir.join(format!("{stem}.svg"))).unwrap();
    parse_xml(&svg).unwrap();
}

#[test]
fn child_builds_pools() {
    if !is_child() {
        return;
    }
    // Recorded, and written when it ends (`shutdown_and_wait` returns after that).
    let pool = pool_of_two();
    let sum: u64 = pool.install(|| (0..100_000u64).into_par_iter().sum());
    assert_eq!(sum, 4_999_950_000);
    pool.shutdown_and_wait();
    // Not recorded: the builder says so.
    let quiet = weft::ThreadPoolBuilder::new().trace(false).build().unwrap();
    assert!(quiet.take_trace().is_none());
    quiet.shutdown_and_wait();
    // Recorded, partly taken by the program, the rest written at process exit.
    let kept = pool_of_two();
    assert_eq!(kept.install(|| (0..1000u32).into_par_iter().count()), 1000);
    assert!(kept.take_trace().is_some());
    std::mem::forget(kept);
}

#[test]
fn child_uses_the_global_pool() {
    if !is_child() {
        return;
    }
    let sum: u64 = (0..100_000u64).into_par_iter().map(|x| x % 3).sum();
    assert_eq!(sum, (0..100_000u64).map(|x| x % 3).sum::<u64>());
}

#[test]
fn child_is_off() {
    if !is_child() {
        return;
    }
    let pool = pool_of_two();
    assert!(pool.take_trace().is_none());
    let sum: u64 = (0..1000u64).into_par_iter().sum();
    assert_eq!(sum, 499_500);
}

#[test]
fn weft_trace_writes_each_pools_files_when_it_ends_or_at_exit() {
    if is_child() {
        return;
    }
    let dir = fresh_dir("pools");
    run_child("child_builds_pools", dir.to_str().unwrap(), &dir);
    let names = files(&dir);
    // Pools 0 and 1 (the one built with `trace(false)` takes no number).
    assert_eq!(names.len(), 4, "{names:?}");
    let stem = |suffix: &str| {
        let name = names.iter().find(|name| name.ends_with(suffix)).unwrap();
        name.strip_suffix(".json").unwrap().to_owned()
    };
    check_pair(&dir, &stem("-0.json"), 2);
    // What `take_trace` took is not written again: the exit-time file has no pieces.
    check_pair(&dir, &stem("-1.json"), 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn weft_trace_writes_the_global_pools_files_at_exit() {
    if is_child() {
        return;
    }
    let dir = fresh_dir("global");
    run_child("child_uses_the_global_pool", dir.to_str().unwrap(), &dir);
    let names = files(&dir);
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(names[0].ends_with("-global.json"), "{names:?}");
    check_pair(&dir, names[0].strip_suffix(".json").unwrap(), 1);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn weft_trace_zero_or_empty_is_off() {
    if is_child() {
        return;
    }
    for value in ["0", ""] {
        // Were the value taken for a directory, `0` would appear in the child's directory.
        let dir = fresh_dir("off");
        run_child("child_is_off", value, &dir);
        assert!(files(&dir).is_empty(), "{:?}", files(&dir));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
