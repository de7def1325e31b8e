//! Rayon 1.10 API-surface probe: every public path, type name and trait method of Rayon's
//! common API (except `ParallelSlice*` and `ThreadPoolBuilder`, probed elsewhere), named and
//! called exactly as a Rayon user would write it, with `use weft as rayon;`. Results are
//! checked against the sequential `std` equivalent.

use weft as rayon;

use rayon::prelude::*;
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};
use std::rc::Rc;
use std::sync::atomic::{AtomicUsize, Ordering as AtomicOrdering};
use std::sync::{Arc, Mutex};

/// Small deterministic pseudo-random input (xorshift), so every test has a fixed oracle.
fn data(n: usize, seed: u64) -> Vec<u32> {
    let mut s = seed | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s % 1000) as u32
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// rayon-core root items
// ---------------------------------------------------------------------------------------

#[test]
fn core_root_functions() {
    let (a, b) = rayon::join(|| 1 + 1, || "x".repeat(2));
    assert_eq!((a, b.as_str()), (2, "xx"));

    let (a, b) = rayon::join_context(
        |ctx: rayon::FnContext| ctx.migrated() as u8 + 1,
        |_ctx: rayon::FnContext| 5,
    );
    assert!(a == 1 || a == 2);
    assert_eq!(b, 5);

    let total = AtomicUsize::new(0);
    rayon::scope(|s: &rayon::Scope<'_>| {
        for i in 0..10 {
            let total = &total;
            s.spawn(move |_s: &rayon::Scope<'_>| {
                total.fetch_add(i, AtomicOrdering::Relaxed);
            });
        }
    });
    assert_eq!(total.load(AtomicOrdering::Relaxed), 45);

    let order = Mutex::new(Vec::new());
    rayon::scope_fifo(|s: &rayon::ScopeFifo<'_>| {
        for i in 0..5 {
            let order = &order;
            s.spawn_fifo(move |_s: &rayon::ScopeFifo<'_>| order.lock().unwrap().push(i));
        }
    });
    let mut got = order.into_inner().unwrap();
    got.sort();
    assert_eq!(got, vec![0, 1, 2, 3, 4]);

    let r: i32 = rayon::in_place_scope(|s| {
        s.spawn(|_| {});
        7
    });
    assert_eq!(r, 7);
    let r: i32 = rayon::in_place_scope_fifo(|s| {
        s.spawn_fifo(|_| {});
        8
    });
    assert_eq!(r, 8);

    let (tx, rx) = std::sync::mpsc::channel();
    let tx2 = tx.clone();
    rayon::spawn(move || tx.send(1).unwrap());
    rayon::spawn_fifo(move || tx2.send(2).unwrap());
    let mut got: Vec<i32> = rx.iter().take(2).collect();
    got.sort();
    assert_eq!(got, vec![1, 2]);

    let n = rayon::current_num_threads();
    assert!(n >= 1);
    assert!(rayon::max_num_threads() >= n);
    assert_eq!(rayon::current_thread_index(), None);

    let idx: Vec<(usize, usize)> =
        rayon::broadcast(|ctx: rayon::BroadcastContext<'_>| (ctx.index(), ctx.num_threads()));
    assert_eq!(idx.len(), n);
    for (i, (index, num)) in idx.into_iter().enumerate() {
        assert_eq!((index, num), (i, n));
    }
    let count = Arc::new(AtomicUsize::new(0));
    let c2 = Arc::clone(&count);
    let (tx, rx) = std::sync::mpsc::channel::<()>();
    let tx = Mutex::new(tx);
    rayon::spawn_broadcast(move |_ctx| {
        c2.fetch_add(1, AtomicOrdering::SeqCst);
        tx.lock().unwrap().send(()).unwrap();
    });
    for _ in 0..n {
        rx.recv().unwrap();
    }
    assert_eq!(count.load(AtomicOrdering::SeqCst), n);

    // Outside the pool there is nothing to yield to.
    let y: Option<rayon::Yield> = rayon::yield_now();
    assert_eq!(y, None);
    assert_eq!(rayon::yield_local(), None);
    let _ = matches!(y, Some(rayon::Yield::Executed) | Some(rayon::Yield::Idle));

    // Scope::spawn_broadcast / ScopeFifo::spawn_broadcast
    let hits = AtomicUsize::new(0);
    rayon::scope(|s| {
        s.spawn_broadcast(|_s, ctx: rayon::BroadcastContext<'_>| {
            assert!(ctx.index() < ctx.num_threads());
            hits.fetch_add(1, AtomicOrdering::Relaxed);
        })
    });
    assert_eq!(hits.load(AtomicOrdering::Relaxed), n);
    let hits = AtomicUsize::new(0);
    rayon::scope_fifo(|s| {
        s.spawn_broadcast(|_s, _ctx| {
            hits.fetch_add(1, AtomicOrdering::Relaxed);
        })
    });
    assert_eq!(hits.load(AtomicOrdering::Relaxed), n);
}

#[test]
fn core_thread_pool_methods() {
    let pool: rayon::ThreadPool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    assert_eq!(pool.current_num_threads(), 2);
    assert_eq!(pool.current_thread_index(), None);
    let v = data(500, 1);
    let s: u64 = pool.install(|| v.par_iter().map(|&x| x as u64).sum());
    assert_eq!(s, v.iter().map(|&x| x as u64).sum::<u64>());
    assert_eq!(pool.install(rayon::current_num_threads), 2);
    assert!(pool.install(rayon::current_thread_index).unwrap() < 2);
    let (a, b) = pool.join(|| 1, || 2);
    assert_eq!(a + b, 3);
    assert_eq!(pool.scope(|_s| 4), 4);
    assert_eq!(pool.scope_fifo(|_s| 5), 5);
    assert_eq!(pool.in_place_scope(|_s| 6), 6);
    assert_eq!(pool.in_place_scope_fifo(|_s| 7), 7);
    let mut b: Vec<usize> = pool.broadcast(|ctx| ctx.index());
    b.sort();
    assert_eq!(b, vec![0, 1]);
    let (tx, rx) = std::sync::mpsc::channel();
    let tx2 = tx.clone();
    pool.spawn(move || tx.send(1).unwrap());
    pool.spawn_fifo(move || tx2.send(2).unwrap());
    let mut got: Vec<i32> = rx.iter().take(2).collect();
    got.sort();
    assert_eq!(got, vec![1, 2]);
    let (tx, rx) = std::sync::mpsc::channel();
    let tx = Mutex::new(tx);
    pool.spawn_broadcast(move |ctx| tx.lock().unwrap().send(ctx.index()).unwrap());
    let mut got: Vec<usize> = rx.iter().take(2).collect();
    got.sort();
    assert_eq!(got, vec![0, 1]);
    assert_eq!(pool.yield_now(), None);
    assert_eq!(pool.yield_local(), None);
    assert_eq!(pool.current_thread_has_pending_tasks(), None);
    let _dbg = format!("{pool:?}");

    let err: Result<rayon::ThreadPool, rayon::ThreadPoolBuildError> =
        rayon::ThreadPoolBuilder::new().num_threads(1).build();
    assert!(err.is_ok());
    fn _is_error<E: std::error::Error + Send + Sync + 'static>() {}
    _is_error::<rayon::ThreadPoolBuildError>();
}

// ---------------------------------------------------------------------------------------
// ParallelIterator: every method, with the adapter's Rayon type name spelled out
// ---------------------------------------------------------------------------------------

type VI<'a> = rayon::slice::Iter<'a, u32>;

#[test]
fn parallel_iterator_adapters() {
    let v = data(1000, 2);
    let seq_map: Vec<u64> = v.iter().map(|&x| x as u64 * 3).collect();

    let m: rayon::iter::Map<VI<'_>, _> = v.par_iter().map(|&x| x as u64 * 3);
    assert_eq!(m.collect::<Vec<_>>(), seq_map);

    let mw: rayon::iter::MapWith<VI<'_>, u64, _> =
        v.par_iter().map_with(3u64, |k, &x| x as u64 * *k);
    assert_eq!(mw.collect::<Vec<_>>(), seq_map);

    let mi: rayon::iter::MapInit<VI<'_>, _, _> =
        v.par_iter().map_init(|| 3u64, |k, &x| x as u64 * *k);
    assert_eq!(mi.collect::<Vec<_>>(), seq_map);

    let c: rayon::iter::Cloned<VI<'_>> = v.par_iter().cloned();
    assert_eq!(c.collect::<Vec<u32>>(), v);
    let c: rayon::iter::Copied<VI<'_>> = v.par_iter().copied();
    assert_eq!(c.collect::<Vec<u32>>(), v);

    let seen = AtomicUsize::new(0);
    let i: rayon::iter::Inspect<VI<'_>, _> = v.par_iter().inspect(|_| {
        seen.fetch_add(1, AtomicOrdering::Relaxed);
    });
    assert_eq!(i.count(), v.len());
    assert_eq!(seen.load(AtomicOrdering::Relaxed), v.len());

    let u: rayon::iter::Update<rayon::iter::Copied<VI<'_>>, _> =
        v.par_iter().copied().update(|x| *x += 1);
    assert_eq!(
        u.collect::<Vec<_>>(),
        v.iter().map(|x| x + 1).collect::<Vec<_>>()
    );

    let f: rayon::iter::Filter<VI<'_>, _> = v.par_iter().filter(|&&x| x % 3 == 0);
    assert_eq!(
        f.copied().collect::<Vec<_>>(),
        v.iter().copied().filter(|x| x % 3 == 0).collect::<Vec<_>>()
    );
    let fm: rayon::iter::FilterMap<VI<'_>, _> =
        v.par_iter()
            .filter_map(|&x| if x % 2 == 0 { Some(x / 2) } else { None });
    assert_eq!(
        fm.collect::<Vec<_>>(),
        v.iter()
            .filter_map(|&x| if x % 2 == 0 { Some(x / 2) } else { None })
            .collect::<Vec<_>>()
    );

    let small = &v[..50];
    let seq_fm: Vec<u32> = small
        .iter()
        .flat_map(|&x| vec![x; (x % 4) as usize])
        .collect();
    let fm: rayon::iter::FlatMap<VI<'_>, _> =
        small.par_iter().flat_map(|&x| vec![x; (x % 4) as usize]);
    assert_eq!(fm.collect::<Vec<_>>(), seq_fm);
    let fmi: rayon::iter::FlatMapIter<VI<'_>, _> = small
        .par_iter()
        .flat_map_iter(|&x| std::iter::repeat(x).take((x % 4) as usize));
    assert_eq!(fmi.collect::<Vec<_>>(), seq_fm);
    let nested: Vec<Vec<u32>> = small.iter().map(|&x| vec![x; (x % 4) as usize]).collect();
    let fl: rayon::iter::Flatten<rayon::vec::IntoIter<Vec<u32>>> =
        nested.clone().into_par_iter().flatten();
    assert_eq!(fl.collect::<Vec<_>>(), seq_fm);
    let fli: rayon::iter::FlattenIter<rayon::vec::IntoIter<Vec<u32>>> =
        nested.into_par_iter().flatten_iter();
    assert_eq!(fli.collect::<Vec<_>>(), seq_fm);

    let ch: rayon::iter::Chain<VI<'_>, VI<'_>> = v[..10].par_iter().chain(&v[10..20]);
    assert_eq!(ch.copied().collect::<Vec<_>>(), v[..20].to_vec());
    let ch: rayon::iter::Chain<VI<'_>, rayon::slice::Iter<'_, u32>> =
        v[..10].par_iter().chain(v[10..20].par_iter());
    assert_eq!(ch.count(), 20);

    let ws: rayon::iter::WhileSome<_> = v
        .par_iter()
        .map(|&x| if x < 990 { Some(x) } else { None })
        .while_some();
    let got: Vec<u32> = ws.collect();
    assert!(got.len() <= v.len());
    assert!(got.iter().all(|&x| x < 990));

    let pf: rayon::iter::PanicFuse<VI<'_>> = v.par_iter().panic_fuse();
    assert_eq!(pf.count(), v.len());

    let ip: rayon::iter::Intersperse<rayon::iter::Copied<VI<'_>>> =
        v[..5].par_iter().copied().intersperse(0);
    let mut want = Vec::new();
    for (k, &x) in v[..5].iter().enumerate() {
        if k > 0 {
            want.push(0);
        }
        want.push(x);
    }
    assert_eq!(ip.collect::<Vec<_>>(), want);

    let ta: rayon::iter::TakeAny<VI<'_>> = v.par_iter().take_any(10);
    assert_eq!(ta.count(), 10);
    let sa: rayon::iter::SkipAny<VI<'_>> = v.par_iter().skip_any(10);
    assert_eq!(sa.count(), v.len() - 10);
    let taw: rayon::iter::TakeAnyWhile<VI<'_>, _> = v.par_iter().take_any_while(|&&x| x < 500);
    assert!(taw.all(|&x| x < 500));
    let saw: rayon::iter::SkipAnyWhile<VI<'_>, _> = v.par_iter().skip_any_while(|_| false);
    assert_eq!(saw.count(), v.len());

    let list: std::collections::LinkedList<Vec<u32>> = v.par_iter().copied().collect_vec_list();
    assert_eq!(list.into_iter().flatten().collect::<Vec<_>>(), v);
}

