//! The suite's plumbing without MPI: a communicator over threads, three "ranks" exchanging
//! halos and reducing through the C table as a plugin sees it.

use super::*;
use crate::services::CallContext;
use flip_abi::SlabLayout;
use flip_comm::threads::ThreadComm;
use flip_comm::*;
use flip_sdk as sdk;

#[test]
fn slabs_cover_every_layer_once_with_ghosts_inside_the_grid() {
    for (dims, ghost) in [([5, 7, 1], 1), ([3, 4, 16], 2), ([2, 2, 9], 1)] {
        let axis = if dims[2] > 1 { 2 } else { 1 };
        for ranks in 1..=4 {
            let mut next = 0;
            for r in 0..ranks {
                let l = slab_layout(dims, ranks, r, ghost);
                assert_eq!((l.axis as usize, l.first as usize), (axis, next));
                assert!(l.first >= l.ghost_lo && l.ghost_lo as usize <= ghost);
                next += l.owned as usize;
                assert!(next + l.ghost_hi as usize <= dims[axis]);
            }
            assert_eq!(next, dims[axis], "{dims:?} on {ranks} ranks");
        }
    }
}

/// Rank `rank` of three: fills its owned cells with their global index, exchanges two ghost
/// layers and reduces through the suite as a plugin would; returns the field.
fn rank_body(comm: Arc<ThreadComm>) -> (SlabLayout, Vec<f64>) {
    let rank = comm.rank();
    let dist = Arc::new(Distribution::new(comm, [4, 9, 1], 2).expect("3 layers per slab"));
    let l = *dist.layout();
    let layer = l.layer_len();
    let lo = (l.first - l.ghost_lo) as usize * layer;
    let mut field: Vec<f64> = (0..l.local_layers() * layer)
        .map(|c| {
            let owned = l.owned_range().contains(&c);
            if owned {
                (lo + c) as f64
            } else {
                -1.0
            }
        })
        .collect();
    let ctx = CallContext::new(None, None).with_distribution(Some(dist));
    let table = ctx.services();
    // SAFETY: `table` and its context live until the end of the test.
    unsafe {
        sdk::services::with_services(table.table(), || {
            let d = sdk::distributed().expect("the suite is offered");
            assert_eq!((d.rank(), d.ranks(), *d.layout()), (rank, 3, l));
            d.halo_exchange(&mut field, 2).unwrap();
            assert_eq!(d.sum1(f64::from(rank)).unwrap(), 3.0);
            assert_eq!(
                d.max1(if rank == 1 { f64::NAN } else { 0.0 }).unwrap(),
                f64::INFINITY
            );
            let mut global = vec![0.0; 36];
            d.all_gather(&field, &mut global).unwrap();
            assert!(global.iter().enumerate().all(|(i, &v)| v == i as f64));
            assert!(
                d.halo_exchange(&mut field, 3).is_err(),
                "more layers than held"
            );
        });
    }
    (l, field)
}

#[test]
fn three_ranks_exchange_halos_reduce_and_gather_through_the_suite() {
    let handles: Vec<_> = ThreadComm::group(3)
        .into_iter()
        .map(|comm| std::thread::spawn(move || rank_body(comm)))
        .collect();
    for h in handles {
        let (l, field) = h.join().expect("rank finished");
        let lo = (l.first - l.ghost_lo) as usize * l.layer_len();
        for (c, &v) in field.iter().enumerate() {
            assert_eq!(v, (lo + c) as f64, "rank at layer {}: cell {c}", l.first);
        }
    }
}

#[test]
fn no_suite_is_offered_outside_a_distributed_solve_or_for_another_version() {
    let ctx = CallContext::new(None, None);
    let table = ctx.services();
    // SAFETY: `table` and its context live until the end of the test.
    unsafe {
        sdk::services::with_services(table.table(), || {
            assert!(sdk::distributed().is_none());
            assert!(sdk::services().suite(c"flipgraph.distributed", 1).is_none());
        });
    }
    let one = ThreadComm::group(1).remove(0);
    let dist = Arc::new(Distribution::new(one, [4, 4, 1], 1).unwrap());
    let ctx = CallContext::new(None, None).with_distribution(Some(dist));
    let table = ctx.services();
    // SAFETY: `table` and its context live until the end of the test.
    unsafe {
        sdk::services::with_services(table.table(), || {
            let s = sdk::services();
            assert!(s.suite(c"flipgraph.distributed", 1).is_some());
            assert!(s.suite(c"flipgraph.distributed", 2).is_none());
            assert!(s.suite(c"flipgraph.device", 1).is_none());
            assert!(
                sdk::distributed().is_none(),
                "one rank solves the ordinary way"
            );
        });
    }
}

/// Rank `rank` of three gathers a block of `rank + 1` values to rank 1, which sends each rank
/// back its block doubled; then the root's room is too small, and then it names bad lengths:
/// every rank learns of the failure and none waits.
fn rooted_body(comm: Arc<ThreadComm>) -> Vec<f64> {
    let rank = comm.rank();
    let dist = Arc::new(Distribution::new(comm, [4, 9, 1], 1).expect("3 layers per slab"));
    let ctx = CallContext::new(None, None).with_distribution(Some(dist));
    let table = ctx.services();
    // SAFETY: `table` and its context live until the end of the test.
    unsafe {
        sdk::services::with_services(table.table(), || {
            let d = sdk::distributed().expect("the suite is offered");
            assert!(d.has_rooted_blocks());
            let mine: Vec<f64> = (0..=rank).map(|i| f64::from(10 * rank + i)).collect();
            let mut all = vec![0.0; 6];
            let total = d.gather_blocks(1, &mine, &mut all).unwrap();
            assert_eq!(total, if rank == 1 { 6 } else { 0 });
            let doubled: Vec<f64> = all.iter().map(|v| 2.0 * v).collect();
            let mut back = vec![0.0; 3];
            let n = d
                .scatter_blocks(1, &doubled, &[1, 2, 3], &mut back)
                .unwrap();
            assert_eq!(n, rank as usize + 1);
            back.truncate(n);
            let mut small = vec![0.0; 5];
            let overflow = d.gather_blocks(1, &mine, &mut small);
            assert_eq!(overflow.is_err(), rank == 1, "only the root lacks room");
            let wrong = d.scatter_blocks(1, &doubled, &[1, 2], &mut [0.0; 3]);
            match rank {
                1 => assert!(wrong.is_err(), "two lengths for three ranks"),
                _ => assert_eq!(wrong.unwrap(), 0, "an empty block tells of the failure"),
            }
            back
        })
    }
}

#[test]
fn blocks_gather_to_one_rank_and_scatter_back() {
    let handles: Vec<_> = ThreadComm::group(3)
        .into_iter()
        .map(|comm| std::thread::spawn(move || rooted_body(comm)))
        .collect();
    let want = [vec![0.0], vec![20.0, 22.0], vec![40.0, 42.0, 44.0]];
    for (h, want) in handles.into_iter().zip(want) {
        assert_eq!(h.join().expect("rank finished"), want);
    }
}