#[test]
fn parallel_iterator_consumers() {
    let v = data(1000, 3);
    let seq_sum: u64 = v.iter().map(|&x| x as u64).sum();

    let acc = AtomicUsize::new(0);
    v.par_iter().for_each(|&x| {
        acc.fetch_add(x as usize, AtomicOrdering::Relaxed);
    });
    assert_eq!(acc.load(AtomicOrdering::Relaxed) as u64, seq_sum);

    let (tx, rx) = std::sync::mpsc::channel();
    v.par_iter().for_each_with(tx, |tx, &x| tx.send(x).unwrap());
    let mut got: Vec<u32> = rx.iter().collect();
    got.sort();
    let mut sorted = v.clone();
    sorted.sort();
    assert_eq!(got, sorted);

    let acc = AtomicUsize::new(0);
    v.par_iter().for_each_init(
        || 1usize,
        |one, &x| {
            acc.fetch_add(x as usize * *one, AtomicOrdering::Relaxed);
        },
    );
    assert_eq!(acc.load(AtomicOrdering::Relaxed) as u64, seq_sum);

    let r: Result<(), u32> = v
        .par_iter()
        .try_for_each(|&x| if x < 2000 { Ok(()) } else { Err(x) });
    assert_eq!(r, Ok(()));
    let r: Option<()> = v
        .par_iter()
        .try_for_each(|&x| if x == v[7] { None } else { Some(()) });
    assert_eq!(r, None);
    let r: Result<(), ()> =
        v.par_iter()
            .try_for_each_with(5u32, |k, &x| if x + *k > 0 { Ok(()) } else { Err(()) });
    assert_eq!(r, Ok(()));
    let r: Result<(), ()> = v
        .par_iter()
        .try_for_each_init(|| 5u32, |k, &x| if x + *k > 0 { Ok(()) } else { Err(()) });
    assert_eq!(r, Ok(()));

    assert_eq!(v.par_iter().count(), v.len());

    let r: u64 = v.par_iter().map(|&x| x as u64).reduce(|| 0, |a, b| a + b);
    assert_eq!(r, seq_sum);
    let r: Option<u64> = v.par_iter().map(|&x| x as u64).reduce_with(|a, b| a + b);
    assert_eq!(r, Some(seq_sum));
    let r: Option<u64> = v
        .par_iter()
        .map(|&x| Some(x as u64))
        .try_reduce(|| 0, |a, b| a.checked_add(b));
    assert_eq!(r, Some(seq_sum));
    let r: Option<Result<u64, ()>> = v
        .par_iter()
        .map(|&x| Ok::<u64, ()>(x as u64))
        .try_reduce_with(|a, b| Ok(a + b));
    assert_eq!(r, Some(Ok(seq_sum)));

    let fo: rayon::iter::Fold<VI<'_>, _, _> = v.par_iter().fold(|| 0u64, |a, &x| a + x as u64);
    assert_eq!(fo.sum::<u64>(), seq_sum);
    let fw: rayon::iter::FoldWith<VI<'_>, u64, _> =
        v.par_iter().fold_with(0u64, |a, &x| a + x as u64);
    assert_eq!(fw.sum::<u64>(), seq_sum);
    let tf: rayon::iter::TryFold<VI<'_>, Option<u64>, _, _> = v
        .par_iter()
        .try_fold(|| 0u64, |a, &x| a.checked_add(x as u64));
    assert_eq!(tf.try_reduce(|| 0, |a, b| a.checked_add(b)), Some(seq_sum));
    let tfw: rayon::iter::TryFoldWith<VI<'_>, Option<u64>, _> = v
        .par_iter()
        .try_fold_with(0u64, |a, &x| a.checked_add(x as u64));
    assert_eq!(tfw.try_reduce(|| 0, |a, b| a.checked_add(b)), Some(seq_sum));

    assert_eq!(v.par_iter().map(|&x| x as u64).sum::<u64>(), seq_sum);
    let small: Vec<u64> = v[..10].iter().map(|&x| x as u64 % 5 + 1).collect();
    assert_eq!(
        small.par_iter().product::<u64>(),
        small.iter().product::<u64>()
    );
    assert_eq!(
        small.par_iter().copied().product::<u64>(),
        small.iter().product::<u64>()
    );
    let fsum: f64 = v.par_iter().map(|&x| x as f64).sum();
    assert_eq!(fsum, seq_sum as f64);
    let w: std::num::Wrapping<u32> = v.par_iter().map(|&x| std::num::Wrapping(x)).sum();
    assert_eq!(w, v.iter().map(|&x| std::num::Wrapping(x)).sum());
    let w: std::num::Wrapping<u32> = v.par_iter().map(|&x| std::num::Wrapping(x)).product();
    assert_eq!(w, v.iter().map(|&x| std::num::Wrapping(x)).product());
    let o: Option<u64> = v.par_iter().map(|&x| Some(x as u64)).sum();
    assert_eq!(o, Some(seq_sum));
    let r: Result<u64, ()> = v.par_iter().map(|&x| Ok(x as u64)).sum();
    assert_eq!(r, Ok(seq_sum));
    let r: Result<u64, ()> = small.par_iter().map(|&x| Ok(x)).product();
    assert_eq!(r, Ok(small.iter().product()));

    assert_eq!(v.par_iter().min(), v.iter().min());
    assert_eq!(v.par_iter().max(), v.iter().max());
    assert_eq!(
        v.par_iter().min_by(|a, b| a.cmp(b)),
        v.iter().min_by(|a, b| a.cmp(b))
    );
    assert_eq!(
        v.par_iter().max_by(|a, b| a.cmp(b)),
        v.iter().max_by(|a, b| a.cmp(b))
    );
    let key = |x: &&u32| **x % 17;
    assert_eq!(
        v.par_iter().enumerate().min_by_key(|(_, x)| key(x)),
        v.iter().enumerate().min_by_key(|(_, x)| key(x))
    );
    assert_eq!(
        v.par_iter().enumerate().max_by_key(|(_, x)| key(x)),
        v.iter().enumerate().max_by_key(|(_, x)| key(x))
    );

    let t = v[500];
    assert_eq!(v.par_iter().find_any(|&&x| x == t), Some(&t));
    assert_eq!(
        v.par_iter().enumerate().find_first(|(_, &x)| x == t),
        v.iter().enumerate().find(|(_, &x)| x == t)
    );
    assert_eq!(
        v.par_iter().enumerate().find_last(|(_, &x)| x == t),
        v.iter().enumerate().rev().find(|(_, &x)| x == t)
    );
    let fm = |(i, &x): (usize, &u32)| if x == t { Some(i) } else { None };
    assert!(v.par_iter().enumerate().find_map_any(fm).is_some());
    assert_eq!(
        v.par_iter().enumerate().find_map_first(fm),
        v.iter().enumerate().find_map(fm)
    );
    assert_eq!(
        v.par_iter().enumerate().find_map_last(fm),
        v.iter().enumerate().rev().find_map(fm)
    );
    assert!(v.par_iter().any(|&x| x == t));
    assert_eq!(v.par_iter().all(|&x| x < 1000), v.iter().all(|&x| x < 1000));

    let c: Vec<u32> = v.par_iter().copied().collect();
    assert_eq!(c, v);
    let (a, b): (Vec<u32>, Vec<usize>) = v.par_iter().map(|&x| (x, x as usize)).unzip();
    assert_eq!(a, v);
    assert_eq!(b, v.iter().map(|&x| x as usize).collect::<Vec<_>>());
    let (even, odd): (Vec<u32>, Vec<u32>) = v.par_iter().partition(|&&x| x % 2 == 0);
    let (se, so): (Vec<u32>, Vec<u32>) = v.iter().partition(|&&x| x % 2 == 0);
    assert_eq!((even, odd), (se, so));
    let (l, r): (Vec<u32>, Vec<String>) = v.par_iter().partition_map(|&x| {
        if x % 2 == 0 {
            rayon::iter::Either::Left(x)
        } else {
            rayon::iter::Either::Right(x.to_string())
        }
    });
    assert_eq!(
        l,
        v.iter().copied().filter(|x| x % 2 == 0).collect::<Vec<_>>()
    );
    assert_eq!(
        r,
        v.iter()
            .filter(|x| *x % 2 == 1)
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
    );

    assert_eq!(v.par_iter().opt_len(), Some(v.len()));
    let it = v.par_iter();
    let same: VI<'_> = rayon::iter::IntoParallelIterator::into_par_iter(it);
    assert_eq!(same.count(), v.len());
}

// ---------------------------------------------------------------------------------------
// IndexedParallelIterator
// ---------------------------------------------------------------------------------------

fn generic_indexed<I>(it: I) -> Vec<u32>
where
    I: rayon::iter::IndexedParallelIterator<Item = u32>,
{
    assert_eq!(it.len(), it.opt_len().unwrap());
    it.rev().collect()
}

fn generic_into<I>(it: I) -> u64
where
    I: rayon::iter::IntoParallelIterator,
    I::Item: Into<u64>,
    I::Iter: rayon::iter::ParallelIterator<Item = I::Item>,
{
    it.into_par_iter().map(Into::into).sum()
}

fn generic_ref<'a, C>(c: &'a C) -> usize
where
    C: rayon::iter::IntoParallelRefIterator<'a> + ?Sized,
{
    c.par_iter().count()
}

fn generic_ref_mut<'a, C>(c: &'a mut C) -> usize
where
    C: rayon::iter::IntoParallelRefMutIterator<'a> + ?Sized,
{
    c.par_iter_mut().count()
}

#[test]
fn indexed_parallel_iterator_methods() {
    let v = data(1000, 5);
    let w = data(1000, 6);
    assert_eq!(
        generic_indexed(v.par_iter().copied()),
        v.iter().rev().copied().collect::<Vec<_>>()
    );
    assert_eq!(
        generic_into(v.clone()),
        v.iter().map(|&x| x as u64).sum::<u64>()
    );
    assert_eq!(generic_ref(&v), v.len());
    assert_eq!(generic_ref(&v[..]), v.len());
    let mut m = v.clone();
    assert_eq!(generic_ref_mut(&mut m), v.len());
    assert_eq!(generic_ref_mut(&mut m[..]), v.len());

    let b: rayon::iter::ExponentialBlocks<VI<'_>> = v.par_iter().by_exponential_blocks();
    assert_eq!(b.copied().collect::<Vec<_>>(), v);
    let b: rayon::iter::UniformBlocks<VI<'_>> = v.par_iter().by_uniform_blocks(64);
    assert_eq!(b.copied().collect::<Vec<_>>(), v);

    let mut out = Vec::new();
    v.par_iter().copied().collect_into_vec(&mut out);
    assert_eq!(out, v);
    let (mut a, mut b) = (Vec::new(), Vec::new());
    v.par_iter()
        .map(|&x| (x, x + 1))
        .unzip_into_vecs(&mut a, &mut b);
    assert_eq!(a, v);
    assert_eq!(b, v.iter().map(|x| x + 1).collect::<Vec<_>>());

    let z: rayon::iter::Zip<VI<'_>, VI<'_>> = v.par_iter().zip(&w);
    assert_eq!(
        z.map(|(a, b)| a + b).collect::<Vec<_>>(),
        v.iter().zip(&w).map(|(a, b)| a + b).collect::<Vec<_>>()
    );
    let z: rayon::iter::ZipEq<VI<'_>, VI<'_>> = v.par_iter().zip_eq(w.par_iter());
    assert_eq!(z.count(), v.len());

    let il: rayon::iter::Interleave<VI<'_>, VI<'_>> = v[..3].par_iter().interleave(&w[..5]);
    assert_eq!(
        il.copied().collect::<Vec<_>>(),
        vec![v[0], w[0], v[1], w[1], v[2], w[2], w[3], w[4]]
    );
    let il: rayon::iter::InterleaveShortest<VI<'_>, VI<'_>> =
        v[..3].par_iter().interleave_shortest(&w[..5]);
    assert_eq!(
        il.copied().collect::<Vec<_>>(),
        vec![v[0], w[0], v[1], w[1], v[2], w[2]]
    );

    let ch: rayon::iter::Chunks<VI<'_>> = v.par_iter().chunks(7);
    let got: Vec<Vec<&u32>> = ch.collect();
    assert_eq!(
        got,
        v.chunks(7)
            .map(|c| c.iter().collect::<Vec<_>>())
            .collect::<Vec<_>>()
    );
    let fc: rayon::iter::FoldChunks<VI<'_>, _, _> =
        v.par_iter().fold_chunks(7, || 0u64, |a, &x| a + x as u64);
    let want: Vec<u64> = v
        .chunks(7)
        .map(|c| c.iter().map(|&x| x as u64).sum())
        .collect();
    assert_eq!(fc.collect::<Vec<_>>(), want);
    let fcw: rayon::iter::FoldChunksWith<VI<'_>, u64, _> =
        v.par_iter().fold_chunks_with(7, 0u64, |a, &x| a + x as u64);
    assert_eq!(fcw.collect::<Vec<_>>(), want);

    assert_eq!(v.par_iter().cmp(&w), v.iter().cmp(&w));
    assert_eq!(v.par_iter().cmp(&v), std::cmp::Ordering::Equal);
    let fv: Vec<f64> = v.iter().map(|&x| x as f64).collect();
    let fw: Vec<f64> = w.iter().map(|&x| x as f64).collect();
    assert_eq!(fv.par_iter().partial_cmp(&fw), fv.iter().partial_cmp(&fw));
    assert_eq!(v.par_iter().eq(&w), v.iter().eq(&w));
    assert!(v.par_iter().eq(&v));
    assert_eq!(v.par_iter().ne(&w), v.iter().ne(&w));
    assert_eq!(v.par_iter().lt(&w), v.iter().lt(&w));
    assert_eq!(v.par_iter().le(&w), v.iter().le(&w));
    assert_eq!(v.par_iter().gt(&w), v.iter().gt(&w));
    assert_eq!(v.par_iter().ge(&w), v.iter().ge(&w));

    let e: rayon::iter::Enumerate<VI<'_>> = v.par_iter().enumerate();
    assert_eq!(
        e.collect::<Vec<_>>(),
        v.iter().enumerate().collect::<Vec<_>>()
    );
    let s: rayon::iter::StepBy<VI<'_>> = v.par_iter().step_by(3);
    assert_eq!(
        s.collect::<Vec<_>>(),
        v.iter().step_by(3).collect::<Vec<_>>()
    );
    let s: rayon::iter::Skip<VI<'_>> = v.par_iter().skip(10);
    assert_eq!(s.collect::<Vec<_>>(), v.iter().skip(10).collect::<Vec<_>>());
    let t: rayon::iter::Take<VI<'_>> = v.par_iter().take(10);
    assert_eq!(t.collect::<Vec<_>>(), v.iter().take(10).collect::<Vec<_>>());

    let t = v[400];
    assert!(v.par_iter().position_any(|&x| x == t).is_some());
    assert_eq!(
        v.par_iter().position_first(|&x| x == t),
        v.iter().position(|&x| x == t)
    );
    assert_eq!(
        v.par_iter().position_last(|&x| x == t),
        v.iter().rposition(|&x| x == t)
    );
    let p: rayon::iter::Positions<VI<'_>, _> = v.par_iter().positions(|&x| x % 10 == 0);
    assert_eq!(
        p.collect::<Vec<_>>(),
        v.iter()
            .enumerate()
            .filter(|(_, &x)| x % 10 == 0)
            .map(|(i, _)| i)
            .collect::<Vec<_>>()
    );
    let r: rayon::iter::Rev<VI<'_>> = v.par_iter().rev();
    assert_eq!(r.collect::<Vec<_>>(), v.iter().rev().collect::<Vec<_>>());
    let l: rayon::iter::MinLen<VI<'_>> = v.par_iter().with_min_len(10);
    assert_eq!(l.count(), v.len());
    let l: rayon::iter::MaxLen<VI<'_>> = v.par_iter().with_max_len(10);
    assert_eq!(l.count(), v.len());
    assert_eq!(v.par_iter().len(), v.len());

    // multizip: tuples of indexed iterators
    let mz: rayon::iter::MultiZip<(VI<'_>, VI<'_>, VI<'_>)> = (&v, &w, &v).into_par_iter();
    assert_eq!(
        mz.map(|(a, b, c)| a + b + c).collect::<Vec<_>>(),
        v.iter().zip(&w).map(|(a, b)| 2 * a + b).collect::<Vec<_>>()
    );
    let mz: rayon::iter::MultiZip<(VI<'_>, VI<'_>)> = (v.par_iter(), w.par_iter()).into_par_iter();
    assert_eq!(mz.len(), v.len());
    let (mut a, mut b) = (v.clone(), w.clone());
    (&mut a, &mut b)
        .into_par_iter()
        .for_each(|(x, y)| std::mem::swap(x, y));
    assert_eq!((a, b), (w.clone(), v.clone()));
    let mz = (v.clone(), w.clone()).into_par_iter();
    assert_eq!(
        mz.map(|(a, b)| a.max(b)).collect::<Vec<_>>(),
        v.iter().zip(&w).map(|(a, b)| *a.max(b)).collect::<Vec<_>>()
    );
}

// ---------------------------------------------------------------------------------------
// Sources: IntoParallelIterator for std types, and the named iterator types
// ---------------------------------------------------------------------------------------

#[test]
fn sources_vec_slice_array_box() {
    let v = data(300, 8);
    let it: rayon::vec::IntoIter<u32> = v.clone().into_par_iter();
    assert_eq!(it.collect::<Vec<_>>(), v);
    let it: rayon::slice::Iter<'_, u32> = (&v).into_par_iter();
    assert_eq!(it.count(), v.len());
    let mut m = v.clone();
    let it: rayon::slice::IterMut<'_, u32> = (&mut m).into_par_iter();
    it.for_each(|x| *x += 1);
    assert_eq!(m, v.iter().map(|x| x + 1).collect::<Vec<_>>());
    let it: rayon::slice::IterMut<'_, u32> = m.par_iter_mut();
    it.for_each(|x| *x -= 1);
    assert_eq!(m, v);

    let b: Box<[u32]> = v.clone().into_boxed_slice();
    let it: rayon::slice::Iter<'_, u32> = (&b).into_par_iter();
    assert_eq!(it.copied().collect::<Vec<_>>(), v);
    assert_eq!(b.par_iter().count(), v.len());
    let mut b2 = b.clone();
    let it: rayon::slice::IterMut<'_, u32> = (&mut b2).into_par_iter();
    it.for_each(|x| *x *= 2);
    assert_eq!(b2.to_vec(), v.iter().map(|x| x * 2).collect::<Vec<_>>());
    let it: rayon::vec::IntoIter<u32> = b.into_par_iter();
    assert_eq!(it.collect::<Vec<_>>(), v);

    let arr: [u32; 8] = [3, 1, 4, 1, 5, 9, 2, 6];
    let it: rayon::array::IntoIter<u32, 8> = arr.into_par_iter();
    assert_eq!(it.collect::<Vec<_>>(), arr.to_vec());
    let it: rayon::slice::Iter<'_, u32> = (&arr).into_par_iter();
    assert_eq!(it.sum::<u32>(), arr.iter().sum::<u32>());
    assert_eq!(arr.par_iter().sum::<u32>(), arr.iter().sum::<u32>());
    let mut arr2 = arr;
    let it: rayon::slice::IterMut<'_, u32> = (&mut arr2).into_par_iter();
    it.for_each(|x| *x += 1);
    assert_eq!(arr2, arr.map(|x| x + 1));
    arr2.par_iter_mut().for_each(|x| *x -= 1);
    assert_eq!(arr2, arr);

    let s: &[u32] = &v;
    let it: rayon::slice::Iter<'_, u32> = s.into_par_iter();
    assert_eq!(it.count(), v.len());
}

#[test]
fn sources_ranges() {
    let it: rayon::range::Iter<u32> = (0..100u32).into_par_iter();
    assert_eq!(it.sum::<u32>(), (0..100u32).sum::<u32>());
    let it: rayon::range::Iter<i64> = (-50..50i64).into_par_iter();
    // As in Rayon, 64- and 128-bit ranges are unindexed (but know their length).
    assert_eq!(it.collect::<Vec<_>>(), (-50..50i64).collect::<Vec<_>>());
    let it: rayon::range::Iter<u64> = (0..1000u64).into_par_iter();
    assert_eq!(it.opt_len(), Some(1000));
    let it: rayon::range::Iter<usize> = (0..10usize).into_par_iter();
    assert_eq!(it.collect::<Vec<_>>(), (0..10).collect::<Vec<_>>());
    let it: rayon::range::Iter<i128> = (0..10i128).into_par_iter();
    assert_eq!(it.sum::<i128>(), 45);
    let it: rayon::range::Iter<u8> = (0..10u8).into_par_iter();
    assert_eq!(it.count(), 10);
    let it: rayon::range::Iter<char> = ('a'..'k').into_par_iter();
    assert_eq!(it.collect::<String>(), ('a'..'k').collect::<String>());
    let it: rayon::range::Iter<char> = ('\u{D000}'..'\u{E100}').into_par_iter();
    assert_eq!(
        it.rev().collect::<Vec<char>>(),
        ('\u{D000}'..'\u{E100}').rev().collect::<Vec<char>>()
    );
    let it: rayon::range_inclusive::Iter<u32> = (0..=100u32).into_par_iter();
    assert_eq!(it.sum::<u32>(), (0..=100u32).sum::<u32>());
    let it: rayon::range_inclusive::Iter<char> = ('a'..='z').into_par_iter();
    assert_eq!(it.collect::<String>(), ('a'..='z').collect::<String>());
    // A length that overflows `usize`: the search stops at the first match.
    let it: rayon::range_inclusive::Iter<u64> = (0..=u64::MAX).into_par_iter();
    assert_eq!(it.find_first(|&x| x >= 5), Some(5));
    // `take_any_while` may stop before a prefix is complete (any part may see a failing
    // item first): what it takes passes the predicate, each item at most once.
    let it: rayon::range_inclusive::Iter<u64> = (0..=u64::MAX).into_par_iter();
    let mut taken: Vec<u64> = it.take_any_while(|&x| x < 3).collect();
    taken.sort_unstable();
    assert!(taken.windows(2).all(|w| w[0] < w[1]), "{taken:?}");
    assert!(taken.iter().all(|&x| x < 3), "{taken:?}");
    let it: rayon::range_inclusive::Iter<i8> = (i8::MIN..=i8::MAX).into_par_iter();
    assert_eq!(it.len(), 256);
}

#[test]
fn sources_option_result() {
    let it: rayon::option::IntoIter<u32> = Some(5u32).into_par_iter();
    assert_eq!(it.collect::<Vec<_>>(), vec![5]);
    let o = Some(6u32);
    let it: rayon::option::Iter<'_, u32> = o.par_iter();
    assert_eq!(it.copied().sum::<u32>(), 6);
    let it: rayon::option::Iter<'_, u32> = (&o).into_par_iter();
    assert_eq!(it.len(), 1);
    let mut o = Some(7u32);
    let it: rayon::option::IterMut<'_, u32> = o.par_iter_mut();
    it.for_each(|x| *x += 1);
    assert_eq!(o, Some(8));
    let it: rayon::option::IterMut<'_, u32> = (&mut o).into_par_iter();
    assert_eq!(it.count(), 1);
    let none: Option<u32> = None;
    assert_eq!(none.into_par_iter().count(), 0);

    let r: Result<u32, String> = Ok(3);
    let it: rayon::result::Iter<'_, u32> = r.par_iter();
    assert_eq!(it.copied().collect::<Vec<_>>(), vec![3]);
    let it: rayon::result::Iter<'_, u32> = (&r).into_par_iter();
    assert_eq!(it.count(), 1);
    let mut r2 = r.clone();
    let it: rayon::result::IterMut<'_, u32> = r2.par_iter_mut();
    it.for_each(|x| *x = 9);
    assert_eq!(r2, Ok(9));
    let it: rayon::result::IterMut<'_, u32> = (&mut r2).into_par_iter();
    assert_eq!(it.count(), 1);
    let it: rayon::result::IntoIter<u32> = r.into_par_iter();
    assert_eq!(it.collect::<Vec<_>>(), vec![3]);
    let e: Result<u32, String> = Err("no".into());
    assert_eq!(e.into_par_iter().count(), 0);
}

#[test]
fn sources_collections() {
    let v = data(200, 9);
    // Sequences: by reference, by mutable reference (both spellings), by value.
    macro_rules! sequence {
        ($collection:ident, $module:ident) => {{
            let c: $collection<u32> = v.iter().copied().collect();
            let it: rayon::collections::$module::Iter<'_, u32> = c.par_iter();
            assert_eq!(it.copied().collect::<Vec<_>>(), v);
            let it: rayon::collections::$module::Iter<'_, u32> = (&c).into_par_iter();
            assert_eq!(it.count(), v.len());
            let mut c2 = c.clone();
            let it: rayon::collections::$module::IterMut<'_, u32> = c2.par_iter_mut();
            it.for_each(|x| *x += 1);
            let it: rayon::collections::$module::IterMut<'_, u32> = (&mut c2).into_par_iter();
            it.for_each(|x| *x -= 1);
            assert_eq!(c2, c);
            let it: rayon::collections::$module::IntoIter<u32> = c.into_par_iter();
            assert_eq!(it.collect::<Vec<_>>(), v);
        }};
    }
    sequence!(VecDeque, vec_deque);
    sequence!(LinkedList, linked_list);

    let bh: BinaryHeap<u32> = v.iter().copied().collect();
    let it: rayon::collections::binary_heap::Iter<'_, u32> = bh.par_iter();
    assert_eq!(it.copied().max(), v.iter().copied().max());
    let it: rayon::collections::binary_heap::Iter<'_, u32> = (&bh).into_par_iter();
    assert_eq!(it.count(), v.len());
    let it: rayon::collections::binary_heap::IntoIter<u32> = bh.into_par_iter();
    assert_eq!(
        it.map(|x| x as u64).sum::<u64>(),
        v.iter().map(|&x| x as u64).sum::<u64>()
    );

    let bs: BTreeSet<u32> = v.iter().copied().collect();
    let it: rayon::collections::btree_set::Iter<'_, u32> = bs.par_iter();
    assert_eq!(
        it.copied().collect::<Vec<_>>(),
        bs.iter().copied().collect::<Vec<_>>()
    );
    let it: rayon::collections::btree_set::Iter<'_, u32> = (&bs).into_par_iter();
    assert_eq!(it.count(), bs.len());
    let it: rayon::collections::btree_set::IntoIter<u32> = bs.clone().into_par_iter();
    assert_eq!(
        it.collect::<Vec<_>>(),
        bs.iter().copied().collect::<Vec<_>>()
    );

    // Maps: by reference, by mutable reference (both spellings), by value.
    macro_rules! map {
        ($collection:ident, $module:ident) => {{
            let m: $collection<u32, usize> = v.iter().enumerate().map(|(i, &x)| (x, i)).collect();
            let it: rayon::collections::$module::Iter<'_, u32, usize> = m.par_iter();
            assert_eq!(it.map(|(&k, &x)| (k, x)).collect::<$collection<_, _>>(), m);
            let it: rayon::collections::$module::Iter<'_, u32, usize> = (&m).into_par_iter();
            assert_eq!(it.count(), m.len());
            let mut m2 = m.clone();
            let it: rayon::collections::$module::IterMut<'_, u32, usize> = m2.par_iter_mut();
            it.for_each(|(_, x)| *x += 1);
            let it: rayon::collections::$module::IterMut<'_, u32, usize> =
                (&mut m2).into_par_iter();
            it.for_each(|(_, x)| *x -= 1);
            assert_eq!(m2, m);
            let it: rayon::collections::$module::IntoIter<u32, usize> = m.clone().into_par_iter();
            assert_eq!(it.collect::<$collection<_, _>>(), m);
        }};
    }
    map!(BTreeMap, btree_map);
    map!(HashMap, hash_map);

    let hs: HashSet<u32> = v.iter().copied().collect();
    let it: rayon::collections::hash_set::Iter<'_, u32> = hs.par_iter();
    assert_eq!(it.copied().collect::<HashSet<_>>(), hs);
    let it: rayon::collections::hash_set::Iter<'_, u32> = (&hs).into_par_iter();
    assert_eq!(it.count(), hs.len());
    let it: rayon::collections::hash_set::IntoIter<u32> = hs.clone().into_par_iter();
    assert_eq!(it.collect::<HashSet<_>>(), hs);
}

#[test]
fn drains() {
    let v = data(100, 10);
    let mut m = v.clone();
    let d: rayon::vec::Drain<'_, u32> = m.par_drain(10..20);
    assert_eq!(d.collect::<Vec<_>>(), v[10..20].to_vec());
    let mut want = v.clone();
    want.drain(10..20);
    assert_eq!(m, want);
    let all: Vec<u32> = m.par_drain(..).collect();
    assert_eq!(all, want);
    assert!(m.is_empty());

    let mut vd: VecDeque<u32> = v.iter().copied().collect();
    let d: rayon::collections::vec_deque::Drain<'_, u32> = vd.par_drain(5..15);
    assert_eq!(d.collect::<Vec<_>>(), v[5..15].to_vec());
    assert_eq!(vd.len(), v.len() - 10);

    let mut bh: BinaryHeap<u32> = v.iter().copied().collect();
    let d: rayon::collections::binary_heap::Drain<'_, u32> = bh.par_drain();
    let mut got: Vec<u32> = d.collect();
    got.sort();
    let mut sorted = v.clone();
    sorted.sort();
    assert_eq!(got, sorted);
    assert!(bh.is_empty());

    let mut hs: HashSet<u32> = v.iter().copied().collect();
    let want = hs.clone();
    let d: rayon::collections::hash_set::Drain<'_, u32> = hs.par_drain();
    assert_eq!(d.collect::<HashSet<_>>(), want);
    assert!(hs.is_empty());

    let mut hm: HashMap<u32, u32> = v.iter().map(|&x| (x, x * 2)).collect();
    let want = hm.clone();
    let d: rayon::collections::hash_map::Drain<'_, u32, u32> = hm.par_drain();
    assert_eq!(d.collect::<HashMap<_, _>>(), want);
    assert!(hm.is_empty());

    let mut s = String::from("héllo wörld");
    let mut want = s.clone();
    let want_drained: String = want.drain(1..7).collect();
    let d: rayon::string::Drain<'_> = s.par_drain(1..7);
    assert_eq!(d.collect::<String>(), want_drained);
    assert_eq!(s, want);
}

// ---------------------------------------------------------------------------------------
// FromParallelIterator and ParallelExtend targets
// ---------------------------------------------------------------------------------------

fn collect_via<C: rayon::iter::FromParallelIterator<u32>>(v: &[u32]) -> C {
    C::from_par_iter(v.par_iter().copied())
}

#[test]
fn from_parallel_iterator_targets() {
    let v = data(300, 11);
    let words: Vec<String> = v.iter().map(|x| format!("w{x}")).collect();

    let c: Vec<u32> = collect_via(&v);
    assert_eq!(c, v);
    let c: Box<[u32]> = v.par_iter().copied().collect();
    assert_eq!(&*c, &v[..]);
    let c: Rc<[u32]> = v.par_iter().copied().collect();
    assert_eq!(&*c, &v[..]);
    let c: Arc<[u32]> = v.par_iter().copied().collect();
    assert_eq!(&*c, &v[..]);
    let c: VecDeque<u32> = v.par_iter().copied().collect();
    assert_eq!(c, v.iter().copied().collect::<VecDeque<_>>());
    let c: BinaryHeap<u32> = v.par_iter().copied().collect();
    assert_eq!(
        c.into_sorted_vec(),
        v.iter()
            .copied()
            .collect::<BinaryHeap<_>>()
            .into_sorted_vec()
    );
    let c: LinkedList<u32> = v.par_iter().copied().collect();
    assert_eq!(c, v.iter().copied().collect::<LinkedList<_>>());
    let c: HashMap<u32, usize> = v.par_iter().enumerate().map(|(i, &x)| (x, i)).collect();
    assert_eq!(c.len(), v.iter().copied().collect::<HashSet<_>>().len());
    let c: BTreeMap<u32, u32> = v.par_iter().map(|&x| (x, x * 2)).collect();
    assert_eq!(c, v.iter().map(|&x| (x, x * 2)).collect::<BTreeMap<_, _>>());
    let c: HashSet<u32> = v.par_iter().copied().collect();
    assert_eq!(c, v.iter().copied().collect::<HashSet<_>>());
    let c: BTreeSet<u32> = v.par_iter().copied().collect();
    assert_eq!(c, v.iter().copied().collect::<BTreeSet<_>>());
    let c: HashMap<u32, u32, std::collections::hash_map::RandomState> =
        v.par_iter().map(|&x| (x, x)).collect();
    assert_eq!(c.len(), v.iter().copied().collect::<HashSet<_>>().len());

    let text = "hello wörld";
    let s: String = text.par_chars().collect();
    assert_eq!(s, text);
    let s: String = text.par_chars().collect::<Vec<char>>().par_iter().collect();
    assert_eq!(s, text);
    let s: String = words.par_iter().map(|w| w.as_str()).collect();
    assert_eq!(s, words.concat());
    let s: String = words.par_iter().cloned().collect();
    assert_eq!(s, words.concat());
    let s: String = words
        .par_iter()
        .map(|w| w.clone().into_boxed_str())
        .collect();
    assert_eq!(s, words.concat());
    let s: String = words
        .par_iter()
        .map(|w| Cow::Borrowed(w.as_str()))
        .collect();
    assert_eq!(s, words.concat());
    let b: Box<str> = text.par_chars().collect();
    assert_eq!(&*b, text);
    let b: Box<str> = words.par_iter().map(|w| w.as_str()).collect();
    assert_eq!(&*b, words.concat());
    let b: Box<str> = words.par_iter().cloned().collect();
    assert_eq!(&*b, words.concat());
    let b: Box<str> = text.par_chars().collect::<Vec<char>>().par_iter().collect();
    assert_eq!(&*b, text);
    let b: Box<str> = words
        .par_iter()
        .map(|w| Cow::Borrowed(w.as_str()))
        .collect();
    assert_eq!(&*b, words.concat());
    let b: Box<str> = words
        .par_iter()
        .map(|w| w.clone().into_boxed_str())
        .collect();
    assert_eq!(&*b, words.concat());

    let c: Cow<'_, [u32]> = v.par_iter().copied().collect();
    assert_eq!(&*c, &v[..]);
    let c: Cow<'_, str> = words.par_iter().map(|w| w.as_str()).collect();
    assert_eq!(c, words.concat());

    let os: std::ffi::OsString = words
        .par_iter()
        .map(|w| std::ffi::OsStr::new(w.as_str()))
        .collect();
    assert_eq!(os, std::ffi::OsString::from(words.concat()));
    let os: std::ffi::OsString = words.par_iter().map(std::ffi::OsString::from).collect();
    assert_eq!(os, std::ffi::OsString::from(words.concat()));
    let os: std::ffi::OsString = words
        .par_iter()
        .map(|w| Cow::Borrowed(std::ffi::OsStr::new(w.as_str())))
        .collect();
    assert_eq!(os, std::ffi::OsString::from(words.concat()));

    let unit: () = v.par_iter().map(|_| ()).collect();
    assert_eq!(unit, ());

    let o: Option<Vec<u32>> = v.par_iter().map(|&x| Some(x)).collect();
    assert_eq!(o, Some(v.clone()));
    let o: Option<Vec<u32>> = v
        .par_iter()
        .map(|&x| if x == v[3] { None } else { Some(x) })
        .collect();
    assert_eq!(o, None);
    let r: Result<Vec<u32>, String> = v.par_iter().map(|&x| Ok(x)).collect();
    assert_eq!(r, Ok(v.clone()));
    let r: Result<Vec<u32>, u32> = v
        .par_iter()
        .map(|&x| if x == v[3] { Err(x) } else { Ok(x) })
        .collect();
    assert_eq!(r, Err(v[3]));

    let (a, b): (Vec<u32>, BTreeSet<u32>) = v.par_iter().map(|&x| (x, x)).collect();
    assert_eq!((a, b), (v.clone(), v.iter().copied().collect()));
    let (a, b): (Vec<u32>, Vec<u32>) = v
        .par_iter()
        .map(|&x| {
            if x % 2 == 0 {
                rayon::iter::Either::Left(x)
            } else {
                rayon::iter::Either::Right(x)
            }
        })
        .collect();
    assert_eq!(
        a,
        v.iter().copied().filter(|x| x % 2 == 0).collect::<Vec<_>>()
    );
    assert_eq!(
        b,
        v.iter().copied().filter(|x| x % 2 == 1).collect::<Vec<_>>()
    );
    let nested: ((Vec<u32>, Vec<u32>), Vec<u32>) =
        v.par_iter().map(|&x| ((x, x + 1), x + 2)).collect();
    assert_eq!(nested.1, v.iter().map(|x| x + 2).collect::<Vec<_>>());
}

#[test]
fn parallel_extend_targets() {
    let v = data(300, 12);
    let words: Vec<String> = v.iter().map(|x| format!("w{x}")).collect();

    macro_rules! extend_both {
        ($t:ty, $par:expr, $seq:expr) => {{
            let mut a: $t = Default::default();
            let mut b: $t = Default::default();
            a.par_extend($par);
            b.extend($seq);
            assert_eq!(a, b);
        }};
    }
    extend_both!(Vec<u32>, v.par_iter().copied(), v.iter().copied());
    extend_both!(Vec<u32>, v.par_iter(), v.iter());
    extend_both!(VecDeque<u32>, v.par_iter().copied(), v.iter().copied());
    extend_both!(VecDeque<u32>, v.par_iter(), v.iter());
    extend_both!(LinkedList<u32>, v.par_iter().copied(), v.iter().copied());
    extend_both!(LinkedList<u32>, v.par_iter(), v.iter());
    extend_both!(HashSet<u32>, v.par_iter().copied(), v.iter().copied());
    extend_both!(HashSet<u32>, v.par_iter(), v.iter());
    extend_both!(BTreeSet<u32>, v.par_iter().copied(), v.iter().copied());
    extend_both!(BTreeSet<u32>, v.par_iter(), v.iter());
    let pairs: Vec<(u32, u32)> = v.iter().map(|&x| (x, x + 1)).collect();
    extend_both!(HashMap<u32, u32>, pairs.par_iter().copied(), pairs.iter().copied());
    extend_both!(HashMap<u32, u32>, pairs.par_iter().map(|(a, b)| (a, b)), pairs.iter().map(|(a, b)| (a, b)));
    extend_both!(BTreeMap<u32, u32>, pairs.par_iter().copied(), pairs.iter().copied());
    extend_both!(BTreeMap<u32, u32>, pairs.par_iter().map(|(a, b)| (a, b)), pairs.iter().map(|(a, b)| (a, b)));

    let mut h: BinaryHeap<u32> = BinaryHeap::new();
    h.par_extend(v.par_iter().copied());
    h.par_extend(v.par_iter());
    let mut want: Vec<u32> = v.iter().chain(&v).copied().collect();
    want.sort();
    assert_eq!(h.into_sorted_vec(), want);

    let chars: Vec<char> = "añb€c".chars().collect();
    extend_both!(String, chars.par_iter().copied(), chars.iter().copied());
    extend_both!(String, chars.par_iter(), chars.iter());
    extend_both!(
        String,
        words.par_iter().map(|w| w.as_str()),
        words.iter().map(|w| w.as_str())
    );
    extend_both!(String, words.par_iter().cloned(), words.iter().cloned());
    extend_both!(
        String,
        words.par_iter().map(|w| w.clone().into_boxed_str()),
        words.iter().map(|w| w.clone().into_boxed_str())
    );
    extend_both!(
        String,
        words.par_iter().map(|w| Cow::Borrowed(w.as_str())),
        words.iter().map(|w| Cow::Borrowed(w.as_str()))
    );

    let mut os = std::ffi::OsString::new();
    os.par_extend(words.par_iter().map(|w| std::ffi::OsStr::new(w.as_str())));
    os.par_extend(words.par_iter().map(std::ffi::OsString::from));
    os.par_extend(
        words
            .par_iter()
            .map(|w| Cow::Borrowed(std::ffi::OsStr::new(w.as_str()))),
    );
    assert_eq!(os, std::ffi::OsString::from(words.concat().repeat(3)));

    let mut unit = ();
    unit.par_extend(v.par_iter().map(|_| ()));

    let mut ab: (Vec<u32>, Vec<u32>) = Default::default();
    ab.par_extend(v.par_iter().map(|&x| (x, x * 2)));
    assert_eq!(ab.0, v);
    let mut lr: (Vec<u32>, Vec<u32>) = Default::default();
    lr.par_extend(v.par_iter().map(|&x| {
        if x % 2 == 0 {
            rayon::iter::Either::Left(x)
        } else {
            rayon::iter::Either::Right(x)
        }
    }));
    assert_eq!(lr.0.len() + lr.1.len(), v.len());

    let mut e: rayon::iter::Either<Vec<u32>, VecDeque<u32>> = rayon::iter::Either::Left(Vec::new());
    e.par_extend(v.par_iter().copied());
    assert_eq!(e.left(), Some(v.clone()));

    fn generic_extend<C: rayon::iter::ParallelExtend<u32>>(c: &mut C, v: &[u32]) {
        c.par_extend(v.par_iter().copied());
    }
    let mut g = Vec::new();
    generic_extend(&mut g, &v);
    assert_eq!(g, v);
}

// ---------------------------------------------------------------------------------------
// rayon::str
// ---------------------------------------------------------------------------------------

fn generic_string<S: rayon::str::ParallelString + ?Sized>(s: &S) -> usize {
    s.as_parallel_string().len()
}

/// Asserts that a parallel iterator yields what the sequential one does, in order.
fn same<P, S>(par: P, seq: S)
where
    P: rayon::iter::ParallelIterator,
    S: Iterator<Item = P::Item>,
    P::Item: PartialEq + std::fmt::Debug,
{
    assert_eq!(par.collect::<Vec<_>>(), seq.collect::<Vec<_>>());
}

#[test]
fn parallel_string_methods() {
    let text = "Hello wörld,\tthe  quick\r\nbrown\nfox; jumps.over\u{3000}the lazy dog\n";
    assert_eq!(generic_string(text), text.len());
    assert_eq!(generic_string(String::from(text).as_str()), text.len());

    let c: rayon::str::Chars<'_> = text.par_chars();
    same(c, text.chars());
    let c: rayon::str::CharIndices<'_> = text.par_char_indices();
    same(c, text.char_indices());
    let b: rayon::str::Bytes<'_> = text.par_bytes();
    same(b, text.bytes());
    let e: rayon::str::EncodeUtf16<'_> = text.par_encode_utf16();
    same(e, text.encode_utf16());

    let s: rayon::str::Split<'_, char> = text.par_split(' ');
    same(s, text.split(' '));
    let s: rayon::str::Split<'_, &[char]> = text.par_split(&[' ', ','][..]);
    same(s, text.split(&[' ', ','][..]));
    let arr = [' ', ','];
    same(text.par_split(arr), text.split(arr));
    same(text.par_split(&arr), text.split(&arr));
    let pred = |c: char| c.is_ascii_punctuation();
    same(text.par_split(pred), text.split(pred));
    let s: rayon::str::SplitInclusive<'_, char> = text.par_split_inclusive('o');
    same(s, text.split_inclusive('o'));
    let s: rayon::str::SplitTerminator<'_, char> = text.par_split_terminator('\n');
    same(s, text.split_terminator('\n'));
    let l: rayon::str::Lines<'_> = text.par_lines();
    same(l, text.lines());
    let w: rayon::str::SplitWhitespace<'_> = text.par_split_whitespace();
    same(w, text.split_whitespace());
    let w: rayon::str::SplitAsciiWhitespace<'_> = text.par_split_ascii_whitespace();
    same(w, text.split_ascii_whitespace());
    let m: rayon::str::Matches<'_, char> = text.par_matches('o');
    same(m, text.matches('o'));
    let m: rayon::str::MatchIndices<'_, char> = text.par_match_indices('o');
    same(m, text.match_indices('o'));
    let m = text.par_matches(char::is_uppercase);
    same(m, text.matches(char::is_uppercase));
}

// ---------------------------------------------------------------------------------------
// Free-function sources and bridges
// ---------------------------------------------------------------------------------------

#[test]
fn free_sources() {
    let e: rayon::iter::Empty<u32> = rayon::iter::empty();
    assert_eq!(e.count(), 0);
    let o: rayon::iter::Once<u32> = rayon::iter::once(7);
    assert_eq!(o.collect::<Vec<_>>(), vec![7]);
    let r: rayon::iter::Repeat<u32> = rayon::iter::repeat(3);
    assert_eq!(r.take(4).collect::<Vec<_>>(), vec![3; 4]);
    let r: rayon::iter::RepeatN<u32> = rayon::iter::repeat_n(3, 5);
    assert_eq!(r.collect::<Vec<_>>(), vec![3; 5]);
    #[allow(deprecated)]
    let r: rayon::iter::RepeatN<u32> = rayon::iter::repeatn(3, 2); // Rayon 1.10's name
    assert_eq!(r.collect::<Vec<_>>(), vec![3; 2]);
    let z = rayon::iter::repeat(1u32).zip(0..4u32);
    assert_eq!(z.collect::<Vec<_>>(), vec![(1, 0), (1, 1), (1, 2), (1, 3)]);

    let sp: rayon::iter::Split<std::ops::Range<u32>, _> = rayon::iter::split(0..1000u32, |r| {
        if r.len() < 10 {
            (r, None)
        } else {
            let mid = r.start + (r.end - r.start) / 2;
            (r.start..mid, Some(mid..r.end))
        }
    });
    let mut got: Vec<u32> = sp.flat_map_iter(|r| r).collect();
    got.sort();
    assert_eq!(got, (0..1000).collect::<Vec<_>>());

    // walk_tree over a small implicit binary tree: node n has children 2n+1, 2n+2 (< 31)
    let children = |&n: &u32| -> Vec<u32> {
        [2 * n + 1, 2 * n + 2]
            .into_iter()
            .filter(|&c| c < 31)
            .collect()
    };
    let pre: rayon::iter::WalkTreePrefix<u32, _> = rayon::iter::walk_tree_prefix(0u32, children);
    let mut seq_pre = Vec::new();
    fn pre_order(n: u32, out: &mut Vec<u32>) {
        if n < 31 {
            out.push(n);
            pre_order(2 * n + 1, out);
            pre_order(2 * n + 2, out);
        }
    }
    pre_order(0, &mut seq_pre);
    assert_eq!(pre.collect::<Vec<_>>(), seq_pre);
    let post: rayon::iter::WalkTreePostfix<u32, _> = rayon::iter::walk_tree_postfix(0u32, children);
    let mut seq_post = Vec::new();
    fn post_order(n: u32, out: &mut Vec<u32>) {
        if n < 31 {
            post_order(2 * n + 1, out);
            post_order(2 * n + 2, out);
            out.push(n);
        }
    }
    post_order(0, &mut seq_post);
    assert_eq!(post.collect::<Vec<_>>(), seq_post);
    let any: rayon::iter::WalkTree<u32, _> = rayon::iter::walk_tree(0u32, children);
    let mut got: Vec<u32> = any.collect();
    got.sort();
    assert_eq!(got, (0..31).collect::<Vec<_>>());

    let b: rayon::iter::IterBridge<std::vec::IntoIter<u32>> =
        vec![1u32, 2, 3].into_iter().par_bridge();
    let mut got: Vec<u32> = b.collect();
    got.sort();
    assert_eq!(got, vec![1, 2, 3]);
    let b = (0..100u32).par_bridge();
    assert_eq!(b.sum::<u32>(), (0..100u32).sum());

    let either: rayon::iter::Either<rayon::range::Iter<u32>, rayon::vec::IntoIter<u32>> =
        rayon::iter::Either::Left((0..10u32).into_par_iter());
    assert_eq!(either.sum::<u32>(), 45);
    let either: rayon::iter::Either<rayon::range::Iter<u32>, rayon::vec::IntoIter<u32>> =
        rayon::iter::Either::Right(vec![1, 2].into_par_iter());
    assert_eq!(either.rev().collect::<Vec<_>>(), vec![2, 1]);
}

// ---------------------------------------------------------------------------------------
// rayon::iter::plumbing: a custom producer and a custom consumer, written against the
// traits as a Rayon user would
// ---------------------------------------------------------------------------------------

mod custom {
    use super::rayon;
    use rayon::iter::plumbing::{
        bridge, bridge_producer_consumer, bridge_unindexed, Consumer, Folder, Producer,
        ProducerCallback, Reducer, UnindexedConsumer, UnindexedProducer,
    };
    use rayon::iter::{IndexedParallelIterator, ParallelIterator};

    /// Squares of `start..end`, as a hand-written indexed parallel iterator.
    pub(super) struct Squares {
        pub(super) start: u64,
        pub(super) end: u64,
    }

    struct SquaresProducer {
        start: u64,
        end: u64,
    }

    impl Producer for SquaresProducer {
        type Item = u64;
        type IntoIter = std::iter::Map<std::ops::Range<u32>, fn(u32) -> u64>;

        fn into_iter(self) -> Self::IntoIter {
            (self.start as u32..self.end as u32).map(|x| u64::from(x) * u64::from(x))
        }
        fn min_len(&self) -> usize {
            4
        }
        fn max_len(&self) -> usize {
            usize::MAX
        }
        fn split_at(self, index: usize) -> (Self, Self) {
            let mid = self.start + index as u64;
            (
                SquaresProducer {
                    start: self.start,
                    end: mid,
                },
                SquaresProducer {
                    start: mid,
                    end: self.end,
                },
            )
        }
    }

    impl ParallelIterator for Squares {
        type Item = u64;
        fn drive_unindexed<C>(self, consumer: C) -> C::Result
        where
            C: UnindexedConsumer<Self::Item>,
        {
            bridge(self, consumer)
        }
        fn opt_len(&self) -> Option<usize> {
            Some(self.len())
        }
    }

    impl IndexedParallelIterator for Squares {
        fn len(&self) -> usize {
            (self.end - self.start) as usize
        }
        fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
            let len = self.len();
            bridge_producer_consumer(
                len,
                SquaresProducer {
                    start: self.start,
                    end: self.end,
                },
                consumer,
            )
        }
        fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
            callback.callback(SquaresProducer {
                start: self.start,
                end: self.end,
            })
        }
    }

    /// An unindexed producer: the bits of a mask, split by halving the mask's width.
    #[derive(Clone, Copy)]
    pub(super) struct Bits {
        pub(super) mask: u64,
        pub(super) lo: u32,
        pub(super) hi: u32,
    }

    impl UnindexedProducer for Bits {
        type Item = u32;
        fn split(self) -> (Self, Option<Self>) {
            if self.hi - self.lo <= 4 {
                return (self, None);
            }
            let mid = self.lo + (self.hi - self.lo) / 2;
            (Bits { hi: mid, ..self }, Some(Bits { lo: mid, ..self }))
        }
        fn fold_with<F: Folder<Self::Item>>(self, folder: F) -> F {
            folder.consume_iter((self.lo..self.hi).filter(|b| self.mask >> b & 1 == 1))
        }
    }

    pub(super) struct BitsIter(pub(super) u64);

    impl ParallelIterator for BitsIter {
        type Item = u32;
        fn drive_unindexed<C: UnindexedConsumer<u32>>(self, consumer: C) -> C::Result {
            bridge_unindexed(
                Bits {
                    mask: self.0,
                    lo: 0,
                    hi: 64,
                },
                consumer,
            )
        }
    }

    /// A consumer that counts items (a custom terminal operation).
    pub(super) struct CountConsumer;
    pub(super) struct CountFolder(usize);
    pub(super) struct AddReducer;

    impl<T> Consumer<T> for CountConsumer {
        type Folder = CountFolder;
        type Reducer = AddReducer;
        type Result = usize;
        fn split_at(self, _index: usize) -> (Self, Self, AddReducer) {
            (CountConsumer, CountConsumer, AddReducer)
        }
        fn into_folder(self) -> CountFolder {
            CountFolder(0)
        }
        fn full(&self) -> bool {
            false
        }
    }
    impl<T> UnindexedConsumer<T> for CountConsumer {
        fn split_off_left(&self) -> Self {
            CountConsumer
        }
        fn to_reducer(&self) -> AddReducer {
            AddReducer
        }
    }
    impl<T> Folder<T> for CountFolder {
        type Result = usize;
        fn consume(self, _item: T) -> Self {
            CountFolder(self.0 + 1)
        }
        fn complete(self) -> usize {
            self.0
        }
        fn full(&self) -> bool {
            false
        }
    }
    impl Reducer<usize> for AddReducer {
        fn reduce(self, left: usize, right: usize) -> usize {
            left + right
        }
    }
}

#[test]
fn plumbing_custom_iterators() {
    let sq = custom::Squares {
        start: 3,
        end: 1000,
    };
    let want: Vec<u64> = (3..1000u64).map(|x| x * x).collect();
    assert_eq!(sq.collect::<Vec<_>>(), want);
    let sq = custom::Squares {
        start: 3,
        end: 1000,
    };
    assert_eq!(
        sq.rev().skip(5).step_by(3).collect::<Vec<_>>(),
        want.iter()
            .rev()
            .skip(5)
            .step_by(3)
            .copied()
            .collect::<Vec<_>>()
    );
    let sq = custom::Squares { start: 0, end: 100 };
    let zipped: Vec<(u64, u32)> = sq.zip(0..100u32).collect();
    assert_eq!(zipped[10], (100, 10));

    let mask = 0xF0F0_1234_8000_0001u64;
    let mut bits: Vec<u32> = custom::BitsIter(mask).collect();
    bits.sort();
    assert_eq!(
        bits,
        (0..64).filter(|b| mask >> b & 1 == 1).collect::<Vec<_>>()
    );

    let v = data(500, 13);
    let n = v
        .par_iter()
        .filter(|&&x| x % 2 == 0)
        .drive_unindexed(custom::CountConsumer);
    assert_eq!(n, v.iter().filter(|&&x| x % 2 == 0).count());
    let n = v.par_iter().drive(custom::CountConsumer);
    assert_eq!(n, v.len());
    let n = rayon::iter::plumbing::bridge(v.par_iter(), custom::CountConsumer);
    assert_eq!(n, v.len());

    struct LenCallback;
    impl<T> rayon::iter::plumbing::ProducerCallback<T> for LenCallback {
        type Output = usize;
        fn callback<P: rayon::iter::plumbing::Producer<Item = T>>(self, producer: P) -> usize {
            producer.into_iter().len()
        }
    }
    assert_eq!(v.par_iter().with_producer(LenCallback), v.len());
    assert_eq!(
        v.par_iter()
            .map(|x| x + 1)
            .enumerate()
            .with_producer(LenCallback),
        v.len()
    );
}

// ---------------------------------------------------------------------------------------
// Sum / Product targets, prelude contents
// ---------------------------------------------------------------------------------------

#[test]
fn sum_product_targets() {
    let v = data(64, 14);
    macro_rules! sum_as {
        ($($t:ty),*) => {$(
            let s: $t = v.par_iter().map(|&x| (x % 100) as $t).sum();
            assert_eq!(s, v.iter().map(|&x| (x % 100) as $t).sum::<$t>());
            let s: $t = v.par_iter().map(|&x| (x % 100) as $t).collect::<Vec<$t>>().par_iter().sum();
            assert_eq!(s, v.iter().map(|&x| (x % 100) as $t).sum::<$t>());
            let p: $t = v[..4].par_iter().map(|&x| (x % 5 + 1) as $t).product();
            assert_eq!(p, v[..4].iter().map(|&x| (x % 5 + 1) as $t).product::<$t>());
            let p: $t = v[..4].iter().map(|&x| (x % 5 + 1) as $t).collect::<Vec<$t>>().par_iter().product();
            assert_eq!(p, v[..4].iter().map(|&x| (x % 5 + 1) as $t).product::<$t>());
        )*};
    }
    sum_as!(u16, u32, u64, u128, usize, i16, i32, i64, i128, isize, f32, f64);

    fn generic_sum<I>(it: I) -> u64
    where
        I: rayon::iter::ParallelIterator,
        u64: std::iter::Sum<I::Item> + std::iter::Sum<u64>,
    {
        it.sum()
    }
    assert_eq!(
        generic_sum(v.par_iter().map(|&x| x as u64)),
        v.iter().map(|&x| x as u64).sum::<u64>()
    );
}

#[test]
fn prelude_contents() {
    // Each trait is named through the prelude path, as `use rayon::prelude::*` exposes it.
    fn _names() {
        fn f<T: rayon::prelude::FromParallelIterator<u8>>() {}
        fn g<T: rayon::prelude::IndexedParallelIterator>() {}
        fn h<T: rayon::prelude::IntoParallelIterator>() {}
        fn i<'a, T: rayon::prelude::IntoParallelRefIterator<'a>>() {}
        fn j<'a, T: rayon::prelude::IntoParallelRefMutIterator<'a>>() {}
        fn k<T: rayon::prelude::ParallelBridge>() {}
        fn l<T: rayon::prelude::ParallelDrainFull>() {}
        fn m<T: rayon::prelude::ParallelDrainRange>() {}
        fn n<T: rayon::prelude::ParallelExtend<u8>>() {}
        fn o<T: rayon::prelude::ParallelIterator>() {}
        fn p<T: rayon::prelude::ParallelSlice<u8> + ?Sized>() {}
        fn q<T: rayon::prelude::ParallelSliceMut<u8> + ?Sized>() {}
        fn r<T: rayon::prelude::ParallelString + ?Sized>() {}
        let _ = (
            f::<Vec<u8>>,
            g::<rayon::range::Iter<u8>>,
            h::<Vec<u8>>,
            i::<Vec<u8>>,
        );
        let _ = (
            j::<Vec<u8>>,
            k::<std::vec::IntoIter<u8>>,
            l::<&mut HashSet<u8>>,
        );
        let _ = (
            m::<&mut Vec<u8>>,
            n::<Vec<u8>>,
            o::<rayon::vec::IntoIter<u8>>,
        );
        let _ = (p::<[u8]>, q::<[u8]>, r::<str>);
    }
    _names();
    let v: Vec<u32> = (0..10u32).into_par_iter().collect();
    assert_eq!(v, (0..10).collect::<Vec<_>>());
}

// ---------------------------------------------------------------------------------------
// `*_with` state needs only `Send + Clone` (not `Sync`), as in Rayon
// ---------------------------------------------------------------------------------------

#[test]
fn with_state_need_not_be_sync() {
    use std::cell::Cell;
    let v = data(500, 15);
    let want: u64 = v.iter().map(|&x| x as u64).sum();
    let zero = Cell::new(0u64); // Send + Clone, not Sync

    let s: u64 = v
        .par_iter()
        .map_with(zero.clone(), |c, &x| c.get() + x as u64)
        .sum();
    assert_eq!(s, want);
    let s: u64 = v
        .par_iter()
        .fold_with(zero.clone(), |c, &x| Cell::new(c.get() + x as u64))
        .map(|c| c.get())
        .sum();
    assert_eq!(s, want);
    let s: Option<u64> = v
        .par_iter()
        .try_fold_with(zero.clone(), |c, &x| Some(Cell::new(c.get() + x as u64)))
        .map(|c| c.map(|c| c.get()))
        .sum();
    assert_eq!(s, Some(want));
    let s: u64 = v
        .par_iter()
        .fold_chunks_with(16, zero.clone(), |c, &x| Cell::new(c.get() + x as u64))
        .map(|c| c.get())
        .sum();
    assert_eq!(s, want);
    let total = AtomicUsize::new(0);
    v.par_iter().for_each_with(zero.clone(), |c, &x| {
        total.fetch_add((c.get() + x as u64) as usize, AtomicOrdering::Relaxed);
    });
    assert_eq!(total.load(AtomicOrdering::Relaxed) as u64, want);
    let r: Result<(), ()> =
        v.par_iter()
            .try_for_each_with(zero, |c, _| if c.get() == 0 { Ok(()) } else { Err(()) });
    assert_eq!(r, Ok(()));
}

// ---------------------------------------------------------------------------------------
// Iterator types are Clone + Debug where Rayon's are (so `it.clone()` and `{:?}` work)
// ---------------------------------------------------------------------------------------

fn clone_debug<T: Clone + std::fmt::Debug>(t: &T) -> String {
    format!("{:?}", t.clone())
}

#[test]
fn iterator_types_are_clone_and_debug() {
    let v = data(20, 16);
    let w = v.clone();
    let f = |x: &u32| x + 1;
    let p = |x: &&u32| **x > 3;
    let nested = vec![vec![1u32], vec![2]];
    let mut out = Vec::new();
    out.push(clone_debug(&v.par_iter()));
    out.push(clone_debug(&v.clone().into_par_iter()));
    out.push(clone_debug(&(0..5u32).into_par_iter()));
    out.push(clone_debug(&(0..=5u32).into_par_iter()));
    out.push(clone_debug(&('a'..'e').into_par_iter()));
    out.push(clone_debug(&Some(1u32).into_par_iter()));
    out.push(clone_debug(&Some(1u32).par_iter()));
    out.push(clone_debug(&Ok::<u32, ()>(1).par_iter()));
    out.push(clone_debug(&[1u32, 2].into_par_iter()));
    out.push(clone_debug(&v.par_iter().map(f)));
    out.push(clone_debug(&v.par_iter().filter(p)));
    out.push(clone_debug(&v.par_iter().filter_map(|&x| Some(x))));
    out.push(clone_debug(&v.par_iter().cloned()));
    out.push(clone_debug(&v.par_iter().copied()));
    out.push(clone_debug(&v.par_iter().enumerate()));
    out.push(clone_debug(&v.par_iter().zip(&w)));
    out.push(clone_debug(&v.par_iter().zip_eq(&w)));
    out.push(clone_debug(&v.par_iter().chain(&w)));
    out.push(clone_debug(&v.par_iter().rev()));
    out.push(clone_debug(&v.par_iter().skip(2)));
    out.push(clone_debug(&v.par_iter().take(2)));
    out.push(clone_debug(&v.par_iter().step_by(2)));
    out.push(clone_debug(&v.par_iter().chunks(2)));
    out.push(clone_debug(&v.par_iter().with_min_len(2)));
    out.push(clone_debug(&v.par_iter().with_max_len(2)));
    out.push(clone_debug(&v.par_iter().interleave(&w)));
    out.push(clone_debug(&v.par_iter().interleave_shortest(&w)));
    out.push(clone_debug(&v.par_iter().copied().intersperse(0)));
    out.push(clone_debug(&v.par_iter().inspect(|_| {})));
    out.push(clone_debug(&v.par_iter().copied().update(|_| {})));
    out.push(clone_debug(&v.par_iter().flat_map(|&x| vec![x])));
    out.push(clone_debug(&v.par_iter().flat_map_iter(|&x| vec![x])));
    out.push(clone_debug(&nested.par_iter().flatten()));
    out.push(clone_debug(&nested.par_iter().flatten_iter()));
    out.push(clone_debug(&v.par_iter().fold(|| 0, |a, _| a)));
    out.push(clone_debug(&v.par_iter().fold_with(0, |a, _| a)));
    out.push(clone_debug(&v.par_iter().try_fold(|| 0, |a, _| Some(a))));
    out.push(clone_debug(&v.par_iter().try_fold_with(0, |a, _| Some(a))));
    out.push(clone_debug(&v.par_iter().map_with(0, |_, &x| x)));
    out.push(clone_debug(&v.par_iter().map_init(|| 0, |_, &x| x)));
    out.push(clone_debug(&v.par_iter().fold_chunks(2, || 0, |a, _| a)));
    out.push(clone_debug(&v.par_iter().fold_chunks_with(2, 0, |a, _| a)));
    out.push(clone_debug(&v.par_iter().positions(|x: &u32| *x > 3)));
    out.push(clone_debug(&v.par_iter().map(|&x| Some(x)).while_some()));
    out.push(clone_debug(&v.par_iter().panic_fuse()));
    out.push(clone_debug(&v.par_iter().take_any(2)));
    out.push(clone_debug(&v.par_iter().skip_any(2)));
    out.push(clone_debug(&v.par_iter().take_any_while(p)));
    out.push(clone_debug(&v.par_iter().skip_any_while(p)));
    out.push(clone_debug(&v.par_iter().by_exponential_blocks()));
    out.push(clone_debug(&v.par_iter().by_uniform_blocks(3)));
    out.push(clone_debug(&rayon::iter::empty::<u32>()));
    out.push(clone_debug(&rayon::iter::once(1u32)));
    out.push(clone_debug(&rayon::iter::repeat(1u32)));
    out.push(clone_debug(&rayon::iter::repeat_n(1u32, 3)));
    out.push(clone_debug(&(&v, &w).into_par_iter()));
    out.push(clone_debug(&"a b".par_chars()));
    out.push(clone_debug(&"a b".par_char_indices()));
    out.push(clone_debug(&"a b".par_bytes()));
    out.push(clone_debug(&"a b".par_encode_utf16()));
    out.push(clone_debug(&"a b".par_split(' ')));
    out.push(clone_debug(&"a b".par_split_inclusive(' ')));
    out.push(clone_debug(&"a b".par_split_terminator(' ')));
    out.push(clone_debug(&"a b".par_lines()));
    out.push(clone_debug(&"a b".par_split_whitespace()));
    out.push(clone_debug(&"a b".par_split_ascii_whitespace()));
    out.push(clone_debug(&"a b".par_matches(' ')));
    out.push(clone_debug(&"a b".par_match_indices(' ')));
    assert!(out.iter().all(|s| !s.is_empty()));
    // Debug-only types (Rayon's are not Clone either).
    let mut m = v.clone();
    let _ = format!("{:?}", m.par_iter_mut());
    let _ = format!("{:?}", m.par_drain(..));
    let _ = format!("{:?}", vec![1u32].into_iter().par_bridge());
}

// ---------------------------------------------------------------------------------------
// Generic code written with exactly Rayon's impl bounds (hasher `S` unbounded, etc.)
// ---------------------------------------------------------------------------------------

mod rayon_bounds {
    use super::*;

    pub(super) fn hash_map<K: Send + Sync, V: Send + Sync, S>(m: &mut HashMap<K, V, S>) -> usize {
        let a = (&*m).into_par_iter().count();
        let b = m.par_iter().count();
        let c = m.par_iter_mut().count();
        let d = m.par_drain().count();
        a + b + c + d
    }
    pub(super) fn hash_map_owned<K: Send, V: Send, S>(m: HashMap<K, V, S>) -> usize {
        m.into_par_iter().count()
    }
    pub(super) fn hash_set<T: Send + Sync, S>(m: &mut HashSet<T, S>) -> usize {
        m.par_iter().count() + m.par_drain().count()
    }
    pub(super) fn hash_set_owned<T: Send, S>(m: HashSet<T, S>) -> usize {
        m.into_par_iter().count()
    }
    pub(super) fn btree<K: Send + Sync, V: Send + Sync>(
        m: &mut BTreeMap<K, V>,
        s: BTreeSet<K>,
    ) -> usize {
        m.par_iter().count()
            + m.par_iter_mut().count()
            + s.par_iter().count()
            + s.into_par_iter().count()
    }
    pub(super) fn btree_owned<K: Send, V: Send>(m: BTreeMap<K, V>) -> usize {
        m.into_par_iter().count()
    }
    pub(super) fn lists<T: Send + Sync>(l: &mut LinkedList<T>, d: &mut VecDeque<T>) -> usize {
        l.par_iter().count()
            + l.par_iter_mut().count()
            + d.par_iter().count()
            + d.par_iter_mut().count()
            + d.par_drain(..).count()
    }
    pub(super) fn lists_owned<T: Send>(l: LinkedList<T>, d: VecDeque<T>) -> usize {
        l.into_par_iter().count() + d.into_par_iter().count()
    }
    pub(super) fn heap<T: Ord + Send + Sync>(h: &mut BinaryHeap<T>) -> usize {
        h.par_iter().count() + h.par_drain().count()
    }
    pub(super) fn heap_owned<T: Send>(h: BinaryHeap<T>) -> usize {
        h.into_par_iter().count()
    }
    pub(super) fn option_result<T: Send + Sync, E>(
        o: &mut Option<T>,
        r: &mut Result<T, E>,
    ) -> usize {
        o.par_iter().count()
            + o.par_iter_mut().count()
            + r.par_iter().count()
            + r.par_iter_mut().count()
    }
    pub(super) fn option_result_owned<T: Send, E>(o: Option<T>, r: Result<T, E>) -> usize {
        o.into_par_iter().count() + r.into_par_iter().count()
    }
    pub(super) fn vec_array<T: Send + Sync, const N: usize>(
        v: &mut Vec<T>,
        a: &mut [T; N],
        b: Box<[T]>,
    ) -> usize {
        v.par_iter().count()
            + v.par_iter_mut().count()
            + a.par_iter().count()
            + a.par_iter_mut().count()
            + b.into_par_iter().count()
            + v.par_drain(..).count()
    }
    pub(super) fn array_owned<T: Send, const N: usize>(a: [T; N]) -> usize {
        a.into_par_iter().count()
    }
}

#[test]
fn generic_code_with_rayon_bounds() {
    let v = data(40, 17);
    let hm: HashMap<u32, u32> = v.iter().map(|&x| (x, x)).collect();
    let n = hm.len();
    assert_eq!(rayon_bounds::hash_map(&mut hm.clone()), 4 * n);
    assert_eq!(rayon_bounds::hash_map_owned(hm), n);
    let hs: HashSet<u32> = v.iter().copied().collect();
    let n = hs.len();
    assert_eq!(rayon_bounds::hash_set(&mut hs.clone()), 2 * n);
    assert_eq!(rayon_bounds::hash_set_owned(hs), n);
    let bm: BTreeMap<u32, u32> = v.iter().map(|&x| (x, x)).collect();
    let bs: BTreeSet<u32> = v.iter().copied().collect();
    let n = bm.len();
    assert_eq!(rayon_bounds::btree(&mut bm.clone(), bs), 4 * n);
    assert_eq!(rayon_bounds::btree_owned(bm), n);
    let l: LinkedList<u32> = v.iter().copied().collect();
    let d: VecDeque<u32> = v.iter().copied().collect();
    assert_eq!(
        rayon_bounds::lists(&mut l.clone(), &mut d.clone()),
        5 * v.len()
    );
    assert_eq!(rayon_bounds::lists_owned(l, d), 2 * v.len());
    let h: BinaryHeap<u32> = v.iter().copied().collect();
    assert_eq!(rayon_bounds::heap(&mut h.clone()), 2 * v.len());
    assert_eq!(rayon_bounds::heap_owned(h), v.len());
    assert_eq!(
        rayon_bounds::option_result(&mut Some(1u8), &mut Err::<u8, ()>(())),
        2
    );
    assert_eq!(
        rayon_bounds::option_result_owned(Some(1u8), Ok::<u8, ()>(2)),
        2
    );
    let mut arr = [1u8, 2, 3];
    assert_eq!(
        rayon_bounds::vec_array(&mut vec![1u8, 2], &mut arr, vec![1u8].into_boxed_slice()),
        2 + 2 + 3 + 3 + 1 + 2
    );
    assert_eq!(rayon_bounds::array_owned(arr), 3);
}

#[test]
fn multizip_arities_and_repeat_methods() {
    let a: Vec<u32> = data(30, 18);
    let one: rayon::iter::MultiZip<(VI<'_>,)> = (a.par_iter(),).into_par_iter();
    assert_eq!(one.map(|(x,)| *x).collect::<Vec<_>>(), a);
    let twelve = (&a, &a, &a, &a, &a, &a, &a, &a, &a, &a, &a, &a).into_par_iter();
    let sums: Vec<u32> = twelve
        .map(|(x0, x1, x2, x3, x4, x5, x6, x7, x8, x9, x10, x11)| {
            x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11
        })
        .collect();
    assert_eq!(sums, a.iter().map(|x| 12 * x).collect::<Vec<_>>());

    let r: rayon::iter::RepeatN<u32> = rayon::iter::repeat(3u32).take(4);
    assert_eq!(r.collect::<Vec<_>>(), vec![3; 4]);
    let z: rayon::iter::Zip<rayon::iter::RepeatN<u32>, rayon::range::Iter<u32>> =
        rayon::iter::repeat(1u32).zip(0..3u32);
    assert_eq!(z.collect::<Vec<_>>(), vec![(1, 0), (1, 1), (1, 2)]);
    let e: rayon::iter::Empty<u32> = rayon::iter::empty();
    assert_eq!(e.len(), 0);
    let o: rayon::iter::Once<u32> = rayon::iter::once(5);
    assert_eq!(o.len(), 1);
}

#[test]
fn multizip_by_reference() {
    let a = data(25, 19);
    let b = data(30, 20);
    let mut pair = (a.clone(), b.clone());
    let sums: Vec<u32> = (&pair).into_par_iter().map(|(x, y)| x + y).collect();
    assert_eq!(
        sums,
        a.iter().zip(&b).map(|(x, y)| x + y).collect::<Vec<_>>()
    );
    (&mut pair)
        .into_par_iter()
        .for_each(|(x, y)| std::mem::swap(x, y));
    let want_a: Vec<u32> = b[..25].to_vec();
    assert_eq!(pair.0, want_a);
    assert_eq!(&pair.1[..25], &a[..]);
    assert_eq!(&pair.1[25..], &b[25..]);
    let triple = (a.clone(), b.clone(), vec![1u32; 10]);
    let it: rayon::iter::MultiZip<(VI<'_>, VI<'_>, VI<'_>)> = (&triple).into_par_iter();
    assert_eq!(it.len(), 10);
    let it = (&triple).into_par_iter().rev().map(|(x, y, z)| x + y + z);
    assert_eq!(
        it.collect::<Vec<_>>(),
        a.iter()
            .zip(&b)
            .zip(&triple.2)
            .map(|((x, y), z)| x + y + z)
            .rev()
            .collect::<Vec<_>>()
    );
}

#[test]
fn adapters_stay_indexed_where_rayon_s_do() {
    fn len_of<I: rayon::iter::IndexedParallelIterator>(it: I) -> usize {
        it.len()
    }
    let v = data(40, 21);
    let w = data(30, 22);
    let n = v.len();
    assert_eq!(len_of(v.par_iter().chain(&w)), n + w.len());
    assert_eq!(len_of(v.par_iter().chunks(7)), n.div_ceil(7));
    assert_eq!(len_of(v.par_iter().cloned()), n);
    assert_eq!(len_of(v.par_iter().copied()), n);
    assert_eq!(len_of(rayon::iter::empty::<u8>()), 0);
    assert_eq!(len_of(v.par_iter().enumerate()), n);
    assert_eq!(
        len_of(v.par_iter().fold_chunks(7, || 0, |a, _| a)),
        n.div_ceil(7)
    );
    assert_eq!(
        len_of(v.par_iter().fold_chunks_with(7, 0, |a, _| a)),
        n.div_ceil(7)
    );
    assert_eq!(len_of(v.par_iter().inspect(|_| {})), n);
    assert_eq!(len_of(v.par_iter().interleave(&w)), n + w.len());
    // Alternate, starting with `v`, until the side whose turn it is has run out.
    let (mut a, mut b) = (v.iter(), w.iter());
    let mut shortest = 0;
    while a.next().is_some() {
        shortest += 1;
        std::mem::swap(&mut a, &mut b);
    }
    assert_eq!(len_of(v.par_iter().interleave_shortest(&w)), shortest);
    assert_eq!(len_of(v.par_iter().copied().intersperse(0)), 2 * n - 1);
    assert_eq!(len_of(v.par_iter().map(|x| x + 1)), n);
    assert_eq!(len_of(v.par_iter().map_init(|| 0, |_, x| *x)), n);
    assert_eq!(len_of(v.par_iter().map_with(0, |_, x| *x)), n);
    assert_eq!(len_of(v.par_iter().with_max_len(3)), n);
    assert_eq!(len_of(v.par_iter().with_min_len(3)), n);
    assert_eq!(len_of(rayon::iter::once(1u8)), 1);
    assert_eq!(len_of(v.par_iter().panic_fuse()), n);
    assert_eq!(len_of(rayon::iter::repeat_n(1u8, 9)), 9);
    assert_eq!(len_of(v.par_iter().rev()), n);
    assert_eq!(len_of(v.par_iter().skip(5)), n - 5);
    assert_eq!(len_of(v.par_iter().step_by(3)), n.div_ceil(3));
    assert_eq!(len_of(v.par_iter().take(5)), 5);
    assert_eq!(len_of(v.par_iter().copied().update(|_| {})), n);
    assert_eq!(len_of(v.par_iter().zip(&w)), w.len());
    assert_eq!(len_of(w.par_iter().zip_eq(&w)), w.len());
    assert_eq!(
        len_of(rayon::iter::Either::<VI<'_>, VI<'_>>::Left(v.par_iter())),
        n
    );
}

/// Rayon's deprecated unordered `find` and `position` still compile and behave as
/// `find_any` / `position_any`.
#[test]
#[allow(deprecated)]
fn deprecated_find_and_position() {
    let v = data(1000, 77);
    let t = v[321];
    let found = v.par_iter().find(|&&x| x == t);
    assert_eq!(found, Some(&t));
    assert_eq!(v.par_iter().find(|_| false), None);
    let at = v.par_iter().position(|&x| x == t).expect("t is in v");
    assert_eq!(v[at], t);
    assert_eq!(v.par_iter().position(|_| false), None);
}
